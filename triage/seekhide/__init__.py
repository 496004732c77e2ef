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
    _pieces_from,
)
from triage.seekhide.words import (  # noqa: F401
    MAX_MISSPELLING_LENGTH,
    MIN_MISSPELLING_LENGTH,
    RARE_FIRST_NAME_RANK,
    WordInfo,
    WordLabeller,
    _edits1,
)
from triage.text.detectors import detect
from triage.text.normalise import grapheme_spans
from triage.text.tokenise import PIECE


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
    def analyse(self, texts: list[str]) -> Analysis:
        """Seek&Hide on a batch of messages, as arrays over all their tokens.

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
        hits = list(map(detect, texts))
        plain = [i for i, found in enumerate(hits) if not found]
        cut = table.cut([texts[i] for i in plain] if len(plain) < len(texts) else texts)
        # The texts with detector hits, and those cut whole: their pieces one by one.
        spelled = [i for i, found in enumerate(hits) if found]
        if cut.whole.any():
            spelled = sorted(spelled + [plain[i] for i in np.flatnonzero(cut.whole).tolist()])
            plain = [i for i, whole in zip(plain, cut.whole.tolist()) if not whole]
        pieces: list = []  # of those texts, in order
        counts: list[int] = []
        explicit: list[tuple[int, int]] = []  # (piece index among them, start) where detections break the running sum
        detected_ends: list[tuple[int, int]] = []  # (piece index among them, end) of detector hits
        for i in spelled:
            text, before, position = texts[i], len(pieces), 0
            if not hits[i]:
                pieces += PIECE.findall(text)
            for hit in hits[i]:
                for start, piece in _pieces_from(text, position, hit.start):
                    explicit.append((len(pieces), start))
                    pieces.append(piece)
                explicit.append((len(pieces), hit.start))
                detected_ends.append((len(pieces), hit.end))
                pieces.append(table.detection_piece(hit.tag))
                position = hit.end
            if hits[i]:
                for start, piece in _pieces_from(text, position, len(text)):
                    explicit.append((len(pieces), start))
                    pieces.append(piece)
            counts.append(len(pieces) - before)
        table.new_parts((piece for piece in pieces if isinstance(piece, str)), cut)
        self.label_many(cut.words)
        plain_ids, plain_counts = table.piece_ids_of(cut)
        if spelled:
            # Both kinds of texts in order: each one's pieces moved to where its text's begin.
            spelled_ids = np.asarray(table.ids_of(pieces, cut), dtype=np.int64)
            per_message = np.zeros(len(texts), dtype=np.int64)
            per_message[plain] = plain_counts
            per_message[spelled] = counts
            begins = np.cumsum(per_message) - per_message
            piece_ids = np.empty(int(per_message.sum()), dtype=np.int64)
            spelled_counts = np.asarray(counts, dtype=np.int64)
            for where, ids, count in ((plain, plain_ids, plain_counts), (spelled, spelled_ids, spelled_counts)):
                to = np.repeat(begins[where] - (np.cumsum(count) - count), count) + np.arange(len(ids))
                piece_ids[to] = ids
            # `to` is now where the pieces of the texts spelled out went.
            explicit = [(to[k], start) for k, start in explicit]
            detected_ends = [(to[k], end) for k, end in detected_ends]
        else:
            piece_ids, per_message = plain_ids, plain_counts
        n_pieces = len(piece_ids)
        columns = table.numpy()

        # Piece offsets: running sums of piece lengths within each message.
        lengths = columns.piece_length[piece_ids]
        before = np.cumsum(lengths) - lengths
        first_piece = np.cumsum(per_message) - per_message
        base = before[np.minimum(first_piece, n_pieces - 1)] if n_pieces else np.zeros(len(texts), dtype=np.int64)
        piece_start = before - np.repeat(base, per_message)
        if explicit:
            index, value = np.asarray(explicit, dtype=np.int64).T
            piece_start[index] = value

        # Tokens: each piece expands into its parts.
        parts = columns.piece_parts[piece_ids]
        n_tokens = int(parts.sum())
        token_piece = np.repeat(np.arange(n_pieces), parts)
        within = np.arange(n_tokens) - np.repeat(np.cumsum(parts) - parts, parts)
        entry = np.repeat(columns.piece_first[piece_ids], parts) + within
        sid = columns.part_spelling[entry]
        start = piece_start[token_piece] + columns.part_offset[entry]
        end = start + columns.length[sid]
        if detected_ends:
            index, value = np.asarray(detected_ends, dtype=np.int64).T
            first_token = np.cumsum(parts) - parts
            end[first_token[index]] = value
        message = np.repeat(np.repeat(np.arange(len(texts)), per_message), parts)
        return Analysis.build(self, self.hide, table, list(texts), sid, start, end, message,
                              columns.part_of_compound[entry], columns)

    def seek(self, text: str) -> SeekResult:
        return self.analyse([text]).result(0)

    def code_for(self, text: str, start: int, end: int, tag: str) -> str:
        surface = text[start:end]
        found = self._codes.get((surface, tag))
        if found is None:
            found = self._codes[(surface, tag)] = self._code(surface, tag)
        return found

    def _code(self, surface: str, tag: str) -> str:
        if tag in ("PRE", "NOM"):
            key = spelling_key(surface)
            info = self.label_word(surface)
            entry = self.lexicons.name_entry(info.match if info.label != UNKNOWN else key)
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
        parts, last = [], 0
        for start, end, tag in hidden:
            parts.append(text[last:start])
            parts.append(self.code_for(text, start, end, tag))
            last = end
        parts.append(text[last:])
        return "".join(parts)
