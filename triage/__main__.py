"""`python -m triage ...`: the same as the `triage` command."""

from triage.cli import run

if __name__ == "__main__":
    run()
