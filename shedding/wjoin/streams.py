"""N input streams of a W-join, and the results' common form.

Each stream is a sequence of tuples ``<v, t>`` (Hammad et al. 2002, §2.1): an integer join key and
an integer timestamp, non-decreasing within the stream. Streams are asynchronous: each has its own
rate, equal timestamps are allowed within and across streams, and a stream may be empty.

A tuple is named by ``(stream, seq)``, its position in its stream; an N-tuple result is the row
``(seq_0, ..., seq_{N-1})`` of one tuple per stream.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from shedding.errors import ShedError
from shedding.model import as_int_array
from shedding.wjoin.windows import stream_names

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class Streams:
    """``times[i]`` and ``keys[i]`` are the timestamps and join keys of stream ``names[i]``."""

    times: tuple[np.ndarray, ...]
    keys: tuple[np.ndarray, ...]
    names: tuple[str, ...]

    @classmethod
    def of(cls, times: Sequence[Any], keys: Sequence[Any], names: Sequence[str] | None = None) -> "Streams":
        """Validate and build: one time array and one key array per stream."""
        if len(times) != len(keys):
            raise ShedError(f"got {len(times)} time arrays but {len(keys)} key arrays; give one of each per stream")
        if len(times) < 2:
            raise ShedError(f"a W-join needs at least 2 streams, got {len(times)}; give two or more streams")
        names = stream_names(len(times)) if names is None else tuple(str(n) for n in names)
        if len(names) != len(times):
            raise ShedError(f"got {len(names)} names for {len(times)} streams; name every stream once")
        if len(set(names)) != len(names):
            dup = next(n for n in names if names.count(n) > 1)
            raise ShedError(f"stream name {dup!r} is used twice; give every stream its own name")
        ts, ks = [], []
        for name, t, k in zip(names, times, keys):
            t, k = as_int_array(t, f"stream {name} times"), as_int_array(k, f"stream {name} keys")
            if len(t) != len(k):
                raise ShedError(f"stream {name} has {len(t)} times but {len(k)} keys; give one key per tuple")
            back = np.diff(t) < 0
            if back.any():
                i = int(np.argmax(back)) + 1
                raise ShedError(f"stream {name}: times go backwards at tuple {i} ({t[i - 1]} then {t[i]}); sort it by time")
            ts.append(t)
            ks.append(k)
        return cls(tuple(ts), tuple(ks), names)

    @property
    def n(self) -> int:
        return len(self.times)

    def lengths(self) -> list[int]:
        return [len(t) for t in self.times]

    def arrival_order(self) -> tuple[np.ndarray, np.ndarray]:
        """(stream, seq) of every tuple in (time, stream, seq) order: the order a merge of the
        streams by timestamp delivers them (the simulations' default feed)."""
        stream = np.concatenate([np.full(len(t), i, dtype=np.int64) for i, t in enumerate(self.times)])
        seq = np.concatenate([np.arange(len(t), dtype=np.int64) for t in self.times])
        order = np.argsort(np.concatenate(self.times), kind="stable")
        return stream[order], seq[order]


def check_compatible(streams: Streams, n_windows: int) -> None:
    """A window spec over ``n_windows`` streams must fit the streams."""
    if n_windows != streams.n:
        raise ShedError(f"the windows are over {n_windows} streams but there are {streams.n}; give windows for these streams")


def read_streams(paths: Sequence[str | os.PathLike]) -> Streams:
    """N stream files, named by their file stems.

    Args:
        paths: The files: CSV or Parquet with columns ``time`` and ``key`` (integers; times
            >= 0, non-decreasing).

    Returns:
        The :class:`Streams`, in the order of ``paths``.

    Raises:
        ShedError: Two files with the same stem, or a missing or malformed file.
    """
    from shedding.datasets.files import read_stream

    files = [Path(p) for p in paths]
    names = [p.name.split(".")[0] for p in files]
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise ShedError(f"two stream files are both named {dup!r}; streams are named by file name, rename one")
    data = [read_stream(p) for p in files]
    return Streams.of([d[0] for d in data], [d[1] for d in data], names)


def as_rows(results: Sequence[Sequence[int]] | np.ndarray, n: int) -> np.ndarray:
    """Results as an ``(k, n)`` int64 array sorted lexicographically (for comparisons)."""
    rows = np.asarray(results, dtype=np.int64).reshape(-1, n)
    return rows[np.lexsort(rows.T[::-1])] if len(rows) else rows


def results_frame(streams: Streams, rows: np.ndarray) -> "pd.DataFrame":
    """The N-tuples ``rows`` (one seq per stream) as a table: per stream ``NAME`` the columns
    ``NAME_time``, ``NAME_key`` and ``NAME_row`` (the tuple's position in its stream, from 0)."""
    import pandas as pd

    rows = np.asarray(rows, dtype=np.int64).reshape(-1, streams.n)
    columns: dict[str, np.ndarray] = {}
    for i, name in enumerate(streams.names):
        seq = rows[:, i]
        columns[f"{name}_time"] = streams.times[i][seq]
        columns[f"{name}_key"] = streams.keys[i][seq]
        columns[f"{name}_row"] = seq
    return pd.DataFrame(columns)


def write_results(streams: Streams, rows: np.ndarray, path: str | os.PathLike) -> Path:
    """Write the N-tuples (:func:`results_frame`) to ``path``: CSV or Parquet by its extension."""
    from shedding.atomic import write_atomically
    from shedding.datasets.files import format_of

    path = Path(path)
    frame = results_frame(streams, rows)
    fmt = format_of(path)
    return write_atomically(path, lambda tmp: frame.to_csv(tmp, index=False) if fmt == "csv" else
                            frame.to_parquet(tmp, index=False))
