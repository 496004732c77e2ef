"""The corpus formats, by job: reading messages from CSV, TSV, JSON Lines (and workbooks), and
writing rows of results in those formats.

- `messages`: the table of messages (`open_messages`, `MessageTable`, `Records`, `ReadOptions`);
- `decoding`: opening a file as text (encodings, undecodable bytes);
- `delimited`: CSV and TSV (delimiter, header);
- `jsonl`: JSON Lines, and `parse_json` for any JSON a user wrote;
- `labels`: TA / NTA labels of a gold table;
- `writing`: `TableWriter`, `table_output`, `HeldChunks`, `RowCollector`;
- `formats`: what they share (formats by file name: `format_for`).

Errors are ``triage.errors``' (``InputError`` and its subclasses).
"""
