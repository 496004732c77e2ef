"""The project's shared vocabulary, in one place: word and message labels (Patel et al. 2013,
Table 1 and section 3), the combiner's decisions, the replacement tags, and the column
contracts of the files the commands write and read.

Everything here is plain data with no behaviour: every other module may import it.
"""

from __future__ import annotations

# Word labels (the paper's Table 1).
DICTIONARY, ANTI_DICTIONARY, AMBIGUOUS, UNKNOWN = "DICTIONARY", "ANTI_DICTIONARY", "AMBIGUOUS", "UNKNOWN"
WORD_LABELS = (DICTIONARY, ANTI_DICTIONARY, AMBIGUOUS, UNKNOWN)

# Message labels: TA = to anonymise, NTA = not to anonymise, UNTAGGED = Seek&Hide cannot say.
TA, NTA, UNTAGGED = "TA", "NTA", "UNTAGGED"
MESSAGE_LABELS = (TA, NTA, UNTAGGED)

# The combiner's decisions (the paper's Table 2): EXPERT sends the message to a human.
EXPERT = "EXPERT"
DECISIONS = (TA, NTA, EXPERT)

# Replacement tags (88milSMS's annotation guide) and what each one hides, in words.
TAG_WORDS = {
    "PRE": "first name", "NOM": "surname", "SUR": "nickname", "TEL": "phone number",
    "MEL": "e-mail address", "URL": "web address", "ADR": "postal address", "COD": "code",
    "LIE": "place", "MAR": "brand",
}
HIDE_TAGS = tuple(TAG_WORDS)
NAME_TAGS = ("PRE", "NOM")  # what the name dictionaries and the word scorer hide
DETECTOR_TAGS = ("TEL", "MEL", "URL", "ADR", "COD")  # what triage.text.detectors finds
# What `--hide` hides unless told otherwise: people, contact details and identifiers. Places
# (LIE) and brands (MAR), which 88milSMS's own guide hid, are hidden when asked.
DEFAULT_HIDE = ("PRE", "NOM", "SUR", "TEL", "MEL", "URL", "ADR", "COD")

Span = tuple[int, int, str]  # [start, end, TAG]: offsets into the message as written

# Column contracts of the files the commands write.
SEEK_COLUMNS = ("id", "text", "seekhide", "anonymised", "hidden", "highlighted")
WORD_COLUMNS = ("id", "start", "end", "word", "label", "rule", "match")
RISK_COLUMN = "risk"
CLASSIFY_COLUMNS = (
    "id", "text", "seekhide", "model", "score", "decision", "anonymised", "hidden", "highlighted", RISK_COLUMN,
)
#: What a classified file must hold to be read back (`risk` is optional: older files lack it).
CLASSIFIED_COLUMNS = tuple(column for column in CLASSIFY_COLUMNS if column != RISK_COLUMN)
#: The expert's queue: the message, what the machines propose to hide (the message with each hidden item marked
#: `[TAG: words]`, and the list of them), what to look at and why, and the expert's two columns.
QUEUE_COLUMNS = ("id", "text", "proposal", "machines_hide", "look_at", "why", "seekhide", "model", "score",
                 "expert_decision", "expert_hide")
#: Appended to the classified columns in the file `queue apply` writes.
FINAL_COLUMNS = ("final", "final_text")
