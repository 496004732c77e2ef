"""The README and the documentation pages are checked against the tool, as sqlite-utils checks its
docs: the set-up commands stay at the top of a README a few screens long, every command and option
the pages show exists, every command is shown somewhere, and the README's Python example runs."""

import os
import re
import subprocess
import sys

import pytest

from conftest import REPO

README = REPO / "README.md"
# The pages a person writes: the generated reference (docs/cli.md) is checked by tests/test_docs.py.
PAGES = [README, REPO / "CONTRIBUTING.md", *sorted(p for p in (REPO / "docs").glob("*.md") if p.name != "cli.md")]


def code_blocks(path):
    """The fenced code blocks of a Markdown file: (language, text)."""
    return re.findall(r"^```(\w*)\n(.*?)^```", path.read_text("utf-8"), re.M | re.S)


def command_lines() -> list[tuple[str, str]]:
    """(page, line) for every `triage ...` line of the pages' code blocks, comments left out."""
    lines = []
    for page in PAGES:
        for _, block in code_blocks(page):
            for line in block.splitlines():
                line = line.removeprefix("$ ").split("  #", 1)[0].split(" # ", 1)[0].strip()
                line = re.sub(r"^TRIAGE_MAINTAINER=1 ", "", line)
                if line.startswith("triage "):
                    lines.append((page.relative_to(REPO).as_posix(), line))
    return lines


def test_the_readme_fits_in_a_few_screens():
    assert len(README.read_text("utf-8").splitlines()) <= 160


def test_the_two_set_up_commands_are_at_the_top_of_the_readme():
    lines = README.read_text("utf-8").splitlines()
    run = lines.index("pip install -e . && triage classify data/sample_sms.csv")
    test = lines.index('pip install -e ".[test]" && pytest')
    assert run < test < 30


def test_the_pages_show_commands():
    assert len(command_lines()) >= 30


@pytest.mark.parametrize("page, line", command_lines())
def test_every_command_and_option_the_pages_show_exists(cli, page, line):
    words = line.split()[1:]
    command = [words[0]]
    if words[0] in ("queue", "report"):
        command.append(words[1].split("|")[0])
    result = cli(*command, "--help")
    assert result.exit_code == 0, f"{page}: `triage {' '.join(command)}` does not exist: {result.output}"
    for option in re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", line):
        assert option in result.output, f"{page}: `triage {' '.join(command)}` has no option {option}"


def test_every_command_of_the_tool_is_shown_in_a_page():
    """The other direction: a command added to the CLI gets an example in a page, not only its
    generated reference (`triage report cv|holdout|infogain` shows three)."""
    import typer

    from triage.cli import app

    shown = set()
    for _, line in command_lines():
        words = line.split()[1:]
        shown.add(words[0])
        if len(words) > 1:
            shown |= {f"{words[0]} {sub}" for sub in words[1].split("|")}
    commands = []
    for name, command in typer.main.get_command(app).commands.items():
        commands += [f"{name} {sub}" for sub in getattr(command, "commands", {})] or [name]
    assert len(commands) >= 10
    missing = [command for command in commands if command not in shown]
    assert not missing, f"commands without an example in the README or the docs: {missing}"


def test_every_review_or_release_line_names_its_workspace():
    """classify's workspace is the one --workspace names; review and release find it only when
    they are told (or when it is CLASSIFIED.review.sqlite beside the classified file)."""
    for page, line in command_lines():
        if line.startswith(("triage review ", "triage release ")):
            assert "--workspace" in line, f"{page}: {line}"


def test_the_readme_python_example_runs(tmp_path):
    examples = [text for language, text in code_blocks(README) if language == "python"]
    assert len(examples) == 1 and len(examples[0].strip().splitlines()) <= 6
    done = subprocess.run([sys.executable, "-c", examples[0]], cwd=REPO, capture_output=True, text=True,
                          env={**os.environ, "TRIAGE_USER_LEXICON_DIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert "EXPERT" in done.stdout and "NTA" in done.stdout
