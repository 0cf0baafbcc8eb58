"""Reading which files each micro-batch took from a checkpoint's offset log (written here in
Spark's format, with the folder sources' offsets as a query leaves them), the files skipped for
arriving named before one already read, and an offset log that no longer starts at 0."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shedding.errors import ShedError
from shedding.streaming.folder_source import initial_offset, next_offset
from shedding.streaming.recorded import local_path, recorded_files, skipped_files

META = json.dumps({"batchWatermarkMs": 0, "batchTimestampMs": 1, "conf": {}})


def write_offsets(root: Path, offsets: dict[int, list[str]]) -> Path:
    """``offsets``: per batch, each source's line."""
    (root / "offsets").mkdir(parents=True, exist_ok=True)
    for batch, lines in offsets.items():
        (root / "offsets" / str(batch)).write_text("\n".join(["v1", META, *lines]))
    return root


def folder(path: Path, names: list[str]) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    for name in names:
        (path / name).write_text("time,key\n")
    return path


def test_each_file_goes_to_the_batch_whose_offset_first_covers_its_name(tmp_path):
    r = folder(tmp_path / "r", [f"part-{i}.csv" for i in range(4)])
    s = folder(tmp_path / "s", [f"part {i}.csv" for i in range(4)])  # a space in the names
    end = json.dumps({"logOffset": 0})  # the end-of-input marker's text source: not a folder source
    o = {d: [initial_offset(str(d), "csv")] for d in (r, s)}
    for d, sizes in ((r, (1, 2, 1)), (s, (1, 2, 1))):
        names = sorted(p.name for p in d.iterdir())
        for k in sizes:
            o[d].append(next_offset(names, o[d][-1], k))
    root = write_offsets(tmp_path / "spark", {b: [json.dumps(o[r][b + 1]), json.dumps(o[s][b + 1]),
                                                  *([end] if b == 2 else ["-"])] for b in range(3)})
    got = recorded_files(root)
    assert {Path(p).relative_to(tmp_path).as_posix(): b for p, b in got.items()} == {
        "r/part-0.csv": 0, "s/part 0.csv": 0, "r/part-1.csv": 1, "r/part-2.csv": 1, "s/part 1.csv": 1,
        "s/part 2.csv": 1, "r/part-3.csv": 2, "s/part 3.csv": 2}
    assert local_path(f"file://{s}/part%201.csv") == str((s / "part 1.csv").resolve())
    assert skipped_files(root) == 0


def test_a_file_named_before_the_last_one_read_is_counted_as_skipped(tmp_path):
    r = folder(tmp_path / "r", ["b.csv", "c.csv"])
    first = next_offset(["b.csv", "c.csv"], initial_offset(str(r), "csv"), 1)
    assert first["last"] == "b.csv" and first["files"] == 1
    later = next_offset(["a.csv", "b.csv", "c.csv"], first, 1)  # a.csv arrived after b.csv was read
    assert later["last"] == "c.csv" and later["skipped"] == 1
    assert next_offset(["a.csv", "b.csv", "c.csv"], later, 1) == later  # nothing new: the same offset
    root = write_offsets(tmp_path / "spark", {0: [json.dumps(first)], 1: [json.dumps(later)]})
    assert skipped_files(root) == 1


def test_an_offset_log_that_no_longer_starts_at_batch_0_records_nothing(tmp_path):
    root = write_offsets(tmp_path / "spark", {5: [json.dumps(initial_offset(str(tmp_path), "csv"))]})
    assert recorded_files(root) is None
    assert recorded_files(tmp_path / "absent") is None
    assert skipped_files(tmp_path / "absent") == 0


def test_a_log_in_another_format_is_one_clear_error(tmp_path):
    root = write_offsets(tmp_path / "spark", {0: ["-"]})
    (root / "offsets" / "0").write_text("v2\n{}\n{}")
    with pytest.raises(ShedError, match="not in Spark's format v1"):
        recorded_files(root)
