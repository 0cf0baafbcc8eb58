"""The `wjoin` suites of `shed compare`: parsing, the runs against the W-join library, the report,
and one-line errors with exit code 2."""

from __future__ import annotations

import json
import math
import subprocess
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helpers import shed_in_process

from shedding.errors import ShedError
from shedding.studies.registry import load_suite
from shedding.studies.wjoin.execute import run_batch, streams_of
from shedding.studies.wjoin.figures import summary, wjoin_figure
from shedding.studies.wjoin.spec import WJoinRun
from shedding.wjoin import PathSpec, WindowSpec, brute_count, path_brute_results, synthetic_streams

def execute(run: WJoinRun) -> dict:
    """One run's row, as the runner makes it (a batch of one)."""
    return run_batch([asdict(run)])[0]


TINY = """
kind = "wjoin"
name = "tiny"
description = "a test suite"
[defaults]
length = 120
window = 4
domain = 3
repeats = 1
[[experiment]]
id = "svc"
figure = "service"
streams = [2, 3]
rates = ["variable", "comparable"]
algorithms = ["nlw", "hw", "mw"]
claim = "MW beats NLW"
[[experiment]]
id = "slow"
figure = "slow"
streams = 3
rates = ["comparable", "switching"]
block = 50
algorithms = ["nlw", "mw"]
[[experiment]]
id = "shed"
figure = "shedding"
streams = 3
rates = "variable"
memory = [0, 3, 1000]
policies = ["rand", "prob", "probv"]
hypothesis = "PROB keeps more than RAND on N streams"
[[experiment]]
id = "win"
figure = "windows"
streams = 3
rates = "comparable"
small = 2
algorithms = ["gca", "lca"]
[[experiment]]
id = "path"
figure = "path"
streams = 3
rates = "comparable"
seeds = 2
algorithms = ["pipeline", "lca"]
"""


def shed(*args: str) -> subprocess.CompletedProcess:
    """`shed ARGS` in this process."""
    return shed_in_process(*args)


@pytest.fixture(scope="module")
def tiny_out(tmp_path_factory) -> Path:
    """The tiny suite run once through `shed compare` (shared by the report tests)."""
    folder = tmp_path_factory.mktemp("wjoin")
    (folder / "tiny.toml").write_text(TINY)
    proc = shed("compare", "--suite", str(folder / "tiny.toml"), "--out", str(folder / "out"), "--json")
    assert proc.returncode == 0, proc.stderr
    summary_ = json.loads(proc.stdout)
    assert summary_["complete"] and summary_["runs"] == summary_["total_runs"] == 3 * 2 * 2 + 2 * 2 + 3 * 3 + 2 + 2 * 2
    return folder


def load_wjoin_suite(name_or_path: str):
    """A W-join suite by name or path."""
    study, suite = load_suite(name_or_path)
    assert study.kind == "wjoin"
    return suite


def test_shipped_suites_load_with_every_figure():
    small, full = load_wjoin_suite("wjoin"), load_wjoin_suite("wjoin-full")
    for suite in (small, full):
        assert {e.figure for e in suite.experiments} == {"service", "slow", "shedding", "windows", "path"}
        svc = [e for e in suite.experiments if e.figure in ("service", "slow")]
        assert {r for e in svc for r in e.grid["rates"]} == {"variable", "comparable", "switching"}
        assert all(e.grid["streams"] == [2, 3, 4, 5, 6] for e in svc if e.figure == "service")
        assert all(set(e.policies) == {"nlw", "hw", "mw", "mw-paper"} for e in svc)  # both MWs, labelled
        shedding = next(e for e in suite.experiments if e.figure == "shedding")
        assert shedding.grid["streams"] == [3, 4] and len(shedding.policies) == 6
    assert small.runs()[0].length < full.runs()[0].length and full.seeds == small.seeds == 3
    assert {r.repeats for r in small.runs() if r.figure != "shedding"} == {5}  # at least 5 rounds per timed run
    slow_runs = [r for r in small.runs() if r.experiment == "fig9c"]
    assert {r.seed for r in slow_runs} == {0, 1, 2}  # Figure 9(c) is judged on the spread over seeds
    assert {r.seed for r in small.runs(seeds=1) if r.experiment == "fig9c"} == {0}  # --seeds overrides it
    assert load_suite("quick")[0].kind == "dgr"  # the DGR suites are not W-join suites


@pytest.mark.parametrize("change,words", [
    (lambda t: t.replace('kind = "wjoin"\n', 'kind = "other"\n'), "unknown kind 'other'"),
    (lambda t: t.replace('figure = "slow"', 'figure = "bars"'), "unknown figure 'bars'"),
    (lambda t: t.replace('"hw", "mw"]', '"hw", "xw"]'), "unknown algorithm 'xw'"),
    (lambda t: t.replace("streams = 3\nrates = \"variable\"", "streams = 9\nrates = \"variable\""), "streams = 9"),
    (lambda t: t.replace('rates = "variable"', 'rates = "fast"'), "rates = 'fast'"),
    (lambda t: t.replace("memory = [0, 3, 1000]\n", ""), "needs memory"),
    (lambda t: t.replace('policies = ["rand"', 'policies = ["opt"'), "unknown policy 'opt'"),
    (lambda t: t.replace('algorithms = ["gca", "lca"]', 'algorithms = ["gca", "nlw"]'), "unknown algorithm 'nlw'"),
    (lambda t: t.replace('small = 2\n', ''), "needs small"),
    (lambda t: t.replace('seeds = 2\n', 'seeds = 0\n'), "seeds = 0 is not an integer >= 1"),
])
def test_bad_suites_are_refused_with_the_field(tmp_path, change, words):
    path = tmp_path / "tiny.toml"
    path.write_text(change(TINY))
    with pytest.raises(ShedError, match=words.replace("(", r"\(").replace("[", r"\[")):
        load_suite(str(path))


def test_streams_are_cut_to_the_span_all_streams_cover():
    streams = streams_of(4, "switching", 3000, 50, 1.0, 0)
    full = synthetic_streams(4, 3000, rates=[1.0, 1.0, 1.0, (0.01, 1.0)], domain=50, seed=0)
    end = min(int(t[-1]) for t in full.times)
    for cut, whole in zip(streams.times, full.times):  # each stream keeps exactly its tuples up to the end
        assert np.array_equal(cut, whole[whole <= end])
    lengths = streams.lengths()
    assert max(lengths) <= 3000 and lengths[3] < lengths[0] / 10  # D is slow most of the time
    variable = streams_of(4, "variable", 3000, 50, 1.0, 0).lengths()
    assert variable[1] < variable[0] / 5 and variable[3] < variable[2] / 5  # rates 1, 0.1, 1, 0.1


def test_timed_runs_produce_the_w_join_and_time_every_block():
    for policy in ("nlw", "hw", "mw"):
        run = WJoinRun("t", "svc", "slow", 3, "comparable", 60, 4, 3, 1.0, 0, policy, block=25, repeats=2)
        row = execute(run)
        streams = streams_of(3, "comparable", 60, 3, 1.0, 0)
        assert row["outputs"] == row["exact"] == brute_count(streams, WindowSpec.uniform(3, 4)) > 0
        blocks = json.loads(row["blocks"])
        assert len(blocks) == math.ceil(row["tuples"] / 25) and min(blocks) > 0
        assert row["us_per_tuple"] == pytest.approx(1e6 * row["seconds"] / row["tuples"])


@pytest.mark.parametrize("figure,policy", [("windows", "gca"), ("windows", "lca"), ("path", "pipeline"),
                                           ("path", "lca")])
def test_windows_and_path_runs_produce_their_w_join(figure, policy):
    run = WJoinRun("t", "x", figure, 3, "comparable", 60, 4, 3, 1.0, 0, policy, repeats=1, small=2)
    row = execute(run)
    streams = streams_of(3, "comparable", 60, 3, 1.0, 0)
    if figure == "windows":
        expected = brute_count(streams, WindowSpec.from_pairs(3, {(0, 1): 4, (0, 2): 2, (1, 2): 2}))
    else:
        expected = len(path_brute_results(streams, PathSpec.of(3, None, 4)))
    assert row["outputs"] == row["exact"] == expected > 0


def test_shedding_runs_keep_the_invariants():
    rows = {m: execute(WJoinRun("t", "shed", "shedding", 3, "variable", 200, 4, 3, 1.0, 0, p, memory=m))
            for m in (0, 4, 10_000) for p in ("prob",)}
    assert rows[0]["outputs"] == 0
    assert 0 < rows[4]["outputs"] < rows[4]["exact"]
    assert rows[10_000]["outputs"] == rows[10_000]["exact"] and rows[10_000]["ratio"] == 1.0


def test_report_has_every_figure_table_and_csv(tiny_out):
    out = tiny_out / "out"
    html = (out / "report.html").read_text()
    assert html.count('class="figure-data"') == 5 and 'data-figures="5"' in html
    assert "Load average" in html and "INCOMPLETE" not in html
    results = pd.read_csv(out / "results.csv")
    timed = results[results.figure != "shedding"]
    assert (timed.outputs == timed.exact).all()
    shedding = results[results.figure == "shedding"]
    assert (shedding.outputs <= shedding.exact).all() and (shedding[shedding.memory == 0].outputs == 0).all()
    assert (shedding[shedding.memory == 1000].ratio == 1.0).all()
    svc = pd.read_csv(out / "figures" / "svc.csv")
    assert len(svc) == 2 * 2 * 3 and set(svc.policy) == {"nlw", "hw", "mw"}
    slow = pd.read_csv(out / "figures" / "slow.csv")
    assert set(slow.rates) == {"comparable", "switching"} and (slow.tuples % 50 == 0).sum() >= len(slow) - 4
    suite = json.loads((out / "suite.json").read_text())
    assert len(suite["provenance"]["load_after"]) == 3
    assert suite["seeds_by_experiment"] == {"svc": 1, "slow": 1, "shed": 1, "win": 1, "path": 2}
    assert "<dt>Seeds per point</dt><dd>1 (path: 2)</dd>" in html
    assert "Project&#x27;s hypothesis (the W-join paper does not shed)" in html
    assert "MW (optimised: key filter + product)" in html and "GCA (paper MW) / LCA (paper MW)" in html
    assert "DWINDOW" in html and "LCA (paper MW) / NLW (pipeline)" in html
    walmart = "its Figure 9(b) joined real streams (Wal-Mart"  # said once, under the comparable-rate figure
    assert html.count("are synthetic, not the paper") == html.count(walmart) == 1
    win, path = pd.read_csv(out / "figures" / "win.csv"), pd.read_csv(out / "figures" / "path.csv")
    assert set(win.policy) == {"gca", "lca"} and (win["small"] == 2).all()
    assert set(path.policy) == {"pipeline", "lca"} and (path["n"] == 2).all()  # two seeds per point


def test_shed_report_rebuilds_it_and_resume_runs_nothing_new(tiny_out):
    out = tiny_out / "out"
    parts = sorted((out / "parts").iterdir())
    (out / "report.html").unlink()
    assert shed("report", str(out)).returncode == 0 and (out / "report.html").is_file()
    proc = shed("compare", "--suite", str(tiny_out / "tiny.toml"), "--out", str(out), "--resume")
    assert proc.returncode == 0, proc.stderr
    assert sorted((out / "parts").iterdir()) == parts
    assert proc.stdout.startswith("0 runs in ") and "(31 stored before)" in proc.stdout  # it ran none


@pytest.mark.parametrize("extra,words", [
    (["--r", "a.csv", "--s", "b.csv"], "--r, --s do not apply"),
    (["--master", "spark://host:7077"], "not on Spark"),
    (["--seeds", "0"], "--seeds must be >= 1"),
])
def test_bad_options_exit_2_with_one_line(tmp_path, extra, words):
    proc = shed("compare", "--suite", "wjoin", "--out", str(tmp_path / "o"), *extra)
    assert proc.returncode == 2 and proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1
    assert words in proc.stderr and not (tmp_path / "o").exists()


def test_slow_figure_plots_each_block():
    rows = pd.DataFrame([{"rates": r, "policy": p, "seed": s, "block": 10, "tuples": 25, "streams": 4,
                          "blocks": json.dumps([1.0 + s, 2.0, 3.0]), "us_per_tuple": 2.0}
                         for r in ("comparable", "switching") for p in ("nlw", "mw") for s in (0, 1)])
    exp = {"figure": "slow", "policies": ["nlw", "mw"], "title": "t"}
    stats = summary(rows, exp)
    first = stats[(stats.tuples == 10)]
    assert np.allclose(first["mean"], 1.5) and np.allclose(first["lo"], 1.0) and np.allclose(first["hi"], 2.0)
    assert sorted(stats.tuples.unique()) == [10, 20, 25]  # the last block is partial
    fig = wjoin_figure(rows, exp)
    assert len(fig.data) == 4 and list(fig.data[0].x) == [10, 20, 25]


def test_timed_runs_of_a_seed_are_warmed_up_then_timed_together_round_by_round(monkeypatch):
    import shedding.studies.wjoin.execute as runner

    calls: list[str] = []
    real = runner.service

    def counted(run, streams):  # noqa: ANN001, ANN202
        calls.append(run.policy)
        return real(run, streams)

    monkeypatch.setattr(runner, "service", counted)
    monkeypatch.setattr(runner, "BUDGET", 0.0)  # no time budget: exactly ``repeats`` rounds
    runs = [WJoinRun("t", "svc", "service", 2, "comparable", 40, 3, 3, 1.0, seed, p, repeats=3)
            for seed in (0, 1) for p in ("nlw", "mw")]
    rows = run_batch([asdict(r) for r in runs])
    assert len(calls) == 2 * (1 + 3) * 2  # per seed: a warm-up each, then 3 rounds of both lines
    assert calls[:2] == ["nlw", "mw"] and calls[2:8] == ["nlw", "mw", "mw", "nlw", "nlw", "mw"]  # rotated
    assert [len(json.loads(r["rounds"])) for r in rows] == [3] * 4
    sets = {r["seed"]: r["round_set"] for r in rows}
    assert len({r["round_set"] for r in rows}) == 2 and all(r["round_set"] == sets[r["seed"]] for r in rows)
    for r in rows:  # the median round counts
        assert r["us_per_tuple"] == pytest.approx(float(np.median(json.loads(r["rounds"]))))


def test_a_timed_run_rounds_until_its_time_budget(monkeypatch):
    import shedding.studies.wjoin.execute as runner

    monkeypatch.setattr(runner, "service", lambda run, streams: (runner.exact_of(2, "comparable", 40, 3, 1.0, 0, 3),
                                                                  0.01, [1.0]))
    monkeypatch.setattr(runner, "BUDGET", 0.05)
    row = execute(WJoinRun("t", "svc", "service", 2, "comparable", 40, 3, 3, 1.0, 0, "mw", repeats=2))
    assert len(json.loads(row["rounds"])) == 5  # 2 rounds are not 0.05 s; 5 of 0.01 s are
    monkeypatch.setattr(runner, "BUDGET", 100.0)
    row = execute(WJoinRun("t", "svc", "service", 2, "comparable", 40, 3, 3, 1.0, 0, "mw", repeats=2))
    assert len(json.loads(row["rounds"])) == runner.MAX_ROUNDS  # never more


def test_a_timed_run_that_misses_n_tuples_is_an_error(monkeypatch):
    import shedding.studies.wjoin.execute as runner

    monkeypatch.setattr(runner, "exact_of", lambda *point: 10**9)
    with pytest.raises(ShedError, match="exact count is 1,000,000,000"):
        execute(WJoinRun("t", "svc", "service", 2, "comparable", 30, 3, 3, 1.0, 0, "mw", repeats=1))
