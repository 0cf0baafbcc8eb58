"""Shards that share one memory budget, in a real Structured Streaming query: each shard equals the
join operator fed with the budget sequence it recorded, and all shards together hold at most M."""

from __future__ import annotations

import numpy as np

from shedding import zipf_workload
from shedding.online.engine import JoinOperator
from shedding.online.estimators import OnlineEstimator
from shedding.streaming.job import StreamJob, run_on
from shedding.streaming.partition import shard_budgets, shard_of
from shedding.streaming.results import METRIC_TABLE, PAIRS, read_table
from shedding.streaming.shard import JoinSpec
from shedding.streaming.sources import inspect_source, write_zipf_sources

W = M = 80
LENGTH, FILES, SHARDS = 4000, 6, 4


def test_each_shard_equals_the_operator_fed_its_recorded_budgets(spark, tmp_path):
    r, s = write_zipf_sources("zipf:1:120", "zipf:1:120", tmp_path / "src", LENGTH, FILES, 0)
    job = StreamJob(inspect_source(r, "csv", "stream R"), inspect_source(s, "csv", "stream S"), tmp_path / "out",
                    tmp_path / "ck", JoinSpec(W, M, "prob", shards=SHARDS), estimator="online",
                    trigger="available-now", max_files_per_trigger=1, master="local[2]")
    summary = run_on(spark, job)
    metrics = read_table(tmp_path / "out", METRIC_TABLE).sort_values(["shard", "batch"])
    pairs = read_table(tmp_path / "out", PAIRS)
    per_batch = metrics.groupby("batch")[["memory_r", "memory_s", "budget_r", "budget_s"]].sum()
    assert ((per_batch["budget_r"] + per_batch["budget_s"]) == M).all()  # one budget, re-divided
    assert ((per_batch["memory_r"] + per_batch["memory_s"]) <= M).all() and summary["peak_memory"] <= M
    assert metrics.groupby("shard")["budget_r"].nunique().max() > 1  # and it moved
    assert len(metrics) == SHARDS * metrics["batch"].nunique()  # every shard runs in every batch

    wl = zipf_workload(1.0, 120, LENGTH, 0, "independent", W, 0)
    owner = shard_of(wl.key, SHARDS)
    for shard, rows in metrics.groupby("shard"):
        m, m_r, m_s = shard_budgets(M, None, SHARDS)[shard]
        op = JoinOperator(W, m, "prob", memory_split=(m_r, m_s), estimator=OnlineEstimator(), seed=shard, pairs=True)
        mine = np.flatnonzero(owner == shard)
        expected, done = [], 0
        for row in rows.itertuples():
            op.set_memory(row.budget_r + row.budget_s, (row.budget_r, row.budget_s))
            upto = len(mine) if row.ended else int(np.searchsorted(wl.time[mine], row.released_until))
            part = mine[done:upto]
            fed = op.feed(wl.side[part], wl.time[part], wl.key[part])
            expected += [(wl.key[mine[a]], wl.time[mine[a]], wl.time[mine[b]]) for a, b in fed.pairs]
            done = upto
        got = pairs[shard_of(pairs["key"].to_numpy(), SHARDS) == shard]
        assert sorted(zip(got["key"], got["r_time"], got["s_time"])) == sorted(expected)
