"""Named feature sets. `paper` is exactly the paper's Table 5; later sets extend it."""

PAPER = (
    "UpperCase",  # words starting with a capital letter
    "SMSLength",  # characters in the message
    "FirstName",  # words in the first-name dictionary
    "Countries",  # country names
    "Cities",  # French communes
    "WordLength",  # average word length
    "Numbers",  # runs of digits
    "Elongations",  # words with a letter repeated three times or more
    "Abbreviations",  # words of the SMS-forms lexicon
    "Punctuation",  # punctuation tokens
    "LEFFF",  # words of the inflected-forms lexicon
    "Pronouns",  # pronouns
)

# What Seek&Hide and the detectors already know about the message, plus cues that a
# candidate word is a person: "avec X", "chez X", "coucou X", "bisous X".
RICH = PAPER + (
    "DictionaryWords",  # Seek&Hide DICTIONARY words
    "AmbiguousWords",
    "UnknownWords",
    "CapitalisedCandidates",  # ambiguous/unknown/weak words capitalised mid-sentence
    "CuedCandidates",  # ambiguous/unknown words right after a person cue word
    "Detections",  # phones, e-mails, URLs, addresses, codes
    "BestNameRank",  # log10 rank of the commonest first name present (0 when none)
)

FEATURE_SETS = {"paper": PAPER, "rich": RICH}
