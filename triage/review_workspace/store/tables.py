"""The workspace's format: every table and index, in one place. The first format's tables are made
with a new workspace; the ones added since are made when missing (on opening, or on first use),
so that an older workspace opens as it is.
"""

from __future__ import annotations


SCHEMA_VERSION = 1
_APPLICATION_ID = 0x54524956  # "TRIV": marks a SQLite file as a review workspace

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE messages (
    id TEXT PRIMARY KEY, position INTEGER NOT NULL UNIQUE, text TEXT NOT NULL, text_hash TEXT NOT NULL,
    seekhide TEXT NOT NULL, model TEXT NOT NULL, score REAL NOT NULL, decision TEXT NOT NULL,
    hidden TEXT NOT NULL, highlighted TEXT NOT NULL, risk REAL
);
CREATE TABLE items (
    id TEXT PRIMARY KEY REFERENCES messages(id), kind TEXT NOT NULL, rank INTEGER NOT NULL UNIQUE,
    reasons TEXT NOT NULL
);
CREATE TABLE decisions (
    id TEXT PRIMARY KEY, text_hash TEXT NOT NULL, status TEXT NOT NULL, label TEXT, spans TEXT,
    reviewer TEXT NOT NULL, at TEXT NOT NULL
);
CREATE TABLE events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL, text_hash TEXT NOT NULL,
    reviewer TEXT NOT NULL, at TEXT NOT NULL, action TEXT NOT NULL,
    status_before TEXT, label_before TEXT, spans_before TEXT,
    status_after TEXT, label_after TEXT, spans_after TEXT, undone INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE learnt (
    entry INTEGER PRIMARY KEY AUTOINCREMENT, spelling TEXT NOT NULL, kind TEXT NOT NULL, tag TEXT NOT NULL,
    scope TEXT NOT NULL, reviewer TEXT NOT NULL, at TEXT NOT NULL, active INTEGER NOT NULL DEFAULT 1,
    undone_by TEXT, undone_at TEXT, lexicon_dir TEXT
);
CREATE INDEX events_by_reviewer ON events (reviewer, seq);
"""

# Added after the first format: created when missing, so older workspaces open as they are.
_SURROGATES = """CREATE TABLE IF NOT EXISTS surrogates (
    tag TEXT NOT NULL, entity TEXT NOT NULL, surrogate TEXT NOT NULL, seed INTEGER NOT NULL,
    PRIMARY KEY (tag, entity)
)"""

# Several reviewers on one workspace, added after the first format too (created when missing):
# a lease gives a message to one reviewer at a time; a message marked `double` is decided blind
# by two reviewers, each decision kept in `reviews` (the agreed or adjudicated one goes to
# `decisions`, an unresolved disagreement is a decision with status `disputed`).
_TEAM = (
    "CREATE TABLE IF NOT EXISTS leases (id TEXT PRIMARY KEY, reviewer TEXT NOT NULL, until REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS double (id TEXT PRIMARY KEY)",
    "CREATE TABLE IF NOT EXISTS reviews (id TEXT NOT NULL, reviewer TEXT NOT NULL, text_hash TEXT NOT NULL,"
    " label TEXT NOT NULL, spans TEXT NOT NULL, at TEXT NOT NULL, PRIMARY KEY (id, reviewer))",
    "CREATE INDEX IF NOT EXISTS events_by_id ON events (id, seq)",
    # What the machines hid in an audit message when a reviewer first decided it (on that text): its
    # leak stays a leak when a later classification hides what the reviewer hid.
    "CREATE TABLE IF NOT EXISTS audit_grounds (id TEXT PRIMARY KEY, text_hash TEXT NOT NULL, machine TEXT NOT NULL)",
    # The first names, surnames and nicknames a reviewer marked in a message (hidden in the decision where
    # the machines hid nothing at that place): what `classify --workspace` teaches, never the machines'
    # own proposal a reviewer accepted (one stray hide would spread to every message).
    "CREATE TABLE IF NOT EXISTS marked (id TEXT PRIMARY KEY, text_hash TEXT NOT NULL, spans TEXT NOT NULL)",
    # A colleague's personal link to the lead's server (`triage review --invite NAME`): the SHA-256
    # of its token, never the token; a revoked link is refused at once.
    "CREATE TABLE IF NOT EXISTS invites (reviewer TEXT PRIMARY KEY, token_hash TEXT NOT NULL UNIQUE,"
    " at TEXT NOT NULL, revoked_at TEXT)",
)

# Added later still, created on first use: one decision per consistency case (triage.review_workspace.consistency).
_CONSISTENCY = """CREATE TABLE IF NOT EXISTS consistency (
    kind TEXT NOT NULL, key TEXT NOT NULL, decision TEXT NOT NULL, reviewer TEXT NOT NULL, at TEXT NOT NULL,
    grounds TEXT, PRIMARY KEY (kind, key)
)"""

# The list's filters: the reviewer's, and the list read in order without its long reasons; made
# when missing, so older workspaces get them on opening. (No index leads with the route: it has
# two values, and would only mislead SQLite's planner.)
_INDEXES = (
    "CREATE INDEX IF NOT EXISTS decisions_by_reviewer ON decisions (reviewer)",
    "CREATE INDEX IF NOT EXISTS items_list ON items (rank, kind, id)",
)

# The list's search: a trigram index of the messages' text (any piece of 3 characters or more,
# case-insensitive), rebuilt at each sync; older workspaces get it on opening.
_SEARCH = ("CREATE VIRTUAL TABLE message_search USING fts5(text, content='messages', content_rowid='rowid',"
           " tokenize='trigram')")
# Its segments merged only when 64 of a size pile up, never a few at each write: the index is
# written whole at a sync ('rebuild'), in a third less time for 86,000 messages (0.58 s against
# 0.90 s), and a search reads a few more segments (about 1 ms against 0.6 ms). Set at each
# rebuild (the statements of _SEARCH_REBUILD), so that an index made otherwise gets it too.
_SEARCH_SETTINGS = ("INSERT INTO message_search(message_search, rank) VALUES ('automerge', 0)",
                    "INSERT INTO message_search(message_search, rank) VALUES ('crisismerge', 64)")
_SEARCH_REBUILD = (*_SEARCH_SETTINGS, "INSERT INTO message_search(message_search) VALUES ('rebuild')")

# The list's filters and orders read a narrow copy of the list (what they need of each listed
# message, without its text, reasons or spans), rebuilt at each sync: scanning 20,000 listed
# messages there is several times faster than looking each up among the corpus's long rows.
_LISTING = """CREATE TABLE listing (
    rank INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, kind TEXT NOT NULL, message INTEGER NOT NULL,
    text_hash TEXT NOT NULL, risk REAL, position INTEGER NOT NULL, tags TEXT NOT NULL
)"""
_LISTING_FILL = """INSERT INTO listing SELECT i.rank, i.id, i.kind, m.rowid, m.text_hash, m.risk, m.position,
    (SELECT json_group_array(DISTINCT json_extract(span.value, '$[2]')) FROM json_each(m.hidden) span)
    FROM items i JOIN messages m USING (id)"""
