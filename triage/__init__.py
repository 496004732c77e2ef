"""sms-triage: triage of SMS corpora for anonymisation (Patel et al. 2013).

The command line is `triage`; the same jobs are a Python API on DataFrames (triage.api,
docs/api.md): `triage.classify(frame)`, `triage.seek`, `triage.train`, `triage.evaluate`,
`triage.release`, `triage.Model`... They are loaded on first use, so that importing the
package (and starting the command line) stays quick.
"""

from triage.version import __version__ as __version__

_API = {
    "Model", "Release", "Report", "classify", "evaluate", "list_lexicons", "queue_apply", "queue_export", "release",
    "report_cv", "report_holdout", "report_infogain", "report_tree", "review", "seek", "train",
}
_ERRORS = {"InputError", "BadInput", "BadModel", "BadOption", "OutputRefused", "OutputExists"}

__all__ = sorted(_API | _ERRORS | {"__version__"})


def __getattr__(name: str):
    if name in _API:
        from triage import api

        return getattr(api, name)
    if name in _ERRORS:
        from triage import errors

        return getattr(errors, name)
    raise AttributeError(f"module 'triage' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _API | _ERRORS)
