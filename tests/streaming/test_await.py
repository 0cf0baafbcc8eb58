"""How the driver notices the end of a bounded stream join (shedding.streaming.end_of_input),
with a stand-in for a StreamingQuery: no Spark."""

from __future__ import annotations

from pathlib import Path

import pytest

from shedding.streaming import end_of_input as eoi
from shedding.streaming.sources import inspect_source


class _Row(dict):
    def asDict(self) -> dict:
        return dict(self)


def _report(batch: int, ended: int = 0) -> dict:
    return {"batchId": batch, "timestamp": f"t{batch}", "sources": [],
            "observedMetrics": {"shedding": _Row(ended=ended, outputs=batch)}}


class FakeQuery:
    """Runs ``batches`` (one per look, or several between two looks) and stops when asked; the
    batches after the first ``drained_after`` run only once the end-of-input marker is in ``end_dir``."""

    def __init__(self, batches: list[dict], per_look: int = 1, drained_after: int | None = None,
                 end_dir: Path | None = None) -> None:
        self.batches, self.per_look, self.done, self.end_dir = batches, per_look, 0, end_dir
        self.drained_after = len(batches) if drained_after is None else drained_after
        self.stopped = False
        self.looks = 0
        self.recent_reads = 0

    def awaitTermination(self, timeout: float) -> bool:
        self.looks += 1
        ended = self.end_dir is None or (self.end_dir / "end.txt").exists()
        self.done = min(len(self.batches) if ended else self.drained_after, self.done + self.per_look)
        assert self.looks < 100, "the watcher never stopped the query"
        return self.stopped

    @property
    def lastProgress(self) -> dict | None:
        return self.batches[self.done - 1] if self.done else None

    @property
    def recentProgress(self) -> list[dict]:
        self.recent_reads += 1
        return self.batches[:self.done]

    @property
    def status(self) -> dict:
        drained = self.done >= self.drained_after
        return {"isDataAvailable": not drained, "isTriggerActive": False}

    def stop(self) -> None:
        self.stopped = True


@pytest.mark.parametrize("per_look", [1, 3])
def test_the_query_stops_once_a_batch_reports_the_end(tmp_path: Path, per_look: int) -> None:
    batches = [_report(i) for i in range(5)] + [_report(5, ended=1), _report(6)]
    query = FakeQuery(batches, per_look, drained_after=5, end_dir=tmp_path)
    seen: list[int] = []
    progress = eoi.await_query(query, lambda p: seen.append(p["batchId"]), tmp_path)
    assert query.stopped
    assert (tmp_path / "end.txt").exists()  # the marker went in once the sources were drained
    assert 5 in [p["batchId"] for p in progress]
    assert seen == sorted(set(seen))  # each report handed to the callback once, in order
    assert max(seen) >= 5 and max(seen) - 5 < per_look  # stopped at the first look after the end


def test_skipped_batches_are_read_from_the_recent_reports(tmp_path: Path) -> None:
    # the ended batch (2) is already followed by batch 3 at the look that first sees it
    batches = [_report(0), _report(1), _report(2, ended=1), _report(3)]
    query = FakeQuery(batches, per_look=2)
    eoi.await_query(query, None, tmp_path)
    assert query.stopped and query.looks == 2  # seen at the second look, in the reports before the newest


def test_an_unended_stream_is_not_stopped_by_a_look(tmp_path: Path) -> None:
    query = FakeQuery([_report(i) for i in range(3)], drained_after=99)
    assert not eoi.drain(query, tmp_path, _report(2), _report(1))
    assert not (tmp_path / "end.txt").exists()  # data still available: no marker yet
    assert query.recent_reads == 0  # one new report after the one seen: no scan of the others


def test_the_marker_goes_in_once_the_last_batch_but_one_is_planned(tmp_path: Path) -> None:
    ahead = tmp_path / "offsets" / "3"
    query = FakeQuery([_report(i) for i in range(3)], drained_after=99)
    assert not eoi.drain(query, tmp_path, _report(2), _report(1), ahead)
    assert not (tmp_path / "end.txt").exists()  # batch 3 not planned yet: files are still to come
    ahead.parent.mkdir()
    ahead.write_text("v1")
    assert not eoi.drain(query, tmp_path, None, _report(2), ahead)
    assert (tmp_path / "end.txt").exists()  # planned: the marker joins the files of batch 4, the last


def test_with_a_plan_a_moment_of_drained_sources_is_not_the_end(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Between two micro-batches a look can see no data and no trigger: with a batch plan the marker
    waits for the plan's batch (a marker dropped then ended a run of 40 batches after 17), unless
    the sources stay drained for DRAINED_SECONDS (the plan's batch never comes)."""
    ahead = tmp_path / "offsets" / "38"
    query = FakeQuery([_report(i) for i in range(3)], drained_after=0)
    for _ in range(3):
        assert not eoi.drain(query, tmp_path, None, _report(2), ahead)
    assert not (tmp_path / "end.txt").exists()
    monkeypatch.setattr(eoi, "DRAINED_SECONDS", 0.0)
    assert not eoi.drain(query, tmp_path, None, _report(2), ahead)
    assert (tmp_path / "end.txt").exists()  # drained all along: the marker goes in without the plan


def _ahead(tmp_path: Path, files: int, max_files: int | None) -> Path | None:
    for name in ("r", "s"):
        (tmp_path / name).mkdir(exist_ok=True)
        for i in range(files):
            (tmp_path / name / f"part-{i}.csv").write_text(f"time,key\n{i},1\n")
    sources = tuple(inspect_source(tmp_path / name, "csv", name) for name in ("r", "s"))
    return eoi.marker_after(tmp_path / "ck", max_files, eoi.file_counts(sources))


def test_the_last_batch_but_one_is_known_from_the_first_start(tmp_path: Path) -> None:
    (tmp_path / "ck").mkdir()
    offsets = tmp_path / "ck" / "spark" / "offsets"
    assert _ahead(tmp_path, 7, 2) == offsets / "2"  # batches 0-3 take 2, 2, 2, 1 files
    assert _ahead(tmp_path, 7, 7) is None  # one batch: the marker goes in with it
    assert _ahead(tmp_path, 7, None) is None
    assert _ahead(tmp_path, 7, 3) == offsets / "1"
    offsets.mkdir(parents=True)
    (offsets / "0").write_text("v1")  # a restart: the batches follow the first start's plan
    assert _ahead(tmp_path, 7, 3) == offsets / "1"
    assert _ahead(tmp_path, 7, 2) is None  # another k than at the first start
    assert _ahead(tmp_path, 9, 3) is None  # files added since the first start


def test_an_unreadable_plan_waits_for_the_drained_sources(tmp_path: Path) -> None:
    (tmp_path / "ck").mkdir()
    offsets = tmp_path / "ck" / "spark" / "offsets"
    assert _ahead(tmp_path, 7, 3) == offsets / "1"
    offsets.mkdir(parents=True)
    (offsets / "0").write_text("v1")  # a restart, and the first start's plan is damaged
    (tmp_path / "ck" / eoi.BATCH_PLAN).write_text("{not json")
    assert _ahead(tmp_path, 7, 3) is None
    (tmp_path / "ck" / eoi.BATCH_PLAN).unlink()  # or missing (a checkpoint from before the plan)
    assert _ahead(tmp_path, 7, 3) is None


def test_the_totals_read_the_same_from_a_spark_connect_report() -> None:
    from shedding.streaming.results import observed

    fields = [{"name": n, "type": "long"} for n in ("arrivals", "ended")]
    connect = {"observedMetrics": {"shedding": _Row(values=[800, 1], schema={"type": "struct", "fields": fields})}}
    assert observed(connect) == observed({"observedMetrics": {"shedding": _Row(arrivals=800, ended=1)}}) == \
        {"arrivals": 800, "ended": 1}


def test_a_failed_query_keeps_the_cause_of_sparks_message() -> None:
    """The column and types of a file that does not match the schema come after its path: the
    line keeps them, without the query's ids, and cuts a longer message at a word."""
    path = "file:///data/" + "deep/" * 40 + "part-0.parquet"
    cause = (f"[FAILED_READ_FILE.PARQUET_COLUMN_DATA_TYPE_MISMATCH] Encountered error while reading file {path}. "
             "Data type mismatches when reading Parquet column [time]. Expected Spark type timestamp, actual "
             "Parquet type INT64. SQLSTATE: KD001")
    error = eoi.query_error(RuntimeError(f"[STREAM_FAILED] Query [id = 1, runId = 2] terminated with exception: "
                                         f"{cause}\n\tat org.apache.spark..."))
    assert str(error) == f"the streaming query failed: {cause}; the checkpoint is kept, fix the cause and rerun"
    long = str(eoi.query_error(RuntimeError("word " * 200)))
    assert "word ...;" in long and len(long) < eoi.CAUSE_CHARS + 100


def test_a_python_worker_s_traceback_gives_the_exception_it_ends_in() -> None:
    text = ("[STREAM_FAILED] Query [id = 1, runId = 2] terminated with exception: [PYTHON_EXCEPTION] An exception "
            "was thrown from the Python worker: Traceback (most recent call last):\n"
            '  File "/x/folder_source.py", line 127, in read_csv\n    out[name] = values.chunks\n'
            "pyarrow.lib.ArrowInvalid: CSV parse error: Expected 2 columns, got 3 SQLSTATE: 38000 SQLSTATE: XXKST\n"
            "=== Streaming Query ===\n\tat org.apache.spark...")
    assert str(eoi.query_error(RuntimeError(text))) == (
        "the streaming query failed: a Python worker raised pyarrow.lib.ArrowInvalid: CSV parse error: Expected 2 "
        "columns, got 3; the checkpoint is kept, fix the cause and rerun")


def test_the_summary_s_ended_is_one_flag_over_the_shards(tmp_path: Path) -> None:
    """Every shard ends in the same micro-batch: the summary (and --json) says 1, not P."""
    import pandas as pd

    from shedding.streaming.results import summarize

    for shard in range(2):
        (tmp_path / "metrics" / "batch=3").mkdir(parents=True, exist_ok=True)
        pd.DataFrame({"shard": [shard], "arrivals": [5], "outputs": [2], "ended": [1], "memory_r": [1], "memory_s": [0],
                      "held": [0], "state_bytes": [9]}).to_parquet(tmp_path / "metrics" / "batch=3" / f"shard-{shard}.parquet")
    summary = summarize(tmp_path)
    assert (summary["ended"], summary["arrivals"], summary["outputs"]) == (1, 10, 4)
