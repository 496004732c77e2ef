"""The Python API (triage.api): the command line's jobs on DataFrames, with the same options."""

import inspect
import json

import pandas as pd
import pytest
import typer
from conftest import SAMPLE, in_fresh_python, labelled_rows, succeeded, write_table

import triage
from triage.cli import app
from triage.errors import BadInput, BadModel, BadOption, InputError, OutputExists, OutputRefused

# Options that only concern files: the API takes and returns objects in memory instead.
FILE_ONLY = {
    "output": "the API returns the rows",
    "force": "the API writes no file (Model.save has its own force)",
    "encoding": "DataFrames are decoded already",
    "delimiter": "DataFrames are parsed already",
    "on_bad_lines": "DataFrames have no ragged rows",
    "out_dir": "reports come back as Report objects",
    "queue": "classify's queue file: triage.queue_export(classified) returns it",
    "chart": "classify's bar chart is a file next to its output; the API writes none",
    "format": "the queue file's format",
    "excel": "the release file's dialect for Excel",
}
# The command's file argument is the API's first argument, the messages.
ARGUMENTS = {"input": "data", "gold": "data"}
FUNCTIONS = {"lexicons": "list_lexicons"}  # triage.lexicons is the module of the word lists


def commands(group, prefix=()):
    for name, command in group.commands.items():
        if hasattr(command, "commands"):  # a group: `queue`, `report`
            yield from commands(command, prefix + (name,))
        else:
            yield prefix + (name,), command


CLI_COMMANDS = dict(commands(typer.main.get_command(app)))


def api_function(path: tuple[str, ...]):
    name = "_".join(path)
    return getattr(triage, FUNCTIONS.get(name, name))


@pytest.mark.parametrize("path", sorted(CLI_COMMANDS), ids=" ".join)
def test_every_command_has_an_api_function_with_the_same_options_and_defaults(path):
    command = CLI_COMMANDS[path]
    parameters = inspect.signature(api_function(path)).parameters
    expected = set()
    for param in command.params:
        if param.name in FILE_ONLY:
            continue
        name = ARGUMENTS.get(param.name, param.name) if param.param_type_name == "argument" else param.name
        expected.add(name)
        assert name in parameters, f"triage.{api_function(path).__name__} has no parameter {name!r}"
        api_default = parameters[name].default
        if param.required:
            assert api_default is inspect.Parameter.empty, f"{name} is required on the command line"
        else:
            assert api_default == param.default, f"{name}: the command line's default is {param.default!r}"
    assert set(parameters) == expected, "API parameters the command does not have"


def test_the_command_line_and_the_api_list_the_same_commands():
    from triage import api

    functions = {FUNCTIONS.get("_".join(path), "_".join(path)) for path in CLI_COMMANDS}
    callables = {name for name in api.__all__ if name[0].islower()}
    assert functions == callables


# ---------------------------------------------------------------------- same rows as the files


@pytest.fixture(scope="module")
def demo():
    return pd.read_csv(SAMPLE)


def test_classifying_a_dataframe_gives_the_same_rows_as_classifying_the_csv(cli, demo, tmp_path):
    succeeded(cli("classify", SAMPLE, "-o", tmp_path / "out.csv"))
    from_file = pd.read_csv(tmp_path / "out.csv", keep_default_na=False)
    from_frame = triage.classify(demo)
    pd.testing.assert_frame_equal(from_frame, from_file, check_dtype=False)
    assert (from_frame.decision == "EXPERT").any() and (from_frame.decision == "TA").any()


def test_seek_on_a_dataframe_gives_the_rows_of_the_csv(cli, demo, tmp_path):
    succeeded(cli("seek", SAMPLE, "-o", tmp_path / "seek.csv"))
    pd.testing.assert_frame_equal(triage.seek(demo), pd.read_csv(tmp_path / "seek.csv", keep_default_na=False),
                                  check_dtype=False)
    succeeded(cli("seek", SAMPLE, "--words", "-o", tmp_path / "words.csv"))
    pd.testing.assert_frame_equal(triage.seek(demo, words=True),
                                  pd.read_csv(tmp_path / "words.csv", keep_default_na=False), check_dtype=False)


def test_a_polars_frame_gives_a_polars_frame_and_pairs_give_pandas(demo):
    polars = pytest.importorskip("polars")
    few = demo.head(30)
    from_pandas = triage.classify(few)
    from_polars = triage.classify(polars.DataFrame(few.to_dict("list")))
    assert isinstance(from_polars, polars.DataFrame)
    assert from_polars.to_dict(as_series=False) == from_pandas.to_dict("list")
    pairs = triage.classify(list(zip(few.id, few.text)))
    assert isinstance(pairs, pd.DataFrame)
    assert pairs.decision.tolist() == from_pandas.decision.tolist()
    texts = triage.classify(few.text.tolist())  # texts alone: numbered from 1, as rows without ids
    assert texts.id.tolist() == [str(n) for n in range(1, 31)]
    assert texts.anonymised.tolist() == from_pandas.anonymised.tolist()


def test_a_dict_of_id_to_text_is_read_as_pandas_series_reads_it(demo):
    few = demo.head(12)
    from_pandas = triage.classify(few)
    by_id = triage.classify(dict(zip(few.id, few.text)))  # {id: text}: ids and texts, never the keys as texts
    assert by_id.id.tolist() == few.id.tolist()
    assert by_id.decision.tolist() == from_pandas.decision.tolist()
    assert by_id.anonymised.tolist() == from_pandas.anonymised.tolist()
    columns = triage.classify({"id": few.id.tolist(), "text": few.text.tolist()})  # as pandas.DataFrame(d)
    assert columns.anonymised.tolist() == from_pandas.anonymised.tolist()
    assert triage.seek({"x": "Salut Julie", "y": "ok merci"}).id.tolist() == ["x", "y"]


@pytest.mark.parametrize("given", [{"a": ["Salut Julie"], "b": "ok"}, {"id": ["1", "2"], "text": ["ok"]},
                                   {"a": 3, "b": "ok"}])
def test_a_dict_neither_of_texts_nor_of_columns_is_one_line(given):
    from triage.errors import BadInput

    with pytest.raises(BadInput, match="dict") as refused:
        triage.classify(given)
    assert len(str(refused.value).splitlines()) == 1


def test_results_keep_the_index_and_the_id_values_of_the_input(demo):
    few = demo.head(5).set_index(pd.Index(list("abcde"), name="key"))
    result = triage.classify(few)
    assert list(result.index) == list("abcde")
    assert result.id.tolist() == few.id.tolist()  # integers, as given
    without_ids = triage.classify(few.drop(columns="id"))
    assert without_ids.id.tolist() == ["1", "2", "3", "4", "5"]  # row numbers, as the command line gives


def test_missing_values_are_empty_messages_and_span_lists_are_read_as_json(tmp_path):
    frame = pd.DataFrame({"id": [1, 2], "text": ["Appelle Nadia", None]})
    result = triage.classify(frame)
    assert result.text.tolist() == ["Appelle Nadia", ""]
    rows = labelled_rows()
    spans = [json.loads(row[3]) if row[3] else [] for row in rows]  # lists, not JSON text
    gold = pd.DataFrame({"id": [r[0] for r in rows], "text": [r[1] for r in rows], "label": [r[2] for r in rows],
                         "spans": spans})
    model = triage.train(gold)
    assert model.metadata["policy"]["name"] == "budget"  # the spans were read: a word scorer was trained


# ---------------------------------------------------------------------- models


def test_a_trained_model_saves_loads_and_classifies_as_its_file_does(cli, tmp_path):
    labelled = write_table(tmp_path / "labelled.csv", labelled_rows())
    model = triage.train(pd.read_csv(labelled, keep_default_na=False), kind="tree")
    assert isinstance(model, triage.Model) and model.metadata["kind"] == "tree"
    saved = model.save(tmp_path / "model.triage")
    with pytest.raises(OutputExists):
        model.save(saved)
    loaded = triage.Model.load(saved)
    messages = pd.read_csv(SAMPLE).head(40)
    in_memory = triage.classify(messages, model=model)
    pd.testing.assert_frame_equal(in_memory, triage.classify(messages, model=saved))
    # The same 40 messages: an exact expert budget is a share of the messages classified together.
    messages.to_csv(tmp_path / "head.csv", index=False)
    succeeded(cli("classify", tmp_path / "head.csv", "--model", saved, "-o", tmp_path / "out.csv"))
    from_file = pd.read_csv(tmp_path / "out.csv", keep_default_na=False)
    pd.testing.assert_frame_equal(triage.classify(messages, model=loaded), from_file, check_dtype=False)
    assert "Number of Leaves" in triage.report_tree(loaded).markdown


def test_a_model_file_is_checked_as_the_command_line_checks_it(tmp_path):
    fake = tmp_path / "fake.triage"
    fake.write_bytes(b"not a zip")
    with pytest.raises(BadModel, match="not an sms-triage model file"):
        triage.Model.load(fake)
    with pytest.raises(BadModel, match="does not exist"):
        triage.classify([("1", "salut")], model=tmp_path / "none.triage")
    with pytest.raises(OutputRefused):
        triage.Model.default().save(triage.Model.default().path, force=True)  # never over the installed model


# ---------------------------------------------------------------------- errors


@pytest.mark.parametrize("call, kind, fragment", [
    (lambda: triage.classify(pd.DataFrame({"message": ["x"]})), BadInput, "no column 'text'"),
    (lambda: triage.classify(str(SAMPLE)), BadInput, "read it first"),
    (lambda: triage.classify([("1", "a", "b")]), BadInput, "neither an (id, text) pair nor"),
    (lambda: triage.classify([("1", "salut")], expert_budget=-2), BadOption, "share of messages (0 to 1"),
    (lambda: triage.classify([("1", "salut")], scheduler="tcp://x:1"), BadOption, "--scheduler is for"),
    (lambda: triage.train(pd.DataFrame({"text": ["a"], "label": ["maybe"]})), BadInput, "is not TA or NTA"),
    (lambda: triage.train(pd.DataFrame({"text": ["a"], "label": ["TA"]}), kind="forest"), BadOption, "model kind"),
    (lambda: triage.report_cv(pd.DataFrame({"text": ["a"], "label": ["TA"]}), feature_set="all"), BadOption,
     "feature set"),
])
def test_errors_are_specific_classes_with_the_command_lines_message(call, kind, fragment):
    with pytest.raises(kind) as raised:
        call()
    assert isinstance(raised.value, InputError)
    assert fragment in str(raised.value)


# ---------------------------------------------------------------------- queue, review, release


def test_the_queue_is_a_frame_and_answers_fold_back(demo):
    classified = triage.classify(demo)
    queue = triage.queue_export(classified)
    assert len(queue) == (classified.decision == "EXPERT").sum()
    assert queue.columns.tolist()[:5] == ["id", "text", "proposal", "machines_hide", "look_at"]
    # what the machines hid is in the queue: the reviewer's TA or NTA is never answered blind
    hidden = classified.set_index("id").hidden.map(json.loads)
    for row in queue.itertuples():
        spans = hidden[row.id]
        assert row.machines_hide == "; ".join(f"{row.text[s:e]} ({tag})" for s, e, tag in spans)
        assert all(f"[{tag}: {row.text[s:e]}]" in row.proposal for s, e, tag in spans)
    answered = queue.assign(expert_decision="NTA", expert_hide="")
    final = triage.queue_apply(answered, classified)
    assert len(final) == len(classified) and not (final.final == "EXPERT").any()


def test_classify_with_a_workspace_then_release_from_the_frame(demo, tmp_path):
    workspace = tmp_path / "demo.review.sqlite"
    classified = triage.classify(demo, workspace=workspace)
    with pytest.raises(BadInput, match="undecided"):
        triage.release(classified, workspace=workspace)
    # The demo's homonyms (Avril the friend, en avril) are consistency cases nobody decided yet.
    released = triage.release(classified, workspace=workspace, style="pseudonyms", withhold_undecided=True,
                              inconsistent_ok=True, input=demo, columns="donor")
    queued = int((classified.decision == "EXPERT").sum())
    assert len(released.corpus) == len(demo) - queued
    assert released.datasheet["messages"]["withheld_undecided"] == queued
    assert list(released.corpus.columns) == ["id", "donor", "text"]  # the input's columns named, and no other
    hidden = classified[classified.decision == "TA"].iloc[0]
    row = released.corpus.set_index("id").loc[hidden.id]
    assert "<PRE_" in row.text or "<" in row.text
    assert "Datasheet" in released.markdown()
    lines = triage.review(classified, workspace=workspace, report=True)
    assert lines[0].startswith("list:")
    with pytest.raises(BadOption, match="name the review workspace"):
        triage.release(classified)


def test_a_frame_classified_with_its_own_text_column_is_released_with_it(demo, tmp_path):
    workspace = tmp_path / "body.review.sqlite"
    frame = demo.rename(columns={"text": "body"})
    classified = triage.classify(frame, text_column="body", workspace=workspace)
    released = triage.release(classified, workspace=workspace, withhold_undecided=True, inconsistent_ok=True,
                              input=frame)
    assert "body" in released.corpus.columns
    ta = classified[classified.decision == "TA"].iloc[0]
    body = released.corpus.set_index("id").loc[ta.id].body
    assert body != ta.text and "<" in body


def test_reports_come_back_with_tables_and_figures(demo):
    from matplotlib.figure import Figure

    infogain = triage.report_infogain(demo)
    assert infogain.tables["ranking"].feature.tolist()[0] and isinstance(infogain.figure, Figure)
    cv = triage.report_cv(demo, folds=3, compare=True)
    assert set(cv.tables["models"].features) == {"paper", "rich"}
    assert "Table 6" in cv.markdown or "|" in cv.markdown
    assert triage.list_lexicons().name.tolist()[0] == "first_names"


# ---------------------------------------------------------------------- start-up


def test_neither_the_package_nor_the_command_line_imports_pandas_or_polars(tmp_path):
    printed = in_fresh_python(
        "import sys",
        "import triage",
        "assert 'triage.api' not in sys.modules and 'pandas' not in sys.modules",
        "from typer.testing import CliRunner",
        "from triage.cli import app",
        f"result = CliRunner().invoke(app, ['classify', {str(SAMPLE)!r}, '-o', {str(tmp_path / 'o.csv')!r}])",
        "assert result.exit_code == 0, result.output",
        "print(sorted(m for m in ('pandas', 'polars', 'triage.api') if m in sys.modules))",
    )
    assert printed.strip() == "[]"


# ---------------------------------------------------------------------- the documentation


def test_the_worked_example_of_docs_api_runs_as_written(tmp_path, monkeypatch):
    import doctest
    import shutil

    from conftest import REPO

    (tmp_path / "data").mkdir()
    shutil.copy(SAMPLE, tmp_path / "data" / "sample_sms.csv")
    monkeypatch.chdir(tmp_path)  # the example writes demo.triage and its review workspace here
    monkeypatch.setenv("MPLBACKEND", "Agg")  # pandas' plot goes through pyplot
    result = doctest.testfile(str(REPO / "docs" / "api.md"), module_relative=False, report=True,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 20
    assert result.failed == 0
