"""The W-join study as a plug-in of the framework (kind ``wjoin``): its runs execute one after
another in this process, the lines of one point back to back (one part per point)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from shedding.studies.study import Plan, Study
from shedding.studies.suite import seeds_of
from shedding.studies.wjoin.execute import task
from shedding.studies.wjoin.spec import WJoinRun, WJoinSuite, parse_wjoin_suite

SORT = ("experiment", "rates", "streams", "small", "memory", "policy", "seed")


def plan(suite: WJoinSuite, seeds: int | None = None) -> Plan:
    """The runs of ``suite`` with ``seeds`` per point (default: each experiment's, else the suite's)."""
    return Plan(suite, seeds_of(seeds, suite.seeds), suite.runs(seeds), task,
                batch=lambda s: (s.experiment, s.streams, s.rates, s.memory, s.small), label=_label)


def _label(run: WJoinRun) -> str:
    """A point in the progress lines."""
    return f"{run.experiment}, {run.streams} streams, {run.rates}"


def build_page(results: pd.DataFrame, suite: dict, complete: bool, path: Path) -> Path:
    """The W-join page (:func:`shedding.studies.wjoin.report.build_report`)."""
    from shedding.studies.wjoin.report import build_report

    return build_report(results, suite, complete, path)


WJOIN = Study("wjoin", "W-join", parse_wjoin_suite, plan, build_page, inputs=("seeds",), spark=False, sort=SORT)
