"""What ``shed stream-join`` shows while and after it runs: the spinner or a progress line per
micro-batch, the stop on SIGINT or SIGTERM, and the summary."""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from rich.table import Table

from shedding.cli.output import err, out
from shedding.streaming.words import counted, skipped_sentence


def run_job(job: Any, bounded: bool, report: bool, as_json: bool, ui: bool) -> dict:
    """Run the job with a spinner (bounded input, on a terminal) or a progress line per micro-batch
    (unbounded input); SIGINT and SIGTERM stop it after a committed micro-batch."""
    import signal
    import threading

    from shedding.streaming.job import run
    from shedding.streaming.results import observed, progress_line

    status = err.status("starting Spark...", spinner="dots") if err.is_terminal and bounded else None

    def progress(p: dict) -> None:
        if status is not None:
            rows = sum(src["numInputRows"] for src in p["sources"])
            status.update(f"batch {p['batchId']}: {counted(rows, 'row')} in, "
                          f"{counted(observed(p).get('outputs', 0), 'pair')} out")
        elif not bounded and not as_json and observed(p):  # a batch ran (not an idle trigger's report)
            err.print(progress_line(p), highlight=False, soft_wrap=True)

    def write_report(spark: Any, summary: dict, table: Any) -> dict:
        from shedding.streaming.report import stream_report

        return {"report": str(stream_report(spark, job, summary, None if table == "online" else table))}

    stop = threading.Event()
    stopped_by: list[str] = []

    def on_signal(number: int, _frame: Any) -> None:
        stopped_by.append(signal.Signals(number).name)
        stop.set()

    def handle_signals() -> None:  # again once Spark is up: PySpark's context installs a SIGINT handler of its own
        for sig in (signal.SIGINT, signal.SIGTERM):
            previous.setdefault(sig, signal.getsignal(sig))
            signal.signal(sig, on_signal)

    def started(spark: Any) -> None:
        handle_signals()
        if ui and getattr(spark, "sparkContext", None) is not None:
            err.print(f"Spark UI: {spark.sparkContext.uiWebUrl}", highlight=False, soft_wrap=True)

    previous: dict = {}
    handle_signals()
    if status is not None:
        status.start()
    try:
        summary = run(job, progress, write_report if report else None, stop, started)
    finally:
        if status is not None:
            status.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if stopped_by:
        batches = summary.get("batches", 0)
        where = f"after micro-batch {batches - 1}" if batches else "before the first micro-batch"
        err.print(f"stopped by {stopped_by[0]} {where}; the committed micro-batches are kept, run the same command "
                  "to continue", highlight=False, soft_wrap=True)
    return summary


def title(spec: Any) -> str:
    """The summary's title: the policy, w, M (none has no memory bound: it holds what the window
    needs) and the shards."""
    bound = "no memory bound (the exact join)" if spec.shedding == "none" else f"M = {spec.memory}"
    extent = f"w = {spec.window}" if spec.range is None else f"range {spec.range[0]}..{spec.range[1]} steps"
    how = "" if spec.how == "inner" else f", {spec.how} outer"
    return f"{escape(spec.shedding.upper())}: {extent}, {bound}, {counted(spec.shards, 'shard')}{how}"


def summary_rows(summary: dict, outer: bool) -> list[tuple[str, str]]:
    """The summary's rows (label, value); an outer join's rows for tuples without a pair, and how
    many of them are marked shed, only for an outer join."""
    g = summary.get
    unpaired = [("unpaired rows out", f"{g('unpaired', 0):,}"),
                ("  of them shed (a partner may be lost)", f"{g('unpaired_shed', 0):,}")] if outer else []
    return [("micro-batches", f"{g('batches', 0):,}"), ("tuples in", f"{g('arrivals', 0):,}"),
            ("pairs out", f"{g('outputs', 0):,}"), *unpaired, ("tuples shed", f"{g('shed', 0):,}"),
            ("late tuples (dropped)", f"{g('late', 0):,}"), ("bad rows (skipped)", f"{g('bad', 0):,}"),
            ("join memory between batches, most", counted(g("peak_memory", 0), "tuple")),
            ("peak held back", counted(g("peak_held", 0), "tuple")), ("peak state", counted(g("peak_state_bytes", 0), "byte"))]


def print_summary(summary: dict, title: str, outer: bool = False) -> None:
    """Print the summary table (:func:`summary_rows`), the skipped files and where the output is."""
    g = summary.get
    table = Table(show_edge=False, show_header=False, title=title)
    table.add_column("", justify="left")
    table.add_column("", justify="right")
    for label, value in summary_rows(summary, outer):
        table.add_row(label, value)
    out.print(table)
    skipped = int(g("skipped_files", 0))
    if skipped:
        out.print(f"{skipped_sentence(skipped)}; name new files so that they sort after the ones before them "
                  "(--strict stops at the first)", highlight=False)
    out.print(f"pairs:   {escape(summary['pairs'])}", highlight=False)
    out.print(f"metrics: {escape(summary['metrics'])}  ({summary['seconds']:.1f} s)", highlight=False)
    if "report" in summary:
        out.print(f"report:  {escape(summary['report'])}", highlight=False)
