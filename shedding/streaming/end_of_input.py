"""The end of a bounded input: when the driver drops the end-of-input marker, and how it waits for
the micro-batch that joins it.

With the ``available-now`` and ``once`` triggers the input is bounded. The query runs micro-batches
back to back; the driver drops a marker file into ``CHECKPOINT/end-of-input`` (a third, tiny file
source) so that it arrives with the last data files (see :func:`marker_after`), or, when that
cannot be told ahead, once the query has drained the sources. The micro-batch that takes the
marker joins every held step, and the driver stops the query after that batch is committed. So a
bounded input gives exactly the batch result, in one query.
"""

from __future__ import annotations

import json
import re
import threading
import time
from pathlib import Path
from typing import Callable, cast

from shedding.atomic import write_json, write_text
from shedding.errors import ShedError
from shedding.streaming.results import observed
from shedding.streaming.sources import StreamSource, source_files

#: the marker's directory and the batch plan, in the checkpoint
END_DIR, BATCH_PLAN = "end-of-input", "batches.json"
#: seconds between two looks at a running query: the end of a bounded run is noticed this late at most
POLL_SECONDS = 0.05
#: seconds a stop waits for the running micro-batch to commit before it interrupts it (a batch cut
#: short is not committed: a rerun replays it)
STOP_SECONDS = 60.0
#: with a batch plan (:func:`marker_after`), seconds the sources must look drained before the marker
#: goes in without the plan's batch: a look between two micro-batches can see no data available and
#: no trigger active for a moment, and a marker dropped then ended a bounded run of 40 micro-batches
#: after 17, with 39% of its pairs (the plan's batch never comes only when files were removed)
DRAINED_SECONDS = 5.0
#: per marker folder, since when the looks have seen the sources drained without the plan's batch
_drained_since: dict[Path, float] = {}


class EndOfInput:
    """The end of a bounded input for a library user, handled as ``shed stream-join`` does: pass
    it as ``semantic_window_join(..., end_of_input=EndOfInput(folder))``, start the query, then
    call :meth:`finish`.

    Args:
        folder: The folder that takes the marker: empty, one per query, beside its checkpoint;
            a path or a ``file:///`` URI every executor sees
            (:func:`~shedding.streaming.paths.library_path`).
    """

    def __init__(self, folder: str | Path) -> None:
        self.given = folder
        self.folder = Path(folder)

    def frame(self, spark, place: str):
        """The marker's stream (a text file source on ``folder``, a path or ``file:`` URI the
        executors of ``place``, a master, share: :func:`~shedding.streaming.paths.library_path`)."""
        from shedding.streaming.paths import library_path

        self.folder = library_path(self.given, place, "end_of_input")
        self.folder.mkdir(parents=True, exist_ok=True)
        return spark.readStream.format("text").load(str(self.folder))

    def finish(self, query, progress: Callable[[dict], None] | None = None) -> list[dict]:
        """Drop the marker once the query has drained its sources, wait for the micro-batch that
        joins it, stop the query.

        Args:
            query (pyspark.sql.streaming.StreamingQuery): The started query.
            progress: Called with each new progress report while waiting; None for none.

        Returns:
            The query's recent progress reports.

        Raises:
            ShedError: The query failed (its error in one line), or the wait was interrupted
                (the committed micro-batches are kept).
        """
        return await_query(query, progress, self.folder)


#: the most characters of Spark's own message a failed query's error keeps
CAUSE_CHARS = 600


#: the line a Python traceback ends in (the first after its indented frames): the exception's
#: type and message, without the SQL states Spark appends
RAISED = re.compile(r"((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*): (.+?)(?: SQLSTATE: .*)?")


def query_error(exc: Exception) -> ShedError:
    """A failed query as one line: our own ShedError from the handler if there is one, else the
    first line of Spark's message without its query ids, cut at a word (the cause, such as the
    column and types of a file that does not match the schema, comes after the file's path);
    when that line only opens a Python worker's traceback, the exception the traceback ends in."""
    text = str(exc)
    m = re.search(r"ShedError: ([^\n]+)", text)
    if m:
        return ShedError(m.group(1).strip())
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    first = lines[0] if lines else type(exc).__name__
    if first.endswith("Traceback (most recent call last):"):
        after = text.split("Traceback (most recent call last):", 1)[1].splitlines()[1:]
        end = next((line for line in after if line.strip() and not line[0].isspace()), "")
        raised = RAISED.fullmatch(end.strip())
        if raised:
            first = f"a Python worker raised {raised.group(1)}: {raised.group(2)}"
    first = re.sub(r"^\[STREAM_FAILED\] Query \[[^\]]*\] terminated with exception: ", "", first)
    if len(first) > CAUSE_CHARS:
        first = first[:CAUSE_CHARS].rsplit(" ", 1)[0] + " ..."
    return ShedError(f"the streaming query failed: {first}; the checkpoint is kept, fix the cause and rerun")


def await_query(query, progress: Callable[[dict], None] | None, end_dir: Path | None = None,
                ahead: Path | None = None, stop: threading.Event | None = None) -> list[dict]:
    """Wait for the query's end (for a bounded input, :func:`drain` ends it, dropping the
    end-of-input marker once ``ahead`` exists, see :func:`marker_after`); returns its recent
    progress reports. The waiting runs in a helper thread, so that Ctrl-C reaches this thread
    outside py4j (an interrupt inside a py4j call prints pages of tracebacks). Once ``stop`` is
    set (or on Ctrl-C without one), the query is stopped between micro-batches: the committed ones
    stay and a rerun continues after them. Without ``stop`` Ctrl-C ends with a one-line error."""
    box: dict = {}
    stop = stop or threading.Event()
    stopping_since: list[float] = []

    def watch() -> None:
        try:
            seen = None  # the last progress report looked at
            while not query.awaitTermination(POLL_SECONDS):
                last = query.lastProgress  # one py4j call per look, not a scan of every report
                if last is not None and seen is not None and same_report(last, seen):
                    last = None  # nothing new
                if last is not None and progress is not None:
                    progress(last)
                if end_dir is not None and drain(query, end_dir, last, seen, ahead):
                    query.stop()
                    break
                if stop.is_set():
                    stopping_since[:] = stopping_since or [time.monotonic()]
                    if not query.status["isTriggerActive"] or time.monotonic() - stopping_since[0] > STOP_SECONDS:
                        query.stop()
                        break
                seen = last or seen
            box["progress"] = list(query.recentProgress)
        except BaseException as exc:  # handed to the waiting thread
            box["error"] = exc

    watcher = threading.Thread(target=watch, name="shed-stream-join", daemon=True)
    watcher.start()
    interrupted = False
    while watcher.is_alive():
        try:
            watcher.join(0.5)
        except KeyboardInterrupt:
            interrupted = True
            stop.set()
    if "error" in box:
        from pyspark.errors import StreamingQueryException

        if isinstance(box["error"], StreamingQueryException):
            raise query_error(box["error"]) from None
        raise box["error"]
    if interrupted:
        raise ShedError("interrupted; the committed micro-batches are kept, run the same command to continue")
    return box["progress"]


def same_report(a, b) -> bool:
    """Whether two progress reports are the same one."""
    return (a["batchId"], a["timestamp"]) == (b["batchId"], b["timestamp"])


def drain(query, end_dir: Path, last: dict | None, seen: dict | None, ahead: Path | None = None) -> bool:
    """One look at a bounded query: once ``ahead`` exists (:func:`marker_after`), or the sources
    are drained (the last check found no new data and no micro-batch runs; with ``ahead``, for
    :data:`DRAINED_SECONDS` of looks in a row), drop the end-of-input marker; returns True once a committed micro-batch has joined it (its progress reports
    ``ended``). ``last`` is the newest progress report if it is new since the look before, which
    saw ``seen``; the older reports are read only when more than one batch ran in between."""
    if last is not None:
        skipped = seen is None or last["batchId"] > seen["batchId"] + 1
        reports = query.recentProgress if skipped else [last]
        if any(observed(p).get("ended", 0) > 0 for p in reports):
            return True
    status = query.status
    drained = (last or seen) is not None and not status["isDataAvailable"] and not status["isTriggerActive"]
    if ahead is not None:
        if ahead.exists():
            drop_marker(end_dir)
            return False
        if not drained:
            _drained_since.pop(end_dir, None)
            return False
        if time.monotonic() - _drained_since.setdefault(end_dir, time.monotonic()) < DRAINED_SECONDS:
            return False
    if drained:
        drop_marker(end_dir)
    return False


def drop_marker(end_dir: Path) -> None:
    """Write the end-of-input marker, whole or not at all when the file source lists it (the
    temporary file's name starts with a dot, which Spark's file source never lists)."""
    marker = end_dir / "end.txt"
    if not marker.exists():
        write_text(marker, "end of input\n")


def file_counts(sources: tuple[StreamSource, StreamSource]) -> list[int]:
    """How many files the R and the S source directory hold now."""
    return [len(source_files(src.path, src.fmt)) for src in sources]


def one_batch(checkpoint: Path, max_files: int | None, files: list[int]) -> bool:
    """Whether a fresh query's first micro-batch takes every file present (``files``, see
    :func:`file_counts`): then the end-of-input marker goes in with it and the bounded run is one
    micro-batch, not two. (A file written after this look and not taken by that batch arrives after
    the end: counted as late, like any file written after the end of a bounded run.)"""
    if any((checkpoint / "spark" / "commits").glob("[0-9]*")):
        return False
    return max_files is None or max_files >= max(files)


def marker_after(checkpoint: Path, max_files: int | None, files: list[int]) -> Path | None:
    """The offset-log entry after which the end-of-input marker joins the last data files, or None.

    With ``max_files`` k, the folder sources take the next k files of each stream (in name order,
    :mod:`~shedding.streaming.folder_source`) into every micro-batch, and this query runs no
    micro-batch without data (it has no watermark and no timers). So D = ceil(max(F_R, F_S) / k)
    micro-batches take the F_R and F_S files present at the first start, batch b the files b k to
    (b + 1) k - 1.
    Once Spark has written the offsets of batch D - 2, every file left goes into batch D - 1: a
    marker dropped then arrives with them, and the end costs no micro-batch of its own (when Spark
    has already planned batch D - 1, the marker arrives one batch later, as without this).

    The first start records k and the file counts (``files``, see :func:`file_counts`) in
    ``CHECKPOINT/batches.json``; a restart with another k or other files gets None (the marker then
    waits for the drained sources). Files written after the start arrive after the end and are
    late, as in :func:`one_batch`."""
    plan = {"max_files_per_trigger": max_files, "files": files}
    kept = checkpoint / BATCH_PLAN
    if not any((checkpoint / "spark" / "offsets").glob("[0-9]*")):  # a first start
        write_json(kept, plan)
    try:
        first = json.loads(kept.read_text())
    except (OSError, ValueError):  # no plan (a checkpoint from before it) or an unreadable one
        return None
    if max_files is None or first != plan:
        return None
    batches = -(-max(cast(list[int], plan["files"])) // max_files)
    return checkpoint / "spark" / "offsets" / str(batches - 2) if batches >= 2 else None
