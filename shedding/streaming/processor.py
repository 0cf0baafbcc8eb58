"""The stateful processor that ``transformWithStateInPandas`` runs per shard.

Per shard one ValueState ``blob`` holds the :class:`~shedding.streaming.shard.ShardJoin` (the join
operator's arrays, held-back arrivals, payloads), read and written once per micro-batch.

This module is kept light on purpose. When a query plans its first micro-batch, Spark starts a
fresh Python process on the driver and unpickles the processor there, only to learn its state
variables (``init``). Everything the pickle refers to is imported in that process. If this
module imported pandas and the numba join engine at the top, that import would add about 0.4 s
to every query start (measured: a trivial processor plans its first batch in 1.1 s without
pandas and in 1.5 s with it). So the processor holds plain values, and the join is imported
only in ``handleInputRows``, on the executors.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict
from typing import TYPE_CHECKING, Any, Iterator

from pyspark.sql.streaming import StatefulProcessor
from pyspark.sql.types import BinaryType, StructField, StructType

if TYPE_CHECKING:
    import pandas as pd

    from ..online.estimators import StaticEstimator
    from .shard import JoinSpec


class ShedProcessor(StatefulProcessor):
    """One :class:`~shedding.streaming.shard.ShardJoin` per shard, kept in a ValueState blob.

    ``spec`` and the frequency ``table`` are stored as plain values (a dict and numpy arrays) so
    that unpickling the processor imports neither pandas nor the join engine (module docstring).
    """

    def __init__(self, spec: JoinSpec, table: StaticEstimator | None, columns: list[str]) -> None:
        self.spec = asdict(spec)
        self.table = None if table is None else (table.keys, table.counts_r, table.counts_s)
        self.columns = columns

    def init(self, handle: Any) -> None:
        self.state = handle.getValueState("shard", StructType([StructField("blob", BinaryType())]))

    def handleInputRows(self, key: Any, rows: Iterator[pd.DataFrame], timerValues: Any) -> Iterator[pd.DataFrame]:
        import pandas as pd

        from .shard import JoinSpec, ShardJoin

        started = time.perf_counter()
        shard = int(key[0])
        frames = list(rows)
        batch = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
        if self.state.exists():
            join = ShardJoin.from_bytes(self.state.get()[0])
        else:
            from ..online.estimators import StaticEstimator
            from .spark_join import shard_table

            spec = JoinSpec(**self.spec)
            table = None if self.table is None else StaticEstimator(*self.table)
            join = ShardJoin(spec, shard, shard_table(table, shard, spec.shards))
        pairs, metrics = join.push(batch)
        blob = join.to_bytes()
        self.state.update((blob,))
        metrics = {"shard": shard} | {k: int(v) for k, v in metrics.items()} | {
            "state_bytes": len(blob), "handler_ms": round(1000 * (time.perf_counter() - started))}
        yield pairs.assign(metrics=None)[self.columns]  # two frames: the pairs keep their int64 columns
        yield pd.DataFrame({c: [None] for c in self.columns[:-1]} | {"metrics": [json.dumps(metrics)]})
