"""The micro-batches a query really ran: which files each one took, read from its checkpoint.

A bounded run with ``max_files_per_trigger`` k takes files b k to (b + 1) k - 1 of each stream
(in name order) into micro-batch b. The offset log tells exactly: line i of ``offsets/B`` (after
the version and the batch metadata) is source i's offset after batch B, and a folder's offset
(:mod:`~shedding.streaming.folder_source`) names the folder and the last file taken, so batch B
took the files named after batch B - 1's last file up to its own. Spark keeps the offset log of
the last 100 batches only (``minBatchesToRetain``): for a longer run the early batches are no
longer recorded and :func:`recorded_files` returns None.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlparse

from shedding.errors import ShedError
from shedding.streaming.folder_source import batch_names, file_names, folder_of, initial_offset, offset_of

#: the version line of the offset log this reader knows
LOG_VERSION = "v1"


def local_path(uri: str) -> str:
    """A file URI or path (as Spark's logs and ``input_file_name`` write it) as an absolute local path."""
    return str(Path(unquote(urlparse(uri).path)).resolve())


def _lines(path: Path) -> list[str]:
    lines = path.read_text().splitlines()
    if not lines or lines[0] != LOG_VERSION:
        raise ShedError(f"the checkpoint's log {path} is not in Spark's format {LOG_VERSION}; "
                        "read it with the Spark version that wrote it")
    return lines[1:]


def _numbered(folder: Path) -> dict[int, Path]:
    """The log files of ``folder`` by number."""
    out = {}
    for path in folder.iterdir() if folder.is_dir() else ():
        if path.name.isdigit():
            out[int(path.name)] = path
    return out


def folder_offsets(path: Path) -> list[dict]:
    """The folder sources' offsets in one offset log file (other sources' lines are left out)."""
    return [o for o in map(offset_of, _lines(path)[1:]) if o is not None]


def recorded_files(spark_checkpoint: Path) -> dict[str, int] | None:
    """Each file the query's folder sources took, by local path, with the micro-batch that took it;
    None when the offset log no longer starts at batch 0 (or holds no batch)."""
    offsets = _numbered(spark_checkpoint / "offsets")
    if 0 not in offsets:
        return None
    batch_of: dict[str, int] = {}
    before: dict[str, dict] = {}  # per folder: its offset after the batch before
    for batch in sorted(offsets):
        for end in folder_offsets(offsets[batch]):
            start = before.get(end["path"], initial_offset(end["path"], end["fmt"]))
            for name in batch_names(file_names(end["path"], end["fmt"]), start, end):
                batch_of.setdefault(local_path(str(Path(folder_of(end["path"])) / name)), batch)
            before[end["path"]] = end
    return batch_of


def skipped_files(spark_checkpoint: Path) -> int:
    """How many files the folder sources skipped so far: they arrived named before a file already
    read (:mod:`~shedding.streaming.folder_source`); 0 before the first batch."""
    offsets = _numbered(spark_checkpoint / "offsets")
    return sum(o["skipped"] for o in folder_offsets(offsets[max(offsets)])) if offsets else 0
