"""What a new user types first: `triage --version`, `triage -h`, `triage COMMAND -h`."""

import subprocess
import sys

from conftest import succeeded

import triage


def test_version_is_printed(cli):
    result = cli("--version")
    succeeded(result)
    assert result.output.strip() == f"sms-triage {triage.__version__}"


def test_h_is_help_for_the_tool_and_each_command(cli):
    for args, shown in ((("-h",), "classify"), (("release", "-h"), "--columns"), (("queue", "export", "-h"), "--output")):
        result = cli(*args)
        succeeded(result)
        assert shown in result.output


def test_version_from_the_installed_command():
    result = subprocess.run([sys.executable, "-m", "triage", "--version"], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0 and result.stdout.strip() == f"sms-triage {triage.__version__}"
