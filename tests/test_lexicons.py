from triage import lexicons as lexicon_module


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
    import shutil

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
    # (README: "Retraining the default model"), or classify refuses it.
    import json
    import zipfile

    from triage.model import default_model_path

    metadata = json.loads(zipfile.ZipFile(default_model_path()).read("metadata.json"))
    assert metadata["lexicon_fingerprint"] == lexicon_module.lexicon_fingerprint()
