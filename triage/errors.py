"""The errors a user can cause, which the command line turns into one line (`Error: ...`, exit 1).

Library code (and the Python API, triage.api) raises these for anything a user can cause;
anything else is a bug and keeps its traceback. Catch `InputError` for all of them, or one
of its kinds:

- `BadInput`: messages that cannot be used (a file or a DataFrame: unreadable, a missing
  column, bad labels or spans, too few messages), a lexicon or a review workspace likewise;
- `BadModel`: a model file that is not one, is damaged or modified, or does not fit this
  version, these lexicons or what is asked of it;
- `BadOption`: an option (a command-line option or an API argument) out of range or unknown;
- `OutputRefused`: an output that would destroy something (an input, an installed file, a
  folder), with `OutputExists` when only `--force` (`force=True`) is missing.
"""

from __future__ import annotations


class InputError(Exception):
    """Something the user gave cannot be used; the message is one line a user can act on."""


class BadInput(InputError):
    """Messages (a file or a DataFrame), a lexicon or a review workspace that cannot be used."""


class BadModel(InputError):
    """A model file that is not one, is damaged or modified, or does not fit what is asked."""


class BadOption(InputError):
    """An option or argument out of range, unknown, or that does not go with another."""


class OutputRefused(InputError):
    """An output that would replace an input or an installed file, or cannot be written."""


class OutputExists(OutputRefused):
    """An output file exists and --force (force=True) was not given."""
