"""The publication, what `triage release` writes: the publishable corpus (corpus.py: every message
with what the machines and the reviewers hid replaced by tags, pseudonyms or surrogates) and the
datasheet that describes it (datasheet.py)."""
