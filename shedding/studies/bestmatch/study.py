"""The bestmatch study as a plug-in of the framework (kind ``bestmatch``): its runs are short and
execute one after another in this process, one part per experiment."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from shedding.studies.bestmatch.execute import task
from shedding.studies.bestmatch.spec import BestmatchSuite, parse_bestmatch_suite
from shedding.studies.bestmatch.tables import write_tables
from shedding.studies.study import Plan, Study


def plan(suite: BestmatchSuite) -> Plan:
    """Every run of ``suite`` (the experiments give their own seeds)."""
    return Plan(suite, suite.seeds, suite.runs(), task, batch=lambda s: s.experiment, label=lambda s: s.experiment)


def build_page(results: pd.DataFrame, suite: dict, complete: bool, path: Path) -> Path:
    """The bestmatch page (:func:`shedding.studies.bestmatch.report.build_report`)."""
    from shedding.studies.bestmatch.report import build_report

    return build_report(results, suite, complete, path)


BESTMATCH = Study("bestmatch", "bestmatch", parse_bestmatch_suite, plan, build_page, spark=False,
                  tables=write_tables)
