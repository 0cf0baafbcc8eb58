"""The sharded stream join without Spark: micro-batches of rows pushed through every shard's
:class:`~shedding.streaming.shard.ShardJoin`, as the Structured Streaming query does.

Each micro-batch goes to every shard (its own rows, and the census of all shards for the shared
budget, :mod:`~shedding.streaming.budget`), then the end of input. A streaming run whose
micro-batches hold the same rows gives the same pairs: the reference the tests and the
benchmarks compare a query with, and the way to study a sharded run's quality without a cluster.
"""

from __future__ import annotations

from typing import Iterable

import pandas as pd

from shedding.online.estimators import StaticEstimator
from shedding.streaming.budget import Census
from shedding.streaming.frequencies import shard_table
from shedding.streaming.partition import shard_of
from shedding.streaming.shard import END, JoinSpec, ShardJoin


def run_shards(spec: JoinSpec, batches: Iterable[pd.DataFrame], table: StaticEstimator | None = None
               ) -> tuple[list[pd.DataFrame], list[list[dict]]]:
    """Push each frame of ``batches`` (columns side, time, key and the spec's others) as one
    micro-batch, then the end of input; returns per shard its pairs and its metrics per batch."""
    joins = [ShardJoin(spec, i, shard_table(table, i, spec.shards)) for i in range(spec.shards)]
    pairs: list[list[pd.DataFrame]] = [[] for _ in joins]
    metrics: list[list[dict]] = [[] for _ in joins]
    end = pd.DataFrame({"side": [END], "time": [0], "key": [0]})
    for batch in [*batches, end]:
        census = Census.of(batch["side"].to_numpy(), batch["key"].to_numpy(), batch["time"].to_numpy())
        owner = shard_of(batch["key"].to_numpy(), spec.shards)
        for i, join in enumerate(joins):
            got, m = join.push(batch if batch is end else batch[owner == i].reset_index(drop=True), census)
            pairs[i].append(got)
            metrics[i].append(m)
    return [pd.concat(p, ignore_index=True) for p in pairs], metrics
