"""The one writer: every file sms-triage writes goes through `atomic_output`.

The rule set, for every output of every command (corpus, queue, chart, reports, models,
lexicon files, workbooks, release and datasheet):

- never an input of the run, whatever its name (the same file through a link counts);
- never a file of the installed package (its embedded model, lexicons, code): a run that
  replaced them would break every later run. Maintainers who rebuild those files set
  ``TRIAGE_MAINTAINER=1``;
- never through a symlink: the destination's name is replaced, never what it points to;
- never replacing an existing file without ``force``, even one that appears mid-run;
- atomic: a temporary file beside the destination, fsynced, then renamed; a run that
  fails or is interrupted leaves the destination as it was, and a run killed outright
  leaves a temporary file that the next write to the same folder removes;
- files that belong together (a release and its datasheets) are written as one group
  (`output_group`): all to temporary files first, then moved into place together, the
  companions' older versions removed before the first file is replaced, so an interrupted
  run never leaves a new file beside the companion of an older one;
- private (0600, folders 0700) when the file holds messages;
- checked before any work starts (`check_outputs`), so that a long run never fails at
  its end on a path it could have refused at once.
"""

from __future__ import annotations

import contextvars
import errno
import io as _io
import os
import re
import stat
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Iterable, Iterator

from triage.errors import OutputExists, OutputRefused

__all__ = ["atomic_output", "check_output", "check_outputs", "output_group", "refuse_inputs", "scratch_file",
           "write_bytes", "write_text"]

MAINTAINER_VARIABLE = "TRIAGE_MAINTAINER"
# Errors of a write that the user must hear as one line (the disk or the quota is full).
_FULL = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}
# .<destination name>.<pid>.<random>.tmp: the pid tells a later run whether its writer is dead.
_TEMPORARY = re.compile(r"^\.(?P<name>.+)\.(?P<pid>\d+)\.[0-9a-f]{8}\.tmp$")


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)  # follows symlinks and hard links
    except OSError:
        return os.path.normcase(a.resolve()) == os.path.normcase(b.resolve())


def refuse_inputs(path: str | os.PathLike[str], inputs: Iterable[str | os.PathLike[str] | None]) -> None:
    """Raise InputError if `path` is one of `inputs` (the same file, whatever its name):
    an output must never replace a file the run reads, not even with --force."""
    for protected in inputs:
        # Only files can be replaced: messages held in memory (the Python API's) are not protected here.
        if isinstance(protected, (str, os.PathLike)) and _same_file(Path(path), Path(protected)):
            raise OutputRefused(f"{os.fspath(path)} is an input file; refusing to overwrite it (choose another output path)")


def installed_folders() -> list[Path]:
    """The folders of the installed package: its code, embedded model and lexicons."""
    package = Path(__file__).resolve().parent.parent  # triage/, from triage/io/
    folders = [package]
    for name in ("data", "dictionaries", "features"):
        # Next to the package in a source checkout or editable install, inside it in a wheel.
        folders += [folder for folder in (package.parent / name, package / name) if folder.is_dir()]
    return folders


def _refuse_installed(destination: Path, display: str) -> None:
    if os.environ.get(MAINTAINER_VARIABLE) == "1":
        return
    # The folder is resolved, not the name: replacing a link inside the package is as bad.
    where = destination.parent.resolve() / destination.name
    for folder in installed_folders():
        if where == folder or folder in where.parents:
            raise OutputRefused(f"{display} is inside the installed sms-triage ({folder}); "
                             "refusing to write there (choose another output path)")


def check_output(path: str | os.PathLike[str], *, force: bool = False,
                 inputs: Iterable[str | os.PathLike[str] | None] = ()) -> Path:
    """Refuse, before any work, an output path that the write would refuse."""
    destination = Path(path)
    display = os.fspath(path)
    refuse_inputs(destination, inputs)
    _refuse_installed(destination, display)
    if destination.is_dir() and not destination.is_symlink():
        raise OutputRefused(f"{display} is a folder; give a file name")
    if not force and (destination.exists() or destination.is_symlink()):
        raise OutputExists(f"{display} exists; use --force to overwrite")
    folder = destination.parent
    while not folder.exists() and folder.parent != folder:
        folder = folder.parent
    if not folder.is_dir():
        raise OutputRefused(f"cannot write {display}: {folder} is not a folder")
    return destination


def check_outputs(planned: Iterable[tuple[str | os.PathLike[str] | None, bool]],
                  inputs: Iterable[str | os.PathLike[str] | None] = ()) -> None:
    """check_output for each (path, force) of one run, and no two outputs on one path."""
    inputs = list(inputs)
    seen: set[str] = set()
    for path, force in planned:
        if path is None:
            continue
        where = os.path.normcase(os.path.abspath(check_output(path, force=force, inputs=inputs)))
        if where in seen:
            raise OutputRefused(f"{os.fspath(path)} is given for two outputs; give each its own path")
        seen.add(where)


def _make_parents(folder: Path, private: bool, display: str) -> None:
    missing: list[Path] = []
    while not folder.exists():
        missing.append(folder)
        if folder.parent == folder:
            break
        folder = folder.parent
    if not folder.is_dir():
        raise OutputRefused(f"cannot write {display}: {folder} is not a folder")
    for new in reversed(missing):
        try:
            os.mkdir(new, 0o700 if private else 0o777)  # the umask applies on top
        except FileExistsError:
            pass
        except OSError as err:
            raise OutputRefused(f"cannot create folder {new}: {err.strerror or err}") from None


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable (POSIX); harmless where folders cannot be opened."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # e.g. another user's process: alive as far as we can tell
        return True
    return True


def remove_stale_temporaries(folder: Path) -> list[Path]:
    """Remove the temporary files of writers that were killed (their pid is gone): a
    SIGKILL skips every clean-up, so the next writer to the folder does it. Only files
    named as this module names them, owned by this user, are touched."""
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        match = _TEMPORARY.match(entry.name)
        if not match or _alive(int(match["pid"])):
            continue
        try:
            if entry.is_file(follow_symlinks=False) and entry.stat(follow_symlinks=False).st_uid == os.getuid():
                os.unlink(entry.path)
                removed.append(Path(entry.path))
        except OSError:
            pass
    return removed


@contextmanager
def atomic_output(
    path: str | os.PathLike[str],
    *,
    force: bool = False,
    private: bool = True,
    newline: str = "",
    protect: Iterable[str | os.PathLike[str] | None] = (),
    encoding: str = "utf-8",
    binary: bool = False,
) -> Iterator[IO]:
    """Write a file all at once or not at all, under the module's rule set.

    Yields a handle (text, or bytes with `binary`) on a temporary file created in the
    destination's folder (mode 0o600 when `private`: files holding raw messages are for
    their owner only). When the block ends normally the data are flushed, fsynced and
    renamed onto `path`; on any exception, KeyboardInterrupt included, the temporary file
    is removed and `path` is untouched. Refused before anything is created: a `path` that
    is one of the `protect` files (inputs) or inside the installed package, and an
    existing `path` unless `force`. Missing folders are created (0o700 when private). Use
    encoding="utf-8-sig" for files meant for Excel.
    """
    destination = check_output(path, force=force, inputs=protect)
    display = os.fspath(path)
    folder = destination.parent
    _make_parents(folder, private, display)
    remove_stale_temporaries(folder)
    temporary = folder / f".{destination.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
    flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        descriptor = os.open(temporary, flags, 0o600 if private else 0o666)
    except OSError as err:
        raise OutputRefused(f"cannot write {display}: {err.strerror or err}") from None
    committed = False
    try:
        if binary:
            handle = os.fdopen(descriptor, "w+b")
        else:
            handle = os.fdopen(descriptor, "w", encoding=encoding, newline=newline)
    except BaseException:
        os.close(descriptor)
        os.unlink(temporary)
        raise
    try:
        try:
            yield handle  # errors of the caller's block propagate unchanged (after the cleanup)
        except OSError as err:
            if err.errno not in _FULL:
                raise
            raise OutputRefused(f"cannot write {display}: {err.strerror or err}") from None
        group = _GROUP.get()
        try:
            handle.flush()
            os.fsync(handle.fileno())
            handle.close()
            if private:
                os.chmod(temporary, 0o600)
            elif destination.exists() and not destination.is_symlink():
                os.chmod(temporary, stat.S_IMODE(destination.stat().st_mode))  # keep the replaced file's mode
            if group is not None:  # moved into place with the rest of its group
                group.pending.append((temporary, destination, force, display))
                committed = True
                return
            _commit(temporary, destination, force, display)
        except OSError as err:  # e.g. disk full: still one clear line for the CLI
            raise OutputRefused(f"cannot write {display}: {err.strerror or err}") from None
        committed = True
    finally:
        if not committed:
            try:
                handle.close()
            except OSError:
                pass
            try:
                os.unlink(temporary)
            except OSError:
                pass
    _fsync_folder(folder)


class OutputGroup:
    """The files of one `output_group`, written but not yet in place."""

    def __init__(self) -> None:
        self.pending: list[tuple[Path, Path, bool, str]] = []

    def written(self, path: str | os.PathLike[str]) -> Path:
        """Where the group's file for `path` is until the group is moved into place (to read it
        back: a checksum)."""
        for temporary, destination, _, _ in self.pending:
            if _same_place(destination, Path(path)):
                return temporary
        return Path(path)

    def _discard(self) -> None:
        for temporary, *_ in self.pending:
            try:
                os.unlink(temporary)
            except OSError:
                pass
        self.pending.clear()

    def _commit(self) -> None:
        display = ""
        try:
            for _, destination, force, display in self.pending:
                if not force and (destination.exists() or destination.is_symlink()):
                    raise OutputExists(f"{display} exists; use --force to overwrite")
            # The companions' older versions go first: whatever stops the moves, no new first file
            # ever stands beside an older companion (at worst a companion is missing).
            for companion in self.pending[1:]:
                _, destination, force, display = companion
                if force and (destination.exists() or destination.is_symlink()) and not destination.is_dir():
                    os.unlink(destination)
            while self.pending:
                temporary, destination, force, display = self.pending[0]
                _commit(temporary, destination, force, display)
                self.pending.pop(0)
                _fsync_folder(destination.parent)
        except OSError as err:
            raise OutputRefused(f"cannot write {display}: {err.strerror or err}") from None
        finally:
            self._discard()


def _same_place(a: Path, b: Path) -> bool:
    return os.path.normcase(os.path.abspath(a)) == os.path.normcase(os.path.abspath(b))


_GROUP: contextvars.ContextVar[OutputGroup | None] = contextvars.ContextVar("triage_output_group", default=None)


@contextmanager
def output_group() -> Iterator[OutputGroup]:
    """Write several files as one: every `atomic_output` inside the block writes its temporary
    file, and they are moved into place together when the block ends normally, the first one
    written first, after the others' older versions are removed (a release and its datasheets:
    an interruption never leaves a new release beside an older datasheet). On any exception,
    KeyboardInterrupt included, nothing is moved: every destination stays as it was."""
    group = OutputGroup()
    token = _GROUP.set(group)
    try:
        yield group
    except BaseException:
        group._discard()
        raise
    finally:
        _GROUP.reset(token)
    group._commit()


def _commit(temporary: Path, destination: Path, force: bool, display: str) -> None:
    if force:
        os.replace(temporary, destination)  # replaces a symlink itself, never its target
        return
    # link() fails if the destination appeared since the check: never clobber a file
    # another process created meanwhile.
    try:
        os.link(temporary, destination)
    except FileExistsError:
        raise OutputExists(f"{display} exists; use --force to overwrite") from None
    except (OSError, NotImplementedError, AttributeError):  # file systems without hard links
        if destination.exists() or destination.is_symlink():
            raise OutputExists(f"{display} exists; use --force to overwrite") from None
        os.replace(temporary, destination)
        return
    os.unlink(temporary)


def scratch_file(folder: str | os.PathLike[str], in_memory: int = 0, *, binary: bool = False) -> IO:
    """A private scratch file (text, UTF-8; bytes with `binary`) in `folder` for data on their way
    to an output (chunks held back for a later pass): kept in memory up to `in_memory` characters
    (bytes; with 0, not at all), then a file readable by its owner only, without a name (gone when
    closed or when the process dies, however it dies), on the output's own disk."""
    import tempfile

    opened = dict(mode="w+b") if binary else dict(mode="w+", encoding="utf-8", newline="")
    try:
        if in_memory <= 0:  # (a SpooledTemporaryFile of size 0 would stay in memory, whatever it holds)
            return tempfile.TemporaryFile(dir=folder, **opened)
        return tempfile.SpooledTemporaryFile(in_memory, dir=folder, **opened)
    except OSError as err:
        raise OutputRefused(f"cannot write a scratch file in {os.fspath(folder)}: {err.strerror or err}") from None


def write_bytes(path: str | os.PathLike[str], data: bytes, *, force: bool = False, private: bool = False,
                protect: Iterable[str | os.PathLike[str] | None] = ()) -> Path:
    with atomic_output(path, force=force, private=private, protect=protect, binary=True) as handle:
        handle.write(data)
    return Path(path)


def write_text(path: str | os.PathLike[str], text: str, *, force: bool = False, private: bool = False,
               protect: Iterable[str | os.PathLike[str] | None] = ()) -> Path:
    with atomic_output(path, force=force, private=private, protect=protect, newline="\n") as handle:
        handle.write(text)
    return Path(path)


def figure_png(figure, **savefig) -> bytes:
    """A matplotlib figure as PNG bytes (then written with write_bytes, atomically), drawn on an
    Agg canvas whatever the caller's backend (a notebook's stays as it is)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if figure.canvas is None or not isinstance(figure.canvas, FigureCanvasAgg):
        FigureCanvasAgg(figure)
    buffer = _io.BytesIO()
    figure.savefig(buffer, format="png", **savefig)
    return buffer.getvalue()
