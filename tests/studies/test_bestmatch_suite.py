"""The bestmatch suite of `shed compare`: a small TOML of every figure kind runs, writes its
results and a report; the shipped suite loads; bad suites are one-line errors."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from shedding.studies.bestmatch_suite import load_bestmatch_suite
from shedding.errors import ShedError
from shedding.studies.suites import is_bestmatch_suite
from helpers import shed_in_process

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
    assert is_bestmatch_suite(str(toml)) and is_bestmatch_suite("bestmatch") and not is_bestmatch_suite("quick")
    proc = shed_in_process("compare", "--suite", toml, "--out", tmp_path / "out", "--json")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["experiments"] == 3
    size = pd.read_csv(summary["size"])
    assert set(size.algorithm) == {"nested", "matwin", "matwin-ego"}
    assert size.groupby("n").pairs.nunique().eq(1).all()  # every algorithm found the same pairs
    grain = pd.read_csv(summary["grain"])
    assert grain.groupby("series").output.max().eq(1.0).all()  # all of the result is out by the end
    assert grain.groupby("series").output.apply(lambda s: s.is_monotonic_increasing).all()
    sh = pd.read_csv(summary["shed"])
    assert len(sh) == 2 * 4 and (sh[sh.fraction == 1.0].symdiff == 0).all()
    page = (tmp_path / "out" / "report.html").read_text()
    assert page.count('class="figure-data"') == 3 and "Measured:" in page
    again = shed_in_process("compare", "--suite", toml, "--out", tmp_path / "out")
    assert again.returncode == 2 and "already holds results" in again.stderr


def test_the_shipped_suite_loads_and_bad_suites_fail(tmp_path):
    suite = load_bestmatch_suite("bestmatch")
    assert [e["figure"] for e in suite["experiment"]] == ["time-size", "time-dims", "propagated", "propagated",
                                                         "shedding"]
    bad = tmp_path / "bad.toml"
    bad.write_text(MINI.replace('"matwin-ego"]', '"hash"]'))
    with pytest.raises(ShedError, match="unknown algorithm 'hash'"):
        load_bestmatch_suite(str(bad))
