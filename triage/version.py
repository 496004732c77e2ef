"""The version of sms-triage (one place: the package, model files and datasheets read it here)."""

__version__ = "0.1.0"
