"""The bestmatch suite of `shed compare`: a small TOML of every figure kind runs, writes its
results (results.csv and a table per experiment) and a report, and resumes; the shipped suite
loads; bad suites are one-line errors."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from helpers import shed_in_process
from shedding.errors import ShedError
from shedding.studies.registry import load_suite

MINI = """
name = "bestmatch-mini"
kind = "bestmatch"
[[experiment]]
id = "size"
title = "time vs size"
figure = "time-size"
sizes = [100, 200]
dims = [2]
distributions = ["uniform"]
eps = 0.1
algorithms = ["nested", "matwin", "matwin-ego"]
[[experiment]]
id = "grain"
title = "propagated vs granularity"
figure = "propagated"
sizes = [200]
dims = [2]
distributions = ["uniform"]
first_decimals = [1, 3]
eps = 0.1
[[experiment]]
id = "shed"
title = "shedding"
figure = "shedding"
sizes = [200]
dims = [2]
distributions = ["normal"]
eps = 0.1
fractions = [1.0, 0.5]
policies = ["rand", "prob", "ahead"]
seeds = 2
hypothesis = "Shedding loses pairs."
"""


def test_a_small_suite_runs_and_reports(tmp_path):
    toml = tmp_path / "mini.toml"
    toml.write_text(MINI)
    kinds = [load_suite(name)[0].kind for name in (str(toml), "bestmatch", "quick")]
    assert kinds == ["bestmatch", "bestmatch", "dgr"]
    proc = shed_in_process("compare", "--suite", toml, "--out", tmp_path / "out", "--json")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["complete"] and summary["runs"] == summary["total_runs"] == 2 + 2 + 1  # one run per grid point
    out = tmp_path / "out"
    size = pd.read_csv(out / "results-size.csv")
    assert set(size.algorithm) == {"nested", "matwin", "matwin-ego"}
    assert size.groupby("n").pairs.nunique().eq(1).all()  # every algorithm found the same pairs
    grain = pd.read_csv(out / "results-grain.csv")
    assert grain.groupby("series").output.max().eq(1.0).all()  # all of the result is out by the end
    assert grain.groupby("series").output.apply(lambda s: s.is_monotonic_increasing).all()
    sh = pd.read_csv(out / "results-shed.csv")
    assert len(sh) == 2 * 4 and (sh[sh.fraction == 1.0].symdiff == 0).all()
    assert list(size.columns) == ["n", "dims", "distribution", "first_decimals", "algorithm", "seconds", "pairs",
                                  "tested"]
    assert len(pd.read_csv(out / "results.csv")) == len(size) + len(grain) + len(sh)
    page = (out / "report.html").read_text()
    assert page.count('class="figure-data"') == 3 and "Measured:" in page and "results-shed.csv" in page
    assert page.count('<span class="verdict ') == 3 and "<b>Project's hypothesis (the paper says nothing about " \
        "shedding):</b> Shedding loses pairs." in page and page.count("<b>Paper:</b>") == 2
    assert {"moments", "largest_step", "final_share"} <= set(grain.columns)
    moments = grain.groupby("series").moments.first()
    assert moments["1 decimal place(s)"] < moments["3 decimal place(s)"]  # y1 as coarse as eps_1: fewer moments
    again = shed_in_process("compare", "--suite", toml, "--out", out)
    assert again.returncode == 2 and "already holds results" in again.stderr
    (out / "report.html").unlink()
    resumed = shed_in_process("compare", "--suite", toml, "--out", out, "--resume")
    assert resumed.returncode == 0 and resumed.stdout.startswith("0 runs in ") and (out / "report.html").is_file()
    assert pd.read_csv(out / "results-size.csv").equals(size)
    rebuilt = shed_in_process("report", out)
    assert rebuilt.returncode == 0 and (out / "report.html").read_text().count('class="figure-data"') == 3


def test_the_shipped_suite_loads_and_bad_suites_fail(tmp_path):
    _, suite = load_suite("bestmatch")
    assert [e.figure for e in suite.experiments] == ["time-size", "time-dims", "propagated", "propagated",
                                                     "shedding"]
    assert [bool(e.hypothesis) for e in suite.experiments] == [False] * 4 + [True]  # the paper says nothing on it
    assert all(e.claim for e in suite.experiments[:4]) and not suite.experiments[4].claim
    bad = tmp_path / "bad.toml"
    for change, words in ((('"matwin-ego"]', '"hash"]'), "unknown algorithm 'hash'"),
                          (("sizes = [100, 200]\n", ""), "needs sizes"),
                          (('distributions = ["normal"]', 'distributions = ["flat"]'), "distributions = 'flat'"),
                          (("fractions = [1.0, 0.5]\n", ""), "needs fractions"),
                          (('figure = "shedding"', 'figure = "bars"'), "unknown figure 'bars'")):
        bad.write_text(MINI.replace(*change))
        with pytest.raises(ShedError, match=words) as info:
            load_suite(str(bad))
        assert "\n" not in str(info.value)


@pytest.mark.parametrize("extra,words", [
    (["--r", "a.csv", "--s", "b.csv"], "--r, --s do not apply"),
    (["--seeds", "2"], "--seeds do not apply"),
    (["--jobs", "2"], "not on Spark"),
])
def test_options_it_does_not_take_exit_2_with_one_line(tmp_path, extra, words):
    proc = shed_in_process("compare", "--suite", "bestmatch", "--out", tmp_path / "o", *extra)
    assert proc.returncode == 2 and proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1
    assert words in proc.stderr and not (tmp_path / "o").exists()


# The verdict rules of the bestmatch page (shedding.studies.bestmatch.checks) on tiny results tables, on
# both sides of every threshold.

def _timed(x: str, seconds: dict[int, dict[str, float]]) -> pd.DataFrame:
    """Rows of a time figure: ``seconds[x value][algorithm]``; every algorithm tests fewer pairs."""
    tested = {"nested": 100, "matwin": 20, "matwin-ego": 5}
    return pd.DataFrame([{x: v, "algorithm": a, "seconds": s, "tested": tested[a]}
                         for v, times in seconds.items() for a, s in times.items()])


def _states(checks) -> list:  # noqa: ANN001
    return [c.ok for c in checks]


@pytest.mark.parametrize("figure", ["time-size", "time-dims"])
def test_figures_11_and_12_are_not_checked_whatever_the_times(figure):
    from shedding.studies.bestmatch.checks import CHECKS, NOT_MEASURED
    from shedding.studies.page.verdicts import verdict_word

    x = "n" if figure == "time-size" else "dims"
    for nested in (0.5, 100.0):  # nested loops far slower, or faster: the claim is still not judged
        checks = CHECKS[figure](_timed(x, {v: {"nested": nested, "matwin": 1.0, "matwin-ego": 0.5} for v in (1, 2)}), {})
        assert [c.ok for c in checks] == [None] and checks[0].text == NOT_MEASURED
        assert verdict_word(checks) == "not checked"
    assert "on disk" in NOT_MEASURED and "|R| x |S|^2" in NOT_MEASURED


def _propagated(steps: dict[str, tuple[int | None, int, float]]) -> pd.DataFrame:
    """Rows of a propagation figure: series -> (first decimals, moments, largest step)."""
    return pd.DataFrame([{"series": s, "first_decimals": k, "moments": m, "largest_step": step, "input_read": x,
                          "output": x} for s, (k, m, step) in steps.items() for x in (0.0, 1.0)])


def test_propagation_checks_thresholds():
    from shedding.studies.bestmatch.checks import STEP, propagation_checks

    by_dist = {"uniform": (None, 500, STEP - 0.001), "normal": (None, 400, 0.01)}
    assert _states(propagation_checks(_propagated(by_dist), {"eps": 0.1})) == [True]
    by_dist["normal"] = (None, 20, STEP)
    checks = propagation_checks(_propagated(by_dist), {"eps": 0.1})
    assert _states(checks) == [False] and "normal: 20 moments, at most 5.0% at once" in checks[0].text
    assert checks[0].cause
    grain = {"1 decimal place(s)": (1, 9, STEP), "2 decimal place(s)": (2, 90, STEP - 0.001)}
    checks = propagation_checks(_propagated(grain), {"eps": 0.1})
    assert _states(checks) == [True, True] and "1 decimal place(s): 9 moments" in checks[1].text
    grain = {"1 decimal place(s)": (1, 60, STEP - 0.001), "2 decimal place(s)": (2, 9, STEP)}
    assert _states(propagation_checks(_propagated(grain), {"eps": 0.1})) == [False, False]
    two = {"2 decimal place(s)": (2, 9, STEP)}
    assert _states(propagation_checks(_propagated(two), {"eps": 0.01})) == [True]  # 2 places = eps_1: a step
    del grain["1 decimal place(s)"]
    assert _states(propagation_checks(_propagated(grain), {"eps": 0.1})) == [False, None]
    old = _propagated(by_dist).drop(columns=["moments", "largest_step"])
    assert _states(propagation_checks(old, {"eps": 0.1})) == [None]


def _shed(**change: dict) -> pd.DataFrame:
    """Shedding rows at M = 1, 0.5, 0.25 x peak: RAND on two seeds, PROB and AHEAD on one; ``change``
    maps "policy@fraction" to {column: values per seed}."""
    base = {1.0: {"rand": ([1, 1], [1, 1]), "prob": ([1], [1]), "ahead": ([1], [1])},
            0.5: {"rand": ([0.70, 0.72], [0.50, 0.52]), "prob": ([0.8], [0.58]), "ahead": ([0.99], [0.9])},
            0.25: {"rand": ([0.40, 0.42], [0.20, 0.22]), "prob": ([0.6], [0.25]), "ahead": ([0.98], [0.7])}}
    rows = []
    for fraction, policies in base.items():
        for policy, (precision, recall) in policies.items():
            cols = {"precision": precision, "recall": recall, **change.get(f"{policy}@{fraction:g}", {})}
            for seed in range(len(cols["precision"])):
                exact = cols["precision"][seed] == 1 and cols["recall"][seed] == 1
                rows.append({"fraction": fraction, "policy": policy, "seed": seed, "precision": cols["precision"][seed],
                             "recall": cols["recall"][seed], "symdiff": cols.get("symdiff", [0 if exact else 9])[0]})
    return pd.DataFrame(rows)


def test_shedding_checks_thresholds():
    from shedding.studies.bestmatch.checks import SEED_CAUSE, shedding_checks

    def states(**change: dict) -> list:
        return _states(shedding_checks(_shed(**change), {}))

    assert states() == [True, True, True, True]
    assert states(**{"prob@1": {"symdiff": [1]}}) == [False, True, True, True]  # not exact at the peak
    # false pairs: exact on one seed of two (inside the seed range), or on the only seed (outside it)
    checks = shedding_checks(_shed(**{"rand@0.5": {"precision": [0.99, 1.0]}}), {})
    assert checks[1].ok is False and "RAND at M = 0.5 x peak (1 of 2 seeds meet it)" in checks[1].text
    assert checks[1].within_seeds and checks[1].cause == SEED_CAUSE
    checks = shedding_checks(_shed(**{"ahead@0.5": {"precision": [1.0]}}), {})
    assert checks[1].ok is False and "AHEAD at M = 0.5 x peak (0 of 1 seed meets it)" in checks[1].text
    assert not checks[1].within_seeds and checks[1].cause != SEED_CAUSE
    # falling with M, seed by seed: RAND's recall rises in one seed of two (inside), PROB's precision rises
    checks = shedding_checks(_shed(**{"rand@0.5": {"recall": [0.22, 0.24]}, "rand@0.25": {"recall": [0.21, 0.25]}}), {})
    assert checks[2].ok is False and "RAND recall from 0.5 to 0.25 x peak (1 of 2 seeds meet it)" in checks[2].text
    assert checks[2].cause == SEED_CAUSE
    checks = shedding_checks(_shed(**{"prob@0.25": {"precision": [0.81]}}), {})
    assert checks[2].ok is False and "Does not fall: PROB precision" in checks[2].text and checks[2].cause != SEED_CAUSE
    # AHEAD above every other policy seed by seed; below RAND in one seed of two; below PROB and RAND
    two = {"ahead@0.25": {"precision": [0.98, 0.98], "recall": [0.7, 0.7]}}  # AHEAD on two seeds too
    checks = shedding_checks(_shed(**two, **{"rand@0.25": {"recall": [0.6, 0.75]}}), {})  # 0.7 against 0.6, 0.75
    assert checks[3].ok is False and "RAND at M = 0.25 x peak (1 of 2 seeds meet it)" in checks[3].text
    assert checks[3].cause == SEED_CAUSE
    checks = shedding_checks(_shed(**{"ahead@0.5": {"recall": [0.5]}}), {})
    assert checks[3].ok is False and "PROB at M = 0.5 x peak" in checks[3].text and "RAND at M = 0.5" in checks[3].text
    assert checks[3].cause != SEED_CAUSE
    assert _states(shedding_checks(_shed()[lambda d: d.fraction == 1], {})) == [True, None]


def test_the_shedding_figure_gives_a_policy_one_colour_in_every_panel():
    """Precision, recall and the symmetric difference: each policy's three lines share its legend
    colour (the colorway counted traces across the panels, so recall and symdiff lines wore other
    policies' colours)."""
    from shedding.studies.bestmatch.report import figure

    rows = pd.DataFrame([{"policy": p, "fraction": f, "precision": 1.0, "recall": f, "symdiff": 1 - f}
                         for p in ("rand", "prob", "ahead") for f in (0.25, 0.5)])
    fig = figure({"figure": "shedding", "title": "t"}, rows)
    colours: dict[str, set] = {}
    for trace in fig.data:
        colours.setdefault(trace.name, set()).add(trace.line.color)
    assert len(fig.data) == 9 and all(len(c) == 1 for c in colours.values())
    assert len({next(iter(c)) for c in colours.values()}) == 3
