"""The suite report uses OPT's bounds where exact OPT is too large.

One tiny suite runs twice on the shared Spark session: through ``shed compare`` with a tiny
``--max-graph-gib`` (every OPT/OPTV run is bounded) and with the default limit (every one exact),
so the bounds are checked against the exact OPT of the same points, end to end to report.html.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
import sys

import numpy as np
import pandas as pd
import pytest

from helpers import shed_in_process
from shedding.studies import runner
from shedding.studies.dgr.opt_bounds import CHECK_TEXT, LABEL
from shedding.studies.dgr.ratios import with_opt_ratio
from shedding.studies.dgr.summary import layout_of, summarize
from shedding.studies.registry import build_report, load_results, load_suite
from shedding.studies.runner import run_study

SUITE = """
name = "bounds"
description = "a tiny suite whose OPT is bounded under a tiny size limit"
[defaults]
skew = 1.0
domain = 20
length = 300
window = 20
memory_factor = [0.5, 1.0]

[[experiment]]
id = "mem"
figure = "memory"
policies = ["exact", "prob", "opt", "optv"]

[[experiment]]
id = "frac"
figure = "memory"
y = "ratio_opt"
policies = ["rand", "prob", "opt"]
"""
TINY_GIB = 1e-6  # about 1 KiB: every network of this suite is larger
SEEDS = 2
FIGURE_DATA = re.compile(r'<script type="application/json" class="figure-data" data-target="([^"]+)">(.*?)</script>',
                         re.S)


@pytest.fixture(scope="module")
def runs(spark, tmp_path_factory) -> dict:
    """The suite bounded (through the CLI) and exact (through run_study), with their folders."""
    folder = tmp_path_factory.mktemp("bounds")
    path = folder / "bounds.toml"
    path.write_text(SUITE)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(runner, "spark_session", lambda master: contextlib.nullcontext(spark))
        done = shed_in_process("compare", "--suite", path, "--out", folder / "bounded", "--seeds", SEEDS,
                               "--max-graph-gib", TINY_GIB, "--json")
    assert done.returncode == 0, done.stderr
    outcome = run_study(*load_suite(str(path)), folder / "exact", seeds=SEEDS, spark=spark)
    exact = outcome.results
    assert outcome.complete
    bounded, suite, complete = load_results(folder / "bounded")
    assert complete
    return {"bounded": bounded.set_index("run_id"), "exact": exact.set_index("run_id"), "suite": suite,
            "folder": folder, "summary": json.loads(done.stdout)}


def solved(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[frame.policy.isin(["opt", "optv"])]


def test_bounds_bracket_the_exact_opt_of_the_same_points(runs):
    bounded, exact = runs["bounded"], runs["exact"]
    assert sorted(bounded.index) == sorted(exact.index)
    b, e = solved(bounded), solved(exact).loc[solved(bounded).index]
    assert len(b) == 2 * 2 * SEEDS + 2 * SEEDS  # every OPT/OPTV run of both experiments
    assert (b.opt_kind == "bounds").all() and (e.opt_kind == "exact").all()
    assert b.outputs.isna().all() and b.arm.isna().all() and b.ratio.isna().all()  # no bound posing as OPT
    assert (b.opt_lower <= e.outputs).all() and (e.outputs <= b.opt_upper).all()
    assert (b.opt_lower < b.opt_upper).any()  # the bounds are not all tight: the intervals are real
    assert (e.opt_lower == e.outputs).all() and (e.opt_upper == e.outputs).all()
    assert (b.exact == e.exact).all()
    online = bounded[~bounded.policy.isin(["opt", "optv"])]
    assert (online.outputs == exact.loc[online.index].outputs).all()  # only OPT changes


def test_fraction_of_opt_is_an_interval_around_the_exact_one(runs):
    bounded, exact = runs["bounded"], runs["exact"]
    others = bounded[bounded.policy != "opt"]
    truth = exact.loc[others.index]
    assert others.ratio_opt.isna().all()  # never a single number where OPT is bounded
    assert truth.ratio_opt.notna().all()
    assert (others.ratio_opt_low <= truth.ratio_opt + 1e-12).all()
    assert (truth.ratio_opt <= others.ratio_opt_high + 1e-12).all()
    assert (exact.ratio_opt_low == exact.ratio_opt).all() and (exact.ratio_opt_high == exact.ratio_opt).all()


def figures_of(html: str) -> dict[str, dict]:
    return {target: json.loads(text) for target, text in FIGURE_DATA.findall(html)}


def test_report_shows_opt_bounds_and_says_so(runs):
    html = (runs["folder"] / "bounded" / "report.html").read_text()
    figures = figures_of(html)
    names = {i: {t.get("name") for t in f["data"]} for i, f in figures.items()}
    assert {"OPT bounds", "OPTV bounds"} <= names["fig-0"]  # the outputs figure: OPT's band
    assert {f"PROB ({LABEL})", f"RAND ({LABEL})"} <= names["fig-1"]  # the fraction-of-OPT figure
    opt_band = next(t for t in figures["fig-0"]["data"] if t.get("name") == "OPT bounds" and "error_y" in t)
    exact = solved(runs["exact"])
    exact_means = exact[(exact.experiment == "mem") & (exact.policy == "opt")].groupby("memory").outputs.mean()
    for x, lo, hi in zip(opt_band["x"], opt_band["y"], opt_band["customdata"]):  # mean bounds bracket mean OPT
        assert lo <= exact_means[round(x)] <= hi
    assert "OPT" not in names["fig-0"] and "OPTV" not in names["fig-0"]  # no single OPT value is drawn
    assert {"EXACT", "PROB"} <= names["fig-0"] and not {"RAND", "PROB"} & names["fig-1"]
    table = html[html.index('id="table-0"'):]
    table = table[:table.index("</table>")]
    cells = re.findall(r"<tr><td[^>]*>(\d+)</td>(?:<td[^>]*>[^<]*</td>){3}<td>([\d,]+)(?:\u2013([\d,]+))? \(OPT bounds",
                       table)
    assert len(cells) == 2  # the OPT column at both memories
    for memory, lo, hi in cells:
        lo, hi = float(lo.replace(",", "")), float((hi or lo).replace(",", ""))
        assert lo - 0.5 <= exact_means[int(memory)] <= hi + 0.5
    assert f"({LABEL})" in html and "docs/bounds.md" in html
    assert CHECK_TEXT in html and "is bounded, not solved, in" in html
    assert "solved exactly in 0 runs" in html and f"{int(TINY_GIB * 2**30) / 2**30:.3g} GiB limit" in html


def test_exact_report_has_no_bounds(runs):
    html = (runs["folder"] / "exact" / "report.html").read_text() if (runs["folder"] / "exact" /
                                                                       "report.html").exists() else None
    if html is None:  # run_study writes no report; build it as shed compare would
        results, suite, complete = load_results(runs["folder"] / "exact")
        html = build_report(results, suite, complete, runs["folder"] / "exact" / "report.html").read_text()
    assert LABEL not in html and CHECK_TEXT not in html
    names = {t.get("name") for f in figures_of(html).values() for t in f["data"]}
    assert "OPT" in names and not any("bounds" in str(n) for n in names)


def test_limit_is_recorded_and_the_report_rebuilds(runs):
    info = json.loads((runs["folder"] / "bounded" / "suite.json").read_text())["provenance"]
    assert info["max_graph_gib"] == pytest.approx(TINY_GIB, rel=1e-3)
    assert runs["summary"]["complete"]
    again = shed_in_process("report", runs["folder"] / "bounded")
    assert again.returncode == 0, again.stderr
    assert LABEL in (runs["folder"] / "bounded" / "report.html").read_text()


def point(policy: str, outputs: float, seed: int = 0, **extra) -> dict:
    return {"experiment": "e", "dataset": "zipf", "skew": 1.0, "skew_s": 1.0, "domain": 5, "length": 100,
            "correlation": "independent", "seed": seed, "window": 10, "warmup": 20, "memory": 10,
            "estimator": "static", "cell_size": 10.0, "source": "", "policy": policy, "outputs": outputs,
            "exact": 100, "ratio": outputs / 100, **extra}


def test_results_stored_before_the_bounds_columns_still_load():
    old = pd.DataFrame([point("prob", 60), point("opt", 80), point("exact", 100)])
    out = with_opt_ratio(old).set_index("policy")
    assert out.ratio_opt.tolist() == pytest.approx([0.75, 1.0, 1.25])
    assert out.ratio_opt_low.tolist() == out.ratio_opt.tolist() == out.ratio_opt_high.tolist()
    assert out.loc["opt", "opt_kind"] == "exact" and out.loc["prob", "opt_kind"] == ""
    assert out.loc["opt", "opt_lower"] == out.loc["opt", "opt_upper"] == 80
    assert math.isnan(out.loc["prob", "opt_lower"])


def test_mixed_seeds_give_no_single_mean():
    """One seed exact, one bounded at the same point: the point is an interval (the mean of the
    seeds' ends), never the mean of the exact seed alone."""
    bounds = {"opt_kind": "bounds", "opt_lower": 70.0, "opt_upper": 90.0}
    rows = with_opt_ratio(pd.DataFrame([
        point("prob", 60, 0), point("opt", 80, 0, opt_kind="exact", opt_lower=80.0, opt_upper=80.0),
        point("prob", 62, 1), point("opt", math.nan, 1, **bounds)]))
    rows["opt_kind"] = rows["opt_kind"].fillna("")
    stats = summarize(rows, layout_of(rows, {"figure": "memory", "y": "outputs"})).set_index("policy")
    assert math.isnan(stats.loc["opt", "mean"]) and bool(stats.loc["opt", "bounded"])
    assert (stats.loc["opt", "bound_lo"], stats.loc["opt", "bound_hi"]) == (75.0, 85.0)
    assert stats.loc["prob", "mean"] == 61 and not bool(stats.loc["prob", "bounded"])
    frac = summarize(rows, layout_of(rows, {"figure": "memory", "y": "ratio_opt"})).set_index("policy")
    assert math.isnan(frac.loc["prob", "mean"])
    assert frac.loc["prob", "bound_lo"] == pytest.approx((60 / 80 + 62 / 90) / 2)
    assert frac.loc["prob", "bound_hi"] == pytest.approx((60 / 80 + 62 / 70) / 2)


def test_zero_and_unknown_ends():
    """OPT = 0 (upper bound 0) makes every fraction 1, as the exact ratio_opt; a lower bound of 0
    leaves the high end unknown rather than infinite."""
    zero = with_opt_ratio(pd.DataFrame([point("prob", 0), point("opt", math.nan, opt_kind="bounds",
                                                                   opt_lower=0.0, opt_upper=0.0)]))
    assert zero.ratio_opt_low.tolist() == zero.ratio_opt_high.tolist() == [1.0, 1.0]
    open_end = with_opt_ratio(pd.DataFrame([point("prob", 3), point("opt", math.nan, opt_kind="bounds",
                                                                       opt_lower=0.0, opt_upper=9.0)]))
    prob = open_end[open_end.policy == "prob"].iloc[0]
    assert prob.ratio_opt_low == pytest.approx(3 / 9) and np.isnan(prob.ratio_opt_high) and np.isnan(prob.ratio_opt)


@pytest.mark.parametrize("args, words", [
    (["--suite", "quick", "--max-graph-gib", "0"], ["--max-graph-gib", "> 0"]),
    (["--suite", "quick", "--max-graph-gib", "nan"], ["--max-graph-gib", "finite"]),
    (["--suite", "bestmatch", "--max-graph-gib", "1"], ["--max-graph-gib", "drop"]),
    (["--suite", "wjoin", "--max-graph-gib", "1"], ["--max-graph-gib", "do not apply"]),
])
def test_compare_limit_errors(tmp_path, args, words):
    done = shed_in_process("compare", "--out", tmp_path / "out", *args)
    assert done.returncode == 2, done
    line = done.stderr.strip()
    assert "\n" not in line and "Traceback" not in line
    for word in words:
        assert word in line, line
    assert not (tmp_path / "out").exists()


def test_help_names_the_bounds():
    done = shed_in_process("compare", "--help")
    assert done.returncode == 0
    text = " ".join(done.stdout.split())
    assert "--max-graph-gib" in text and "bounds" in text


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))


def bound_some(results: pd.DataFrame, every: int) -> pd.DataFrame:
    """Synthetic results with every ``every``-th OPT/OPTV run bounded (2% either side of its output)."""
    results = results.drop(columns=["ratio_opt"]).copy()
    solved_at = np.flatnonzero(results.policy.isin(["opt", "optv"]).to_numpy())[::every]
    results["opt_kind"] = np.where(results.policy.isin(["opt", "optv"]), "exact", "")
    results["opt_lower"] = results["opt_upper"] = results.outputs.where(results.opt_kind == "exact").astype(float)
    rows = results.index[solved_at]
    results.loc[rows, "opt_lower"] = np.floor(results.loc[rows, "outputs"] * 0.98)
    results.loc[rows, "opt_upper"] = np.ceil(results.loc[rows, "outputs"] * 1.02)
    results.loc[rows, "opt_kind"] = "bounds"
    results["outputs"] = results.outputs.astype(float)
    results.loc[rows, ["outputs", "ratio", "arm"]] = math.nan
    return with_opt_ratio(results)


@pytest.mark.slow
@pytest.mark.parametrize("suite", ["quick", "paper", "weather-sample"])
@pytest.mark.parametrize("every", [1, 3])
def test_every_shipped_report_builds_with_some_opt_bounded(tmp_path, suite, every):
    """All OPT runs, or every third, bounded: every figure, table and finding still builds, and
    the report names the bounds."""
    from fakes import synthetic

    results, suite_json = synthetic(suite, seeds=2)
    html = build_report(bound_some(results, every), suite_json, True, tmp_path / "report.html").read_text()
    assert LABEL in html and CHECK_TEXT in html
    assert any("bounds" in str(t.get("name")) for f in figures_of(html).values() for t in f["data"])


@pytest.mark.parametrize("bounded_seeds", [(0,), (0, 1)])
def test_policies_findings_with_opt_bounded(bounded_seeds):
    """The new policies' gap table divides by OPT: where OPT is bounded it has no number, and says so."""
    from shedding.studies.dgr.findings.registry import findings

    rows = []
    for seed in (0, 1):
        for policy, value in {"opt": 100, "prob": 80, "dual": 90}.items():
            extra = ({"opt_kind": "bounds", "opt_lower": 95.0, "opt_upper": 105.0} if policy == "opt" and
                     seed in bounded_seeds else {})
            rows.append(point(policy, math.nan if extra else value, seed, **extra))
    frame = with_opt_ratio(pd.DataFrame(rows)).assign(share=False, arm=0, run_id=range(len(rows)))
    frame["opt_kind"] = frame["opt_kind"].fillna("")
    notes, verdict = findings(frame, {"policies": ["prob", "dual", "opt"], "figure": "memory", "y": "ratio_opt",
                                      "claim": "goal"})
    assert CHECK_TEXT in [c.text for c in verdict.checks]
    assert any("DUAL reaches between" in n for n in notes)


def test_exact_results_look_as_before_the_bounds_columns(tmp_path):
    """The same exact results with and without the new columns give the same figures and tables."""
    from fakes import synthetic

    results, suite_json = synthetic("quick", seeds=2)
    old = build_report(results, suite_json, True, tmp_path / "old" / "report.html").read_text()
    new = build_report(with_opt_ratio(results), suite_json, True, tmp_path / "new" / "report.html").read_text()
    assert figures_of(old) == figures_of(new)
    tables = re.compile(r'<table class="numbers".*?</table>', re.S)
    assert tables.findall(old) == tables.findall(new)
    for csv in (tmp_path / "old" / "figures").glob("*.csv"):
        assert csv.read_text() == (tmp_path / "new" / "figures" / csv.name).read_text()
