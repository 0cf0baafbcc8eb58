"""What a shard's state costs between micro-batches: ``ShardJoin.to_bytes`` and ``from_bytes`` in CPU
time, and the value's size.

A typical state: ``bench_stream_join``'s workload (Zipf(1) keys, domain 650, w = M = 500), 20,000
tuples pushed through one shard in 40 micro-batches with a lateness of 2 steps (so some tuples
are held back), for PROB and HAZARD. CPU time (``time.process_time``), not wall time: on a
shared machine the wall time of a few milliseconds swings with the load. Medians of ``--blocks``
blocks of ``--calls`` calls.

    .venv/bin/python benchmarks/bench_state.py [--policies prob,hazard] [--blocks 5] [--calls 200]

The script uses only ``to_bytes`` and ``from_bytes``, so it measures another revision of the code
too: ``PYTHONPATH=<its worktree> .venv/bin/python benchmarks/bench_state.py``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))

from timing import median_cpu_per_call  # noqa: E402

from shedding import zipf_workload
from shedding.streaming.shard import JoinSpec, ShardJoin

LENGTH, DOMAIN, WINDOW, BATCHES = 20_000, 650, 500, 40


def cpu_ms(call, calls: int, blocks: int) -> float:
    """The median over ``blocks`` of the CPU milliseconds per call of ``call``."""
    return 1e3 * median_cpu_per_call(call, calls, blocks)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--policies", default="prob,hazard", help="shedding policies whose state to time")
    ap.add_argument("--blocks", type=int, default=5, help="blocks of calls (medians reported)")
    ap.add_argument("--calls", type=int, default=200, help="calls per block")
    args = ap.parse_args()
    wl = zipf_workload(1.0, DOMAIN, LENGTH, seed=0, window=WINDOW)
    for policy in args.policies.split(","):
        join = ShardJoin(JoinSpec(WINDOW, WINDOW, policy, lateness=2))
        for part in np.array_split(np.arange(len(wl)), BATCHES):
            join.push(pd.DataFrame({"side": wl.side[part].astype(np.int32), "time": wl.time[part],
                                    "key": wl.key[part]}))
        blob = join.to_bytes()
        write = cpu_ms(join.to_bytes, args.calls, args.blocks)
        read = cpu_ms(lambda: ShardJoin.from_bytes(blob), args.calls, args.blocks)
        print(f"{policy}: {len(blob):,} bytes; to_bytes {write:.2f} ms, from_bytes {read:.2f} ms CPU "
              f"({sum(join.op.in_memory)} tuples in memory, {len(join._held)} held back)", flush=True)


if __name__ == "__main__":
    sys.exit(main())
