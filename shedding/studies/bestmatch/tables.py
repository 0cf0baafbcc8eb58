"""Each bestmatch experiment's rows in its own table, ``results-<id>.csv`` beside ``results.csv``
(the experiments' rows have different columns: times, propagation curves, shedding quality)."""

from __future__ import annotations

from functools import partial

import pandas as pd

from shedding.atomic import write_atomically
from shedding.studies.store import ResultsStore

#: the columns every row carries for the store, left out of the per-experiment tables
BOOKKEEPING = ["experiment", "run_id"]


def write_tables(store: ResultsStore, results: pd.DataFrame) -> None:
    """``results-<id>.csv``: each experiment's rows as its runs returned them."""
    by_experiment: dict[str, list[pd.DataFrame]] = {}
    run_ids = set(results["run_id"]) if len(results) else set()
    for frame in store.part_frames():
        frame = frame[frame["run_id"].isin(run_ids)]
        for exp_id, rows in frame.groupby("experiment", sort=False):
            by_experiment.setdefault(str(exp_id), []).append(rows)
    for exp_id, frames in by_experiment.items():
        table = pd.concat(frames, ignore_index=True).drop(columns=BOOKKEEPING)
        write_atomically(store.out / table_name(exp_id), partial(table.to_csv, index=False))


def table_name(exp_id: str) -> str:
    """The file of an experiment's rows, beside ``results.csv``."""
    return f"results-{exp_id}.csv"
