"""The one writer (triage.io.outputs): every output all at once or not at all, never over an
input, an installed file or an existing file without force, never through a symlink."""

import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from triage.errors import InputError, OutputExists
from triage.io.outputs import atomic_output, check_outputs, write_bytes


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, "utf-8")
    return path



def test_interrupted_writer_leaves_nothing(tmp_path):
    destination = tmp_path / "out" / "x.csv"
    for interruption in (RuntimeError("boom"), KeyboardInterrupt()):
        with pytest.raises(type(interruption)):
            with atomic_output(destination) as handle:
                handle.write("id,text\n" * 1000)
                raise interruption
        assert not destination.exists()
        assert os.listdir(destination.parent) == []  # no temporary file left behind


def test_existing_output_refused_then_replaced_with_force(tmp_path):
    destination = tmp_path / "x.csv"
    destination.write_text("old")
    before = set(os.listdir(tmp_path))
    with pytest.raises(OutputExists, match="x.csv exists; use --force to overwrite"):
        with atomic_output(destination):
            pytest.fail("the block must not run")  # refused before anything is created
    assert destination.read_text() == "old" and set(os.listdir(tmp_path)) == before
    with atomic_output(destination, force=True) as handle:
        handle.write("new")
    assert destination.read_text() == "new" and set(os.listdir(tmp_path)) == before


def test_interrupted_forced_write_keeps_the_old_file(tmp_path):
    destination = tmp_path / "x.csv"
    destination.write_text("old")
    with pytest.raises(ValueError):
        with atomic_output(destination, force=True) as handle:
            handle.write("half")
            raise ValueError
    assert destination.read_text() == "old" and os.listdir(tmp_path) == ["x.csv"]


def test_output_created_by_someone_else_meanwhile_is_not_clobbered(tmp_path):
    destination = tmp_path / "x.csv"
    with pytest.raises(OutputExists):
        with atomic_output(destination) as handle:
            handle.write("ours")
            destination.write_text("theirs")  # another process, between the check and the rename
    assert destination.read_text() == "theirs" and os.listdir(tmp_path) == ["x.csv"]


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_private_modes_and_missing_parents(tmp_path):
    destination = tmp_path / "reports" / "run1" / "x.csv"
    with atomic_output(destination) as handle:
        handle.write("secret")
        handle.flush()
        (temporary,) = destination.parent.iterdir()  # private while being written, too
        assert stat.S_IMODE(temporary.stat().st_mode) == 0o600
    assert stat.S_IMODE(destination.stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "reports").stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "reports" / "run1").stat().st_mode) == 0o700
    shared = tmp_path / "shared.csv"
    shared.write_text("old")
    shared.chmod(0o644)
    with atomic_output(shared, force=True) as handle:  # replacing a readable file: private again
        handle.write("new")
    assert stat.S_IMODE(shared.stat().st_mode) == 0o600
    with atomic_output(tmp_path / "public.csv", private=False) as handle:
        handle.write("x")
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE((tmp_path / "public.csv").stat().st_mode) == 0o666 & ~umask


def test_protected_input_never_overwritten(tmp_path):
    source = write(tmp_path, "sms.csv", "id,text\n1,a\n")
    (tmp_path / "sub").mkdir()
    for alias in (source, tmp_path / "sub" / ".." / "sms.csv"):
        with pytest.raises(InputError, match="input file"):
            with atomic_output(alias, force=True, protect=[source]):
                pytest.fail("the block must not run")
    if hasattr(os, "symlink"):
        link = tmp_path / "link.csv"
        link.symlink_to(source)
        with pytest.raises(InputError, match="input file"):
            with atomic_output(link, force=True, protect=[source]):
                pass
    assert source.read_text() == "id,text\n1,a\n"




def test_a_symlinked_destination_is_replaced_never_written_through(tmp_path):
    victim = write(tmp_path, "victim.csv", "precious\n")
    link = tmp_path / "out.csv"
    link.symlink_to(victim)
    with pytest.raises(OutputExists):
        with atomic_output(link):
            pass
    with atomic_output(link, force=True) as handle:
        handle.write("new\n")
    assert victim.read_text() == "precious\n"
    assert not link.is_symlink() and link.read_text() == "new\n"


def test_the_installed_package_is_never_written(tmp_path, monkeypatch):
    from triage.model import default_model_path

    installed_model = default_model_path()
    before = installed_model.read_bytes()
    monkeypatch.delenv("TRIAGE_MAINTAINER", raising=False)
    with pytest.raises(InputError, match="inside the installed sms-triage"):
        write_bytes(installed_model, b"broken", force=True)
    assert installed_model.read_bytes() == before
    monkeypatch.setenv("TRIAGE_MAINTAINER", "1")  # how maintainers rebuild the shipped files
    check_outputs([(installed_model, True)])


def test_two_outputs_of_one_run_cannot_share_a_path(tmp_path):
    with pytest.raises(InputError, match="given for two outputs"):
        check_outputs([(tmp_path / "a.csv", False), (tmp_path / "sub" / ".." / "a.csv", False)])


def test_a_full_disk_is_one_line_and_leaves_nothing(tmp_path):
    import errno

    destination = tmp_path / "x.csv"
    with pytest.raises(InputError, match=r"cannot write .*x.csv: No space left on device"):
        with atomic_output(destination) as handle:
            handle.write("partial")
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    assert os.listdir(tmp_path) == []


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="POSIX signals")
def test_the_temporary_file_of_a_killed_run_is_removed_by_the_next_write(tmp_path):
    killed = subprocess.run(
        [sys.executable, "-c",
         "import os, signal, sys\n"
         "from triage.io.outputs import atomic_output\n"
         "with atomic_output(sys.argv[1]) as handle:\n"
         "    handle.write('half'); handle.flush()\n"
         "    os.kill(os.getpid(), signal.SIGKILL)\n",
         str(tmp_path / "out.csv")],
    )
    assert killed.returncode == -signal.SIGKILL
    (leftover,) = os.listdir(tmp_path)
    assert leftover.startswith(".out.csv.") and leftover.endswith(".tmp")
    with atomic_output(tmp_path / "other.csv") as handle:
        handle.write("next run")
    assert os.listdir(tmp_path) == ["other.csv"]


# ------------------------------------------------------------ through the commands


@pytest.fixture
def corpus(tmp_path):
    return write(tmp_path, "sms.csv", "id,text\n1,Salut Chloé ça va\n2,rdv 18h au parc\n3,Appelle Mathéo stp\n")


def test_classify_never_replaces_an_expert_queue_without_force(cli, corpus, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    queue = write(tmp_path, "queue.csv", "the expert's answers\n")
    result = cli("classify", corpus, "--queue", queue)  # default output under reports/
    assert result.exit_code == 1 and "queue.csv exists; use --force" in result.output
    assert queue.read_text() == "the expert's answers\n"
    assert not (tmp_path / "reports").exists()  # refused before any work


def test_classify_checks_every_output_before_writing_any(cli, corpus, tmp_path):
    existing = write(tmp_path, "queue.html", "<p>answers</p>")
    result = cli("classify", corpus, "-o", tmp_path / "new.csv", "--queue", existing)
    assert result.exit_code == 1 and "queue.html exists" in result.output
    assert not (tmp_path / "new.csv").exists()
    assert cli("classify", corpus, "-o", tmp_path / "new.csv", "--queue", tmp_path / "q.html").exit_code == 0


def test_the_chart_never_lands_on_an_input_or_through_a_link(cli, corpus, tmp_path):
    before = corpus.read_bytes()
    (tmp_path / "res.summary.png").symlink_to(corpus)
    for force in ([], ["--force"]):
        result = cli("classify", corpus, "-o", tmp_path / "res.csv", *force)
        assert result.exit_code == 1 and "input file" in result.output
        assert corpus.read_bytes() == before and not (tmp_path / "res.csv").exists()
    png_named = write(tmp_path, "x.summary.png", corpus.read_text())
    result = cli("classify", png_named, "-o", tmp_path / "x.csv")
    assert result.exit_code == 1 and "input file" in result.output
    assert png_named.read_bytes() == before


def test_an_existing_chart_needs_force(cli, corpus, tmp_path):
    chart = write(tmp_path, "res.summary.png", "my own picture")
    result = cli("classify", corpus, "-o", tmp_path / "res.csv")
    assert result.exit_code == 1 and "res.summary.png exists" in result.output
    assert chart.read_text() == "my own picture"
    assert cli("classify", corpus, "-o", tmp_path / "res.csv", "--force").exit_code == 0
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_evaluate_never_replaces_its_own_gold_file(cli, tmp_path):
    from conftest import SAMPLE

    folder = tmp_path / "ev"
    folder.mkdir()
    gold = folder / "evaluate.json"
    gold.write_bytes(SAMPLE.read_bytes())
    for force in ([], ["--force"]):
        result = cli("evaluate", gold, "--out-dir", folder, *force)
        assert result.exit_code == 1 and "input file" in result.output
    assert gold.read_bytes() == SAMPLE.read_bytes()


def test_reports_keep_a_users_files_unless_forced(cli, tmp_path):
    from conftest import SAMPLE

    mine = write(tmp_path, "infogain.md", "my notes")
    result = cli("report", "infogain", SAMPLE, "--out-dir", tmp_path)
    assert result.exit_code == 1 and "infogain.md exists; use --force" in result.output
    assert mine.read_text() == "my notes" and not (tmp_path / "infogain.json").exists()
    assert cli("report", "infogain", SAMPLE, "--out-dir", tmp_path, "--force").exit_code == 0
    assert mine.read_text().startswith("#")


def test_training_cannot_replace_the_embedded_model(cli, monkeypatch):
    from conftest import SAMPLE
    from triage.model import default_model_path

    monkeypatch.delenv("TRIAGE_MAINTAINER", raising=False)
    before = default_model_path().read_bytes()
    result = cli("train", SAMPLE, "-o", default_model_path(), "--force")
    assert result.exit_code == 1 and "installed sms-triage" in result.output
    assert default_model_path().read_bytes() == before


def test_seek_words_has_its_own_default_output(cli, corpus, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli("seek", corpus).exit_code == 0
    assert cli("seek", corpus, "--words").exit_code == 0
    assert (tmp_path / "reports" / "sms.seek.csv").read_text().startswith("id,text,seekhide")
    assert (tmp_path / "reports" / "sms.words.csv").read_text().startswith("id,start,end,word")


# ---------------------------------------------------------------- files written as one group


def _old_group(tmp_path: Path) -> list[Path]:
    paths = [tmp_path / "corpus.csv", tmp_path / "corpus.datasheet.json", tmp_path / "corpus.datasheet.md"]
    for path in paths:
        path.write_text("old")
    return paths


def test_a_group_interrupted_before_its_end_leaves_every_file_as_it_was(tmp_path):
    from triage.io.outputs import output_group

    paths = _old_group(tmp_path)
    for interruption in (RuntimeError("boom"), KeyboardInterrupt()):
        with pytest.raises(type(interruption)):
            with output_group():
                for path in paths[:2]:
                    with atomic_output(path, force=True) as handle:
                        handle.write("new")
                raise interruption
        assert [path.read_text() for path in paths] == ["old"] * 3
        assert sorted(os.listdir(tmp_path)) == sorted(path.name for path in paths)


@pytest.mark.parametrize("stop_at", [0, 1, 2])
def test_a_group_interrupted_while_moving_never_leaves_a_new_file_beside_an_old_companion(tmp_path, monkeypatch,
                                                                                          stop_at):
    from triage.io import outputs

    paths = _old_group(tmp_path)
    real, moves = os.replace, []

    def replacing(source, destination):
        if len(moves) == stop_at:
            raise KeyboardInterrupt
        moves.append(destination)
        return real(source, destination)

    monkeypatch.setattr(outputs.os, "replace", replacing)
    with pytest.raises(KeyboardInterrupt):
        with outputs.output_group():
            for path in paths:
                with atomic_output(path, force=True) as handle:
                    handle.write("new")
    monkeypatch.setattr(outputs.os, "replace", real)
    states = [path.read_text() if path.exists() else None for path in paths]
    if states[0] == "new":
        assert "old" not in states[1:], states  # never the new corpus with an older datasheet
    assert not [name for name in os.listdir(tmp_path) if name.endswith(".tmp")]


def test_a_group_moves_every_file_when_it_ends(tmp_path):
    from triage.io.outputs import output_group

    paths = _old_group(tmp_path)
    with output_group() as group:
        for path in paths:
            with atomic_output(path, force=True) as handle:
                handle.write("new " + path.name)
            assert path.read_text() == "old" and group.written(path).read_text() == "new " + path.name
    assert [path.read_text() for path in paths] == ["new " + path.name for path in paths]
    assert sorted(os.listdir(tmp_path)) == sorted(path.name for path in paths)
