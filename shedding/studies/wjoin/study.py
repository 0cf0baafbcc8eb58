"""The W-join study as a plug-in of the framework (kind ``wjoin``): its runs execute in this
process, a batch at a time (one part per batch): the lines of one point, with every rate set of
the point where a figure compares rate sets (Figure 9(c)), timed together round by round."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from shedding.studies.study import Plan, Study
from shedding.studies.suite import seeds_of
from shedding.studies.wjoin.execute import run_batch, task
from shedding.studies.wjoin.spec import WJoinRun, WJoinSuite, parse_wjoin_suite

SORT = ("experiment", "rates", "streams", "small", "memory", "policy", "seed")


def plan(suite: WJoinSuite, seeds: int | None = None) -> Plan:
    """The runs of ``suite`` with ``seeds`` per point (default: each experiment's, else the suite's)."""
    return Plan(suite, seeds_of(seeds, suite.seeds), suite.runs(seeds), task, batch=_batch, label=_label,
                run_batch=run_batch)


def _batch(run: WJoinRun) -> tuple:
    """The runs timed together: a point's lines, and for Figure 9(c) both rate sets (its checks
    compare a line's switching rates against its comparable rates)."""
    return (run.experiment, run.streams, run.memory, run.small) + (() if run.figure == "slow" else (run.rates,))


def _label(run: WJoinRun) -> str:
    """A point in the progress lines."""
    return f"{run.experiment}, {run.streams} streams, {run.rates}"


def build_page(results: pd.DataFrame, suite: dict, complete: bool, path: Path) -> Path:
    """The W-join page (:func:`shedding.studies.wjoin.report.build_report`)."""
    from shedding.studies.wjoin.report import build_report

    return build_report(results, suite, complete, path)


WJOIN = Study("wjoin", "W-join", parse_wjoin_suite, plan, build_page, inputs=("seeds",), spark=False, sort=SORT)
