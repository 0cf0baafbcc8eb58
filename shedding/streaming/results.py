"""Reading what a stream join wrote: the pairs and metrics tables, their totals, and the totals a
query's progress reports carry.

Each micro-batch N writes ``OUT/pairs/batch=N`` and ``OUT/metrics/batch=N`` (one Parquet file per
shard, see :func:`~shedding.streaming.processor.write_shard_file`); a batch replayed after a crash
replaces its own files, so the tables hold every committed batch exactly once.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

#: the two tables under the output folder
PAIRS, METRIC_TABLE = "pairs", "metrics"
#: the metrics summed over shards and batches
TOTALS = ("arrivals", "outputs", "shed", "late", "bad", "ended")


def read_table(out: Path, name: str) -> pd.DataFrame:
    """All batches of ``OUT/pairs`` or ``OUT/metrics`` with an integer ``batch`` column."""
    folder = out / name
    if not folder.exists() or not any(folder.iterdir()):
        return pd.DataFrame()
    frame = pd.read_parquet(folder)
    frame["batch"] = frame["batch"].astype(np.int64)
    return frame


def summarize(out: Path) -> dict:
    """Totals over every batch and shard, and the peaks of memory, held tuples and state size."""
    m = read_table(out, METRIC_TABLE)
    summary = {"out": str(out), "pairs": str(out / PAIRS), "metrics": str(out / METRIC_TABLE)}
    if m.empty:
        return summary | {"batches": 0} | dict.fromkeys(TOTALS, 0)
    per_batch = m.assign(memory=m["memory_r"] + m["memory_s"]).groupby("batch")[["memory", "held", "state_bytes"]].sum()
    totals = {k: int(m[k].sum()) for k in TOTALS}
    return summary | {"batches": int(m["batch"].nunique())} | totals | {
        "peak_memory": int(per_batch["memory"].max()), "peak_held": int(per_batch["held"].max()),
        "peak_state_bytes": int(per_batch["state_bytes"].max())}


def observed(progress) -> dict:
    """The ``shedding`` totals a progress report carries (observedMetrics), as a dict of numbers."""
    row = (progress["observedMetrics"] or {}).get("shedding")
    return {} if row is None else {k: v or 0 for k, v in row.asDict().items()}
