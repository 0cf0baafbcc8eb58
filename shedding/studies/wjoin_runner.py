"""Run a W-join suite (:mod:`.wjoin_suite`) and collect one results table.

Unlike the DGR suites, the runs execute one after another in this process, not on Spark: a
figure of service times compares algorithms, and timed runs spread over parallel tasks would
slow each other down by however the scheduler places them. The lines of one point run back to
back, so they see the same machine load; the load average before and after is stored with the
provenance. Results go to ``DIR/parts/`` point by point (so ``--resume`` skips what is there and
Ctrl-C keeps the finished runs), then to ``results.parquet`` and ``results.csv``.

Every timed run checks its N-tuples against the exact count (:func:`shedding.wjoin.exact_count`);
shedding runs count with the compiled operator (:func:`shedding.wjoin.fastshed.shed_count`).
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import time
from dataclasses import asdict
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
from rich.console import Console

from shedding.errors import ShedError
from shedding.wjoin.streams import Streams
from shedding.wjoin.windows import WindowSpec
from shedding.studies.runner import _parts_dir, _prepare_out, _select, provenance, read_parts, with_opt_ratio, write_suite_json
from shedding.studies.wjoin_suite import WJoinRun, WJoinSuite, rates_of

WHERE = "this process, one run at a time (timed runs need the cores to themselves, so no Spark)"
SORT = ["experiment", "rates", "streams", "memory", "policy", "seed"]


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


def run_wjoin_suite(suite: WJoinSuite, out: Path, *, resume: bool = False, seeds: int | None = None,
                    console: Console | None = None, command: str = "") -> tuple[pd.DataFrame, bool]:
    """Run every pending run of ``suite`` in this process; returns (results, complete). A folder
    this call created is removed again if it fails before any run is stored."""
    console = console or Console(stderr=True)
    seeds = suite.seeds if seeds is None else seeds
    invoked = time.perf_counter()
    out = Path(out)
    specs = suite.runs(seeds)
    created = not out.exists()
    _prepare_out(out, resume, suite)
    info = {**provenance(command), "load_before": _load()}
    try:
        write_suite_json(out, suite, seeds, specs, WHERE, info)
        _run_pending(suite, out, specs, console)
    except KeyboardInterrupt:
        raise ShedError(f"interrupted; {len(read_parts(out))} runs kept, continue with --resume") from None
    except BaseException:
        if created and not any(_parts_dir(out).glob("part-*.parquet")):
            shutil.rmtree(out, ignore_errors=True)
        raise
    results = _select(with_opt_ratio(read_parts(out)), {s.run_id for s in specs})
    write_wjoin_results(out, results)
    info |= {"load_after": _load(), "wall_seconds": round(time.perf_counter() - invoked, 1)}
    write_suite_json(out, suite, seeds, specs, WHERE, info)
    return results, len(results) == len(specs)


def _run_pending(suite: WJoinSuite, out: Path, specs: list[WJoinRun], console: Console) -> None:
    """The runs not yet in ``out``, one part file per point (its lines and seeds)."""
    done = set(read_parts(out).get("run_id", pd.Series(dtype=str)))
    pending = [s for s in specs if s.run_id not in done]
    _parts_dir(out).mkdir(exist_ok=True)
    n_parts = len(list(_parts_dir(out).glob("part-*.parquet")))
    finished = len(specs) - len(pending)
    for _, group in itertools.groupby(pending, key=lambda s: (s.experiment, s.streams, s.rates, s.memory)):
        rows = [execute(s) for s in group]
        pd.DataFrame(rows).to_parquet(_parts_dir(out) / f"part-{n_parts:05d}.parquet", index=False)
        n_parts += 1
        finished += len(rows)
        console.print(f"{suite.name}: {finished}/{len(specs)} runs done ({rows[0]['experiment']}, "
                      f"{rows[0]['streams']} streams, {rows[0]['rates']})", highlight=False, markup=False)


def write_wjoin_results(out: Path, results: pd.DataFrame) -> None:
    """``results.parquet`` and ``results.csv``, one row per run, sorted stably."""
    if not results.empty:
        results = results.sort_values(SORT, kind="stable").reset_index(drop=True)
    results.to_parquet(out / "results.parquet", index=False)
    results.to_csv(out / "results.csv", index=False)


def _load() -> list[float]:
    """The 1, 5 and 15 minute load averages (timings are only comparable at similar load)."""
    try:
        return [round(v, 2) for v in os.getloadavg()]
    except OSError:  # pragma: no cover - platforms without it
        return []
