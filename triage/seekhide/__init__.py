"""Seek&Hide (Patel et al. 2013, section 3): label words with dictionaries, label messages,
hide what is certain.

Each word gets one label (Table 1): DICTIONARY (only in the name dictionary: anonymise),
ANTI_DICTIONARY (only in anti-dictionaries: ignore), AMBIGUOUS (in both: highlight) or
UNKNOWN (in neither: highlight). Numbers, punctuation, emoticons and emoji are not words.
When a spelling is in neither list as written, the SMS heuristics of section 3.2 are tried in
order: accent-insensitive look-up, letter repetitions, onomatopoeia, missing apostrophe,
concatenated clitics, then misspellings within one edit, never turning a name into a word.

A message is TA when it holds a DICTIONARY word or a detector hit (phone, e-mail, URL,
address, code), NTA when every word is ANTI_DICTIONARY, UNTAGGED otherwise. Hidden items
become codes <TAG_length_id>, e.g. <PRE_7_17316>: the id is the name's id in the dictionary,
or a stable hash of the spelling for other items, so the same spelling always gets the same
code.
"""


from __future__ import annotations

from collections.abc import Iterable
from itertools import chain

import numpy as np

from triage.lexicons import Lexicons, spelling_key
from triage.pipeline.memory import VOCABULARY, Cache
from triage.schema import (  # noqa: F401  (Seek&Hide's labels, importable from here too)
    AMBIGUOUS,
    ANTI_DICTIONARY,
    DICTIONARY,
    MESSAGE_LABELS,
    NTA,
    TA,
    UNKNOWN,
    UNTAGGED,
)
from triage.seekhide.analysis import (  # noqa: F401
    Analysis,
    SeekResult,
    Word,
    code,
    hidden_json,
    stable_id,
)
from triage.seekhide.known import KnownMatcher, KnownNames, known_names_of, read_known_names  # noqa: F401
from triage.seekhide.report import SeekTables, tables  # noqa: F401
from triage.seekhide.rules import (  # noqa: F401
    GUESS_RULES,
    NEVER_NAME_CODES,
    READ_AS_WORD_CODES,
    RECOGNIZER_STEPS,
    RULES,
    STEPS,
    SURNAME_CODES,
    WORD_STEPS,
    Rule,
    rule_code,
)
from triage.seekhide.table import (  # noqa: F401
    K_DETECTED,
    K_EMOTICON,
    K_NUMBER,
    K_PUNCT,
    K_WORD,
    KINDS,
    L_AMBIGUOUS,
    L_ANTI,
    L_DICTIONARY,
    L_UNKNOWN,
    LABELS,
    Spellings,
)
from triage.seekhide.words import (  # noqa: F401
    MAX_MISSPELLING_LENGTH,
    MIN_MISSPELLING_LENGTH,
    RARE_FIRST_NAME_RANK,
    WordInfo,
    WordLabeller,
    _edits1,
)
from triage.text.detectors import detect_hits
from triage.text.normalise import grapheme_spans
from triage.text.stretches import STRETCH_IDS, Stretched
from triage.text.tokenise import PIECE


def _segments(texts: list[str], hits: dict[int, list], hit_at: list[int]) -> tuple[list[str], np.ndarray, np.ndarray,
                                                                           np.ndarray, list]:
    """The units of `texts` (see SeekAndHide.analyse): (the segments of text, in order; per unit,
    its message, where it begins in it, whether it is a hit; the hits, in order). `hit_at`: the
    messages with hits."""
    segments: list[str] = []
    found_hits: list = []
    done = 0
    for i in hit_at:
        segments += texts[done:i]
        text, position = texts[i], 0
        for hit in hits[i]:
            segments.append(text[position : hit.start])
            position = hit.end
        segments.append(text[position:])
        found_hits += hits[i]
        done = i + 1
    segments += texts[done:]
    # A message with k hits is 2k + 1 units: a segment, then each hit followed by a segment.
    n_hits = np.zeros(len(texts), dtype=np.int64)
    n_hits[hit_at] = [len(hits[i]) for i in hit_at]
    units = 2 * n_hits + 1
    message_of = np.repeat(np.arange(len(texts), dtype=np.int64), units)
    is_hit = (np.arange(len(message_of)) - np.repeat(np.cumsum(units) - units, units)) % 2 == 1
    # A hit begins where it starts, the segment after it where it ends; a message's first segment at 0.
    begin_of = np.zeros(len(message_of), dtype=np.int64)
    at = np.flatnonzero(is_hit)
    begin_of[at] = [hit.start for hit in found_hits]
    begin_of[at + 1] = [hit.end for hit in found_hits]
    return segments, message_of, begin_of, is_hit, found_hits


class SeekAndHide(WordLabeller):
    """Word labelling (WordLabeller) and message treatment with one set of lexicons.

    Labels, codes and the table of spellings are kept per distinct spelling (SMS
    vocabularies are Zipfian), within the memory budget of triage.pipeline.memory: past it they
    start afresh at the next batch.
    """

    def __init__(self, lexicons: Lexicons, off: Iterable[str] = (), known: KnownNames | None = None):
        """`known`: the names a team knows (triage/seekhide/known.py), hidden with their variants
        by the step known-names."""
        super().__init__(lexicons, off)
        self.known_names = known
        self.known = KnownMatcher(known, lexicons) if known is not None and self.is_on("known-names") else None
        self._codes: dict[tuple[str, str], str] = Cache("codes")
        self.spellings = Spellings(self, self.known)

    # ------------------------------------------------------------------ messages
    def analyse(self, texts: list[str], stretched: Stretched | None = None) -> Analysis:
        """Seek&Hide on a batch of messages, as arrays over all their tokens. `stretched`: the
        texts cut into stretch ids already (triage.text.stretches.STRETCH_IDS.cut), taken as they
        are while valid.

        Each distinct piece of text is tokenised and labelled once (see Spellings); what
        depends on context is then computed for all tokens at once:
        - a word starts a sentence when no word came before it in the message, or when a
          sentence end (. ! ? …) or an emoticon came after the previous word;
        - hyphenated unknown compounds are labelled part by part;
        - a weak name (surname only, or a rare first name) stays DICTIONARY only when written
          with a capital away from the start of a sentence ('chez Dubois'), else it becomes
          UNKNOWN ('kon', 'Lo');
        - a capitalised word right after a title is a surname: 'Mme Petit', 'Dr Blanc';
        - a capitalised word away from a sentence start is never guessed into an ordinary word.
        """
        VOCABULARY.enforce()  # between two batches: the caches may start afresh
        if self.spellings.retired:
            self.spellings = Spellings(self, self.known)
        table = self.spellings
        hits = detect_hits(texts)
        # Units, in the order of the messages: a message without detector hits is one segment of
        # text; the text of another is cut into the segments around its hits, each hit a unit.
        hit_at = list(hits)
        if hit_at:
            segments, message_of, begin_of, is_hit, found_hits = _segments(texts, hits, hit_at)
        else:
            segments, message_of, begin_of = texts, np.arange(len(texts)), np.zeros(len(texts), dtype=np.int64)
            is_hit, found_hits = np.zeros(len(texts), dtype=bool), []
        given = None
        if STRETCH_IDS.valid(stretched):  # the stretch ids of the messages without hits, each one segment
            clean = np.ones(len(texts), dtype=bool)
            clean[hit_at] = False
            taken = clean if not hit_at else np.repeat(clean, np.bincount(message_of[~is_hit], minlength=len(texts)))
            given = (taken, stretched.ids[np.repeat(clean, stretched.counts)] if hit_at else stretched.ids,
                     stretched.counts[clean])
        cut = table.cut(segments, given)
        # The segments cut whole (a stretch of them does not cut into whole pieces on its own).
        whole = np.flatnonzero(cut.whole).tolist()
        whole_pieces = [PIECE.findall(segments[k]) for k in whole]
        table.new_parts(chain.from_iterable(whole_pieces), cut)
        self.label_many(cut.words)
        plain_ids, plain_counts = table.piece_ids_of(cut)
        if not hit_at and not whole:
            piece_ids, per_unit = plain_ids, plain_counts
        else:  # each source of pieces moved to where its units' pieces begin
            segment_units, hit_units = np.flatnonzero(~is_hit), np.flatnonzero(is_hit)
            per_segment = np.zeros(len(segments), dtype=np.int64)
            per_segment[~cut.whole] = plain_counts
            per_segment[whole] = list(map(len, whole_pieces))
            per_unit = np.ones(len(is_hit), dtype=np.int64)  # a hit is one piece
            per_unit[segment_units] = per_segment
            first = np.cumsum(per_unit) - per_unit
            piece_ids = np.empty(int(per_unit.sum()), dtype=np.int64)
            whole_ids = table.ids_of(list(chain.from_iterable(whole_pieces)), cut)
            for units, ids, counts in ((segment_units[~cut.whole], plain_ids, plain_counts),
                                       (segment_units[whole], whole_ids, per_segment[whole])):
                piece_ids[np.repeat(first[units] - (np.cumsum(counts) - counts), counts) + np.arange(len(ids))] = ids
            piece_ids[first[hit_units]] = table.ids_of([table.detection_piece(hit.tag) for hit in found_hits], cut)
        n_pieces = len(piece_ids)
        columns = table.numpy()

        # Piece offsets: where its unit begins in its message, plus the running sum of the
        # lengths of the unit's pieces before it (a hit's piece has length 0: it begins its unit).
        lengths = columns.piece_length[piece_ids]
        before = np.cumsum(lengths) - lengths
        first_piece = np.cumsum(per_unit) - per_unit
        base = before[np.minimum(first_piece, n_pieces - 1)] if n_pieces else np.zeros(len(per_unit), dtype=np.int64)
        piece_start = before - np.repeat(base - begin_of, per_unit)

        # Tokens: each piece expands into its parts (its k-th token is the entry piece_first + k).
        parts = columns.piece_parts[piece_ids]
        first_token = np.cumsum(parts) - parts
        entry = np.arange(first_token[-1] + parts[-1] if n_pieces else 0) \
            + np.repeat(columns.piece_first[piece_ids] - first_token, parts)
        sid = columns.part_spelling[entry]
        start = np.repeat(piece_start, parts) + columns.part_offset[entry]
        end = start + columns.length[sid]
        if found_hits:  # a hit's token ends where the hit does
            end[first_token[first_piece[is_hit]]] = [hit.end for hit in found_hits]
        message = np.repeat(np.repeat(message_of, per_unit), parts)
        return Analysis.build(self, self.hide, table, list(texts), sid, start, end, message,
                              columns.part_of_compound[entry], columns)

    def seek(self, text: str) -> SeekResult:
        return self.analyse([text]).result(0)

    def code_for(self, text: str, start: int, end: int, tag: str) -> str:
        surface = text[start:end]
        return self._codes.get((surface, tag)) or self.new_code(surface, tag)

    def new_code(self, surface: str, tag: str) -> str:
        """The code that hides `surface` as `tag`, remembered for the next time it is hidden."""
        found = self._codes[(surface, tag)] = self._code(surface, tag)
        return found

    def _code(self, surface: str, tag: str) -> str:
        if tag in ("PRE", "NOM"):
            info = self.label_word(surface)
            entry = self.lexicons.name_entry(info.match if info.label != UNKNOWN else spelling_key(surface))
            if entry.id:
                return code(tag, surface, entry.id)
        return code(tag, surface, stable_id(tag, surface))

    def hide(self, text: str, hidden: list[tuple[int, int, str]]) -> str:
        """The text with each hidden span replaced by its code; nothing else changes. A span is
        widened to whole grapheme clusters first (triage.text.normalise.grapheme_spans): no mark is
        left dangling from a code."""
        return self.coded(text, grapheme_spans(text, hidden)) if hidden else text

    def coded(self, text: str, hidden: list[tuple[int, int, str]]) -> str:
        """The text with each hidden span, whole grapheme clusters already (grapheme_spans),
        replaced by its code."""
        parts, last, codes = [], 0, self._codes
        for start, end, tag in hidden:
            surface = text[start:end]
            found = codes.get((surface, tag)) or self.new_code(surface, tag)  # code_for, written out
            parts.append(text[last:start])
            parts.append(found)
            last = end
        parts.append(text[last:])
        return "".join(parts)
