"""One bestmatch run (:mod:`.spec`): one point of an experiment's grid, from its parameters to its
rows. The runs are short and run here, one after another, without Spark.

Timed runs (Figures 11 and 12) time every algorithm on the same inputs, after a warm-up on a tiny
input, and check that all find the same pairs. Propagation (Figures 13 and 14) is measured against
the fraction of the input read when a pair is output (deterministic; the paper plots wall time,
which a CPU-bound scan makes proportional). Shedding compares each policy's result with the exact
constrained left-outer BMJ (:func:`shedding.bestmatch.shed.shedding_study`).
"""

from __future__ import annotations

import statistics

import numpy as np

from shedding.bestmatch.generator import synthetic_input
from shedding.bestmatch.join import bestmatch
from shedding.bestmatch.shed import shedding_study
from shedding.errors import ShedError
from shedding.studies.bestmatch.spec import TIMED, BestmatchRun

CURVE_POINTS = 101


def execute(run: BestmatchRun) -> list[dict]:
    """The rows of one run, each with its experiment and run id first."""
    params = {"n": run.n, "dims": run.dims, "distribution": run.distribution, "first_decimals": run.first_decimals}
    data = synthetic_input(run.n, run.n, run.dims, run.distribution, run.eps, 6, 0, first_decimals=run.first_decimals)
    if run.figure in TIMED:
        rows = _times(run, params, data)
    elif run.figure == "propagated":
        rows = _propagation(params, data)
    else:
        rows = shedding_study(data, list(run.fractions), list(run.policies), seeds=run.seeds).assign(
            **{k: v for k, v in params.items() if k != "first_decimals"}).to_dict("records")
    return [{"experiment": run.experiment, "run_id": run.run_id, **row} for row in rows]


def _times(run: BestmatchRun, params: dict, data) -> list[dict]:  # noqa: ANN001 (a BestmatchInput)
    """Figures 11-12: seconds of every algorithm (median of ``repeats``), with pairs and tests."""
    rows = []
    pairs = None
    for algorithm in run.algorithms:
        bestmatch(synthetic_input(20, 20, run.dims, "uniform", run.eps), "constrained", algorithm)
        runs = [bestmatch(data, "constrained", algorithm) for _ in range(run.repeats)]
        if pairs is not None and not np.array_equal(pairs, runs[-1].pairs):
            raise ShedError(f"internal check failed: {algorithm} differs from {run.algorithms[0]}")
        pairs = runs[-1].pairs
        rows.append({**params, "algorithm": algorithm, "seconds": statistics.median(r.seconds for r in runs),
                     "pairs": len(pairs), "tested": runs[-1].tested})
    return rows


def _propagation(params: dict, data) -> list[dict]:  # noqa: ANN001 (a BestmatchInput)
    """Figures 13-14: the fraction of MatWin's result output once a fraction of the input is read,
    with the steps of the whole run on every row (:func:`steps`)."""
    res = bestmatch(data, "constrained", "matwin")
    total_in = len(data.r) + len(data.s)
    stamps = np.sort(res.stamps) / total_in
    series = params["distribution"] if params["first_decimals"] is None else \
        f"{params['first_decimals']} decimal place(s)"
    run = {**params, "series": series, **steps(res.stamps, total_in)}
    rows = []
    for x in np.linspace(0, 1, CURVE_POINTS):
        share = np.searchsorted(stamps, x, side="right") / max(len(stamps), 1)
        rows.append({**run, "input_read": round(float(x), 4), "output": float(share)})
    return rows


def steps(stamps: np.ndarray, total_in: int) -> dict:
    """How continuously a result leaves (Figure 14's steps): ``moments``, the input positions at
    which pairs are output while input remains; ``largest_step``, the largest share of the result
    output at one of them; ``final_share``, the share output only once the input has ended."""
    moments, counts = np.unique(stamps, return_counts=True)
    early = moments < total_in
    n = max(len(stamps), 1)
    return {"moments": int(early.sum()), "largest_step": float(counts[early].max() / n) if early.any() else 0.0,
            "final_share": float(counts[~early].sum() / n)}


def task(spec: dict, shared: None = None) -> list[dict]:
    """A run as the study runner executes it."""
    return execute(BestmatchRun(**spec))
