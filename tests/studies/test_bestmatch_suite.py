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
