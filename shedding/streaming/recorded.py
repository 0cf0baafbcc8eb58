"""The micro-batches a query really ran: which files each one took, read from its checkpoint.

A bounded run with ``max_files_per_trigger`` k usually takes files b k to (b + 1) k - 1 of each
stream into micro-batch b, but a restart may cut the batches otherwise. Spark's file source writes
the files it chose for the next batch into its own log (``sources/i/N``) *before* the query writes
that batch's offsets (``offsets/B``); a kill between the two leaves files logged by the source
for a batch the query never recorded, and the restart puts them into its next batch together with
k new ones. Every tuple is still read once; only the batch boundaries move. Results that depend
on them (the shared budget re-divides M once per micro-batch, :mod:`~shedding.streaming.budget`)
are those of the batches recorded here, which a replayed batch repeats exactly.

The offset log's line i (after the version and the batch metadata) is source i's offset, the
source whose own log is ``sources/i``; a file source's offset is ``{"logOffset": n}`` and its log
lists each file with the ``batchId`` n that took it (compacted into ``N.compact`` files every ten
entries). Spark keeps the offset log of the last 100 batches only (``minBatchesToRetain``): for a
longer run the early batches are no longer recorded and :func:`recorded_files` returns None.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import unquote, urlparse

from shedding.errors import ShedError

#: the version line of the offset and file-source logs this reader knows
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
    """The log files of ``folder`` by number (``N`` and ``N.compact``)."""
    out = {}
    for path in folder.iterdir() if folder.is_dir() else ():
        stem = path.name.removesuffix(".compact")
        if stem.isdigit():
            out[int(stem)] = path
    return out


def source_log(folder: Path) -> dict[int, list[str]]:
    """A file source's log: per log offset, the local paths of the files it took."""
    taken: dict[int, set[str]] = {}
    for path in _numbered(folder).values():
        for line in _lines(path):
            if line.strip():
                entry = json.loads(line)
                taken.setdefault(int(entry["batchId"]), set()).add(local_path(entry["path"]))
    return {n: sorted(files) for n, files in taken.items()}


def recorded_files(spark_checkpoint: Path) -> dict[str, int] | None:
    """Each file the query's file sources took, by local path, with the micro-batch that took it;
    None when the offset log no longer starts at batch 0 (or holds no batch)."""
    offsets = _numbered(spark_checkpoint / "offsets")
    if 0 not in offsets:
        return None
    logs: dict[int, dict[int, list[str]]] = {}
    done: dict[int, int] = {}  # per source: the last log offset taken by an earlier batch
    batch_of: dict[str, int] = {}
    for batch in sorted(offsets):
        for i, line in enumerate(_lines(offsets[batch])[1:]):
            if "logOffset" not in line:
                continue  # a source without an offset yet ("-"), or not a file source
            end = int(json.loads(line)["logOffset"])
            if i not in logs:  # each source's log is read once
                logs[i] = source_log(spark_checkpoint / "sources" / str(i))
            log = logs[i]
            for n in range(done.get(i, -1) + 1, end + 1):
                for path in log.get(n, ()):
                    batch_of.setdefault(path, batch)
            done[i] = max(done.get(i, -1), end)
    return batch_of
