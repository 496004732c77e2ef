"""benchmarks/components.py times each component of classify as the pipeline runs it: every
component of the classify preset that runs is timed, and the parts add up to the run."""

from conftest import benchmark_module

from triage import engines, jobs, pipeline
from triage.pipeline import PRESETS


def test_each_component_that_runs_is_timed_and_the_parts_add_up(tmp_path):
    components = benchmark_module("components")
    source = tmp_path / "corpus.csv"
    source.write_text("id,text\n" + "".join(f"{i},Salut Julie on se voit à {i}h ? bisous\n" for i in range(40)),
                      "utf-8")
    before = pipeline.Pipeline.__call__, jobs.corpus_stats
    parts = components.timed_run(str(source), str(tmp_path / "out.csv"))
    assert (pipeline.Pipeline.__call__, jobs.corpus_stats) == before  # the timers are taken off
    # Folded and cut into stretches by the statistics pass.
    ran = [name for name in PRESETS["classify"].components if name not in ("fold", "stretch")]
    assert set(ran) <= set(parts)
    assert {"seek: cut", "seek: piece_ids_of", "seek: label_many"} <= set(parts)
    assert parts["seek: label_many"] <= parts["seek"]
    whole = sum(value for name, value in parts.items()
                if name != "total" and not name.startswith(("seek: ", "count: ")))
    assert abs(whole - parts["total"]) < 1e-6
    assert parts["count: labels learnt"] > 0 and parts["count: rows scored"] > 0
    assert (tmp_path / "out.csv").read_text("utf-8").count("\n") == 41
    assert components.warm_corpus(list("abcdefghijklmnopqrst")) == list("ab") * 11


def test_the_per_spelling_columns_are_timed_apart_from_the_parts(tmp_path):
    """With columns, each per-spelling column is timed and listed apart from the parts, which
    still add up to the run, and the timers come off afterwards."""
    components = benchmark_module("components")
    from triage.seekhide.table import Spellings

    source = tmp_path / "corpus.csv"
    source.write_text("id,text\n" + "".join(f"{i},Salut Julie{i} on se voit chez Dubois ? bisous\n" for i in range(40)),
                      "utf-8")
    before = Spellings.column, Spellings.column_at, Spellings.rows_for
    parts = components.timed_run(str(source), str(tmp_path / "out.csv"), columns=True)
    assert (Spellings.column, Spellings.column_at, Spellings.rows_for) == before
    columns = {name: value for name, value in parts.items() if name.startswith("column: ")}
    # The word scorer's rows, and a column that the columns of a lexicon read (the keys).
    assert {"column: names.static", "column: batch.key"} <= set(columns)
    assert all(value >= 0 for value in columns.values())
    assert sum(columns.values()) <= parts["total"]
    whole = sum(value for name, value in parts.items()
                if name != "total" and not name.startswith(("seek: ", "count: ", "column: ")))
    assert abs(whole - parts["total"]) < 1e-6
    lines = components.columns_table(parts, top=3)
    assert len(lines) == 4 and lines[0].startswith("per-spelling columns:")
    assert not any("column: " in line for line in components.table(parts, 40))


def test_with_jobs_each_process_reports_what_it_spent_itself(tmp_path):
    """With --jobs, the parts are timed in the processes that run them: the workers report their
    own counting and components (not what they inherited from the parent at the fork), and the
    output is the same as in one process."""
    components = benchmark_module("components")
    source = tmp_path / "corpus.csv"
    source.write_text("id,text\n" + "".join(f"{i},Salut Julie{i % 300} on se voit à {i}h ? bisous Zorane{i}\n"
                                            for i in range(12_000)), "utf-8")
    before = (pipeline.Pipeline.__call__, jobs.corpus_stats, engines._count_kept, engines._classify_kept,
              engines._classify_taken)
    one = components.timed_run(str(source), str(tmp_path / "one.csv"))
    roles = components.timed_run(str(source), str(tmp_path / "two.csv"), workers=2)
    assert (pipeline.Pipeline.__call__, jobs.corpus_stats, engines._count_kept, engines._classify_kept,
            engines._classify_taken) == before
    assert (tmp_path / "one.csv").read_bytes() == (tmp_path / "two.csv").read_bytes()
    workers, parent = roles["workers"], roles["parent"]
    assert workers["processes"] == 2  # a chunk of 5,000 and four parts of 1,750 (engines.even_tail)
    # The workers count and classify: the word scorer runs in them, in the parent only on the few
    # messages that make the tables before the fork (Classifier.make_tables), and neither counts
    # the parent's reading as its own.
    assert workers["word-scorer"] > 5 * parent.get("word-scorer", 0) > 0
    assert "statistics pass (reading included)" not in workers and parent["statistics pass (reading included)"] > 0
    assert workers["counting and cutting"] > 0
    assert workers["cpu"] >= workers["seek"] + workers["counting and cutting"]
    # Every spelling one process labels is labelled by some process of --jobs (some twice).
    assert roles["counts"]["labels learnt"] >= one["count: labels learnt"]
    lines = components.jobs_table(one, roles, 2)
    assert any(line.startswith("--jobs 2 in all:") for line in lines)


def test_the_listed_estimate_keeps_the_words_a_list_holds_ten_to_a_message():
    components = benchmark_module("components")
    texts = ["Salut Julie, on se voit demain ?", "Julie xqzwv demain aujourd'hui", "Bisous à Marc-Antoine"]
    messages = components.listed_messages(texts)
    words = " ".join(messages).split()
    assert "xqzwv" not in words  # in no list
    assert {"Salut", "Julie", "demain", "aujourd'hui", "Bisous"} <= set(words)
    assert len(words) == len(set(words))  # each once, in the order they first come
    assert words.index("Salut") < words.index("Julie") < words.index("demain")
    assert all(len(message.split()) <= 10 for message in messages)
    assert components.known_listed({"total": 2.0, "seek": 1.0}, {"total": 5.0, "seek": 2.5, "hide": 0.1}) == \
        {"total": 3.0, "seek": 1.5, "hide": 0.1}
