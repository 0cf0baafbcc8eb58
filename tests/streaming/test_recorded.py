"""Reading which files each micro-batch took from a checkpoint's offset log and file-source logs
(written here in Spark's format, as a query leaves them), including a restart that put two of a
source's log entries into one batch, compacted logs, and an offset log that no longer starts at 0."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shedding.errors import ShedError
from shedding.streaming.recorded import local_path, recorded_files

META = json.dumps({"batchWatermarkMs": 0, "batchTimestampMs": 1, "conf": {}})


def write_checkpoint(root: Path, offsets: dict[int, list[str]], logs: dict[int, dict[str, list[tuple[str, int]]]]
                     ) -> Path:
    """``offsets``: per batch, each source's line; ``logs``: per source, log file name -> (path, log offset)."""
    for batch, lines in offsets.items():
        (root / "offsets").mkdir(parents=True, exist_ok=True)
        (root / "offsets" / str(batch)).write_text("\n".join(["v1", META, *lines]))
    for source, files in logs.items():
        folder = root / "sources" / str(source)
        folder.mkdir(parents=True, exist_ok=True)
        for name, entries in files.items():
            (folder / name).write_text("\n".join(
                ["v1", *(json.dumps({"path": path, "timestamp": 1, "batchId": n}) for path, n in entries)]))
    return root


def offset(n: int) -> str:
    return json.dumps({"logOffset": n})


def test_each_file_goes_to_the_batch_whose_offsets_first_cover_its_log_entry(tmp_path):
    r = [f"file://{tmp_path}/r/part-{i}.csv" for i in range(4)]
    s = [f"file://{tmp_path}/s/part%20{i}.csv" for i in range(4)]  # as Spark writes a space
    root = write_checkpoint(
        tmp_path / "spark",
        # batch 1 was restarted after the sources had logged entry 1: it took entries 1 and 2
        {0: [offset(0), offset(0), "-"], 1: [offset(2), offset(2), "-"], 2: [offset(3), offset(3), offset(0)]},
        {0: {"0": [(r[0], 0)], "1": [(r[1], 1)], "2": [(r[2], 2)], "3": [(r[3], 3)]},
         1: {"2.compact": [(s[0], 0), (s[1], 1), (s[2], 2)], "3": [(s[3], 3)]},  # compacted, then one more
         2: {"0": [(f"file://{tmp_path}/end/end.txt", 0)]}})
    got = recorded_files(root)
    assert {Path(p).relative_to(tmp_path).as_posix(): b for p, b in got.items()} == {
        "r/part-0.csv": 0, "s/part 0.csv": 0, "r/part-1.csv": 1, "r/part-2.csv": 1, "s/part 1.csv": 1,
        "s/part 2.csv": 1, "r/part-3.csv": 2, "s/part 3.csv": 2, "end/end.txt": 2}
    assert local_path(s[1]) == str((tmp_path / "s" / "part 1.csv").resolve())


def test_an_offset_log_that_no_longer_starts_at_batch_0_records_nothing(tmp_path):
    root = write_checkpoint(tmp_path / "spark", {5: [offset(5)]}, {0: {"5": [("file:///x", 5)]}})
    assert recorded_files(root) is None
    assert recorded_files(tmp_path / "absent") is None


def test_a_log_in_another_format_is_one_clear_error(tmp_path):
    root = write_checkpoint(tmp_path / "spark", {0: [offset(0)]}, {0: {"0": [("file:///x", 0)]}})
    (root / "offsets" / "0").write_text("v2\n{}\n{}")
    with pytest.raises(ShedError, match="not in Spark's format v1"):
        recorded_files(root)
