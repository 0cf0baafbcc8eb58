"""One W-join run (:mod:`.spec`), from its parameters to its results row.

Unlike the DGR suites, the runs execute one after another in this process, not on Spark: a
figure of service times compares algorithms, and timed runs spread over parallel tasks would
slow each other down by however the scheduler places them. The lines of one point run back to
back (one part of the results store per point), so they see the same machine load; the load
average before and after is stored with the provenance.

Every timed run checks its N-tuples against the exact count (:func:`shedding.wjoin.exact_count`,
:func:`shedding.wjoin.path_exact_count` for the path W-join); shedding runs count as ``shed wjoin
--memory`` does (:func:`shedding.wjoin.fastshed.shed_outputs`).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from shedding.errors import ShedError
from shedding.studies.wjoin.spec import WJoinRun, rates_of
from shedding.wjoin.operator import WJoinOperator
from shedding.wjoin.streams import Streams
from shedding.wjoin.windows import WindowSpec

if TYPE_CHECKING:
    from shedding.wjoin.path import PathSpec


@lru_cache(maxsize=8)
def streams_of(n: int, rates: str, length: int, domain: int, skew: float, seed: int) -> Streams:
    """The synthetic streams of a run (§4.2: exponential inter-arrival times, Zipf keys), cut to
    the time span all streams cover: ``length`` is the number of tuples of the fastest stream, and
    a slower stream has fewer tuples in the same span (no stream runs on alone at the end)."""
    from shedding.wjoin.generator import synthetic_streams

    full = synthetic_streams(n, length, rates=rates_of(rates, n), skew=skew, domain=domain, seed=seed)
    end = min(int(t[-1]) for t in full.times if len(t)) if all(len(t) for t in full.times) else 0
    cut = [int(np.searchsorted(t, end, side="right")) for t in full.times]
    return Streams.of([t[:c] for t, c in zip(full.times, cut)], [k[:c] for k, c in zip(full.keys, cut)], full.names)


def windows_of(run: WJoinRun) -> WindowSpec:
    """The window constraints of a timed run: one window w (service, slow), or ``small`` for every
    pair but A-B, whose window is w (Figure 13: "the window among all streams is set to 0.8
    second, except between one pair of the streams where it is set to 1 sec"), or the undirected
    reading of the path's windows (path)."""
    if run.figure == "windows":
        n = run.streams
        return WindowSpec.from_pairs(n, {(i, j): run.window if (i, j) == (0, 1) else run.small
                                         for i in range(n) for j in range(i + 1, n)})
    if run.figure == "path":
        return path_of(run).relaxed()
    return WindowSpec.uniform(run.streams, run.window)


def path_of(run: WJoinRun) -> PathSpec:
    """The path W-join of a path run: the streams in order, each step's directed window w
    (Figure 12: "a candidate output needs to appear at any of the paths: ABCD, DCBA")."""
    from shedding.wjoin.path import PathSpec

    return PathSpec.of(run.streams, None, run.window)


@lru_cache(maxsize=8)
def exact_of(n: int, rates: str, length: int, domain: int, skew: float, seed: int, window: int,
             figure: str = "service", small: int = 0) -> int:
    """The exact number of N-tuples of a run's streams and windows."""
    from shedding.wjoin.exact import exact_count
    from shedding.wjoin.path import path_exact_count

    streams = streams_of(n, rates, length, domain, skew, seed)
    run = WJoinRun("", "", figure, n, rates, length, window, domain, skew, seed, "", small=small)
    return path_exact_count(streams, path_of(run)) if figure == "path" else exact_count(streams, windows_of(run))


def operator_of(run: WJoinRun) -> WJoinOperator:
    """The operator a timed run measures: an algorithm by name (service, slow), GCA or LCA of the
    paper's MW (windows), or a path W-join algorithm (path)."""
    from shedding.wjoin.algorithms import make_operator
    from shedding.wjoin.path import path_operator

    if run.figure == "path":
        return path_operator(run.policy, path_of(run))
    if run.figure == "windows":
        return make_operator("mw-paper", windows_of(run), approach="global" if run.policy == "gca" else "local")
    return make_operator(run.policy, windows_of(run))


def service(run: WJoinRun, streams: Streams) -> tuple[int, float, list[float]]:
    """Feed the streams in timestamp order through the run's operator (:func:`operator_of`): the
    N-tuples, the seconds in all, and the mean service time (microseconds) of every block of
    ``run.block`` arrivals (§4.3: "the service time averaged by 1000 input tuples"); MW's
    ``finish`` counts in the last block."""
    from shedding.wjoin.operator import arrivals

    op = operator_of(run)
    clock = time.perf_counter
    blocks: list[float] = []
    outputs, seen = 0, 0
    started = mark = clock()
    for i, t, k in arrivals(streams):
        outputs += len(op.push(i, t, k))
        seen += 1
        if seen % run.block == 0:
            now = clock()
            blocks.append(1e6 * (now - mark) / run.block)
            mark = now
    outputs += len(op.finish())
    now = clock()
    if seen % run.block:
        blocks.append(1e6 * (now - mark) / (seen % run.block))
    return outputs, now - started, blocks


def execute(run: WJoinRun) -> dict:
    """One run, from its parameters to its results row."""
    point = (run.streams, run.rates, run.length, run.domain, run.skew, run.seed)
    streams = streams_of(*point)
    exact = exact_of(*point, run.window, "service" if run.figure in ("slow", "shedding") else run.figure, run.small)
    tuples = sum(streams.lengths())
    blocks: list[float] = []
    if run.figure == "shedding":
        from shedding.wjoin.fastshed import shed_outputs

        started = time.perf_counter()
        outputs, _ = shed_outputs(streams, WindowSpec.uniform(run.streams, run.window), run.memory, run.policy,
                                  seed=run.seed, exact=exact)
        seconds = time.perf_counter() - started
    else:
        trials = sorted((service(run, streams) for _ in range(run.repeats)), key=lambda trial: trial[1])
        outputs, seconds, blocks = trials[len(trials) // 2]
        if outputs != exact:
            raise ShedError(f"{run.policy} produced {outputs:,} N-tuples but the exact count is {exact:,} "
                            f"({run.experiment}, {run.streams} streams); this is a bug, please report it")
    return {**asdict(run), "run_id": run.run_id, "tuples": tuples, "outputs": int(outputs), "exact": int(exact),
            "ratio": outputs / exact if exact else 1.0, "seconds": seconds,
            "us_per_tuple": 1e6 * seconds / tuples if tuples else 0.0, "blocks": json.dumps(blocks)}


def task(spec: dict, shared: None = None) -> list[dict]:
    """A run as the study runner executes it."""
    return [execute(WJoinRun(**spec))]
