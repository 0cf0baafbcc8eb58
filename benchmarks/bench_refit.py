"""What HAZARD's refit path costs by payload group, piece by piece: a row of its index
(``hazardindex.index_row``), the groups' curves (``hazard.group_curves``) and the whole fit
(``hazard.fit``), in CPU time, on the statistics and the model HAZARD by destination holds after
the flights of January (M = 200, online estimator: 94 groups, 13 age buckets), so the zeros of the
statistics are the real ones. Medians of ``--blocks`` blocks.

    .venv/bin/python benchmarks/bench_refit.py [--blocks 5]
    PYTHONPATH=<another worktree> .venv/bin/python benchmarks/bench_refit.py   # another revision

It also prints how many of the statistics' cells and beta bins hold counts. The groups' curves are
timed with every bin read and, in a revision whose ``group_curves`` takes ``cells`` (the bins that
hold counts, marked by ``pool_groups``: a lever the beyond-i.i.d. study's cost section measured and
dropped), with only those.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
import inspect
import json

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from timing import median_cpu_per_call  # noqa: E402

from shedding.datasets.flights import flights_workload
from shedding.jit import njit
from shedding.online import JoinOperator, OnlineEstimator
from shedding.online import hazard as Z
from shedding.online.hazardindex import index_row
from shedding.online.agedlayout import H_NG
from shedding.online.simulator import payload_groups


def cpu_us(call, calls: int, blocks: int) -> float:
    """The median over ``blocks`` of the CPU microseconds per call of ``call``."""
    return 1e6 * median_cpu_per_call(call, calls, blocks)


@njit(cache=False)
def _rows(eg, th, lens, memo, c):
    for s in range(2):
        for g in range(eg.shape[1]):
            for q in range(0, Z.Q_PRIO, 7):
                index_row(eg, th, lens, s, g, c, Z.bin_beta(q, Z.Q_PRIO_OCTAVE), memo, q)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--blocks", type=int, default=5)
    args = parser.parse_args()
    wl = flights_workload(1)
    op = JoinOperator(wl.window, 200, "hazard", warmup=wl.warmup, estimator=OnlineEstimator())
    op.feed(wl.side, wl.time, wl.key, payload_groups(wl, "dest"))
    hz = op._aged
    ng, nb = int(hz.hsc[H_NG]), hz.ev.shape[3]
    ev, ex, th, ep, memo, lens = hz.ev, hz.ex, hz.th.copy(), hz.ep.copy(), hz.memo.copy(), hz.lens
    held = (ev != 0) | (ex != 0)
    out = {"groups": ng, "buckets": nb, "cells": int(held.any(axis=4).sum()), "of_cells": int(held.any(axis=4).size),
           "bins": int(held.sum()), "of_bins": int(held.size)}
    eg = hz.eg.copy()

    for c in range(2):  # every group's row at every 7th beta bin, per matched state
        per_call = 2 * ng * len(range(0, Z.Q_PRIO, 7))
        out[f"index_row_c{c}_ns"] = round(1e3 * cpu_us(lambda: _rows(eg, th, lens, memo, c), 5, args.blocks) / per_call, 1)
    betas, kappa, curves = Z.stats_betas(), 100.0, np.zeros_like(eg)
    out["group_curves_every_bin_us"] = round(cpu_us(
        lambda: Z.group_curves(ev, ex, 0, 0, ng, nb, betas, th, ep[0], kappa, curves), 100, args.blocks), 1)
    if "cells" in inspect.signature(Z.group_curves.py_func).parameters:
        sums = np.zeros((2, nb, Z.Q_STATS)), np.zeros((2, nb, Z.Q_STATS)), np.zeros(Z.Q_STATS), np.zeros(Z.Q_STATS)
        cells = np.zeros((ng, 2, nb), np.int64)
        Z.pool_groups(ev, ex, 0, ng, nb, *sums, True, cells)
        out["group_curves_bins_held_us"] = round(cpu_us(
            lambda: Z.group_curves(ev, ex, 0, 0, ng, nb, betas, th, ep[0], kappa, curves, cells), 100, args.blocks), 1)
    hsc, hf = hz.hsc.copy(), hz.hf.copy()
    out["fit_us"] = round(cpu_us(lambda: Z.fit(hsc, hf, ev, ex, eg.copy(), th.copy(), ep.copy(), True), 50,
                                 args.blocks), 1)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
