import csv
import json
import shutil

import pytest
from conftest import SAMPLE, in_fresh_python

from triage.schema import CLASSIFY_COLUMNS


def read_rows(path):
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture
def sample(tmp_path):
    return shutil.copy(SAMPLE, tmp_path / "sample_sms.csv")


def test_classify_follows_the_output_contract(cli, sample, tmp_path):
    out = tmp_path / "out.csv"
    result = cli("classify", sample, "-o", out)
    assert result.exit_code == 0, result.output
    rows = read_rows(out)
    source = read_rows(sample)
    assert list(rows[0]) == list(CLASSIFY_COLUMNS)
    assert [r["id"] for r in rows] == [r["id"] for r in source]  # one row per input row, same order
    assert [r["text"] for r in rows] == [r["text"] for r in source]
    for row in rows:
        assert row["seekhide"] in {"TA", "NTA", "UNTAGGED"}
        assert row["model"] in {"TA", "NTA"}
        assert row["decision"] in {"TA", "NTA", "EXPERT"}
        assert 0.0 <= float(row["score"]) <= 1.0
        assert (float(row["score"]) >= 0.5) == (row["model"] == "TA")
        for start, end, tag in json.loads(row["hidden"]):
            assert 0 <= start < end <= len(row["text"]) and tag.isupper()
        assert isinstance(json.loads(row["highlighted"]), list)
        if not json.loads(row["hidden"]):
            assert row["anonymised"] == row["text"]


def test_classify_draws_its_chart_without_matplotlib_and_no_chart_writes_the_same_classification(sample, tmp_path):
    # In a fresh process: matplotlib costs about 0.3 s to import and 0.1 s to draw a first figure,
    # as long as classifying a few thousand messages; the chart is drawn with Pillow.
    printed = in_fresh_python(
        "import sys",
        "from typer.testing import CliRunner",
        "from triage.cli import app",
        "runner = CliRunner()",
        f"result = runner.invoke(app, ['classify', {str(sample)!r}, '-o', {str(tmp_path / 'plain.csv')!r}, '--no-chart'])",
        "assert result.exit_code == 0, result.output",
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'matplotlib'))",
        f"result = runner.invoke(app, ['classify', {str(sample)!r}, '-o', {str(tmp_path / 'charted.csv')!r}])",
        "assert result.exit_code == 0, result.output",
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'matplotlib'))",
    )
    assert printed.split() == ["[]", "[]"]
    assert not (tmp_path / "plain.summary.png").exists()
    assert (tmp_path / "charted.summary.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "plain.csv").read_bytes() == (tmp_path / "charted.csv").read_bytes()


def test_the_paper_policy_is_table_2(cli, sample, tmp_path):
    out = tmp_path / "out.csv"
    assert cli("classify", sample, "-o", out, "--policy", "paper").exit_code == 0
    for row in read_rows(out):
        s, m, d = row["seekhide"], row["model"], row["decision"]
        expected = m if s == "UNTAGGED" else (s if s == m else "EXPERT")
        assert d == expected


def test_summary_compares_the_expert_workload(cli, sample, tmp_path):
    out = tmp_path / "out.csv"
    result = cli("classify", sample, "-o", out)
    assert "EXPERT" in result.output and "expert workload" in result.output
    assert "reading everything: 260" in result.output
    assert (tmp_path / "out.summary.png").read_bytes().startswith(b"\x89PNG")


def test_without_output_it_writes_under_reports_and_says_where(cli, sample, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = cli("classify", sample)
    assert result.exit_code == 0, result.output
    assert "reports/sample_sms.classified.csv" in result.output
    assert len(read_rows(tmp_path / "reports" / "sample_sms.classified.csv")) == 260


@pytest.mark.parametrize("suffix", [".tsv", ".jsonl"])
def test_tsv_and_jsonl_inputs_by_extension(cli, tmp_path, suffix):
    source = tmp_path / f"sms{suffix}"
    if suffix == ".tsv":
        source.write_text("id\ttext\na\tCoucou Patrice\nb\tok merci\n", "utf-8")
    else:
        source.write_text('{"id": "a", "text": "Coucou Patrice"}\n{"id": "b", "text": "ok merci"}\n', "utf-8")
    out = tmp_path / "out.csv"
    assert cli("classify", source, "-o", out).exit_code == 0
    assert [(r["id"], r["seekhide"]) for r in read_rows(out)] == [("a", "TA"), ("b", "NTA")]


def test_custom_text_and_id_columns(cli, tmp_path):
    source = tmp_path / "sms.csv"
    source.write_text("num,message\n7,Coucou Patrice\n", "utf-8")
    out = tmp_path / "out.csv"
    assert cli("classify", source, "-o", out, "--text-column", "message", "--id-column", "num").exit_code == 0
    assert read_rows(out)[0]["id"] == "7"


def test_several_processes_give_the_same_output(sample, tmp_path):
    from triage.jobs import run_classify

    one = run_classify(sample, tmp_path / "one.csv", chart=False)
    two = run_classify(sample, tmp_path / "two.csv", jobs=2, chunk_size=37, chart=False)
    assert one.decisions == two.decisions
    assert (tmp_path / "one.csv").read_bytes() == (tmp_path / "two.csv").read_bytes()


def test_with_jobs_every_chunk_is_counted_and_classified_by_the_workers_not_here(sample, tmp_path, monkeypatch):
    """With --jobs, the workers count the statistics and classify every chunk: this process
    learns and classifies none itself (the workers' calls are in their own memory), and writes
    what one process writes."""
    from triage import jobs
    from triage.classifier import Classifier

    here = []
    real = Classifier.classify
    monkeypatch.setattr(Classifier, "classify", lambda self, messages: here.append(len(messages)) or real(self, messages))
    monkeypatch.setattr(Classifier, "learn", lambda self, messages: here.append(-1))
    jobs.run_classify(sample, tmp_path / "one.csv", chunk_size=37, chart=False)
    assert sum(here) == len(read_rows(sample))
    here.clear()
    jobs.run_classify(sample, tmp_path / "two.csv", jobs=2, chunk_size=37, chart=False)
    assert here == []
    assert (tmp_path / "one.csv").read_bytes() == (tmp_path / "two.csv").read_bytes()


def test_the_chunk_a_classifier_learnt_is_classified_from_what_it_learnt_once(sample, monkeypatch):
    """The chunk `learn` analysed, classified first, is classified without running Seek&Hide on it
    again, into the rows a classifier that never learnt it writes; the learnt batch serves once,
    and is let go of when another chunk comes first."""
    from triage.classifier import Classifier
    from triage.jobs import corpus_stats
    from triage.io.messages import open_messages
    from triage.model import default_model_path, load_predictor
    from triage.seekhide import SeekAndHide

    predictor = load_predictor(default_model_path())
    pairs = [(row["id"], row["text"]) for row in read_rows(sample)]
    stats, _ = corpus_stats(open_messages(sample), 1000, predictor)
    fresh, learning, other = (Classifier(predictor, stats=stats) for _ in range(3))
    learning.learn(pairs[:37])
    other.learn(pairs[:37])
    analysed = []
    real = SeekAndHide.analyse

    def analyse(self, texts, stretched=None):
        analysed.append(len(texts))
        return real(self, texts, stretched)

    monkeypatch.setattr(SeekAndHide, "analyse", analyse)
    assert learning.rows(pairs[:37]) == fresh.rows(pairs[:37])
    assert analysed == [37]  # the fresh classifier's
    assert learning.rows(pairs[:37]) == fresh.rows(pairs[:37])
    assert analysed == [37, 37, 37]  # once only
    assert other.rows(pairs[37:]) == fresh.rows(pairs[37:])
    analysed.clear()
    assert other.rows(pairs[:37]) == fresh.rows(pairs[:37])
    assert analysed == [37, 37]  # another chunk came first: the learnt batch was let go of


def test_with_jobs_the_trees_tables_are_made_once_before_the_workers_fork(sample, tmp_path, monkeypatch):
    """The forests' exit-leaf tables are made in this process before the workers fork: they share
    them instead of each making its own."""
    import os

    from triage import jobs, model

    made = tmp_path / "made.txt"
    real = model._exit_tables_of

    def tables_of(forest, dtype):
        with open(made, "a") as record:  # the workers' calls are in their own memory: written down
            record.write(f"{os.getpid()}\n")
        return real(forest, dtype)

    monkeypatch.setattr(model, "_exit_tables_of", tables_of)
    jobs.run_classify(sample, tmp_path / "two.csv", jobs=2, chunk_size=37, chart=False)
    makers = made.read_text().split()
    assert makers and set(makers) == {str(os.getpid())}


def test_a_corpus_too_large_to_keep_in_memory_is_read_twice_with_the_same_output(sample, tmp_path, monkeypatch):
    from triage import engines, jobs
    from triage.io.messages import MessageTable

    kept = jobs.run_classify(sample, tmp_path / "kept.csv", chunk_size=37, chart=False)
    original = MessageTable.pairs
    counter = tmp_path / "reads"  # a file: with --jobs, a process of its own makes the first read (ReadAhead)

    def counted(*arguments):
        with counter.open("a") as noted:
            noted.write("read\n")
        return original(*arguments)

    def reads() -> int:
        return len(counter.read_text().splitlines()) if counter.exists() else 0

    monkeypatch.setattr(MessageTable, "pairs", counted)
    monkeypatch.setattr(jobs, "KEEP_READ_MESSAGES", 50)
    reread = jobs.run_classify(sample, tmp_path / "reread.csv", chunk_size=37, chart=False)
    assert reads() == 2
    assert reread.decisions == kept.decisions
    assert (tmp_path / "kept.csv").read_bytes() == (tmp_path / "reread.csv").read_bytes()
    counter.unlink()
    # With --jobs, the workers let go of the chunks they kept once the corpus is known to be too large.
    forgotten = []
    real = engines.KeepingPool.forget_kept
    monkeypatch.setattr(engines.KeepingPool, "forget_kept", lambda self: forgotten.append(1) or real(self))
    two = jobs.run_classify(sample, tmp_path / "two.csv", chunk_size=37, chart=False, jobs=2)
    assert reads() == 2 and forgotten == [1]
    assert (tmp_path / "kept.csv").read_bytes() == (tmp_path / "two.csv").read_bytes()
    assert two.decisions == kept.decisions


def test_each_text_is_folded_once_for_both_passes_with_the_output_of_a_second_read(tmp_path, monkeypatch):
    """The chunks the statistics pass keeps carry the texts it folded: classify folds each text
    once, and writes what it writes when it reads and folds the corpus again."""
    from triage import jobs
    from triage.seekhide import components
    from triage.text import normalise

    source = tmp_path / "sms.csv"
    texts = ["Appelle J u l i e ce soir", "Ρatrice arrive", "coucou Ｍarie !", "ok merci", "rdv chez Paul à 18h"] * 9
    source.write_text("id,text\n" + "".join(f"{i},{t}\n" for i, t in enumerate(texts)), "utf-8")
    folded = []
    original = normalise.fold_batch

    def counted(batch):
        folded.extend(batch)
        return original(batch)

    monkeypatch.setattr(normalise, "fold_batch", counted)
    monkeypatch.setattr(components, "fold_batch", counted)
    once = jobs.run_classify(source, tmp_path / "once.csv", chunk_size=10, chart=False)
    assert sorted(folded) == sorted(texts)
    monkeypatch.setattr(jobs, "KEEP_READ_MESSAGES", 0)  # nothing kept: read and folded again
    again = jobs.run_classify(source, tmp_path / "again.csv", chunk_size=10, chart=False)
    assert len(folded) == 3 * len(texts)
    assert once.decisions == again.decisions
    assert (tmp_path / "once.csv").read_bytes() == (tmp_path / "again.csv").read_bytes()
    assert "J u l i e" not in read_rows(tmp_path / "once.csv")[0]["anonymised"]  # folded, then hidden


def test_each_text_is_cut_into_stretches_once_unless_the_stretch_ids_take_too_much_memory(tmp_path, monkeypatch):
    """The chunks the statistics pass keeps carry the texts cut into stretch ids: classify cuts
    again only the messages with a detector hit (around it). When the stretch ids take more of
    the memory budget than it keeps when spent, they are let go of, and every kept text is cut
    again, with the same output."""
    from triage import jobs
    from triage.pipeline import memory
    from triage.text import stretches

    source = tmp_path / "sms.csv"
    texts = ["Appelle Julie ce soir", "Patrice arrive", "rdv chez Paul au 06 12 34 56 78", "ok  merci\n"] * 9
    source.write_text("id,text\n" + "".join(f'{i},"{t}"\n' for i, t in enumerate(texts)), "utf-8")
    cut = []
    original = stretches.batch_keys
    monkeypatch.setattr(stretches, "batch_keys", lambda batch: cut.extend(batch) or original(batch))
    once = jobs.run_classify(source, tmp_path / "once.csv", chunk_size=10, chart=False)
    hit = [piece for text in texts if "06" in text for piece in text.split("06 12 34 56 78")]
    assert sorted(cut) == sorted(texts + hit)
    cut.clear()
    # The stretch ids take more of the budget than it keeps when spent.
    monkeypatch.setattr(memory.VOCABULARY, "used_by", lambda kind: memory.VOCABULARY.limit * memory.LOW_WATER + 1)
    again = jobs.run_classify(source, tmp_path / "again.csv", chunk_size=10, chart=False)
    assert sorted(cut) == sorted(texts + [text for text in texts if "06" not in text] + hit)
    assert once.decisions == again.decisions
    assert (tmp_path / "once.csv").read_bytes() == (tmp_path / "again.csv").read_bytes()


def test_a_job_gives_the_garbage_collector_its_settings_back(sample, tmp_path):
    import gc

    from triage.errors import InputError
    from triage.jobs import run_classify

    before = gc.get_threshold()
    run_classify(sample, tmp_path / "out.csv", chart=False)
    assert gc.get_threshold() == before
    with pytest.raises(InputError):
        run_classify(tmp_path / "absent.csv", tmp_path / "out2.csv", chart=False)
    assert gc.get_threshold() == before


def test_classify_in_a_terminal_shows_its_progress_bar_and_writes_the_same_file(tmp_path):
    # The command line asks for the bar when stderr is a terminal; the run must not change.
    from triage.jobs import run_classify

    plain = run_classify(SAMPLE, tmp_path / "plain.csv", chart=False)
    shown = run_classify(SAMPLE, tmp_path / "shown.csv", chart=False, progress=True, chunk_size=50)
    assert shown.messages == plain.messages
    assert (tmp_path / "shown.csv").read_bytes() == (tmp_path / "plain.csv").read_bytes()


def test_the_tables_made_before_the_workers_fork_are_those_a_first_batch_makes(lexicons):
    """Classifier.make_tables makes, before --jobs forks its workers, what a process makes when it
    first classifies (the address expression, the lexicons' table of words), with a classifier of
    its own: what the classifier itself has learnt is left as it was, and it classifies as one
    that never made them."""
    from triage import model
    from triage.classifier import Classifier
    from triage.seekhide import spelling_batch
    from triage.text import detectors

    predictor = model.load_predictor(model.default_model_path())
    messages = [("a", "Salut Patrice, rdv au 12 rue de la Paix à Lyon ? 06 12 34 56 78"), ("b", "ok bisous Julie")]
    expected = Classifier(predictor, lexicons=lexicons, stats=predictor.corpus_stats()).classify(messages).text
    detectors._adr_re.cache_clear()
    spelling_batch._LEXICON_TABLES.pop(lexicons, None)
    classifier = Classifier(predictor, lexicons=lexicons, stats=predictor.corpus_stats())
    classifier.make_tables()
    assert detectors._adr_re.cache_info().currsize == 1 and lexicons in spelling_batch._LEXICON_TABLES
    assert len(classifier.seeker.spellings) == 0  # learnt nothing itself
    assert classifier.classify(messages).text == expected
