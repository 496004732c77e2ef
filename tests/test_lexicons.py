import os
import shutil

import numpy as np
import pytest

from triage import lexicons as lexicon_module
from triage.lexicons.nearwords import NearWords
from triage.lexicons.wordlist import WordList


def test_lexicons_meet_the_minimum_sizes(lexicons):
    assert len(lexicons.first_names) >= 30_000
    assert len(lexicons.last_names) >= 50_000
    assert len(lexicons.forms) >= 400_000
    assert len(lexicons.cities) >= 10_000
    assert len(lexicons.countries) >= 190
    assert len(lexicons.sms) >= 700


def test_every_first_name_has_a_stable_id_and_rank(lexicons):
    entry = lexicons.name_entry("patrice")
    assert entry.tag == "PRE" and entry.id > 0 and entry.rank > 0
    assert lexicons.name_entry("Patrice".lower()) == entry
    assert lexicons.name_entry("martin").id == lexicons.first_names["martin"]


def test_names_that_are_common_words_are_ambiguous(lexicons):
    for word in ("pierre", "rose", "claire", "ange", "avril"):
        assert lexicons.lookup(word) == (True, True), word
    assert {"pierre", "rose", "claire", "ange", "avril"} <= lexicons.ambiguous


def test_the_ambiguous_spellings_are_the_names_lookup_finds_both_name_and_word(lexicons):
    """`triage lexicons` counts them all at once: the names lookup() answers (True, True) for, one
    by one, with a user lexicon that names a word ('rose') and makes an ordinary word of a name
    ('claire') and of a spelling it names too."""
    import dataclasses
    import random

    taught = dataclasses.replace(lexicons, user_names={"rose", "zorglub", "pierre"},
                                 user_words={"claire", "pierre"})
    for lists in (lexicons, taught):
        ambiguous = lists.ambiguous
        names = sorted((lists.first_names.keys() | set(lists.last_names) | lists.user_names) - lists.user_words)
        sample = random.Random(7).sample(names, 5_000) + sorted(lists.user_names | {"ange", "avril"})
        assert {key for key in sample if key in ambiguous} == \
            {key for key in sample if lists.lookup(key) == (True, True)}
    assert {"rose", "claire", "pierre"} <= lexicons.ambiguous
    assert not {"rose", "claire", "pierre", "zorglub"} & taught.ambiguous and "ange" in taught.ambiguous


def test_function_words_are_never_names(lexicons):
    for word in ("la", "le", "tu", "elle", "de", "aime", "petit", "mdr", "jaime"):
        assert lexicons.lookup(word) == (False, True), word


def test_lookup_is_exact_first_then_accent_insensitive(lexicons):
    assert lexicons.lookup("desole") == (False, True)  # désolé
    assert lexicons.lookup("helene") == (True, False)  # Hélène
    assert lexicons.lookup("aime") == (False, True)  # the verb, although Aimé is a name


def test_places_are_ordinary_words(lexicons):
    for place in ("montpellier", "perpignan", "maroc", "espagne"):
        assert lexicons.lookup(place)[1], place
        assert not lexicons.lookup(place)[0], place


def test_exceptions_and_user_answers_override_the_lists(tmp_path):
    user = tmp_path / "user"
    user.mkdir()
    (user / "names.txt").write_text("zorglub\n", "utf-8")
    (user / "words.txt").write_text("# answered by the expert\npatrice\n", "utf-8")
    loaded = lexicon_module.load(user_directory=user)
    assert loaded.lookup("zorglub") == (True, False)
    assert loaded.lookup("patrice") == (False, True)


def test_fingerprint_ignores_user_answers_but_not_lexicon_edits(tmp_path):
    copy = tmp_path / "dictionaries"
    shutil.copytree(lexicon_module.DICTIONARIES_DIR, copy, ignore=shutil.ignore_patterns("user", "__pycache__"))
    before = lexicon_module.lexicon_fingerprint(copy)
    (copy / "user").mkdir()
    (copy / "user" / "names.txt").write_text("zorglub\n", "utf-8")
    assert lexicon_module.lexicon_fingerprint(copy) == before
    with (copy / "names" / "exceptions.txt").open("a", encoding="utf-8") as handle:
        handle.write("patrice\n")
    assert lexicon_module.lexicon_fingerprint(copy) != before


def test_triage_lexicons_prints_sizes_sources_and_licences(cli):
    result = cli("lexicons")
    assert result.exit_code == 0, result.output
    for expected in ("first_names", "inflected_forms", "sms_forms", "LGPL-LR", "CC BY 4.0", "INSEE"):
        assert expected in result.output


def test_help_lists_every_command_with_a_description(cli):
    result = cli("--help")
    assert result.exit_code == 0
    assert "lexicons" in result.output and "List the lexicons" in result.output


def test_the_embedded_model_matches_the_shipped_lexicons():
    # Editing a lexicon changes its fingerprint: the default model must then be retrained
    # (docs/retraining.md: "The embedded model"), or classify refuses it.
    import json
    import zipfile

    from triage.model import default_model_path

    metadata = json.loads(zipfile.ZipFile(default_model_path()).read("metadata.json"))
    assert metadata["lexicon_fingerprint"] == lexicon_module.lexicon_fingerprint()


# ---------------------------------------------------------------------- the snapshot cache

SMALL_LEXICONS = {
    "names/first_names.tsv": "name\tid\trank\tsex\nJean\t1\t1\tM\nHélène\t2\t5\tF\nMarie\t3\t2\tF\nAimé\t4\t900\tM\n",
    "names/last_names.tsv": "name\tid\trank\nMartin\t1\t1\nPetit\t2\t2\nKon\t3\t3\nmartin\t9\t9\n",
    "names/exceptions.txt": "# not names\npetit\n",
    "forms/inflected_forms.txt": "maison\naime\ndésolé\naujourd'hui\npetit\nmarie\nsûrement\n",
    "forms/exceptions.txt": "marie\n",
    "sms/sms_forms.tsv": "form\tstandard\tkind\nmdr\tmort de rire\tabbreviation\nc’est-à-dire\tc'est-à-dire\tx\n",
    "places/cities.tsv": "name\tgeonameid\tpopulation\nMontpellier\t1\t2\nBéziers\t2\t1\n",
    "places/countries.tsv": "name\tiso\nMaroc\tMA\n",
    "places/regions.tsv": "name\tiso\nAin\tFR-01\n",
    "places/exceptions.txt": "",
    "pronouns/pronouns.txt": "tu\nelle\n",
}


@pytest.fixture
def small_lexicons(tmp_path, monkeypatch):
    """A small lexicon folder, and a cache folder of its own (so that its snapshots can be
    counted)."""
    folder = tmp_path / "dictionaries"
    for name, text in SMALL_LEXICONS.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, "utf-8")
    shutil.copy(lexicon_module.DICTIONARIES_DIR / "sources.json", folder)
    monkeypatch.setenv(lexicon_module.CACHE_DIR_ENV, str(tmp_path / "cache"))
    return folder


@pytest.fixture
def compiled(monkeypatch):
    """Counts the loads that read the text files (the others read the snapshot)."""
    calls = []
    compile_ = lexicon_module._compile

    def spy(directory):
        calls.append(directory)
        return compile_(directory)

    monkeypatch.setattr(lexicon_module, "_compile", spy)
    return calls


def contents(loaded) -> dict:
    """Everything a Lexicons holds, in comparable form (dicts with their order)."""
    def plain(value):
        if isinstance(value, dict):
            return [(key, plain(item)) for key, item in value.items()]
        if isinstance(value, (set, frozenset)):
            return sorted(value)
        if isinstance(value, (WordList, np.ndarray)):
            return list(value)
        if isinstance(value, NearWords):
            return [value.keys.tolist(), value.entries.tolist(), value.words.tolist(), value.flags.tolist()]
        return value

    return {name: plain(value) for name, value in vars(loaded).items() if name not in ("directory", "user_directory")}


def snapshots(folder) -> list[str]:
    return sorted(path.name for path in folder.parent.joinpath("cache").iterdir())


def test_the_first_load_saves_a_snapshot_that_the_next_loads_read(small_lexicons, compiled):
    first = lexicon_module.load(small_lexicons)
    assert len(compiled) == 1
    path = lexicon_module.snapshot_path(small_lexicons)
    assert path.exists() and snapshots(small_lexicons) == [path.name]  # no temporary file left
    second = lexicon_module.load(small_lexicons)
    assert len(compiled) == 1  # read from the snapshot, not from the text files
    assert contents(second) == contents(first)
    assert isinstance(second.forms, WordList) and "désolé" in second.forms and "marie" not in second.forms
    assert second.lookup("desole") == (False, True) and second.lookup("helene") == (True, False)
    assert second.lookup("petit") == (False, True)  # the exception removed the surname
    assert second.name_entry("martin") == ("NOM", 1, 1)  # duplicate spelling: the best-ranked row
    assert second.apostrophe_words == {"aujourd'hui", "c'est-à-dire"}
    assert second.fingerprint == lexicon_module.lexicon_fingerprint(small_lexicons)


def test_editing_a_lexicon_file_rebuilds_the_snapshot(small_lexicons, compiled):
    before = lexicon_module.load(small_lexicons)
    assert "zorglub" not in before.forms
    with (small_lexicons / "forms" / "inflected_forms.txt").open("a", encoding="utf-8") as handle:
        handle.write("zorglub\n")
    after = lexicon_module.load(small_lexicons)
    assert len(compiled) == 2
    assert "zorglub" in after.forms and after.fingerprint != before.fingerprint
    assert after.fingerprint == lexicon_module.lexicon_fingerprint(small_lexicons)
    # The older snapshot of the folder is gone, the new one is reused.
    assert snapshots(small_lexicons) == [lexicon_module.snapshot_path(small_lexicons).name]
    lexicon_module.load(small_lexicons)
    assert len(compiled) == 2


def test_user_answers_are_read_from_their_files_not_from_the_snapshot(small_lexicons, tmp_path, compiled):
    user = tmp_path / "user"
    user.mkdir()
    (user / "names.txt").write_text("zorglub\n", "utf-8")
    assert lexicon_module.load(small_lexicons, user).lookup("zorglub") == (True, False)
    (user / "names.txt").write_text("", "utf-8")
    (user / "words.txt").write_text("jean\n", "utf-8")
    again = lexicon_module.load(small_lexicons, user)
    assert len(compiled) == 1
    assert again.lookup("zorglub") == (False, False) and again.lookup("jean") == (False, True)


def _rewrite(path, name, array):
    np.save(path / f"{name}.npy", array)


def _forms_as_text(path):
    _rewrite(path, "forms", np.array(list(WordList(np.load(path / "forms.npy")))))  # a 'U' array


def _cut(name, size):
    return lambda path: (path / name).write_bytes((path / name).read_bytes()[: size((path / name).stat().st_size)])


DAMAGES = {  # each applied to the snapshot folder
    "absent": shutil.rmtree,
    "missing array": lambda path: (path / "forms.npy").unlink(),
    "truncated": _cut("forms.npy", lambda size: size // 2),
    "cut at the end": _cut("forms.npy", lambda size: size - 10),
    "empty": _cut("last_name_ids.npy", lambda size: 0),
    "not an array": lambda path: (path / "forms.npy").write_bytes(b"\x93NUMPY garbage" * 100),
    "wrong dtype": _forms_as_text,
    "wrong ndim": lambda path: _rewrite(path, "fingerprint", np.array(["0123456789abcdef"])),
}


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_snapshot_is_rebuilt_silently_with_the_same_result(small_lexicons, compiled, damage):
    expected = contents(lexicon_module.load(small_lexicons))
    path = lexicon_module.snapshot_path(small_lexicons)
    DAMAGES[damage](path)
    assert lexicon_module._read_snapshot(path) is None
    assert contents(lexicon_module.load(small_lexicons)) == expected
    assert len(compiled) == 2
    assert lexicon_module._read_snapshot(path) is not None  # written again


def test_a_snapshot_saved_meanwhile_by_another_process_is_kept(small_lexicons):
    lexicon_module.load(small_lexicons)
    path = lexicon_module.snapshot_path(small_lexicons)
    saved = path.stat().st_ino
    lexicon_module._write_snapshot(path, lexicon_module._compile(small_lexicons))  # lost the race
    assert path.stat().st_ino == saved and snapshots(small_lexicons) == [path.name]  # ours removed


def test_a_cache_folder_that_cannot_be_written_only_costs_time(small_lexicons, tmp_path, monkeypatch, compiled):
    expected = contents(lexicon_module.load(small_lexicons))
    (tmp_path / "a file").write_text("", "utf-8")
    monkeypatch.setenv(lexicon_module.CACHE_DIR_ENV, str(tmp_path / "a file" / "cache"))
    assert contents(lexicon_module.load(small_lexicons)) == expected
    assert contents(lexicon_module.load(small_lexicons)) == expected
    assert len(compiled) == 3


def test_the_shipped_lexicons_read_from_the_snapshot_equal_those_read_from_text(lexicons, compiled):
    from_snapshot = lexicon_module.load(user_directory=lexicons.user_directory)
    assert not compiled  # the session's first load saved the snapshot
    from_text = lexicon_module._from_arrays(
        lexicon_module._compile(lexicon_module.DICTIONARIES_DIR), lexicon_module.DICTIONARIES_DIR, lexicons.user_directory
    )
    assert contents(from_snapshot) == contents(from_text) == contents(lexicons)
    assert from_snapshot.fingerprint == lexicon_module.lexicon_fingerprint()


def test_the_surnames_the_exceptions_remove_come_in_the_same_order_whatever_the_hash_seed():
    """The snapshot of the lexicons is made by whichever process loads them first: what it holds must not
    depend on that process's hash seed (a set's order does), or two processes read different snapshots."""
    import subprocess
    import sys

    script = (
        "from triage import lexicons as l\n"
        "d = l.DICTIONARIES_DIR\n"
        "removed = {}\n"
        "l._read_names(d / 'names' / 'last_names.tsv', l._read_list(d / 'names' / 'exceptions.txt'), removed)\n"
        "print(list(removed))\n"
    )
    orders = {subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                             env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2", "3")}
    assert len(orders) == 1 and len(orders.pop()) > 100
