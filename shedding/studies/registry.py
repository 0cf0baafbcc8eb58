"""The studies by kind, and what ``shed compare`` and ``shed report`` call: load a suite (a shipped
name or a TOML file, its ``kind`` naming the study), read a results folder back (the runs
themselves go through :func:`shedding.studies.runner.run_study`) and build its page.

The kinds: ``dgr`` (the default: Das, Gehrke, Riedewald's experiments and the new policies'
goal, :mod:`.dgr`), ``wjoin`` (:mod:`.wjoin`), ``bestmatch`` (:mod:`.bestmatch`) and ``beyond``
(the policies beyond i.i.d. streams, :mod:`.beyond`). A new study
is one more :class:`~shedding.studies.study.Study` here.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd

from shedding.errors import ShedError
from shedding.studies.bestmatch.study import BESTMATCH
from shedding.studies.beyond.study import BEYOND
from shedding.studies.dgr.study import DGR
from shedding.studies.store import ResultsStore, runs_in, select
from shedding.studies.study import Study
from shedding.studies.suite import SHIPPED, kind_of, read_tables
from shedding.studies.wjoin.spec import WJOIN_FIGURES
from shedding.studies.wjoin.study import WJOIN

STUDIES: dict[str, Study] = {study.kind: study for study in (DGR, WJOIN, BESTMATCH, BEYOND)}


def load_suite(name_or_path: str) -> tuple[Study, Any]:
    """The study and the suite of a shipped suite name or a suite TOML file, checked.

    Args:
        name_or_path: A shipped suite's name (``shed compare --suite``'s) or a suite TOML
            file, whose ``kind`` names the study (default ``dgr``).

    Returns:
        (the :class:`~shedding.studies.study.Study`, its parsed suite), for
        :func:`~shedding.studies.runner.run_study`.

    Raises:
        ShedError: An unknown name, a missing or unreadable file, invalid TOML, an unknown
            kind, or a suite its study's checks refuse.
    """
    data, where = read_tables(name_or_path)
    study = STUDIES[kind_of(data, where, tuple(STUDIES))]
    return study, replace(study.parse(data, where), shipped=name_or_path in SHIPPED)


def stored_study(suite: dict) -> Study:
    """The study of a stored ``suite.json``; one stored before suites named their kind is a W-join
    suite when every experiment has a W-join figure, else a DGR suite."""
    exps = suite.get("experiments", [])
    legacy = "wjoin" if exps and all(e.get("figure") in WJOIN_FIGURES for e in exps) else "dgr"
    kind = suite.get("kind", legacy)
    if kind not in STUDIES:
        raise ShedError(f"suite.json names an unknown kind {kind!r}; rebuild it with shed compare")
    return STUDIES[kind]


def load_results(out: Path | str) -> tuple[pd.DataFrame, dict, bool]:
    """The stored results of a results folder, for ``shed report``.

    Args:
        out: A folder :func:`~shedding.studies.runner.run_study` wrote.

    Returns:
        (the results, the ``suite.json`` dict, whether every run of the suite is stored).

    Raises:
        ShedError: A folder without a suite or with unreadable results.
    """
    store = ResultsStore(out)
    suite = store.read_suite()
    results = select(store.read_results(stored_study(suite).finish), set(suite["run_ids"]))
    return results, suite, runs_in(results) == suite["total_runs"]


def build_report(results: pd.DataFrame, suite: dict, complete: bool, path: Path | str) -> Path:
    """Write the page of a stored suite's ``results`` to ``path``, in its study's form.

    Args:
        results: The results, as :func:`load_results` reads them.
        suite: The suite's ``suite.json`` dict.
        complete: Whether every run of the suite is stored (the page says so when not).
        path: The HTML file to write.

    Returns:
        The path written.
    """
    return stored_study(suite).build_page(results, suite, complete, Path(path))
