"""Model files that are missing, damaged, tampered with, foreign, or hostile: one clear line
on every command that reads a model, and nothing run from them. (What a clean
failure is: `failed` in tests/conftest.py.)"""


from __future__ import annotations

import io
import json
import os
import zipfile
from pathlib import Path

import numpy as np
import pytest
from conftest import (
    HEADER,
    command_line,
    failed,
    labelled_rows,
    nothing_written,
    rewrite_model,
    succeeded,
    with_checksums,
    write_table,
)

# ------------------------------------------------------------------------- model files




@pytest.fixture(scope="module")
def small_model(tmp_path_factory) -> Path:
    """A model trained through the CLI (report tree needs the full pipeline inside), with
    the lexicons the tests use (no user lexicon)."""
    from typer.testing import CliRunner

    from triage import lexicons as lexicon_module
    from triage.cli import app

    folder = tmp_path_factory.mktemp("model")
    source = write_table(folder / "labelled.csv", [r[:3] for r in labelled_rows()], HEADER[:3])
    path = folder / "small.triage"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(lexicon_module.USER_DIR_ENV, str(folder / "no-user-lexicon"))
        lexicon_module.default.cache_clear()
        result = CliRunner().invoke(app, ["train", str(source), "-o", str(path), "--kind", "tree"])
    lexicon_module.default.cache_clear()
    assert result.exit_code == 0, result.output
    return path


def bad_models(small_model: Path, folder: Path) -> dict[str, tuple[Path, str]]:
    """name -> (model file, what the error says)."""
    real = small_model.read_bytes()
    truncated = folder / "truncated.triage"
    truncated.write_bytes(real[: len(real) // 2])
    csv_file = write_table(folder / "sms.csv", labelled_rows(2, 2))
    flipped = folder / "flipped.triage"  # a corrupt byte inside a compressed member
    with zipfile.ZipFile(small_model) as archive:
        info = archive.getinfo("forest.npz")
    middle = info.header_offset + 30 + len(info.filename) + info.compress_size // 2
    flipped.write_bytes(real[:middle] + bytes([real[middle] ^ 0xFF]) + real[middle + 1:])
    empty_zip = folder / "empty.triage"
    with zipfile.ZipFile(empty_zip, "w") as archive:
        archive.writestr("readme.txt", "hello")

    def tamper(members):
        data = bytearray(members["forest.npz"])
        data[-40] ^= 1  # one bit of the forest
        members["forest.npz"] = bytes(data)

    def other_lexicons(members):
        meta = json.loads(members["metadata.json"])
        meta["lexicon_fingerprint"] = "0000000000000000"
        members["metadata.json"] = json.dumps(meta).encode()
        with_checksums(members)

    def list_metadata(members):
        members["metadata.json"] = b"[1, 2, 3]"

    def newer_format(members):
        meta = json.loads(members["metadata.json"])
        meta["format"] = "sms-triage-model/99"
        members["metadata.json"] = json.dumps(meta).encode()
        with_checksums(members)

    return {
        "missing": (folder / "missing.triage", "does not exist"),
        "folder": (folder, "is a folder"),
        "flipped byte": (flipped, "is damaged"),
        "bad metadata": (rewrite_model(small_model, folder / "meta.triage", list_metadata), "bad metadata.json"),
        "truncated": (truncated, "is not an sms-triage model file"),
        "csv": (csv_file, "is not an sms-triage model file"),
        "foreign zip": (empty_zip, "is not an sms-triage model file"),
        "tampered": (rewrite_model(small_model, folder / "tampered.triage", tamper), "damaged or was modified"),
        "other lexicons": (rewrite_model(small_model, folder / "lex.triage", other_lexicons), "other lexicons"),
        "newer format": (rewrite_model(small_model, folder / "new.triage", newer_format), "this version reads"),
    }


BAD_MODELS = ["missing", "folder", "flipped byte", "bad metadata", "truncated", "csv", "foreign zip", "tampered", "other lexicons", "newer format"]


@pytest.mark.parametrize(
    "command, kind",
    [(command, kind) for command in ("classify", "evaluate", "report tree") for kind in BAD_MODELS
     if (command, kind) != ("report tree", "other lexicons")],  # drawing a tree does not use the lexicons
)
def test_a_bad_model_file_is_one_clear_line(cli, labelled, small_model, tmp_path, command, kind):
    folder = tmp_path / "models"
    folder.mkdir()
    path, error = bad_models(small_model, folder)[kind]
    out = tmp_path / "out"
    if command == "report tree":
        result = cli("report", "tree", path, "--out-dir", out)
    else:
        args = command_line(command, labelled, out)
        if command == "evaluate":
            args[args.index("--model") + 1] = path
        else:
            args += ["--model", path]
        result = cli(*args)
    failed(result, 1, error)
    nothing_written(out)


def test_a_tampered_skops_member_is_refused_by_report_tree(cli, small_model, tmp_path):
    def tamper(members):
        data = bytearray(members["model.skops"])
        data[len(data) // 2] ^= 1
        members["model.skops"] = bytes(data)

    tampered = rewrite_model(small_model, tmp_path / "tampered.triage", tamper)
    failed(cli("report", "tree", tampered, "--out-dir", tmp_path / "out"), 1, "model.skops does not match its checksum")


def test_a_model_with_types_outside_the_allow_list_is_refused(cli, labelled, small_model, tmp_path):
    """Even with valid checksums (anyone can recompute them), report tree refuses to load
    a type outside the allow-list; classify never loads the pickled part at all."""
    import skops.io
    from sklearn.preprocessing import FunctionTransformer

    def evil(members):
        members["model.skops"] = skops.io.dumps(FunctionTransformer(func=os.system, kw_args={"command": "touch pwned"}))
        with_checksums(members)

    path = rewrite_model(small_model, tmp_path / "evil.triage", evil)
    failed(cli("report", "tree", path, "--out-dir", tmp_path / "tree"), 1, "outside the allow-list", f"{os.system.__module__}.system")
    # classify reads only the numpy arrays: the skops member is never deserialised.
    succeeded(cli("classify", labelled, "-o", tmp_path / "c.csv", "--model", path))
    assert not (tmp_path / "pwned").exists() and not Path("pwned").exists()


class _Canary:
    """Unpickling this creates a file: the proof that a loader ran code from the file."""

    def __init__(self, path: Path):
        self.path = path

    def __reduce__(self):
        return (Path.touch, (self.path,))


def test_a_forest_holding_pickled_objects_is_refused_without_running_them(cli, labelled, small_model, tmp_path):
    canary = tmp_path / "canary"

    def pickled_forest(members):
        with np.load(io.BytesIO(members["forest.npz"])) as arrays:
            forest = dict(arrays)
        forest["proba"] = np.array([_Canary(canary)] * len(forest["proba"]), dtype=object)
        buffer = io.BytesIO()
        np.savez(buffer, **forest)
        members["forest.npz"] = buffer.getvalue()
        with_checksums(members)

    path = rewrite_model(small_model, tmp_path / "pickled.triage", pickled_forest)
    failed(cli("classify", labelled, "-o", tmp_path / "c.csv", "--model", path), 1, "unreadable forest")
    assert not canary.exists()


