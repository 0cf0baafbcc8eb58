"""W-join benchmarks (figures in README, "Multi-way window joins (W-join)").

1. NLW, HW and MW side by side, one run, on 3 and 4 synthetic streams of 100,000 tuples each
   (paper §4.3, Figure 9): variable rates, comparable rates, and one stream switching between
   0.01 and 1 tuples per time unit every 100 tuples (Figure 9(c)).
2. The exact count on 3 streams of 1,000,000 tuples.
3. Shedding throughput (arrivals/s) of every policy for N = 3: the compiled Form 1 count on
   3 x 1,000,000 tuples, and the listing operator on 3 x 20,000.
4. The gap of each policy to the CP-SAT optimum on random small instances.
5. Where MW's time goes (``--parts work``): per tuple, the entries NLW and MW scan, and MW's time
   with Mode 2 switched off (the merge, the clock and Mode 1: the cost no join algorithm saves),
   which bounds NLW / MW from above.

Usage: .venv/bin/python benchmarks/bench_wjoin.py [--repeats 3] [--parts exact,throughput,gap,algorithms,work]
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Iterator

import numpy as np

from timing import median_seconds

from shedding.wjoin import WindowSpec, exact_count, make_operator, run, synthetic_streams
from shedding.wjoin.fastshed import shed_count
from shedding.wjoin.loadshed import POLICIES, shed_wjoin
from shedding.wjoin.mw import MWJoin
from shedding.wjoin.nlw import NLWJoin
from shedding.wjoin.opt import solve_opt
from shedding.wjoin.streams import Streams

RATES = {
    "variable": [1.0, 0.1, 1.0, 0.1],
    "comparable": [1.0, 1.0, 1.0, 1.0],
    "switching": [1.0, 1.0, 1.0, (0.01, 1.0)],
}


def workloads(length: int, window: int, domain: int) -> Iterator[tuple[int, str, Streams, WindowSpec]]:
    """(N, rates label, streams, Form 1 windows) of every row: 3 and 4 streams, each rate set
    (the switching stream only for 4, as in Figure 9(c))."""
    for n in (3, 4):
        for label, rates in RATES.items():
            if label == "switching" and n == 3:
                continue
            streams = synthetic_streams(n, length, rates=rates[:n], domain=domain, seed=n)
            yield n, label, streams, WindowSpec.uniform(n, window)


def algorithms(repeats: int, length: int, window: int, domain: int) -> None:
    print(f"\n## NLW, HW, MW: {length:,} tuples per stream, w = {window}, domain {domain}, "
          f"median of {repeats} (microseconds per tuple)\n")
    print("| streams | rates | N-tuples | NLW | HW | MW | NLW / MW |")
    print("|---|---|---|---|---|---|---|")
    for n, label, streams, spec in workloads(length, window, domain):
        exact = exact_count(streams, spec)
        us = {}
        for name in ("nlw", "hw", "mw"):
            seconds, rows = median_seconds(lambda: run(make_operator(name, spec), streams), repeats)
            assert len(rows) == exact, (name, len(rows), exact)
            us[name] = 1e6 * seconds / (n * length)
        print(f"| {n} | {label} | {exact:,} | {us['nlw']:.1f} | {us['hw']:.1f} | {us['mw']:.1f} | "
              f"{us['nlw'] / us['mw']:.2f} |", flush=True)


class CountingNLW(NLWJoin):
    """NLW counting the buffer entries its nested loop visits."""

    visited = 0

    def _join(self, stream, seq, time, key, scan, test_window=True):  # noqa: ANN001, ANN202 - the base's
        def counting(j):  # noqa: ANN001, ANN202
            entries = scan(j)
            self.visited += len(entries)
            return entries

        return super()._join(stream, seq, time, key, counting, test_window)


class CountingMW(MWJoin):
    """MW counting the buffer entries Mode 2 may scan (all of the other buffers: an upper bound)."""

    visited = 0

    def _mode2(self, stream, seq, key):  # noqa: ANN001, ANN202 - the base's
        self.visited += sum(len(self.buffers[j]) for j in self._others[stream])
        return super()._mode2(stream, seq, key)


class Mode1MW(MWJoin):
    """MW without Mode 2: the merge, the clock and Mode 1 only (no results; timing only)."""

    def _mode2(self, stream, seq, key):  # noqa: ANN001, ANN202 - the base's
        return []


def work(repeats: int, length: int, window: int, domain: int) -> None:
    print(f"\n## Where the time goes: {length:,} tuples per stream, w = {window}, domain {domain}, median of "
          f"{repeats} (microseconds per tuple; entries scanned per tuple)\n")
    print("| streams | rates | NLW | MW | MW without Mode 2 | NLW / MW | ceiling NLW / (MW without Mode 2) "
          "| NLW entries | MW entries (at most) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n, label, streams, spec in workloads(length, window, domain):
        tuples = n * length
        us = {}
        for name, cls in (("nlw", NLWJoin), ("mw", MWJoin), ("mode1", Mode1MW)):
            seconds, _ = median_seconds(lambda: run(cls(spec), streams), repeats)
            us[name] = 1e6 * seconds / tuples
        nlw, mw = CountingNLW(spec), CountingMW(spec)
        run(nlw, streams)
        run(mw, streams)
        print(f"| {n} | {label} | {us['nlw']:.1f} | {us['mw']:.1f} | {us['mode1']:.1f} | "
              f"{us['nlw'] / us['mw']:.2f} | {us['nlw'] / us['mode1']:.2f} | {nlw.visited / tuples:.1f} | "
              f"{mw.visited / tuples:.1f} |", flush=True)


def exact(repeats: int) -> None:
    streams = synthetic_streams(3, 1_000_000, rates=[1.0, 0.1, 1.0], domain=10, seed=0)
    print(f"\n## Exact count, 3 x 1,000,000 tuples (rates 1, 0.1, 1; domain 10), median of {repeats}\n")
    print("| windows | method | N-tuples | seconds |")
    print("|---|---|---|---|")
    for spec, methods in ((WindowSpec.uniform(3, 20), ("product", "sweep")),
                          (WindowSpec.from_pairs(3, {(0, 1): 20, (1, 2): 10}), ("sweep",))):
        for method in methods:
            exact_count(streams, spec, method)  # compile once
            seconds, count = median_seconds(lambda: exact_count(streams, spec, method), repeats)
            print(f"| {spec.describe()} | {method} | {count:,} | {seconds:.2f} |", flush=True)


def throughput(repeats: int) -> None:
    big = synthetic_streams(3, 1_000_000, domain=50, seed=0)
    small = synthetic_streams(3, 20_000, domain=50, seed=0)
    spec = WindowSpec.uniform(3, 50)
    memory = 60
    total = exact_count(big, spec)
    shed_count(small, spec, memory, "prob")  # compile once
    print(f"\n## Shedding, N = 3, w = 50, domain 50, M = {memory} (EXACT needs about 150), median of {repeats}\n")
    print("| policy | compiled: outputs / exact (3 x 1,000,000) | arrivals/s | listing operator (3 x 20,000) arrivals/s |")
    print("|---|---|---|---|")
    for policy in POLICIES:
        seconds, (outputs, _) = median_seconds(lambda: shed_count(big, spec, memory, policy), repeats)
        slow, _ = median_seconds(lambda: shed_wjoin(small, spec, memory, policy, exact=0), repeats)
        print(f"| {policy} | {outputs / total:.3f} | {3_000_000 / seconds:,.0f} | {60_000 / slow:,.0f} |", flush=True)


def gap(instances: int, seconds: float) -> None:
    print(f"\n## Gap to the CP-SAT optimum: {instances} random instances, 3 streams x 10 tuples, rates 1, "
          f"domain 3, w = 4\n")
    print("| allocation | M | proven optimal | " + " | ".join(f"{p} / OPT mean (min)" for p in ("rand", "prob", "life"))
          + " | OPT / exact |")
    print("|---|---|---|---|---|---|---|")
    for variable in (False, True):
        for memory in (3, 6):
            ratios: dict[str, list[float]] = {p: [] for p in ("rand", "prob", "life")}
            opt_exact, proven = [], 0
            for seed in range(instances):
                streams = synthetic_streams(3, 10, domain=3, seed=seed)
                spec = WindowSpec.uniform(3, 4)
                best = solve_opt(streams, spec, memory, allocation="variable" if variable else "fixed",
                               time_limit=seconds)
                proven += best.optimal
                if best.outputs == 0:
                    continue
                opt_exact.append(best.ratio)
                for p in ratios:
                    got = statistics.mean(shed_wjoin(streams, spec, memory, p + ("v" if variable else ""),
                                                     seed=k).outputs for k in range(5 if p == "rand" else 1))
                    ratios[p].append(got / best.outputs)
            cells = " | ".join(f"{np.mean(r):.3f} ({np.min(r):.3f})" for r in ratios.values())
            print(f"| {'variable' if variable else 'fixed'} | {memory} | {proven}/{instances} | {cells} | "
                  f"{np.mean(opt_exact):.3f} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--length", type=int, default=100_000)
    parser.add_argument("--window", type=int, default=10)
    parser.add_argument("--domain", type=int, default=10)
    parser.add_argument("--parts", default="exact,throughput,gap,algorithms",
                        help="comma list of the parts to run: exact, throughput, gap, algorithms, work")
    parser.add_argument("--gap-instances", type=int, default=20)
    parser.add_argument("--gap-seconds", type=float, default=20.0)
    args = parser.parse_args()
    started = time.perf_counter()
    parts = {p.strip() for p in args.parts.split(",")}
    if "exact" in parts:
        exact(args.repeats)
    if "throughput" in parts:
        throughput(args.repeats)
    if "gap" in parts:
        gap(args.gap_instances, args.gap_seconds)
    if "algorithms" in parts:
        algorithms(args.repeats, args.length, args.window, args.domain)
    if "work" in parts:
        work(args.repeats, args.length, args.window, args.domain)
    print(f"\n(total {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
