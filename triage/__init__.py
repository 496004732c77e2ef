"""sms-triage: triage of SMS corpora for anonymisation (Patel et al. 2013)."""

__version__ = "0.1.0"
