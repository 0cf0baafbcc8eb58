"""Throughput of the join engine and of EXACT (issue: PROB, PROBV and LIFE at >= 2,000,000
arrivals per second on one core, EXACT under 2 s, state O(M + domain)).

Workload: two Zipf(1.0) streams of 1,000,000 tuples each, domain 650, w = 5000, M = 2500.
Every figure is the median of ``--repeats`` runs made in this one process; the heapq baseline
(benchmarks/heapq_prob.py) runs on a prefix and its rate is compared with the engine's.

    .venv/bin/python benchmarks/bench_engine.py [--length 1000000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from heapq_prob import heapq_prob  # noqa: E402
from timing import median_seconds  # noqa: E402

from shedding import JoinOperator, exact_count, simulate, zipf_workload  # noqa: E402
from shedding.online import StaticEstimator  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--length", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--heapq-length", type=int, default=100_000, help="prefix for the heapq baseline")
    args = ap.parse_args()
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")

    w, m, domain = 5000, 2500, 650
    wl = zipf_workload(1.0, domain, args.length, seed=0, window=w)
    n = len(wl)
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; python {platform.python_version()}")
    print(f"workload: 2 x {args.length:,} Zipf(1.0) tuples, domain {domain}, w = {w}, M = {m}, warmup = {wl.warmup}")

    # compile / load the kernels outside the timings
    small = zipf_workload(1.0, domain, 10_000, seed=0, window=w)
    for policy in ("prob", "rand"):
        simulate(small, policy, m)

    t_exact, exact = median_seconds(lambda: exact_count(wl), args.repeats)
    print(f"EXACT: {exact:,} pairs, median {t_exact:.3f} s")

    est = StaticEstimator.from_workload(wl)
    rates = {}
    print(f"{'policy':8} {'outputs':>12} {'ratio':>7} {'median s':>9} {'arrivals/s':>12} {'state bytes':>12}")
    for policy in ("prob", "probv", "life", "lifev", "rand", "randv"):
        def run():
            op = JoinOperator(w, m, policy, warmup=wl.warmup, estimator=est)
            return op, op.feed(wl.side, wl.time, wl.key)

        secs, (op, fed) = median_seconds(run, args.repeats)
        rates[policy] = n / secs
        print(f"{policy:8} {fed.outputs:>12,} {fed.outputs / exact:>7.3f} {secs:>9.3f} {n / secs:>12,.0f} {op.state_bytes:>12,}")

    secs, res = median_seconds(lambda: simulate(wl, "prob", m), max(1, args.repeats // 2))
    print(f"prob with ArM, schedule and memory share (simulate): median {secs:.3f} s, {n / secs:,.0f} arrivals/s")

    # the heapq baseline on a prefix, against the engine on the same prefix
    pre = zipf_workload(1.0, domain, args.heapq_length, seed=0, window=w)
    keys, cr, cs = pre.key_counts()
    counts = (dict(zip(keys.tolist(), cr.tolist())), dict(zip(keys.tolist(), cs.tolist())))
    t_heap, out_heap = median_seconds(lambda: heapq_prob(pre.side, pre.time, pre.key, w, m, pre.warmup, counts),
                             max(1, args.repeats // 2))
    est_pre = StaticEstimator.from_workload(pre)
    t_eng, fed = median_seconds(lambda: JoinOperator(w, m, "prob", warmup=pre.warmup, estimator=est_pre)
                       .feed(pre.side, pre.time, pre.key), args.repeats)
    assert fed.outputs == out_heap, (fed.outputs, out_heap)
    print(f"heapq PROB on 2 x {args.heapq_length:,}: {out_heap:,} outputs (same as the engine), "
          f"median {t_heap:.3f} s = {len(pre) / t_heap:,.0f} arrivals/s; engine {t_eng:.4f} s; "
          f"speed-up {t_heap / t_eng:.0f}x")
    ok = all(rates[p] >= 2_000_000 for p in ("prob", "probv", "life")) and t_exact < 2.0
    print("targets (prob, probv, life >= 2,000,000 arrivals/s; EXACT < 2 s):", "met" if ok else "NOT met")


if __name__ == "__main__":
    main()
