"""One W-join run (:mod:`.spec`), from its parameters to its results row.

Unlike the DGR suites, the runs execute one after another in this process, not on Spark: a
figure of service times compares algorithms, and timed runs spread over parallel tasks would
slow each other down by however the scheduler places them. The lines of one point run back to
back (one part of the results store per point), so they see the same machine load; the load
average before and after is stored with the provenance.

Every timed run checks its N-tuples against the exact count (:func:`shedding.wjoin.exact_count`);
shedding runs count with the compiled operator (:func:`shedding.wjoin.fastshed.shed_count`).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict
from functools import lru_cache

import numpy as np

from shedding.errors import ShedError
from shedding.studies.wjoin.spec import WJoinRun, rates_of
from shedding.wjoin.streams import Streams
from shedding.wjoin.windows import WindowSpec


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


@lru_cache(maxsize=8)
def exact_of(n: int, rates: str, length: int, domain: int, skew: float, seed: int, window: int) -> int:
    """The exact number of N-tuples of a run's streams (Form 1, window w)."""
    from shedding.wjoin.exact import exact_count

    return exact_count(streams_of(n, rates, length, domain, skew, seed), WindowSpec.uniform(n, window))


def service(run: WJoinRun, streams: Streams) -> tuple[int, float, list[float]]:
    """Feed the streams in timestamp order through ``run.policy`` (nlw, hw or mw): the N-tuples,
    the seconds in all, and the mean service time (microseconds) of every block of ``run.block``
    arrivals (§4.3: "the service time averaged by 1000 input tuples"); MW's ``finish`` counts in
    the last block."""
    from shedding.wjoin.algorithms import make_operator
    from shedding.wjoin.operator import arrivals

    op = make_operator(run.policy, WindowSpec.uniform(run.streams, run.window))
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
    exact = exact_of(*point, run.window)
    tuples = sum(streams.lengths())
    blocks: list[float] = []
    if run.figure == "shedding":
        from shedding.wjoin.fastshed import shed_count

        started = time.perf_counter()
        outputs, _ = shed_count(streams, WindowSpec.uniform(run.streams, run.window), run.memory, run.policy,
                                seed=run.seed)
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
