"""``shed explain``: the per-key accounting is exact, the reasons partition the lost tuples, and bad
input is one line with exit code 2 (issue 11, item 1)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shedding import ShedError, Workload, exact_pairs, simulate, zipf_workload
from shedding.studies.explain import REASONS, bucket_edges, explain, held_steps
from shedding.offline import solve_opt
from shedding.studies.explain_page import write_explain_html

from helpers import assert_one_line_error

from strategies import workloads


def _pairs(wl: Workload, against: str, policy_run, memory: int) -> set:
    """The reference's pairs from first principles: EXACT's list, or OPT's schedule replayed."""
    if against == "exact":
        return set(map(tuple, exact_pairs(wl).tolist()))
    opt = solve_opt(wl, memory, allocation="variable" if against == "optv" else "fixed")
    replay = simulate(wl, f"{against}-schedule", memory, schedule=opt.schedule, pairs=True)
    return set(map(tuple, replay.pairs.tolist()))


@settings(max_examples=60, deadline=None)
@given(wl=workloads(max_n=28), memory=st.integers(0, 6), policy=st.sampled_from(["prob", "life", "rand", "probv"]),
       against=st.sampled_from(["opt", "optv", "exact"]), buckets=st.integers(1, 7))
def test_accounting_is_exact_and_reasons_partition_the_lost_tuples(wl, memory, policy, against, buckets):
    ex = explain(wl, policy, memory, against=against, buckets=buckets)
    s = ex.summary
    # per-key gains and losses sum to the difference of the totals, and so do the cells
    assert (ex.keys.gained - ex.keys.lost).sum() == s["difference"] == s["policy_outputs"] - s["reference_outputs"]
    assert ex.cells.lost.sum() == ex.keys.lost.sum() == s["lost_outputs"]
    assert ex.cells.gained.sum() == s["gained_outputs"]
    assert (ex.keys.policy_outputs.sum(), ex.keys.reference_outputs.sum()) == (s["policy_outputs"],
                                                                                s["reference_outputs"])
    # brute force: the lost pairs and the tuples that lost them
    run = simulate(wl, policy, memory, pairs=True)
    mine, ref = set(map(tuple, run.pairs.tolist())), _pairs(wl, against, run, memory)
    lost = ref - mine
    assert len(lost) == s["lost_outputs"] and len(mine - ref) == s["gained_outputs"]
    earlier = {r if wl.time[r] < wl.time[s_] else s_ for r, s_ in lost}
    t = ex.tuples
    by_reason = {r: set(t.tuple[t.reason == r].tolist()) for r in REASONS}
    assert by_reason[REASONS[0]] | by_reason[REASONS[1]] == earlier
    assert not by_reason[REASONS[0]] & by_reason[REASONS[1]]
    assert not by_reason[REASONS[2]] & earlier
    assert all(not run.schedule.admitted[x] for x in by_reason[REASONS[0]])
    assert all(run.schedule.admitted[x] for x in by_reason[REASONS[1]] | by_reason[REASONS[2]])
    assert t.lost_pairs.sum() == len(lost)
    # kept but never matched: held, and no produced pair has it as the earlier member
    produced_from = {r if wl.time[r] < wl.time[s_] else s_ for r, s_ in mine if wl.time[r] != wl.time[s_]}
    assert not by_reason[REASONS[2]] & produced_from


def test_memory_composition_matches_the_engine():
    wl = zipf_workload(1.0, 20, 1200, seed=3, window=80)
    run = simulate(wl, "prob", 60, samples=10**6)
    edges = bucket_edges(wl, 13)
    held = held_steps(wl, run.schedule, edges)
    assert held.sum() == (run.share_r + run.share_s).sum()  # tuples after admission, every step
    ex = explain(wl, "prob", 60, buckets=13)
    width = np.diff(ex.edges)
    for schedule in ("prob", "opt"):
        part = ex.memory[ex.memory.schedule == schedule]
        per_bucket = part.groupby("bucket").tuples.sum().to_numpy()
        assert np.all(per_bucket <= 60 + 1e-9)
        if schedule == "prob":
            assert np.isclose((per_bucket * width).sum(), held.sum())
    assert ex.summary["ratio"] < 1  # PROB below OPT here: something to explain
    assert ex.keys.net_lost.is_monotonic_decreasing


def test_hazard_is_explained_with_the_learner_it_is_given():
    from shedding.datasets.age import age_workload
    from shedding.online.tuning import HazardTuning

    wl = age_workload(length=1500, window=100, lag_mean=30, lag_spread=5)
    tuning = HazardTuning(first=4, ratio=1.5)
    runs = {t: simulate(wl, "hazard", 20, estimator="online", tuning=t).outputs for t in (None, tuning)}
    assert runs[None] != runs[tuning]
    for t, outputs in runs.items():
        summary = explain(wl, "hazard", 20, estimator="online", tuning=t).summary
        assert summary["policy_outputs"] == outputs
        assert (summary["estimator"], summary["decay"], summary["group"]) == ("online", 1.0, None)
        assert summary["tuning"] == (None if t is None else "first=4,ratio=1.5")
    # the learner's text, as simulate takes it (the summary read .spec off the text before)
    text = explain(wl, "hazard", 20, estimator="online", tuning="first=4,ratio=1.5").summary
    assert (text["policy_outputs"], text["tuning"]) == (runs[tuning], "first=4,ratio=1.5")


def test_a_range_and_autos_choice_are_in_the_summary_and_on_the_page(tmp_path):
    """Under a time range the summary carries it and the page's facts state it instead of a window;
    with group="auto" both say which grouping each side ranked by, as simulate does."""
    import pandas as pd

    from shedding.datasets.age import age_workload

    wl = age_workload(length=1500, window=100, lag_mean=30, lag_spread=5).with_params(range=(0, 99))
    wl.meta["payload"] = pd.DataFrame({"band": wl.key % 3})
    run = simulate(wl, "hazard", 20, estimator="online", group="auto")
    ex = explain(wl, "hazard", 20, estimator="online", group="auto")
    assert ex.summary["range"] == [0, 99] and ex.summary["group_choice"] == run.group_choice is not None
    html = write_explain_html(ex, tmp_path / "explain.html").read_text()
    assert "range 0 &lt;= s.time - r.time &lt;= 99" in html and "by R " in html
    plain = explain(wl.with_params(window=100), "prob", 20).summary
    assert plain["range"] is None and plain["group_choice"] is None


def test_page_is_self_contained(tmp_path):
    wl = zipf_workload(1.0, 20, 1500, seed=0, window=100)
    ex = explain(wl, "life", 100, buckets=20)
    html = write_explain_html(ex, tmp_path / "x" / "explain.html").read_text()
    assert html.count('class="figure-data"') == 3 and 'data-figures="3"' in html
    assert '"type":"heatmap"' in html and "Plotly" in html
    assert "<script src" not in html and "http://" not in html.split("plotly-js")[0]
    assert json.loads(json.dumps(ex.as_dict(5)))["keys"][0]["key"] == int(ex.keys.key.iloc[0])


def test_refuses_a_network_over_the_limit_before_running():
    wl = zipf_workload(1.0, 50, 5600, seed=0, window=400)
    with pytest.raises(ShedError) as info:
        explain(wl, "prob", 400, max_graph_bytes=1000)
    assert_one_line_error(info, "max_graph_bytes", "GiB")


@pytest.mark.parametrize("args, needle", [
    (["--against", "opx"], "--against"),
    (["--policy", "opt"], "--policy"),
    (["--policy", "nope"], "unknown policy"),
    (["--buckets", "0"], "--buckets"),
    (["--top", "0"], "--top"),
    (["--max-graph-gib", "0.000001"], "--max-graph-gib"),
    (["--memory", "-3"], "--memory"),
    (["--memory-split", "1,2"], "sums to 3"),
    (["--estimator", "psychic"], "--estimator"),
])
def test_bad_input_is_one_line_exit_2(shed, args, needle):
    code, _, err = shed("explain", "--length", "900", "--window", "60", *args)
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], err


def test_cli_json_and_page(shed, tmp_path):
    code, out, err = shed("explain", "--length", "900", "--window", "60", "--domain", "15", "--json", "--top", "3",
                          "--out", str(tmp_path / "ex"), "--against", "OPTV", "--policy", "probv")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["summary"]["against"] == "optv" and len(doc["keys"]) == 3
    page = (tmp_path / "ex" / "explain.html").read_text()
    for fact in ("Page generated", "Command", "shedding", "Versions", "Machine", "Working folder"):  # as a suite's page
        assert f"<dt>{fact}</dt>" in page
    assert ", commit " in page
    assert "<dd>shed explain --length 900 --window 60 --domain 15 --json --top 3 --out " in page
    stored = json.loads((tmp_path / "ex" / "explain.json").read_text())
    assert sum(k["gained"] - k["lost"] for k in stored["keys"]) == stored["summary"]["difference"]


def test_text_keys_and_timestamps_are_named_as_the_data_names_them(shed, tmp_path):
    """A file of text keys and timestamps: the JSON's key rows and cells carry each key's text beside
    its number, the page's tables and figures show the text, and the summary gives the time step and
    the instant step 0 begins, so the buckets' steps read as times."""
    import pandas as pd

    rng = np.random.default_rng(4)
    start = pd.Timestamp("2024-05-01 10:00")
    for name, n in (("r", 300), ("s", 300)):
        pd.DataFrame({"time": start + pd.to_timedelta(np.sort(rng.integers(0, 3600, n)), unit="s"),
                      "key": [f"user{k}" for k in rng.integers(0, 12, n)]}).to_csv(tmp_path / f"{name}.csv", index=False)
    code, out, err = shed("explain", "--r", str(tmp_path / "r.csv"), "--s", str(tmp_path / "s.csv"), "--window",
                          "2 minutes", "--memory", "10", "--policy", "prob", "--json", "--out", str(tmp_path / "ex"))
    assert code == 0, err
    doc = json.loads(out)
    labels = sorted(f"user{k}" for k in range(12))  # numbered by their sorted text
    assert doc["keys"] and all(k["label"] == labels[k["key"]] for k in doc["keys"])
    assert doc["cells"] and all(c["label"] == labels[c["key"]] for c in doc["cells"])
    assert doc["summary"]["time_step"] == "1 second" and doc["summary"]["time_origin"].startswith("2024-05-01T10:00")
    page = (tmp_path / "ex" / "explain.html").read_text()
    assert f"key {doc['keys'][0]['label']}" in page and f">{doc['keys'][0]['label']}<" in page
    code, out, err = shed("explain", "--r", str(tmp_path / "r.csv"), "--s", str(tmp_path / "s.csv"), "--window",
                          "2 minutes", "--memory", "10", "--policy", "prob", "--top", "3")
    assert code == 0 and all(f" {k['label']} " in out for k in doc["keys"][:3]), err  # the terminal's table too
