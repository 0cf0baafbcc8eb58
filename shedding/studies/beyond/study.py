"""The study beyond i.i.d. streams as a plug-in of the framework (kind ``beyond``): its runs
execute one after another in this process, so that the policies' times per arrival compare."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from shedding.datasets.generators import check_available
from shedding.studies.beyond.execute import task
from shedding.studies.beyond.spec import BeyondSuite, parse_beyond_suite
from shedding.studies.study import Plan, Study


def plan(suite: BeyondSuite, seeds: int | None = None) -> Plan:
    """Every run of ``suite``, ``seeds`` per point (default: the suite's). A suite with flights
    runs needs the data package before the first run, not when the runs before them are done."""
    runs = suite.runs(seeds)
    for generator in sorted({run.generator for run in runs}):
        check_available(generator)
    return Plan(suite, seeds or suite.seeds, runs, task, label=lambda s: s.experiment)


def build_page(results: pd.DataFrame, suite: dict, complete: bool, path: Path) -> Path:
    """The page (:func:`shedding.studies.beyond.report.build_report`)."""
    from shedding.studies.beyond.report import build_report

    return build_report(results, suite, complete, path)


BEYOND = Study("beyond", "beyond-i.i.d.", parse_beyond_suite, plan, build_page, inputs=("seeds",), spark=False,
               sort=("experiment", "generator", "seed", "policy"))
