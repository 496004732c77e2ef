"""benchmarks/components.py times each component of classify as the pipeline runs it: every
component of the classify preset that runs is timed, and the parts add up to the run."""

from conftest import benchmark_module

from triage import jobs, pipeline
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
    whole = sum(value for name, value in parts.items() if name != "total" and not name.startswith("seek: "))
    assert abs(whole - parts["total"]) < 1e-6
    assert (tmp_path / "out.csv").read_text("utf-8").count("\n") == 41
    assert components.warm_corpus(list("abcdefghijklmnopqrst")) == list("ab") * 11


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
