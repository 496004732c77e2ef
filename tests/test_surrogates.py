"""The release's surrogates (triage.surrogates): nothing of the original survives in its surrogate
but its shape, and a surrogate names nobody the corpus names."""

import re
import unicodedata

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from triage.surrogates import Surrogates

ACCENTED = "àâäçéèêëîïôöùûüÿÀÂÄÇÉÈÊËÎÏÔÖÙÛÜ"
LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def fold(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text.casefold()) if not unicodedata.combining(c))


def alnum(text: str) -> str:
    return "".join(c for c in fold(text) if c.isalnum())


def runs(text: str, size: int = 3) -> set[str]:
    text = alnum(text)
    return {text[i:i + size] for i in range(len(text) - size + 1)}


def shape(text: str) -> str:
    """d for a digit, A / a for an upper / lower case letter, any other character itself."""
    return "".join("d" if c.isdigit() else "A" if c.isalpha() and c.isupper() else "a" if c.isalpha() else c
                   for c in text)


# ---------------------------------------------------------------- codes


def test_a_codes_accented_letters_are_replaced_by_letters():
    surrogate = Surrogates(seed=0).replace("COD", "çàéè77")
    assert shape(surrogate) == "aaaadd"
    assert surrogate.isascii() and all(fold(a) != fold(b) for a, b in zip(surrogate, "çàéè77"))


def test_a_longer_code_does_not_reuse_a_shorter_codes_surrogate():
    surrogates = Surrogates(seed=0)
    short = surrogates.replace("COD", "A1")
    longer = surrogates.replace("COD", "AAA111")
    assert shape(longer) == "AAAddd"
    assert not longer.startswith(short) and "A111" not in longer and "111" not in longer


codes = st.text(alphabet=LETTERS + ACCENTED + "0123456789" + " -./", min_size=1, max_size=30).filter(
    lambda code: any(c.isalnum() for c in code))


@settings(max_examples=300, deadline=None)
@given(st.lists(codes, min_size=1, max_size=6), st.integers(0, 10))
def test_a_code_keeps_its_shape_and_nothing_else(originals, seed):
    surrogates = Surrogates(seed=seed)
    for original in originals:
        surrogate = surrogates.replace("COD", original)
        assert shape(surrogate) == shape(original)
        assert all(fold(a) != fold(b) for a, b in zip(surrogate, original) if a.isalnum())
        assert not runs(surrogate) & runs(original), (original, surrogate)
    for original in originals:  # one entity, one surrogate
        assert surrogates.replace("COD", original) == Surrogates(seed=seed, known=surrogates.mapping).replace(
            "COD", original)


phones = st.builds(
    lambda prefix, kind, digits, sep: prefix + sep.join([kind[0] if prefix else "0" + kind[0]]
                                                        + [digits[i:i + 2] for i in range(0, 8, 2)]),
    st.sampled_from(["", "+33 ", "0033 "]), st.sampled_from("1234567989"),
    st.text(alphabet="0123456789", min_size=8, max_size=8), st.sampled_from([" ", ".", "-", ""]))


@settings(max_examples=300, deadline=None)
@given(st.lists(phones, min_size=1, max_size=6), st.integers(0, 10))
def test_a_phone_keeps_its_kind_and_layout_and_none_of_its_digits(originals, seed):
    surrogates = Surrogates(seed=seed)
    for original in originals:
        surrogate = surrogates.replace("TEL", original)
        assert shape(surrogate) == shape(original)
        national = re.sub(r"\D", "", surrogate)[-9:]
        kind = re.sub(r"\D", "", original)[-9]
        assert national[0] == ("6" if kind in "67" else kind)  # a mobile stays a mobile, a landline a landline
        assert surrogate.startswith(re.match(r"(\+33 |0033 )?", original).group(0))  # +33 6 stays +33 6
        drawn = national[-4:]  # the fiction ranges fix the first digits: the last four are drawn
        assert all(a != b for a, b in zip(drawn, re.sub(r"\D", "", original)[-4:]))
        assert not runs(national[3:]) & runs(re.sub(r"\D", "", original)[-9:])  # the country code is no one's


# ---------------------------------------------------------------- names the corpus already holds


def test_a_surrogate_is_never_a_form_to_avoid():
    plain = Surrogates(seed=0)
    drawn = {(tag, name): plain.replace(tag, name) for tag, name in
             [("PRE", "Nicolas"), ("PRE", "Julie"), ("NOM", "Martin"), ("LIE", "Brest"), ("SUR", "juju")]}
    avoid = {surrogate.upper() for surrogate in drawn.values()}  # compared case and accent folded
    careful = Surrogates(seed=0, avoid=avoid)
    for (tag, name), surrogate in drawn.items():
        again = careful.replace(tag, name)
        assert fold(again) != fold(surrogate) and fold(again) not in {fold(form) for form in avoid}


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["Nicolas", "Julie", "Kevin", "Marie", "Thomas", "Léa", "Paul", "Inès"]),
                min_size=1, max_size=5, unique=True), st.integers(0, 1000))
def test_a_first_names_surrogate_is_no_name_of_the_corpus(names, seed):
    """A message `Salut <name> c'est <name>...` hides every name: none comes back as another's surrogate."""
    from triage.surrogates import forms_to_avoid

    text = "Salut " + " et ".join(names) + " et bisous"
    spans, at = [], len("Salut ")
    for name in names:
        spans.append((at, at + len(name), "PRE"))
        at += len(name) + len(" et ")
    avoid = forms_to_avoid([(text, spans), ("Pierre a dit oui", [])])
    assert {"salut", "et", "bisous", "pierre", "a", "dit", "oui"} | {fold(n) for n in names} <= avoid
    surrogates = Surrogates(seed=seed, avoid=avoid)
    for name in names:
        assert fold(surrogates.replace("PRE", name)) not in avoid


def test_the_release_gives_the_surrogates_the_corpus_words_and_hidden_names(cli, monkeypatch, tmp_path):
    """run_release hands the replacer every readable word and every hidden original, and no
    surrogate it saves is one of them."""
    from triage.publication import corpus as release_corpus
    from triage.review_workspace import Workspace

    corpus = tmp_path / "sms.csv"
    corpus.write_text("id,text\n1,Rendez-vous demain devant la gare avec Mathilde\n"
                      "2,Salut Bertrand tu peux appeler Mathilde au 06 21 43 65 87\n3,ok merci beaucoup\n",
                      encoding="utf-8")
    classified, ws = tmp_path / "sms.classified.csv", tmp_path / "sms.review.sqlite"
    assert cli("classify", corpus, "-o", classified, "--workspace", ws).exit_code == 0
    seen = {}
    real = release_corpus.replacer

    def spying(style, seed=0, known=None, *args, **kwargs):
        made = real(style, seed, known, *args, **kwargs)
        seen["avoid"] = getattr(made, "avoid", set())
        return made

    monkeypatch.setattr(release_corpus, "replacer", spying)
    release_corpus.run_release(classified, tmp_path / "out.csv", workspace=ws, style="surrogates",
                               withhold_undecided=True)
    with Workspace.open(ws) as opened:
        rows = list(opened.final())
        mapping = opened.surrogate_map()
    hidden = {fold(row.text[start:end]) for row in rows for start, end, _ in row.spans}
    assert {"rendez", "vous", "demain", "merci"} <= seen["avoid"] and hidden <= seen["avoid"]
    assert mapping and not {fold(surrogate) for surrogate in mapping.values()} & seen["avoid"]


# ---------------------------------------------------------------- first names keep their sex


def _majority_sexes() -> dict[str, str]:
    """The sex of each common first name as the shipped lists give it, the majority one for a name
    both sexes bear."""
    import json

    from triage.lexicons import DICTIONARIES_DIR

    majority = json.loads((DICTIONARIES_DIR / "first_name_sexes.json").read_text("utf-8"))
    lines = (DICTIONARIES_DIR / "names" / "first_names.tsv").read_text("utf-8").splitlines()[1:8001]
    sexes = {}
    for line in lines:
        name, _id, _rank, sex = line.split("\t")
        sexes[name] = majority[name] if len(sex) > 1 else sex  # by spelling: Mae (F) is not Maé (M)
    return sexes


def test_the_commonest_first_names_have_their_majority_sex():
    sexes = _majority_sexes()
    assert [sexes[n] for n in ("Marie", "Jeanne", "Camille", "Jean", "Pierre", "Nicolas")] == list("FFFMMM")
    assert (sexes["Mae"], sexes["Maé"]) == ("F", "M")  # one spelling each, accents kept


def test_a_surrogate_spelt_like_a_name_of_the_other_sex_but_for_its_accents_keeps_the_sex():
    surrogate = Surrogates(seed=705).replace("PRE", "Léa")  # Mae here: a girl's name, where Maé is a boy's
    assert fold(surrogate) == "mae" and _majority_sexes()[surrogate] == "F"


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["Marie", "Jeanne", "Anne", "Camille", "Julie", "Léa", "Jean", "Pierre", "Michel",
                        "Nicolas", "Claude", "Dominique", "Paul", "Louis", "Kevin"]), st.integers(0, 10_000))
def test_a_first_names_surrogate_has_its_sex(name, seed):
    sexes = _majority_sexes()
    surrogate = Surrogates(seed=seed).replace("PRE", name)
    assert sexes.get(surrogate, sexes[name]) == sexes[name], (name, surrogate)


# ---------------------------------------------------------------- e-mails, web addresses, postal codes

EXAMPLE = r"example\.(?:org|com|net)"


def runs_shape(local: str) -> list[str]:
    """The local part of an address as its runs: a word, a number of n digits, each separator."""
    return ["w" if run[0].isalpha() and len(run) > 2 else f"i{len(run)}" if run[0].isalpha()
            else f"d{len(run)}" if run[0].isdigit() else run
            for run in re.findall(r"[^\W\d_]+|\d+|[\W_]+", local)]


words = st.text(alphabet="abcdefghijklmnopqrstuvwxyzéè", min_size=1, max_size=10)
emails = st.builds(
    lambda parts, seps, number, domain: "".join(p + s for p, s in zip(parts, seps + [""])) + number + "@" + domain,
    st.lists(words, min_size=1, max_size=3), st.lists(st.sampled_from([".", "_", "-"]), min_size=2, max_size=2),
    st.sampled_from(["", "93", "2007"]), st.sampled_from(["gmail.com", "orange.fr", "free.fr", "laposte.net"]))


@settings(max_examples=200, deadline=None)
@given(emails, st.integers(0, 1000))
@example("cprmquopzp-2007@free.fr", 0)  # the drawn first name had two letters: it read as initials
def test_an_email_stays_an_email_of_the_same_shape_on_an_example_domain(original, seed):
    surrogate = Surrogates(seed=seed).replace("MEL", original)
    local = original.split("@")[0]
    assert re.fullmatch(r"[\w.+-]+@" + EXAMPLE, surrogate), surrogate
    assert runs_shape(surrogate.split("@")[0]) == runs_shape(local)
    assert not runs(surrogate.split("@")[0]) & runs(local)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["", "http://", "https://"]), st.sampled_from(["", "www."]),
       st.sampled_from(["leboncoin.fr", "bit.ly", "monsite-perso.free.fr"]),
       st.sampled_from(["", "/", "/annonces/12345.htm", "/julie.martin/"]), st.integers(0, 1000))
def test_a_web_address_stays_a_web_address_of_the_same_shape(scheme, www, host, path, seed):
    surrogate = Surrogates(seed=seed).replace("URL", scheme + www + host + path)
    match = re.fullmatch(r"((?:https?://)?)((?:www\.)?)" + EXAMPLE + r"(/.*)?", surrogate)
    assert match, surrogate
    assert match.group(1) == scheme and match.group(2) == www
    assert bool(match.group(3)) == bool(path) and (match.group(3) or "").endswith("/") == path.endswith("/")
    assert host.split(".")[0] not in surrogate and "julie" not in surrogate


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="0123456789", min_size=5, max_size=5), st.integers(0, 1000))
def test_a_postal_code_stays_five_digits(code, seed):
    surrogate = Surrogates(seed=seed).replace("COD", code)
    assert re.fullmatch(r"\d{5}", surrogate) and not runs(surrogate) & runs(code)


# ---------------------------------------------------------------- one entity, one surrogate


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["PRE", "NOM", "COD", "TEL", "MEL", "URL"]), codes), min_size=1,
                max_size=8), st.integers(0, 1000), st.sets(st.sampled_from(["julie", "martin", "brest", "thomas"])))
def test_the_same_entity_keeps_its_surrogate_across_the_corpus_and_releases(items, seed, avoid):
    first = Surrogates(seed=seed)
    released = [first.replace(tag, original) for tag, original in items]
    assert released == [first.replace(tag, original) for tag, original in items]  # later in the corpus
    again = Surrogates(seed=seed + 1, known=dict(first.mapping), avoid=avoid)  # the next release
    assert released == [again.replace(tag, original) for tag, original in items]
    phones = Surrogates(seed=seed)
    national = phones.replace("TEL", "06 12 34 56 78")
    assert phones.replace("TEL", "+33 6 12 34 56 78") == "+33 " + national[1:]
    assert phones.replace("COD", "ab12") == phones.replace("COD", "AB12").lower()


def test_codes_that_differ_by_a_repeated_character_are_two_entities():
    from triage.publication.corpus import Pseudonyms

    pseudonyms = Pseudonyms()
    assert pseudonyms.replace("COD", "A1") != pseudonyms.replace("COD", "AAA111")
    assert pseudonyms.replace("PRE", "Nicolas") == pseudonyms.replace("PRE", "nicooolas")


# ---------------------------------------------------------------- a surrogate never names another person


def _release_with_sender(cli, tmp_path, sender: str, name: str = "s"):
    """A small corpus whose messages name Julie and whose sender column holds `sender`, released
    with surrogates (its sender column kept); (released rows, datasheet, workspace)."""
    import csv
    import json

    folder = tmp_path / name
    folder.mkdir()
    corpus = folder / "sms.csv"
    corpus.write_text("id,sender,text\n"
                      f"1,{sender},Salut Julie on se voit demain a la gare\n"
                      f"2,{sender},ok merci beaucoup pour tout\n"
                      f"3,{sender},Julie tu viens ce soir ?\n", encoding="utf-8")
    classified, ws, out = folder / "c.csv", folder / "ws.sqlite", folder / "r.csv"
    assert cli("classify", corpus, "-o", classified, "--workspace", ws, "--no-chart").exit_code == 0
    result = cli("release", classified, "--workspace", ws, "-o", out, "--style", "surrogates",
                 "--withhold-undecided", "--columns", "sender")
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(open(out, encoding="utf-8")))
    return rows, json.loads((folder / "r.datasheet.json").read_text("utf-8")), ws


def test_no_surrogate_is_a_name_the_release_hides_in_another_column(cli, tmp_path):
    """Julie's surrogate, drawn in a corpus whose sender column names someone else, is never that
    someone: a sender column naming the very surrogate drawn before makes the draw go elsewhere."""
    rows, _, _ = _release_with_sender(cli, tmp_path, "Paul Durand", "first")
    drawn = rows[0]["text"].split()[1]  # Salut <surrogate of Julie> ...
    assert fold(drawn) != "julie"
    rows, sheet, _ = _release_with_sender(cli, tmp_path, f"{drawn} Durand", "second")
    assert sheet["hidden_in_columns"]["sender"].get("PRE")  # the machines hid the sender's first name
    released = " ".join(row["text"] + " " + row["sender"] for row in rows)
    assert fold(drawn) not in {fold(word) for word in re.findall(r"\w+", released)}, released


def test_an_earlier_surrogate_that_is_a_name_the_release_hides_is_drawn_again(cli, tmp_path):
    from triage.review_workspace import Workspace

    rows, _, ws = _release_with_sender(cli, tmp_path, "Sophie Durand")
    with Workspace.open(ws) as opened:
        entity = next(key for key in opened.surrogate_map() if key[0] == "PRE" and key[1] == "julie")
        opened.save_surrogate_map({entity: "Sophie"}, 0, redrawn={entity})  # as if an earlier release drew it
    out = tmp_path / "again.csv"
    assert cli("release", tmp_path / "s" / "c.csv", "--workspace", ws, "-o", out, "--style", "surrogates",
               "--withhold-undecided", "--columns", "sender").exit_code == 0
    assert "sophie" not in out.read_text("utf-8").lower()
    with Workspace.open(ws) as opened:
        assert fold(opened.surrogate_map()[entity]) != "sophie"  # the new surrogate is kept


def test_an_earlier_surrogate_equal_to_a_word_another_column_shows_is_drawn_again(cli, tmp_path):
    """The consistency check reads the messages: a kept surrogate equal to a word only another column
    shows (a sender's name the machines left readable) is drawn again."""
    from triage.review_workspace import Workspace

    rows, sheet, ws = _release_with_sender(cli, tmp_path, "Foulques Durand")
    assert "Foulques" in rows[0]["sender"]  # left readable by the machines in that column
    with Workspace.open(ws) as opened:
        entity = next(key for key in opened.surrogate_map() if key == ("PRE", "julie"))
        opened.save_surrogate_map({entity: "Foulques"}, 0, redrawn={entity})
    out = tmp_path / "again.csv"
    assert cli("release", tmp_path / "s" / "c.csv", "--workspace", ws, "-o", out, "--style", "surrogates",
               "--withhold-undecided", "--columns", "sender").exit_code == 0
    import csv

    texts = " ".join(row["text"] for row in csv.DictReader(open(out, encoding="utf-8")))
    assert "foulques" not in texts.lower(), texts


def test_a_kept_surrogate_equal_to_a_hidden_name_is_dropped_and_redrawn():
    careful = Surrogates(seed=0, known={("PRE", "nicolas"): "Julie", ("PRE", "marc"): "Paul"},
                         hidden={"JULIE", "Martin"})
    assert careful.dropped == {("PRE", "nicolas")}
    assert fold(careful.replace("PRE", "Nicolas")) not in {"julie", "nicolas"}
    assert careful.replace("PRE", "Marc") == "Paul"  # an earlier surrogate that hides nobody stays


@settings(max_examples=50, deadline=None)
@given(st.lists(st.sampled_from(["Julie", "Kevin", "Sophie", "Nicolas", "Karim", "Manon", "Lucas", "Chloé",
                                 "Marie", "Thomas", "Léa", "Paul"]), min_size=1, max_size=8, unique=True),
       st.integers(0, 1000))
def test_no_fresh_surrogate_is_a_hidden_name(hidden, seed):
    from triage.surrogates import hidden_forms

    forms = hidden_forms([(" ".join(hidden), [(0, len(" ".join(hidden)), "PRE")])])
    surrogates = Surrogates(seed=seed, hidden=forms)
    for original in ("Nicolas", "Julie", "Bertrand", "Emma", "Chloé"):
        assert fold(surrogates.replace("PRE", original)) not in {fold(name) for name in hidden}


@pytest.mark.parametrize("nickname", ["lolo", "juju", "Nono", "BIBI", "loulou", "mimi", "toto"])
@pytest.mark.parametrize("seed", range(5))
def test_a_doubled_nickname_gets_a_doubled_nickname_as_long(nickname, seed):
    surrogate = Surrogates(seed=seed).replace("SUR", nickname)
    half = len(nickname) // 2
    assert len(surrogate) == len(nickname), surrogate
    assert fold(surrogate[:half]) == fold(surrogate[half:]) and fold(surrogate) != fold(nickname)
    assert any(c in "aeiouy" for c in fold(surrogate[:half])) and surrogate.isalpha()


def test_the_names_hidden_in_a_withheld_rows_columns_are_no_surrogate_either(cli, monkeypatch, tmp_path):
    """A withheld message (queued, undecided) is not released, but the people its other columns name
    are hidden people too: no surrogate may be their name."""
    import csv

    from triage.publication import corpus as release_corpus
    from triage.review_workspace import Workspace

    senders = ["Julie Durand", "Sophie Martin", "Thomas Bernard", "Manon Petit", "Lucas Robert", "Camille Richard"]
    texts = ["Salut Nicolas tu viens ce soir ?", "ok merci beaucoup", "appelle moi au 06 12 34 56 78",
             "Kevin arrive a la gare demain", "je mange des pates", "bisous a Emma et a Hugo"]
    corpus = tmp_path / "sms.csv"
    with open(corpus, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "sender", "text"])
        writer.writerows([str(i), sender, text] for i, (sender, text) in enumerate(zip(senders, texts)))
    classified, ws = tmp_path / "c.csv", tmp_path / "ws.sqlite"
    assert cli("classify", corpus, "-o", classified, "--workspace", ws, "--no-chart", "--expert-budget", "2").exit_code == 0
    with Workspace.open(ws) as opened:
        withheld = [row.id for row in opened.final() if row.route == "undecided"]
    assert withheld
    seen = {}
    real = release_corpus.replacer

    def spying(style, seed=0, known=None, avoid=(), hidden=(), *rest):
        seen["hidden"] = set(hidden)
        return real(style, seed, known, avoid, hidden, *rest)

    monkeypatch.setattr(release_corpus, "replacer", spying)
    release_corpus.run_release(classified, tmp_path / "out.csv", workspace=ws, style="surrogates",
                               withhold_undecided=True, columns=["sender"])
    from triage.surrogates import _collapsed

    for ident in withheld:
        first_name = _collapsed(senders[int(ident)].split()[0])  # as the hidden forms are kept: Camille, camile
        assert first_name in seen["hidden"], (ident, first_name)


# Ordinary French words a doubled syllable or a cut name can spell: never a nickname's surrogate.
WORDS_NOT_NICKNAMES = {"mama", "papa", "tete", "bebe", "caca", "pipi", "dodo", "lala", "nana", "zizi", "tata",
                       "tonton", "bonbon", "couscous", "mat", "lut", "zor", "esth", "jenn", "dave"}


@pytest.mark.parametrize("nickname", ["Juju", "Titi", "Lolo", "Kiki", "Mimi", "Doudou", "Chouchou", "Bébert",
                                      "Max", "Steph", "Nico", "Caro", "Flo", "Pitchoune", "Seb", "Manu"])
@pytest.mark.parametrize("seed", range(8))
def test_a_nickname_surrogate_looks_like_a_nickname(nickname, seed):
    from triage.surrogates import NICKNAMES

    surrogate = Surrogates(seed=seed).replace("SUR", nickname)
    assert fold(surrogate) not in WORDS_NOT_NICKNAMES, surrogate
    assert fold(surrogate) != fold(nickname)
    half = len(nickname) // 2
    if len(nickname) >= 4 and fold(nickname[:half]) == fold(nickname[half:]):
        assert len(surrogate) == len(nickname) and fold(surrogate[:half]) == fold(surrogate[half:])
    else:
        assert fold(surrogate) in {fold(n) for n in NICKNAMES}, surrogate
    assert surrogate[:1].isupper()
