"""The errors the command line turns into one line (`Error: ...`, exit 1).

Library code raises these for anything a user can cause (a bad file, a bad option, a
bad model, an output that would destroy something); anything else is a bug and keeps
its traceback.
"""

from __future__ import annotations


class InputError(Exception):
    """Bad input or a refused output; the message is one line a user can act on."""


class OutputExists(InputError):
    """An output file exists and --force was not given."""
