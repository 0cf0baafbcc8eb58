"""Reading what a stream join wrote: the pairs and metrics tables, their totals, and the totals a
query's progress reports carry.

Each micro-batch N writes ``OUT/pairs/batch=N`` and ``OUT/metrics/batch=N`` (one Parquet file per
shard, see :func:`~shedding.streaming.processor.write_shard_file`); a batch replayed after a crash
replaces its own files, so the tables hold every committed batch exactly once.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from shedding.streaming.words import counted, skipped_sentence

#: the two tables under the output folder
PAIRS, METRIC_TABLE = "pairs", "metrics"
#: the metrics summed over shards and batches (``unpaired``: an outer join's rows for tuples without a
#: pair, ``unpaired_shed``: those of them marked shed)
TOTALS = ("arrivals", "outputs", "unpaired", "unpaired_shed", "shed", "late", "bad", "ended")
#: the totals that are flags: 1 once any shard's row has it (every shard ends in the same batch)
FLAGS = ("ended",)
#: the metrics of the state after a batch, summed over shards (observed per batch, not over batches)
GAUGES = ("held", "memory_r", "memory_s", "state_bytes")


def read_table(out: Path, name: str) -> pd.DataFrame:
    """All batches of ``OUT/pairs`` or ``OUT/metrics`` with an integer ``batch`` column."""
    folder = out / name
    if not folder.exists() or not any(folder.iterdir()):
        return pd.DataFrame()
    frame = pd.read_parquet(folder)
    frame["batch"] = frame["batch"].astype(np.int64)
    return frame


def summarize(out: Path) -> dict:
    """Totals over every batch and shard (:data:`FLAGS` as one flag), and the peaks of memory, held
    tuples and state size."""
    m = read_table(out, METRIC_TABLE)
    summary = {"out": str(out), "pairs": str(out / PAIRS), "metrics": str(out / METRIC_TABLE)}
    if m.empty:
        return summary | {"batches": 0} | dict.fromkeys(TOTALS, 0)
    per_batch = m.assign(memory=m["memory_r"] + m["memory_s"]).groupby("batch")[["memory", "held", "state_bytes"]].sum()
    # a table from before a metric existed lacks it
    totals = {k: int(m[k].max() if k in FLAGS else m[k].sum()) if k in m else 0 for k in TOTALS}
    return summary | {"batches": int(m["batch"].nunique())} | totals | {
        "peak_memory": int(per_batch["memory"].max()), "peak_held": int(per_batch["held"].max()),
        "peak_state_bytes": int(per_batch["state_bytes"].max())}


def observed(progress) -> dict:
    """The ``shedding`` totals a progress report carries (observedMetrics), as a dict of numbers.

    Args:
        progress (dict): A streaming query's progress report (``query.lastProgress``), on a classic or
            a Spark Connect session.

    Returns:
        The totals by name (missing ones as 0); empty when the report has none.
    """
    row = (progress["observedMetrics"] or {}).get("shedding")
    if row is None:
        return {}
    values = row.asDict()
    if set(values) == {"values", "schema"}:  # Spark Connect reports the row as its JSON: values and schema
        values = dict(zip((f["name"] for f in values["schema"]["fields"]), values["values"]))
    return {k: v or 0 for k, v in values.items()}


def skipped_in(progress) -> int:
    """The files the folder sources skipped so far, as a progress report's end offsets tell: they
    arrived named before a file already read (:mod:`~shedding.streaming.folder_source`)."""
    from shedding.streaming.folder_source import offset_of

    offsets = (src["endOffset"] for src in progress["sources"])
    return sum((offset_of(o if isinstance(o, str) else json.dumps(o)) or {"skipped": 0})["skipped"] for o in offsets)


def progress_line(progress) -> str:
    """One line on a micro-batch for a running job: input rate, state, what was shed and late, and
    the files skipped for arriving out of name order (if any)."""
    o = observed(progress)
    rate = progress.get("processedRowsPerSecond") or 0.0
    skipped = skipped_in(progress)
    rows = sum(src["numInputRows"] for src in progress["sources"])
    return (f"batch {progress['batchId']}: {counted(rows, 'row')} ({rate:,.0f} rows/s), "
            f"{counted(o.get('outputs', 0), 'pair')}"
            + (f", {o['unpaired']:,} unpaired ({o.get('unpaired_shed', 0):,} shed)" if o.get("unpaired") else "")
            + f"; state {counted(o.get('memory_r', 0) + o.get('memory_s', 0), 'tuple')} "
            f"({counted(o.get('state_bytes', 0), 'byte')}), held {o.get('held', 0):,}, shed {o.get('shed', 0):,}, "
            f"late {o.get('late', 0):,}, bad {o.get('bad', 0):,}"
            + (f"; {skipped_sentence(skipped)}" if skipped else ""))
