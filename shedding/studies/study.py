"""What a study is to the framework: a plug-in named by a suite file's ``kind``.

A :class:`Study` says how its suite files parse, what one invocation runs (a :class:`Plan`: the
runs and the function that executes one), where runs execute (as Spark tasks, or one after
another in this process when runs are timed against each other), how its results table is
sorted and finished, and how its page is built. :mod:`.runner` runs any plan and keeps the
results in the store (:mod:`.store`); :mod:`.registry` knows the studies by kind.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

#: a run's parameters (``dataclasses.asdict`` of its spec) and the plan's shared value -> its rows
Task = Callable[[dict, Any], list[dict]]


@dataclass(frozen=True)
class Plan:
    """What one ``shed compare`` runs: ``suite`` (as run, after any input changed it), its
    ``seeds`` per point, every run of it (frozen dataclasses with a ``run_id``), and ``task``,
    which executes one.

    ``share`` makes the value every task receives (on Spark: once on the driver, then broadcast;
    it gets the Spark session, or None in this process, and the pending runs). ``first`` orders
    the pending runs; ``batch`` groups the runs of this process into parts (runs whose key is
    equal and adjacent share a part) and ``label`` names a batch in the progress lines.
    ``provenance`` adds to the stored provenance. ``run_batch``, for runs in this process: executes
    a whole batch at once (runs timed against each other, interleaved round by round) instead of
    ``task`` run by run.
    """

    suite: Any
    seeds: int
    runs: list
    task: Task
    share: Callable[[Any, list], Any] = lambda session, pending: None
    first: Callable[[Any], Any] | None = None
    batch: Callable[[Any], Any] = lambda spec: spec.run_id
    label: Callable[[Any], str] = lambda spec: spec.run_id
    provenance: dict = field(default_factory=dict)
    run_batch: Callable[[list[dict], Any], list[dict]] | None = None


@dataclass(frozen=True)
class Study:
    """A kind of study (see the module docstring).

    ``parse`` turns a suite file's TOML tables into a suite (with ``name``, ``description``,
    ``seeds`` and ``experiments``); ``plan`` takes the suite, the seeds (None: the suite's) and
    the ``inputs`` it accepts by name; ``finish`` adds derived columns to the rows read back from
    the store; ``tables`` writes any tables of its own beside ``results.parquet``; ``build_page``
    writes the page from (results, suite.json, complete, path).
    """

    kind: str
    label: str  # for messages: "the {label} suite quick"
    parse: Callable[[dict, str], Any]
    plan: Callable[..., Plan]
    build_page: Callable[[pd.DataFrame, dict, bool, Path], Path]
    inputs: tuple[str, ...] = ()
    spark: bool = True
    sort: tuple[str, ...] = ()
    finish: Callable[[pd.DataFrame], pd.DataFrame] | None = None
    tables: Callable[[Any, pd.DataFrame], None] | None = None
