"""One W-join run (:mod:`.spec`), from its parameters to its results row.

Unlike the DGR suites, the runs execute one after another in this process, not on Spark: a
figure of service times compares algorithms, and timed runs spread over parallel tasks would
slow each other down by however the scheduler places them. The timed runs of one batch (a point,
or the points a figure compares against each other) are timed together, seed by seed
(:func:`time_together`): each run once as a discarded warm-up (the first run of an algorithm in a
process costs up to twenty times the others), then round after round, each round timing every
run once in a rotated order, at least ``repeats`` rounds and until every run has been timed for
:data:`BUDGET` seconds (at most :data:`MAX_ROUNDS`). A run's service time is the median of its
rounds; its rounds are stored (``rounds``), and runs timed in the same rounds share
``round_set``, so that the checks compare two lines round by round, under the same load, and
know the spread of the comparison (§4.3: "We repeated the experiment multiple times"). The load
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
from shedding.studies.wjoin.spec import BUDGET, MAX_ROUNDS, WJoinRun, rates_of
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


def _workload(run: WJoinRun) -> tuple[Streams, int]:
    """A run's streams and the exact number of its N-tuples."""
    point = (run.streams, run.rates, run.length, run.domain, run.skew, run.seed)
    exact = exact_of(*point, run.window, "service" if run.figure in ("slow", "shedding") else run.figure, run.small)
    return streams_of(*point), exact


def _row(run: WJoinRun, streams: Streams, outputs: int, exact: int, seconds: float, **extra: object) -> dict:
    tuples = sum(streams.lengths())
    return {**asdict(run), "run_id": run.run_id, "tuples": tuples, "outputs": int(outputs), "exact": int(exact),
            "ratio": outputs / exact if exact else 1.0, "seconds": seconds,
            "us_per_tuple": 1e6 * seconds / tuples if tuples else 0.0, **extra}


def _timed(run: WJoinRun, streams: Streams, exact: int) -> tuple[float, list[float]]:
    """One timing of a run (:func:`service`), its N-tuples checked against the exact count."""
    outputs, seconds, blocks = service(run, streams)
    if outputs != exact:
        raise ShedError(f"{run.policy} produced {outputs:,} N-tuples but the exact count is {exact:,} "
                        f"({run.experiment}, {run.streams} streams); this is a bug, please report it")
    return seconds, blocks


def time_together(runs: list[WJoinRun]) -> list[dict]:
    """The rows of timed runs of one seed, timed together (see the module docstring): a discarded
    warm-up each, then rounds in rotated order; each row holds the median round (its ``seconds``
    and ``blocks``), every round's service time (``rounds``, µs per tuple) and the ``round_set``."""
    work = [_workload(run) for run in runs]
    for run, (streams, exact) in zip(runs, work):
        _timed(run, streams, exact)  # warm-up, discarded
    least = max(run.repeats for run in runs)
    trials: list[list[tuple[float, list[float]]]] = [[] for _ in runs]
    rounds = 0
    while rounds < least or (rounds < MAX_ROUNDS and min(sum(t[0] for t in mine) for mine in trials) < BUDGET):
        order = list(range(len(runs)))
        turn = rounds % len(runs)
        for i in order[turn:] + order[:turn]:
            trials[i].append(_timed(runs[i], *work[i]))
        rounds += 1
    round_set = min(run.run_id for run in runs)  # names the rounds these runs share
    rows = []
    for run, (streams, exact), mine in zip(runs, work, trials):
        seconds, blocks = sorted(mine, key=lambda trial: trial[0])[len(mine) // 2]
        tuples = sum(streams.lengths())
        rows.append(_row(run, streams, exact, exact, seconds, blocks=json.dumps(blocks), round_set=round_set,
                         rounds=json.dumps([1e6 * t[0] / tuples if tuples else 0.0 for t in mine])))
    return rows


def shed(run: WJoinRun) -> dict:
    """A shedding run's row: the N-tuples its policy keeps at memory M, counted as ``shed wjoin
    --memory`` does."""
    from shedding.wjoin.fastshed import shed_outputs

    streams, exact = _workload(run)
    started = time.perf_counter()
    outputs, _ = shed_outputs(streams, WindowSpec.uniform(run.streams, run.window), run.memory, run.policy,
                              seed=run.seed, exact=exact)
    return _row(run, streams, outputs, exact, time.perf_counter() - started, blocks=json.dumps([]))


def run_batch(specs: list[dict], shared: None = None) -> list[dict]:
    """A batch of runs as the study runner executes it: shedding runs one by one, the timed runs
    of each seed together (:func:`time_together`)."""
    runs = [WJoinRun(**spec) for spec in specs]
    rows = [shed(run) for run in runs if run.figure == "shedding"]
    timed = [run for run in runs if run.figure != "shedding"]
    for seed in dict.fromkeys(run.seed for run in timed):
        rows += time_together([run for run in timed if run.seed == seed])
    return rows


def task(spec: dict, shared: None = None) -> list[dict]:
    """One run alone (a batch of one)."""
    return run_batch([spec], shared)
