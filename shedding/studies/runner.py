"""Run any study's plan and keep its results in the store.

Runs are spread over Spark tasks (a few per task: scheduling a Python task costs more than a
small run), or, for a study whose runs are timed against each other, executed one after another
in this process (timed runs spread over parallel tasks would slow each other down by however the
scheduler places them). Either way each finished batch of runs goes to ``DIR/parts/`` at once
(:mod:`.store`), so an interrupted suite loses nothing and ``--resume`` skips what is there; at
the end the parts become ``results.parquet`` and ``results.csv``. A folder this run created is
removed again if it fails before any run is stored; Ctrl-C stops at once and keeps the finished
runs.
"""

from __future__ import annotations

import itertools
import shutil
import time
from concurrent.futures import ThreadPoolExecutor, wait
from contextlib import nullcontext
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from shedding.errors import ShedError
from shedding.spark import spark_session
from shedding.studies.store import ResultsStore, load_average, now, provenance, runs_in, select
from shedding.studies.study import Plan, Study

#: where the runs of a study that does not use Spark execute (``master`` in suite.json)
HERE = "this process, one run at a time (timed runs need the cores to themselves, so no Spark)"


@dataclass(frozen=True)
class Outcome:
    """What one run of a suite left: the suite's stored ``results``, whether they are
    ``complete``, and how many runs this call ``ran`` (the others were stored before)."""

    results: pd.DataFrame
    complete: bool
    ran: int


def run_study(study: Study, suite: Any, out: Path | str, *, master: str = "local[*]", resume: bool = False,
              jobs: int | None = None, console: Console | None = None, spark=None, command: str = "",
              **inputs: Any) -> Outcome:
    """Run every pending run of ``suite`` (a suite of ``study``) into the folder ``out``: on
    Spark, or here for a study whose runs are timed against each other. What ``shed compare``
    calls; :func:`~shedding.studies.registry.load_suite` gives the study and the suite.

    Args:
        study: The study (:class:`~shedding.studies.study.Study`), e.g. the first of
            ``load_suite(name)``.
        suite: The suite of that study, checked (the second of ``load_suite``).
        out: The results folder (parts, ``results.parquet``/``.csv``, ``suite.json``).
        master: The Spark master (default embedded ``local[*]``).
        resume: Continue the same suite's stored results in ``out``; without it a folder that
            holds results is refused.
        jobs: Runs in flight at once (default Spark's parallelism).
        console: Where warnings go (default standard error).
        spark (pyspark.sql.SparkSession | None): An existing SparkSession to use instead of ``master`` (it is left running).
        command: The command line, for the provenance (with the versions, machine, the
            working folder, start and end time and this invocation's wall time, in
            ``suite.json``).
        **inputs: What the study's plan takes: ``seeds`` and the study's own inputs
            (:attr:`Study.inputs`).

    Returns:
        An :class:`Outcome`: the suite's stored results, whether they are complete, and how
        many runs this call ran.

    Raises:
        ShedError: An input the study does not take, a bad input, or an ``out`` that is a
            file, not writable, or holds other results (``param`` ``out``).
    """
    unknown = sorted(set(inputs) - set(study.inputs))
    if unknown:
        raise ShedError(f"{', '.join(unknown)} do not apply to the {study.label} suite {suite.name}; drop them")
    console = console or Console(stderr=True)
    invoked = time.perf_counter()
    plan = study.plan(suite, **inputs)  # checks the inputs before anything is made
    store = ResultsStore(out)
    created = not store.out.exists()
    store.prepare(plan.suite.name, resume)
    info = {**provenance(command), "out": str(Path(out).resolve()), **plan.provenance}
    if not study.spark:
        info["load_before"] = load_average()
    where = master if study.spark else HERE
    try:
        store.write_suite(suite_json(study, plan, where, info))
        for part in store.set_aside_damaged():
            console.print(f"warning: {part} is damaged (cut short or changed since it was written); set aside as "
                          f"{part.name}.damaged, its runs run again", markup=False, highlight=False, emoji=False,
                          soft_wrap=True)
        done = store.done()
        pending = [s for s in plan.runs if s.run_id not in done]
        if plan.first is not None:
            pending.sort(key=plan.first)
        if pending and study.spark:
            _on_spark(plan, store, pending, master, jobs, console, spark)
        elif pending:
            _here(plan, store, pending, console)
    except BaseException:
        if created and not store.has_parts():
            shutil.rmtree(store.out, ignore_errors=True)
        raise
    results = select(store.read_results(study.finish), {s.run_id for s in plan.runs})
    store.write_results(results, study.sort)
    if study.tables is not None:
        study.tables(store, results)
    if not study.spark:
        info["load_after"] = load_average()
    info["wall_seconds"] = round(time.perf_counter() - invoked, 1)
    info["finished"] = now()
    store.write_suite(suite_json(study, plan, where, info))
    return Outcome(results, runs_in(results) == len(plan.runs), len(pending))


def suite_json(study: Study, plan: Plan, where: str, info: dict) -> dict:
    """The suite as run, with its provenance ``info`` (``shed report`` rebuilds the page from it
    and the parts) and the seeds each experiment runs per point (an experiment may run its own)."""
    suite = plan.suite
    seeds: dict[str, set] = {}
    for run in plan.runs:
        if hasattr(run, "experiment") and hasattr(run, "seed"):
            seeds.setdefault(run.experiment, set()).add(run.seed)
    return {"kind": study.kind, "name": suite.name, "description": suite.description, "shipped": suite.shipped,
            "seeds": plan.seeds,
            "seeds_by_experiment": {e: len(s) for e, s in seeds.items()},
            "total_runs": len(plan.runs), "master": where, "provenance": info,
            "run_ids": [s.run_id for s in plan.runs], "experiments": [asdict(e) for e in suite.experiments]}


def _here(plan: Plan, store: ResultsStore, pending: list, console: Console) -> None:
    """The pending runs one after another in this process, one part per batch (:attr:`Plan.batch`),
    a batch at once where the plan times its runs together (:attr:`Plan.run_batch`)."""
    shared = plan.share(None, pending)
    finished = len(plan.runs) - len(pending)
    started, ran = time.perf_counter(), 0
    try:
        for _, batch in itertools.groupby(pending, key=plan.batch):
            specs = list(batch)
            if plan.run_batch is not None:
                store.write_part(plan.run_batch([asdict(spec) for spec in specs], shared))
            else:
                store.write_part([row for spec in specs for row in plan.task(asdict(spec), shared)])
            finished += len(specs)
            ran += len(specs)
            left = (time.perf_counter() - started) / ran * (len(pending) - ran)
            console.print(f"{plan.suite.name}: {finished}/{len(plan.runs)} runs done ({plan.label(specs[0])}), "
                          f"{time.perf_counter() - started:.0f} s so far, about {left:.0f} s left at this pace",
                          highlight=False, markup=False, soft_wrap=True)  # one line a log can grep
    except KeyboardInterrupt:
        raise interrupted(store) from None


def interrupted(store: ResultsStore) -> ShedError:
    """The one line of a suite stopped by Ctrl-C: how many runs are kept for ``--resume``, or that
    none finished (the command then keeps no folder)."""
    kept = runs_in(store.read_parts())
    if not kept:
        return ShedError("interrupted before any run finished; nothing was kept, run the suite again to start it")
    return ShedError(f"interrupted; {kept} runs kept, continue them with {{param}}", param="resume")


def _on_spark(plan: Plan, store: ResultsStore, pending: list, master: str, jobs: int | None, console: Console,
              spark) -> None:
    """The pending runs as Spark tasks, wave by wave, each wave one part."""
    with nullcontext(spark) if spark is not None else spark_session(master) as session:
        sc = session.sparkContext
        shared = sc.broadcast(plan.share(session, pending))
        width = jobs or max(2, sc.defaultParallelism)
        # one Spark job per wave, its runs spread over ``width`` tasks: a Python task costs
        # about a quarter of a second to schedule, more than a small run
        wave = max(width * 8, 16)
        total = len(plan.runs)
        columns = [TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn()]
        with Progress(*columns, console=console, transient=False, disable=not console.is_terminal) as bar:
            progress = bar.add_task(f"{escape(plan.suite.name)}: runs", total=total, completed=total - len(pending))
            started = time.perf_counter()
            for start in range(0, len(pending), wave):
                chunk = [asdict(s) for s in pending[start:start + wave]]
                rows = _collect_interruptibly(sc, plan, chunk, min(len(chunk), width), shared, store)
                store.write_part(rows)
                bar.advance(progress, len(chunk))
                if not console.is_terminal:
                    done_now = start + len(chunk)
                    left = (time.perf_counter() - started) / done_now * (len(pending) - done_now)
                    console.print(f"{plan.suite.name}: {total - len(pending) + done_now}/{total} runs done, "
                                  f"about {left:.0f} s left", highlight=False, markup=False, soft_wrap=True)


def _collect_interruptibly(sc, plan: Plan, chunk: list[dict], slices: int, shared, store: ResultsStore) -> list[dict]:
    """:func:`_collect` in a helper thread, so that Ctrl-C reaches this thread outside py4j (a
    KeyboardInterrupt inside a py4j call prints pages of tracebacks): it cancels the Spark job and
    ends with one line saying how many runs are kept."""
    with ThreadPoolExecutor(1) as pool:
        wave = pool.submit(_collect, sc, plan, chunk, slices, shared)
        try:
            return wave.result()
        except KeyboardInterrupt:
            sc.cancelAllJobs()
            wait([wave])  # its job fails as cancelled; the waves already written are the result
            raise interrupted(store) from None


def _collect(sc, plan: Plan, chunk: list[dict], slices: int, shared) -> list[dict]:
    """Run one wave; a failed run becomes a one-line error (finished waves stay on disk)."""
    task = plan.task
    try:
        return sc.parallelize(chunk, slices).flatMap(lambda spec: task(spec, shared.value)).collect()
    except Exception as exc:  # Py4JJavaError carries the Python worker's traceback as text
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        cause = next((line for line in reversed(lines) if "Error:" in line and "at " not in line[:3]),
                     lines[-1] if lines else "")
        raise ShedError(f"a run failed on Spark: {cause[:300]}; finished runs are kept, "
                        "fix it and continue them with {param}", param="resume") from None
