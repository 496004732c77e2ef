"""The README's usage block is checked against `triage --help`, as sqlite-utils checks its docs:
every command and every option it shows must exist."""

import re

import pytest

from conftest import REPO


def usage_lines() -> list[str]:
    readme = (REPO / "README.md").read_text("utf-8")
    block = readme.split("## Using it", 1)[1].split("```", 2)[1]
    return [line.split("#", 1)[0].strip() for line in block.splitlines() if line.strip().startswith("triage ")]


def test_the_usage_block_is_not_empty():
    assert len(usage_lines()) >= 10


@pytest.mark.parametrize("line", usage_lines())
def test_every_command_and_option_of_the_readme_exists(cli, line):
    words = line.split()[1:]
    command = [words[0]]
    if words[0] in ("queue", "report"):
        command.append(words[1].split("|")[0])
    result = cli(*command, "--help")
    assert result.exit_code == 0, f"`triage {' '.join(command)}` does not exist: {result.output}"
    for option in re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", line):
        assert option in result.output, f"`triage {' '.join(command)}` has no option {option}"


def test_the_tree_the_readme_describes_is_the_shipped_one(cli, tmp_path):
    import re

    from triage.model import default_model_path

    result = cli("report", "tree", default_model_path(), "--out-dir", tmp_path)
    leaves = re.search(r"Number of Leaves\s*:\s*(\d+)", result.output).group(1)
    size = re.search(r"Size of the tree\s*:\s*(\d+)", result.output).group(1)
    readme = (REPO / "README.md").read_text("utf-8")
    assert f"has {leaves} leaves and {size} nodes" in readme


def test_every_command_of_the_tool_is_in_the_readme():
    """The other direction: a command added to the CLI is documented in the usage block
    (`triage report cv|holdout|infogain` documents three)."""
    import typer

    from triage.cli import app

    shown = set()
    for line in usage_lines():
        words = line.split()[1:]
        shown.add(words[0])
        if len(words) > 1:
            shown |= {f"{words[0]} {sub}" for sub in words[1].split("|")}
    commands = []
    for name, command in typer.main.get_command(app).commands.items():
        commands += [f"{name} {sub}" for sub in getattr(command, "commands", {})] or [name]
    assert len(commands) >= 10
    missing = [command for command in commands if command not in shown]
    assert not missing, f"commands missing from the README's usage block: {missing}"
