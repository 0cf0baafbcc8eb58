"""Output quality of P shards against one, with the memory split evenly or shared (re-divided every
micro-batch by each shard's load and value, ``shedding.streaming.budget``).

Workload (the paper's §4): two Zipf(1) streams of 200,000 tuples each, domain 650, w = M = 500,
PROB with the online estimator. The shards run without Spark (``shedding.streaming.replay``, the
same ShardJoin the streaming query runs; the tests show a query with the same micro-batches gives
the same pairs), the input cut into ``--batches`` micro-batches of equal length.

    .venv/bin/python benchmarks/bench_shared_budget.py [--batches 1,20] [--shards 1,2,4,8]
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from shedding import zipf_workload
from shedding.exact import exact_count
from shedding.streaming.replay import run_shards
from shedding.streaming.shard import JoinSpec

LENGTH, DOMAIN, WINDOW = 200_000, 650, 500


def outputs(wl, shards: int, budget: str, batches: int) -> int:
    rows = pd.DataFrame({"side": wl.side.astype(np.int64), "time": wl.time, "key": wl.key})
    cuts = np.array_split(np.arange(len(rows)), batches)
    pairs, _ = run_shards(JoinSpec(WINDOW, WINDOW, "prob", shards=shards, budget=budget), (rows.iloc[c] for c in cuts))
    return sum(len(p) for p in pairs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batches", default="1,20", help="micro-batches per run")
    ap.add_argument("--shards", default="1,2,4,8", help="shard counts P")
    args = ap.parse_args()
    wl = zipf_workload(1.0, DOMAIN, LENGTH, seed=0, window=WINDOW, warmup=0)
    exact = exact_count(wl)
    print(f"2 x {LENGTH:,} Zipf(1) tuples, domain {DOMAIN}, w = M = {WINDOW}, PROB (online); EXACT = {exact:,}")
    for batches in map(int, args.batches.split(",")):
        print(f"\n{batches} micro-batch(es)   P   budget   outputs / EXACT   of P = 1")
        one = None
        for shards in map(int, args.shards.split(",")):
            for budget in (("even",) if shards == 1 else ("even", "shared")):
                out = outputs(wl, shards, budget, batches)
                one = out if one is None else one
                print(f"{'':18} {shards:>3}   {budget:<6}   {out / exact:15.3f}   {out / one:8.3f}")


if __name__ == "__main__":
    main()
