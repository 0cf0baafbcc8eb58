"""The DGR study as a plug-in of the framework (kind ``dgr``, the default): its suites run as
Spark tasks, OPT's slow solves first, and its results get every run's fraction of OPT."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from shedding.errors import ShedError
from shedding.studies.dgr.execute import prepare_files, task
from shedding.studies.dgr.ratios import with_opt_ratio
from shedding.studies.dgr.spec import RunSpec, Suite, parse_suite
from shedding.studies.study import Plan, Study
from shedding.studies.suite import seeds_of

SORT = ("experiment", "policy", "skew", "skew_s", "domain", "correlation", "cell_size", "window", "memory", "seed")


def plan(suite: Suite, seeds: int | None = None, *, files: tuple[Path, Path, str] | None = None,
         stations: Path | None = None, cell_size: float | None = None, max_graph_bytes: int | None = None) -> Plan:
    """The runs of ``suite`` with ``seeds`` per point (default the suite's). ``files``: (R path, S
    path, format) for dataset ``files``, ``stations`` the SYNOP station table; ``cell_size``: grid
    cells of that many degrees in every experiment; ``max_graph_bytes``: the OPT size limit
    (default 4 GiB), above which an OPT/OPTV run records OPT's bounds. The files are checked here,
    before Spark starts and before the results folder is made."""
    if cell_size is not None:
        suite = suite.with_cell_size(cell_size)
    if suite.reads_files and files is None:
        raise ShedError(f"suite {suite.name} reads two report files; give them ({{param}})", param="files")
    if files is not None and not suite.reads_files:
        raise ShedError(f"suite {suite.name} reads no report files; drop {{param}} or use a suite that reads them "
                        "(e.g. weather)", param="files")
    if files is not None:
        from shedding.datasets.weather import check_inputs

        check_inputs(files[0], files[1], files[2], stations)
    source = "" if files is None else f"{Path(files[0]).resolve()}|{Path(files[1]).resolve()}|{files[2]}"

    def share(session, pending: list[RunSpec]) -> tuple[dict | None, int | None]:
        streams = prepare_files(session, pending, files, stations) if files is not None else None
        return streams, max_graph_bytes

    # seeds None: each experiment's own, else the suite's
    return Plan(suite, seeds_of(seeds, suite.seeds), suite.runs(seeds, source), task, share,
                # the slow OPT solves first, so the last wave is not one long straggler
                first=lambda s: (s.policy not in ("opt", "optv"), -s.length * s.window),
                provenance={} if max_graph_bytes is None else {"max_graph_gib": max_graph_bytes / 2**30})


def build_page(results: pd.DataFrame, suite: dict, complete: bool, path: Path) -> Path:
    """The DGR page (:func:`shedding.studies.dgr.report.build_report`)."""
    from shedding.studies.dgr.report import build_report

    return build_report(results, suite, complete, path)


DGR = Study("dgr", "DGR", parse_suite, plan, build_page,
            inputs=("seeds", "files", "stations", "cell_size", "max_graph_bytes"), spark=True, sort=SORT,
            finish=with_opt_ratio)
