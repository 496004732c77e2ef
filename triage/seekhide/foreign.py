"""Messages written mostly in another language than French: the evidence of each word, and the
estimate that Seek&Hide's context step `other-language` and the review page's badge
(triage/seekhide/language.py) share.

Each word counts as French (an ordinary word of the French lexicons, accents and letter
repetitions aside: "bieeeen"), as another language's (a frequent word of English, Spanish, Italian,
Portuguese, German of Arabic written in Latin letters: OTHER_WORDS), as unknown (in no list:
SMS spellings are often unknown, so unknown word counts half); a name a number does not
count. A message is mostly in another language when it has at least MIN_WORDS words, at least
MIN_OTHER_WORDS words of another language (positive evidence: a French message of many SMS
spellings alone is not foreign), and its French words not outnumber the others.
"""

from __future__ import annotations

import re

from triage.lexicons import fold, spelling_key

# Frequent words of other languages that are no French words: the French lists hold some of them
# as spellings of their own ("the", "you", "for", anglicisms of SMS): here they always count as
# another language. Words that French also writes (a, de, la, que, con, fin, mille, bis, tres...)
# are left out, and so are the anglicisms French SMS use on their own (ok, cool, lol, bye, ciao).
_ENGLISH = """
i the you your yours and is are was were be been being have has had does did don't doesn't didn't i'm you're
it's that's what's i'll i've we're they're can't won't isn't wasn't aren't haven't couldn't wouldn't
shouldn't i'd you'll we'll they'll there's let's what when where who why how this that these those
with from of to in at it my we they she his her our their will would could should just know love see get
going got good time today tonight tomorrow yesterday yes yeah thanks thank please hello morning night now
here there not so all about out up back coming want need think really call work later soon well some one
too very much happy day week like make say said tell let because wanna gonna miss you'll sorry girl boy
for birthday talk friends last them am can its him if but than then also only still story
ever never always again maybe any every something nothing everything anything someone everyone
other another which while after before until since into over under through off down around
home house weekend month year years days weeks hours evening afternoon tomorrow's
next first little big great nice awesome amazing wonderful beautiful lovely funny fun crazy
ready late early right wrong best better worse worst bad sad glad happy tired busy free
goes went gone come comes came take took give bring brought leave left stay find found
keep buy bought send wait waiting looking look looks watch saw seen feel feeling hope
sleep slept eat ate drink meet play playing start started finish finished forget forgot
remember understand believe help try trying working doing making having getting
coffee dinner lunch breakfast party movie game school flight traffic weather
rain raining mom mum dad sister brother friend guys guy babe dear kids people
morning's sunshine tonight's everybody anyway though already yet soon
cheers omg thx pls plz gotta kinda dunno yep nope
""".split()
_SPANISH = """
hola gracias quiero quieres mucho mucha muchos pero muy bueno buena buenas buenos vamos donde dónde porque
tengo tienes tiene hay hasta luego manana mañana nada todo todos eres soy estoy estas estás esta está
ahora cuando amiga amigo amigos playa besos beso como cómo estamos vemos semana ayer hermano
hermana llama llamame llámame llegues feliz cumpleaños cumpleanos pases día puedo hablar trabajando
trabajo hoy siempre nunca también tambien adios adiós oye pues entonces aqui aquí noche
noches hacer tener quiere sabes bonita guapa chica chico contigo mejor esperando una uno
""".split()
_ITALIAN = """
bella bello come stai sto oggi voglio bene vediamo stasera grazie cena ieri ritardo arrivo dieci
minuti amore tesoro buongiorno buonanotte domani sempre tutto anche molto perché perche cosa dove
quando adesso allora andiamo fatto abbiamo siamo questo quello niente prego scusa baci bacio
""".split()
_PORTUGUESE = """
tudo bem saudades obrigado obrigada beijos beijo você voce muito não nao estou amanhã amanha hoje
sim tchau querida querido minha
""".split()
_GERMAN = """
ich liebe dich morgen wie geht dir heute und nicht ist das auf nein danke gut sehr
schön schon auch aber mein meine wir kann habe hast gute nacht bist wann warum jetzt noch
""".split()
# Arabic (mostly Maghrebi) written in Latin letters, as French SMS writers write it.
_ARABIC = """
salam khouya khoya khti hamdoulah hamdoullah hamdulillah hamdoulilah saha rabi rebbi habibi habibti
wach nti nta rak kifach kifech kidayr kidayra mzyan mzyana bslama nchoufek ghedda ghda ghadi yallah
wallah bzaf chwiya kayn makayn walou safi mabrouk choukran chokran shukran barakallah
inchallah inshallah nchallah zarma labes bikhir sahbi sahbti drari hchouma
""".split()
OTHER_WORDS = frozenset(_ENGLISH + _SPANISH + _ITALIAN + _PORTUGUESE + _GERMAN + _ARABIC)

# Words after which a name often follows in the other languages ("with X", "tell X", "con X"): in a
# message mostly in another language, a word after one of them, or after a French person cue of
# more than three letters (avec, chez, coucou, bisous...), is still a name candidate.
OTHER_CUES = frozenset("""
with and hi hey hello dear love thanks thank tell call ask meet from for see
hola con para y gracias besos amigo amiga
ciao con grazie baci
beijos com
salam khouya khti sahbi
""".split())
FRENCH_CUE_LENGTH = 4  # French cues this long or longer (avec, chez...) count in any language

#: A message is mostly in another language only with at least this many words...
MIN_WORDS = 4
#: ... and at least this many words of another language.
MIN_OTHER_WORDS = 2

FRENCH, OTHER, UNKNOWN, NOT_COUNTED = 0, 1, 2, 3
_REPEATS = re.compile(r"(.)\1{2,}")


def word_class(key: str, lexicons) -> int:
    """What a word (its spelling key, lower case) says of its message's language: OTHER (a word of
    OTHER_WORDS), FRENCH (an ordinary word of the French lexicons, letter repetitions aside), UNKNOWN
    (in no list) or NOT_COUNTED (a name, a number, no letter)."""
    early = _class_unlooked(key)
    if early is not None:
        return early
    name, ordinary = lexicons.lookup(key)
    if not (name or ordinary) and _REPEATS.search(key):
        for shorter in _without_repeats(key):
            name, ordinary = lexicons.lookup(shorter)
            if name or ordinary:
                break
    return _class_found(name, ordinary)


def word_classes(keys: list[str], lexicons) -> list[int]:
    """[word_class(key, lexicons) for key in keys], the lists asked about all the keys at once
    (Lexicons.lookup_many), then about the letter repetitions of those no list holds."""
    classes = list(map(_class_unlooked, keys))
    asked = [at for at, found in enumerate(classes) if found is None]
    found = _looked_up(lexicons, [keys[at] for at in asked])
    repeated = [k for k, at in enumerate(asked) if not any(found[k]) and _REPEATS.search(keys[at])]
    if repeated:  # once, else twice, each repeated letter (_without_repeats)
        once, twice = (_looked_up(lexicons, list(shorter))
                       for shorter in zip(*(_without_repeats(keys[asked[k]]) for k in repeated)))
        for k, first, second in zip(repeated, once, twice):
            found[k] = first if any(first) else second
    for at, (name, ordinary) in zip(asked, found):
        classes[at] = _class_found(name, ordinary)
    return classes  # type: ignore[return-value]


def _class_unlooked(key: str) -> int | None:
    """word_class of a key that no list need be asked about (a frequent word of another
    language, or no letter), else None."""
    if key in OTHER_WORDS:
        return OTHER
    if not any(ch.isalpha() for ch in key):
        return NOT_COUNTED
    return None


def _without_repeats(key: str) -> tuple[str, str]:
    """"bieeeen", "merciiii": each repeated letter once, then twice."""
    return _REPEATS.sub(r"\1", key), _REPEATS.sub(r"\1\1", key)


def _class_found(name: bool, ordinary: bool) -> int:
    """word_class of a key the lists hold as a name and/or an ordinary word (or neither)."""
    if ordinary:
        return FRENCH
    return NOT_COUNTED if name else UNKNOWN


def _looked_up(lexicons, keys: list[str]) -> list[tuple[bool, bool]]:
    """Lexicons.lookup of each key, (is a name, is an ordinary word), asked all at once."""
    if not keys:
        return []
    looked = lexicons.lookup_many(keys, [fold(key) for key in keys], remember=False)
    return list(zip(looked.in_names.tolist(), looked.in_anti.tolist()))


def is_cue(key: str, french_cues) -> bool:
    """Whether a name may follow the word (its key) in a message mostly in another language."""
    return key in OTHER_CUES or (len(key) >= FRENCH_CUE_LENGTH and key in french_cues)


def french_first(french, other, unknown):
    """The message's French words outnumber the others (an unknown word counting half)."""
    return french > other + unknown / 2


def mostly_other(french, other, unknown):
    """The estimate: a message with these counts (numbers, or numpy arrays of them: one per
    message) is mostly in another language; a tie is French."""
    return ((french + other + unknown >= MIN_WORDS) & (other >= MIN_OTHER_WORDS)
            & (other + unknown / 2 > french))


def key_of(word: str) -> str:
    """A word's spelling key, typographic apostrophes as straight ones."""
    return spelling_key(word.replace("’", "'"))
