"""Seek&Hide on a batch of messages (Patel et al. 2013, section 3): one entry per token in
named arrays, the context rules (triage/seekhide/context.py) applied to all words at once, the
message labels, what is hidden and the replacement codes."""

from __future__ import annotations

import hashlib
import unicodedata
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from triage.schema import AMBIGUOUS, MESSAGE_LABELS, UNKNOWN
from triage.seekhide.columns import spelling_column
from triage.seekhide.context import Context, any_of, apply_rules
from triage.seekhide.known import KNOWN_TAGS
from triage.seekhide.rules import _KNOWN_RULE, _TITLE_RULE, RULES, SURNAME_CODES
from triage.seekhide.spelling_batch import fold_many, members
from triage.seekhide.table import (
    K_DETECTED,
    K_EMOTICON,
    K_PUNCT,
    K_WORD,
    KINDS,
    L_AMBIGUOUS,
    L_ANTI,
    L_DICTIONARY,
    L_UNKNOWN,
    LABELS,
    Spellings,
    _Arrays,
)
from triage.text.normalise import grapheme_spans
from triage.text.tokenise import DETECTED, WORD, Token

if TYPE_CHECKING:
    from collections.abc import Callable

    from triage.seekhide.words import WordLabeller


class Word(NamedTuple):
    start: int
    end: int
    text: str
    label: str
    rule: str
    match: str
    sentence_start: bool = False  # first word of the message or after . ! ? … or an emoticon
    before_punctuation: bool = False  # directly followed by punctuation ("ça va Aude ?")


@dataclass
class SeekResult:
    label: str  # TA, NTA or UNTAGGED
    words: list[Word]
    tokens: list[Token]
    detections: list[Token]
    hidden: list[tuple[int, int, str]]  # [start, end, TAG] offsets into the original text
    anonymised: str

    @property
    def highlighted(self) -> list[str]:
        """The words a human should look at: ambiguous or unknown."""
        return [w.text for w in self.words if w.label in (AMBIGUOUS, UNKNOWN)]


def stable_id(tag: str, spelling: str) -> int:
    """A cross-reference id for items outside the dictionary: the same spelling gives the
    same id in every run (7 digits, so it cannot be mistaken for a dictionary id)."""
    digest = hashlib.blake2b(f"{tag}:{spelling.lower()}".encode(), digest_size=8).digest()
    return 1_000_000 + int.from_bytes(digest, "big") % 9_000_000


def code(tag: str, surface: str, ident: int) -> str:
    """<TAG_length_id>; the length is counted composed (NFC), so that an item has the same code
    however its accents were typed, even when Seek&Hide is called on text as written."""
    length = len(surface) if surface.isascii() else len(unicodedata.normalize("NFC", surface))
    return f"<{tag}_{length}_{ident}>"


def hidden_json(hidden: list[tuple[int, int, str]]) -> str:
    """The JSON list [[start, end, "TAG"], ...] (tags are plain ASCII: no escaping needed)."""
    return "[" + ", ".join(f'[{start}, {end}, "{tag}"]' for start, end, tag in hidden) + "]"


@spelling_column("seekhide.tag", object)
def _spelling_tags(table: Spellings, sids: np.ndarray) -> list[str]:
    """The tag of the spellings `sids` as Seek&Hide hides them: a detector's, or for a
    DICTIONARY word the list entry's of its match (Lexicons.name_entry: first names win
    over surnames); "" for the others (never hidden but after a title, as NOM)."""
    lexicons = table.lexicons
    tags = [table.tags[s] for s in sids.tolist()]
    named = np.flatnonzero(table.numpy().label[sids] == L_DICTIONARY).tolist()
    keys = [table.infos[sids[i]].match for i in named]
    listed = members(lexicons.first_names, keys) | members(lexicons.last_names, keys)
    unlisted = np.flatnonzero(~listed).tolist()
    for i, folded in zip(unlisted, fold_many([keys[i] for i in unlisted])):
        keys[i] = lexicons.folded_names.get(folded, folded)
    surname = ~members(lexicons.first_names, keys) & members(lexicons.last_names, keys)
    for i, is_surname in zip(named, surname.tolist()):
        tags[i] = "NOM" if is_surname else "PRE"
    return tags


@dataclass
class Analysis:
    """Seek&Hide's view of a batch of messages: one entry per token in the arrays, the
    tokens of message i at positions bounds[i]:bounds[i + 1]. Word labels and rules are
    in context (codes into LABELS and RULES; -1 for tokens that are not words)."""

    labeller: WordLabeller  # the lexicons and the steps switched on (is_on) it was made with
    hider: Callable[[str, list], str]  # a text with spans hidden by their codes (SeekAndHide.hide)
    spellings: Spellings
    texts: list[str]
    spelling: np.ndarray  # spelling id of each token (into Spellings)
    start: np.ndarray
    end: np.ndarray
    message: np.ndarray  # index of the token's message
    kind: np.ndarray  # code into KINDS
    label: np.ndarray
    rule: np.ndarray
    sentence_start: np.ndarray
    before_punctuation: np.ndarray
    bounds: np.ndarray
    labels: np.ndarray  # per message: code into MESSAGE_LABELS
    # per token, the tag of a known name (a code into KNOWN_TAGS; -1 for none); None without known names
    known_tag: np.ndarray | None = None
    _hidden: list | None = field(default=None, repr=False)

    @classmethod
    def build(cls, labeller, hider, table, texts, sid, start, end, message, in_compound, columns: _Arrays) -> Analysis:
        kind = columns.kind[sid]
        is_word = kind == K_WORD
        n = len(sid)

        # Sentence starts: look at the previous word, sentence end or emoticon in the message.
        event = np.flatnonzero(is_word | (kind == K_EMOTICON) | columns.sentence_end[sid])
        event_is_word, event_message = is_word[event], message[event]
        opens = event_is_word.copy()  # a word after no word of its message
        opens[1:] &= ~event_is_word[:-1] | (event_message[:-1] != event_message[1:])
        sentence_start = np.zeros(n, dtype=bool)
        sentence_start[event[opens]] = True

        before_punctuation = np.zeros(n, dtype=bool)
        before_punctuation[:-1] = is_word[:-1] & (kind[1:] == K_PUNCT) & (message[1:] == message[:-1])

        # The context rules (triage/seekhide/context.py), on the words.
        words = np.flatnonzero(is_word)
        ws = sid[words]
        c = Context(labeller, table, columns, position=words, spelling=ws, message=message[words],
                    in_compound=in_compound[words], capitalised=columns.capitalised[ws],
                    sentence_start=sentence_start[words], label=columns.label[ws], rule=columns.rule[ws])
        apply_rules(c)
        word_label = c.label
        label = np.full(n, -1, dtype=np.int8)
        rule = np.full(n, -1, dtype=np.int16)
        label[words], rule[words] = word_label, c.rule

        # Message labels: TA with a detector hit or a dictionary word; NTA when every word
        # is an ordinary word; UNTAGGED otherwise.
        m = len(texts)
        to_hide = np.bincount(message[(kind == K_DETECTED) | (label == L_DICTIONARY)], minlength=m) > 0
        unsettled = np.bincount(message[words[word_label != L_ANTI]], minlength=m) > 0
        labels = np.where(to_hide, 0, np.where(unsettled, 2, 1)).astype(np.int8)
        bounds = np.zeros(m + 1, dtype=np.int64)
        np.cumsum(np.bincount(message, minlength=m), out=bounds[1:])
        known_tag = None
        if table.known is not None:
            known_tag = np.full(n, -1, dtype=np.int8)
            known_tag[words] = c.known_tag
        return cls(labeller, hider, table, texts, sid, start, end, message, kind, label, rule,
                   sentence_start, before_punctuation, bounds, labels, known_tag)

    def __len__(self) -> int:
        return len(self.texts)

    def message_label(self, i: int) -> str:
        return MESSAGE_LABELS[self.labels[i]]

    def message_labels(self) -> list[str]:
        """The label of each message (message_label), in order."""
        return list(map(MESSAGE_LABELS.__getitem__, self.labels.tolist()))

    def match(self, t: int) -> str:
        """The dictionary spelling a word token was matched to."""
        if self.rule[t] == _TITLE_RULE:
            return self.texts[self.message[t]][self.start[t] : self.end[t]].lower()
        return self.spellings.infos[self.spelling[t]].match

    def per_message(self, positions: np.ndarray) -> np.ndarray:
        """Where each message's share of sorted token `positions` begins and ends (n + 1 cuts)."""
        cuts = np.zeros(len(self.bounds), dtype=np.int64)
        np.cumsum(np.bincount(self.message[positions], minlength=len(self.bounds) - 1), out=cuts[1:])
        return cuts

    def hidden_spans(self) -> list[list[tuple[int, int, str]]]:
        """Per message, the [start, end, TAG] of what Seek&Hide hides (sorted)."""
        if self._hidden is None:
            self._hidden = self._find_hidden()
        return self._hidden

    def hidden_mask(self) -> np.ndarray:
        """Which tokens Seek&Hide hides: detector hits and dictionary words."""
        return (self.kind == K_DETECTED) | (self.label == L_DICTIONARY)

    def hidden_tags(self) -> tuple[np.ndarray, np.ndarray]:
        """(the positions of the tokens Seek&Hide hides, sorted; the tag of each)."""
        positions = np.flatnonzero(self.hidden_mask())
        tags = self.spellings.column_at(_spelling_tags, self.spelling[positions])  # the spellings hidden only
        rules = self.rule[positions]
        tags[any_of(rules, SURNAME_CODES)] = "NOM"  # read as a surname from its context
        if self.known_tag is not None:
            known = rules == _KNOWN_RULE
            tags[known] = np.asarray(KNOWN_TAGS, dtype=object)[self.known_tag[positions[known]]]
        return positions, tags

    def _find_hidden(self) -> list[list[tuple[int, int, str]]]:
        positions, tags = self.hidden_tags()
        spans = list(zip(self.start[positions].tolist(), self.end[positions].tolist(), tags.tolist()))
        cuts = self.per_message(positions).tolist()
        return [spans[b:e] for b, e in zip(cuts[:-1], cuts[1:])]

    def highlighted(self) -> list[list[str]]:
        """Per message, the words a human should look at: ambiguous or unknown."""
        positions = np.flatnonzero((self.label == L_AMBIGUOUS) | (self.label == L_UNKNOWN))
        # (Only words are labelled, and a word's span of its message is its spelling: Analysis.build.)
        words = list(map(self.spellings.texts.__getitem__, self.spelling[positions].tolist()))
        cuts = self.per_message(positions).tolist()
        return [words[b:e] for b, e in zip(cuts[:-1], cuts[1:])]

    def result(self, i: int) -> SeekResult:
        text = self.texts[i]
        tokens, words = [], []
        for t in range(self.bounds[i], self.bounds[i + 1]):
            start, end = int(self.start[t]), int(self.end[t])
            kind = KINDS[self.kind[t]]
            token = Token(start, end, text[start:end], kind, self.spellings.tags[self.spelling[t]])
            tokens.append(token)
            if kind == WORD:
                words.append(Word(start, end, token.text, LABELS[self.label[t]], RULES[self.rule[t]],
                                  self.match(t), bool(self.sentence_start[t]), bool(self.before_punctuation[t])))
        hidden = grapheme_spans(text, self.hidden_spans()[i])
        return SeekResult(self.message_label(i), words, tokens, [t for t in tokens if t.kind == DETECTED],
                          hidden, self.hider(text, hidden))
