"""What a new user types first: `triage --version`, `triage -h`, `triage COMMAND -h`."""

import ast
import subprocess
import sys

import pytest

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


def _interrupt(*args, **kwargs):
    raise KeyboardInterrupt


def test_ctrl_c_during_classify_says_what_was_kept_and_to_run_it_again(cli, tmp_path, monkeypatch):
    source = tmp_path / "sms.csv"
    source.write_text("id,text\n1,slt Julie tu viens ?\n2,ok a demain\n", encoding="utf-8")
    monkeypatch.setattr("triage.engines.run_chunks", _interrupt)
    result = cli("classify", source, "-o", tmp_path / "c.csv", "--no-chart")
    assert result.exit_code == 130
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Interrupted:"), result.output
    assert "half-written" in lines[0] and "run the same command again" in lines[0]
    assert "Traceback" not in result.output and "Aborted" not in result.output
    assert not (tmp_path / "c.csv").exists()


def _ctrl_c_once_the_workers_are_there(command: list[str], after: float, poll: float, at_least: int = 1):
    """Run `command` in a process group of its own, wait until it has forked `at_least` processes
    (its reader and its workers), send the group Ctrl-C `after` seconds later: (the pids of the
    processes it had forked, the process, its stdout, its stderr)."""
    import os
    import signal
    import time

    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    children = f"/proc/{process.pid}/task/{process.pid}/children"
    waited, workers = time.monotonic(), []
    while time.monotonic() - waited < 60 and process.poll() is None and len(workers) < at_least:  # until they are there
        try:
            with open(children) as listed:
                workers = [int(pid) for pid in listed.read().split()]
        except OSError:
            break
        time.sleep(poll)
    time.sleep(after)
    os.killpg(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=120)
    return workers, process, out, err


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Ctrl-C sent to a process group")
def test_a_ctrl_c_while_a_worker_starts_is_one_line_too(tmp_path):
    """A worker forked a moment before Ctrl-C has not set it aside yet: it starts with Ctrl-C
    held back until it has, so that the command still answers in one line, without a traceback.
    Here each worker takes a second to start (multiprocessing closes its standard input first)."""
    source = tmp_path / "sms.csv"
    source.write_text("id,text\n" + "".join(f"{i},slt Julie{i % 97} tu viens ce soir ?\n" for i in range(40_000)),
                      encoding="utf-8")
    slow_start = ("import sys, time, multiprocessing.util as util\n"
                  "close = util._close_stdin\n"
                  "util._close_stdin = lambda: time.sleep(1.0) or close()\n"
                  "from triage.cli import run\n"
                  "sys.argv[0] = 'triage'\n"
                  "run()\n")
    # Ctrl-C while the workers are still starting.
    workers, process, out, err = _ctrl_c_once_the_workers_are_there(
        [sys.executable, "-c", slow_start, "classify", str(source), "-o", str(tmp_path / "c.csv"), "--jobs", "2"],
        after=0.2, poll=0.01, at_least=2)  # the input's reader and a worker, or two workers
    assert workers and process.returncode == 130, out + err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1 and err.startswith("Interrupted:"), err


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Ctrl-C sent to a process group")
def test_a_real_ctrl_c_while_the_workers_run_is_one_line_too(tmp_path):
    """Ctrl-C reaches every process of the command, the workers of --jobs too: still one line,
    no traceback, no output, and no worker left running."""
    import time

    source = tmp_path / "sms.csv"
    with source.open("w", encoding="utf-8") as handle:
        handle.write("id,text\n")
        for i in range(120_000):
            handle.write(f"{i},slt Julie{i % 97} tu viens au ciné {i % 13} ce soir ? bisous Zorane{i}\n")
    # Ctrl-C while they classify: 120,000 messages, each with a spelling of its own to learn, take seconds more.
    workers, process, out, err = _ctrl_c_once_the_workers_are_there(
        [sys.executable, "-m", "triage", "classify", str(source), "-o", str(tmp_path / "c.csv"), "--jobs", "2"],
        after=0.3, poll=0.05)
    assert process.returncode == 130, out + err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1 and err.startswith("Interrupted:"), err
    assert not (tmp_path / "c.csv").exists()
    assert workers

    def running(pid: int) -> bool:
        try:  # a zombie (state Z) is dead, only not yet reaped
            with open(f"/proc/{pid}/stat") as stat:
                return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
        except (OSError, IndexError):
            return False

    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(map(running, workers)):
        time.sleep(0.05)
    assert not any(map(running, workers))


def test_ctrl_c_during_release_says_nothing_was_released_and_to_run_it_again(cli, tmp_path, monkeypatch):
    source = tmp_path / "sms.csv"
    source.write_text("id,text\n1,slt Julie tu viens ?\n2,ok a demain\n", encoding="utf-8")
    classified, ws = tmp_path / "c.csv", tmp_path / "ws.sqlite"
    succeeded(cli("classify", source, "-o", classified, "--no-chart", "--workspace", ws))
    monkeypatch.setattr("triage.publication.corpus._write_table", _interrupt)
    result = cli("release", classified, "--workspace", ws, "-o", tmp_path / "r.csv", "--withhold-undecided")
    assert result.exit_code == 130
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Interrupted:"), result.output
    assert "nothing was released" in lines[0] and "run the same command again" in lines[0]
    assert not (tmp_path / "r.csv").exists() and not (tmp_path / "r.datasheet.md").exists()


@pytest.mark.parametrize("rows, options", [(3, ()), (6_000, ()), (6_000, ("--jobs", "2")),
                                           (6_000, ("--engine", "dask", "--jobs", "2"))],
                         ids=["small", "large", "jobs", "dask"])
def test_the_installed_classify_ends_with_its_output_chart_and_summary_whole(cli, tmp_path, rows, options):
    """The `triage` command leaves without freeing what it learnt object by object, once its
    workers and threads are done: its summary still reaches the reader, and the output (the
    same as classifying in-process) and the chart are whole."""
    if "dask" in options:
        pytest.importorskip("distributed")
    source = tmp_path / "sms.csv"
    with source.open("w", encoding="utf-8") as handle:
        handle.write("id,text\n")
        for i in range(rows):
            handle.write(f"{i},slt Julie{i % 97} tu viens au ciné {i % 13} ce soir ? bisous Zorane{i % 89}\n")
    output = tmp_path / "c.csv"
    result = subprocess.run([sys.executable, "-m", "triage", "classify", str(source), "-o", str(output), *options],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"{rows:,} messages -> {output}" and lines[-1] == f"chart: {tmp_path / 'c.summary.png'}"
    assert (tmp_path / "c.summary.png").read_bytes().startswith(b"\x89PNG")
    assert not list(tmp_path.glob(".*")), "a temporary file was left behind"
    succeeded(cli("classify", source, "-o", tmp_path / "here.csv", "--no-chart"))
    assert output.read_bytes() == (tmp_path / "here.csv").read_bytes()


def test_seek_and_classify_in_process_leave_the_garbage_collector_on(cli, tmp_path):
    """Only the `triage` command itself leaves at once; called in-process (tests, the Python API),
    the commands change nothing of the interpreter they run in."""
    import gc

    source = tmp_path / "sms.csv"
    source.write_text("id,text\n1,slt Julie tu viens ?\n2,ok a demain\n", encoding="utf-8")
    succeeded(cli("classify", source, "-o", tmp_path / "c.csv", "--no-chart"))
    succeeded(cli("seek", source, "-o", tmp_path / "s.csv"))
    assert gc.isenabled()


def test_the_console_entry_point_leaves_at_once_only_after_its_work(tmp_path, monkeypatch):
    """run() asks to leave at once only once classify has written its output; where it cannot
    (here: told not to), it exits as before, with the garbage collector on again."""
    import gc

    from triage import cli as cli_module

    source = tmp_path / "sms.csv"
    source.write_text("id,text\n1,slt Julie tu viens ?\n2,ok a demain\n", encoding="utf-8")
    asked = []
    monkeypatch.setattr(cli_module, "_exit_at_once", lambda: asked.append((tmp_path / "c.csv").exists()))
    monkeypatch.setattr(sys, "argv", ["triage", "classify", str(source), "-o", str(tmp_path / "c.csv"), "--no-chart"])
    monkeypatch.setattr(cli_module, "_stop_cleanly_on_sigterm", lambda: None)
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)  # (run() sets it: put back as it was)
    with pytest.raises(SystemExit) as stopped:
        cli_module.run()
    assert stopped.value.code in (None, 0)
    assert asked == [True]
    assert gc.isenabled() and cli_module._console == {"on": False, "memory_only": False, "collector_off": False}
    monkeypatch.setattr(sys, "argv", ["triage", "classify", str(tmp_path / "missing.csv"), "-o", str(tmp_path / "d.csv")])
    with pytest.raises(SystemExit) as stopped:
        cli_module.run()
    assert stopped.value.code not in (None, 0) and asked == [True]


def test_the_console_command_runs_the_job_with_the_collector_off_unless_dask_runs_beside_it(tmp_path, monkeypatch):
    """In the `triage` command, classify with the local engine (a workspace or not), seek and release
    run their job with the garbage collector off, and the process's workers inherit that; with the
    Dask engine it stays on; the collector is on again once run() is left, even by an error."""
    import gc

    from triage import cli as cli_module
    from triage import jobs
    from triage.errors import InputError
    from triage.publication import corpus as publication_corpus

    source = tmp_path / "sms.csv"
    source.write_text("id,text\n1,slt Julie tu viens ?\n", encoding="utf-8")
    seen = []

    def job(*args, **kwargs):
        seen.append(gc.isenabled())
        raise InputError("stopped here")

    monkeypatch.setattr(jobs, "run_classify", job)
    monkeypatch.setattr(jobs, "run_seek", job)
    monkeypatch.setattr(jobs, "classify_with_workspace", job)
    monkeypatch.setattr(publication_corpus, "run_release", job)
    monkeypatch.setattr(cli_module, "_stop_cleanly_on_sigterm", lambda: None)
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    for extra in (["classify"], ["seek"], ["classify", "--workspace", str(tmp_path / "w.sqlite")], ["release"],
                  ["classify", "--engine", "dask"]):
        monkeypatch.setattr(sys, "argv", ["triage", extra[0], str(source), "-o", str(tmp_path / "out.csv"), *extra[1:]])
        with pytest.raises(SystemExit) as stopped:
            cli_module.run()
        assert stopped.value.code == 1
        assert gc.isenabled() and cli_module._console == {"on": False, "memory_only": False, "collector_off": False}
    assert seen == [False, False, False, False, True]


def _openblas_threads_in_the_command(environment: dict) -> list[int]:
    """How many threads numpy's OpenBLAS has once the `triage` command (run()) has loaded numpy, in
    a new process with `environment` (none listed: numpy uses another library)."""
    program = "\n".join([
        "from triage import cli",
        "def command():",
        "    import numpy, threadpoolctl",
        "    print([pool['num_threads'] for pool in threadpoolctl.threadpool_info() if pool['internal_api'] == 'openblas'])",
        "cli.application = lambda args: command",
        "cli.run()",
    ])
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120, env=environment)
    assert done.returncode == 0, done.stderr
    return ast.literal_eval(done.stdout)


def test_the_command_runs_openblas_on_one_thread_unless_told_otherwise():
    """OpenBLAS's threads spin while they wait for work, about 0.1 s of CPU a command: the `triage`
    command loads numpy with one thread, unless $OPENBLAS_NUM_THREADS says how many."""
    import os

    environment = {name: value for name, value in os.environ.items() if name != "OPENBLAS_NUM_THREADS"}
    found = _openblas_threads_in_the_command(environment)
    if not found:
        pytest.skip("numpy here does not use OpenBLAS")
    assert found == [1]
    assert _openblas_threads_in_the_command({**environment, "OPENBLAS_NUM_THREADS": "2"}) == [2]


def test_the_installed_classify_of_a_workbook_leaves_no_copy_of_its_messages(tmp_path):
    """A workbook is read through a private CSV copy in the temporary folder: the command, leaving
    at once, still removes it."""
    import os

    import openpyxl

    book = openpyxl.Workbook()
    book.active.append(["id", "text"])
    for i in range(50):
        book.active.append([str(i), f"slt Julie{i} tu viens ce soir ?"])
    book.save(tmp_path / "sms.xlsx")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    result = subprocess.run([sys.executable, "-m", "triage", "classify", str(tmp_path / "sms.xlsx"),
                             "-o", str(tmp_path / "c.csv"), "--no-chart"],
                            capture_output=True, text=True, timeout=300, env={**os.environ, "TMPDIR": str(scratch)})
    assert result.returncode == 0, result.stderr
    assert len((tmp_path / "c.csv").read_text(encoding="utf-8").splitlines()) == 51
    assert not list(scratch.iterdir())


def test_a_command_of_the_tool_is_run_by_the_application_with_that_command_alone():
    """`triage classify ...` builds the click command of classify alone, at every start, and
    `triage queue ...` the commands of queue alone: each has the same options, help and errors as
    in the whole application. Anything else (the tool's own options, its help, a command it does
    not have) runs the whole one."""
    from typer.testing import CliRunner

    from triage import cli

    runner = CliRunner()
    names = [info.name or info.callback.__name__ for info in cli.app.registered_commands]
    assert {"classify", "seek", "release"} <= set(names)
    for name in names:
        alone = cli.application([name, "data.csv"])
        assert [info.callback for info in alone.registered_commands] == \
            [info.callback for info in cli.app.registered_commands if (info.name or info.callback.__name__) == name]
        assert not alone.registered_groups
        for args in ([name, "--help"], [name, "--no-such-option"], [name]):
            seen, expected = (runner.invoke(made, args, prog_name="triage") for made in (alone, cli.app))
            assert (seen.exit_code, seen.output) == (expected.exit_code, expected.output), args
    groups = [info.name for info in cli.app.registered_groups]
    assert {"queue", "report"} <= set(groups)
    for group in groups:
        alone = cli.application([group, "export"])
        assert not alone.registered_commands and [info.name for info in alone.registered_groups] == [group]
        commands = [info.name for info in next(info for info in cli.app.registered_groups
                                               if info.name == group).typer_instance.registered_commands]
        for args in ([group], [group, "--help"], [group, "no-such-command"],
                     *([group, command, "--help"] for command in commands), [group, commands[0], "--no-such-option"]):
            seen, expected = (runner.invoke(made, args, prog_name="triage") for made in (alone, cli.app))
            assert (seen.exit_code, seen.output) == (expected.exit_code, expected.output), args
    for args in ([], ["--help"], ["--version"], ["clasify", "x.csv"], ["--debug", "classify", "x.csv"]):
        assert cli.application(args) is cli.app
