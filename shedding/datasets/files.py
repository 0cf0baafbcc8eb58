"""Workloads from CSV or Parquet files, and back.

Two layouts:

* one file with columns ``stream`` (R or S, any case), ``time`` and ``key``
  (:func:`load_workload`, written by :func:`write_workload`);
* two files, one per stream, each with columns ``time`` and ``key`` (:func:`load_two_streams`);
  a stream may also be a folder of such files, read one after the other in name order.

Column names are matched case-insensitively; the other columns are the tuples' *payload*
(``meta["payload"]``, one row per workload tuple: in the two-file layout the columns both files
have), whose values can be HAZARD's groups (:mod:`shedding.online.groups`). Each stream's times must
be non-decreasing in file order; in the one-file layout R and S rows may interleave freely and are
merged by a stable sort on time (file order is kept among equal times). In the two-file layout R
tuples come before S tuples of the same time, as in :meth:`Workload.from_streams`.

Row numbers in error messages count data rows from 1 (the CSV header is not a row) of the file
they name. ``meta["source_row"]`` gives, for each workload tuple, its 0-based data row in its
file (in its stream: a folder's rows counted on over its files).
"""

from __future__ import annotations

import datetime as dt
import functools
import os
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from shedding.atomic import write_atomically
from shedding.datasets.columns import check_stream_times, first_row, int_column, key_columns
from shedding.datasets.formats import FORMATS, data_files, separator_hint
from shedding.datasets.times import time_steps
from shedding.errors import ShedError
from shedding.model import R, S, SIDE_NAMES, Workload, check_window, default_warmup

_ACCEPTED = ", ".join(FORMATS)


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def format_of(path: Path, fix: str = f"use one of these extensions: {_ACCEPTED}") -> str:
    """``csv`` or ``parquet`` from the file name; ``fix`` ends the error for any other name."""
    name = path.name.lower()
    for ext, fmt in sorted(FORMATS.items(), key=lambda item: -len(item[0])):
        if name.endswith(ext):
            return fmt
    raise ShedError(f"unknown file format for {path}; {fix}")


def check_file(path: Path, what: str = "one data file") -> None:
    """``path`` is an existing regular file, else a ShedError; ``what`` ends the "not a file" message."""
    if not path.exists():
        raise ShedError(f"file not found: {path}; check the path")
    if not path.is_file():
        raise ShedError(f"not a file: {path}; give the path of {what}")


def _check_names(path: Path, names: Sequence[object], where: str) -> None:
    """Each column is named once, as columns are matched: ignoring case and spaces around the name
    (pandas would read a second ``key`` of a CSV as ``key.1``; ``Time`` beside ``time`` would leave
    which one is the time to chance)."""
    spelt: dict[str, list[str]] = {}
    for name in names:
        spelt.setdefault(str(name).strip().lower(), []).append(str(name).strip())
    twice = sorted(key for key, seen in spelt.items() if key and len(seen) > 1)
    if twice:
        seen = spelt[twice[0]]
        how = (f"the column {seen[0]!r} twice" if len(set(seen)) == 1 else
               f"the column {twice[0]!r} twice ({' and '.join(repr(n) for n in dict.fromkeys(seen))}: column names "
               "are matched ignoring case, as Spark does)")
        raise ShedError(f"{path} names {how} {where}; rename one, so that each column has a name of its own")


def _check_header(path: Path) -> None:
    """A CSV header names each column once (:func:`_check_names`)."""
    header = pd.read_csv(path, header=None, nrows=1, dtype=str, keep_default_na=False)
    _check_names(path, list(header.iloc[0]) if len(header) else [], "in its header")


def read_table(path: str | os.PathLike, columns: Sequence[str], refused: str | None = None) -> pd.DataFrame:
    """Read ``path`` and return exactly ``columns`` (matched case-insensitively), as found.
    A column named ``refused`` is an error (it means the file is in the other layout)."""
    return read_with_payload(path, columns, refused)[0]


def read_with_payload(path: str | os.PathLike, columns: Sequence[str], refused: str | None = None,
                      one_file: bool = True) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`read_table`'s ``columns``, and the file's other columns as they are read (CSV: text,
    with missing cells NaN; Parquet: their own types), its *payload*, in the same row order.
    ``one_file``: the caller also reads the one-file layout (a ``refused`` column's error offers it)."""
    path = Path(path)
    check_file(path, f"a {_ACCEPTED} file")
    fmt = format_of(path)
    index_hint = ""
    try:
        if fmt == "csv":
            frame = pd.read_csv(path, dtype=str, skipinitialspace=True)
        else:
            frame = pd.read_parquet(path)
            named = [n for n in frame.index.names if n is not None]
            twice = [n for n in named if n in frame.columns]
            if twice:
                raise ShedError(f"{path} names the column {twice[0]!r} twice (its pandas index and a column); "
                                "rename one, or write the file with index=False")
            if named:  # pandas' named index (set_index("time")) is a column of the file, as Spark reads it
                frame = frame.reset_index(level=named)
            elif not isinstance(frame.index, pd.RangeIndex):  # an unnamed index: Spark does not read it
                index_hint = ("; its pandas index has no name, so it is not read as a column: name it "
                              "(frame.index.name = 'time') or write the file from frame.reset_index()")
            _check_names(path, list(frame.columns), "among its columns")
    except ShedError:
        raise
    except pd.errors.EmptyDataError:
        raise ShedError(
            f"{path} is empty; it needs a header line with the columns {', '.join(columns)}"
        ) from None
    except Exception as exc:  # pandas/pyarrow raise many types for corrupt input
        kind = "CSV" if fmt == "csv" else "Parquet"
        raise ShedError(
            f"cannot read {path} as {kind} ({_one_line(exc)[:200]}); "
            f"check that it is a valid {kind} file (accepted extensions: {_ACCEPTED})"
        ) from None
    if fmt == "csv":
        _check_header(path)
    found = {str(c).strip().lower(): c for c in frame.columns}
    if refused in found:
        raise ShedError(
            f"{path} has a {refused!r} column: it holds both streams (one-file layout), but here each file is one "
            f"stream; {'give it alone as the {param} file, or ' if one_file else ''}drop the column", param="workload"
        )
    missing = [c for c in columns if c not in found]
    if missing:
        listed = ", ".join(str(c) for c in frame.columns) or "none"
        lone = ("; or, as one stream's file, give it with the other stream's to {streams}" if missing == ["stream"]
                else "")  # time and key, no stream: a file of the two-file layout
        raise ShedError(
            f"{path} lacks the column(s) {', '.join(missing)}; found columns: {listed}; "
            f"it needs {', '.join(columns)}{separator_hint(frame.columns) if fmt == 'csv' else index_hint}{lone}",
            names={"streams": "load_two_streams"} if lone else None)
    out = frame[[found[c] for c in columns]]
    out.columns = list(columns)
    used = {found[c] for c in columns}
    rest = frame[[c for c in frame.columns if c not in used]].reset_index(drop=True)
    rest.columns = [str(c).strip() for c in rest.columns]
    return out.reset_index(drop=True), rest



def payload_header(path: str | os.PathLike, columns: Sequence[str]) -> list[str] | None:
    """The payload columns of ``path`` (its columns but ``columns``, matched case-insensitively;
    of a folder, those all its files have) from the headers alone, without reading the rows; None
    when a header cannot be read (the read itself then says why)."""
    path = Path(path)
    try:
        headers = [_header(f) for f in (stream_files(path, "path") if path.is_dir() else [path])]
    except Exception:  # any unreadable header is reported by the read that follows
        return None
    used = {c.lower() for c in columns}
    others = [{n.strip().lower() for n in names} for names in headers[1:]]
    return [n.strip() for n in headers[0] if n.strip().lower() not in used
            and all(n.strip().lower() in names for names in others)]


def _header(path: Path) -> list[str]:
    """The column names of a CSV or Parquet file, from its header (its schema) alone."""
    if format_of(path) == "csv":
        return [str(c) for c in pd.read_csv(path, nrows=0).columns]
    import pyarrow.parquet as pq

    return list(pq.read_schema(path).names)


def dated(path: str | os.PathLike) -> bool:
    """Whether the time column of ``path`` (a Parquet file, or a folder's first file) holds dates,
    from its schema alone: ``shed stream-join`` then cuts its times by a day unless told otherwise
    (:class:`~shedding.streaming.event_time.TimeAxis`), and the batch commands follow it. A CSV
    file's times are text, never dates; a path that cannot be read is not (its read says why)."""
    try:
        first = stream_files(Path(path), "path")[0]
        if format_of(first) == "csv":
            return False
        import pyarrow as pa
        import pyarrow.parquet as pq

        types = [f.type for f in pq.read_schema(first) if f.name.strip().lower() == "time"]
    except Exception:  # a missing or unreadable file is reported by the read that follows
        return False
    return len(types) == 1 and pa.types.is_date(types[0])


def _merged(
    side: np.ndarray, time: np.ndarray, key: np.ndarray, rows: np.ndarray,
    window: int, warmup: int | None, name: str, meta: dict, payload: pd.DataFrame,
) -> Workload:
    """Stable sort by time (given order kept among equal times) into a Workload; ``payload`` (one
    row per tuple, in the given order) goes to ``meta["payload"]`` in the workload's order when it
    has columns."""
    order = np.argsort(time, kind="stable")
    wl = Workload(
        side[order], time[order], key[order], window,
        default_warmup(window) if warmup is None else warmup, name,
    )
    wl.meta.update(meta, source_row=rows[order])
    if len(payload.columns):
        wl.meta["payload"] = payload.iloc[order].reset_index(drop=True)
    return wl


def check_path(path: object, param: str) -> Path:
    """``path`` (text or a path-like object) as a Path, else a ShedError naming ``param``."""
    if not isinstance(path, (str, os.PathLike)):
        raise ShedError(f"{{param}} must be a file path, got {type(path).__name__} {path!r}", param=param)
    return Path(path)


def load_workload(path: str | os.PathLike, window: int, warmup: int | None = None,
                  time_step: int | str | dt.timedelta | None = None) -> Workload:
    """One CSV/Parquet file with columns ``stream`` (R/S), ``time``, ``key`` -> Workload.

    Among equal times the file's order is kept. An empty file with the right header gives an
    empty workload.

    Args:
        path: The file: ``.csv``, ``.csv.gz``, ``.parquet`` or ``.pq``. Times are integers
            >= 0 (or timestamps, with ``time_step`` a length of time), non-decreasing within each
            stream; keys integers or text (:func:`~shedding.datasets.columns.key_columns`).
        window: w, in time steps (an integer >= 1).
        warmup: The first time step whose outputs count; default 2w.
        time_step: How the times become steps (:mod:`shedding.datasets.times`): None (integer
            steps as written), an integer k (time v in step floor(v / k)) or a length of time
            such as ``"1 minute"`` (timestamps; steps counted from the first).

    Returns:
        The :class:`~shedding.model.Workload`; ``meta`` holds the source, its format, each
        tuple's row in the file (``source_row``), for text keys the text of each key number
        (``key_labels``) and for timestamps the step and the instant of step 0 (``time_step``,
        ``time_origin``).

    Raises:
        ShedError: A bad ``window`` or ``path`` (naming it in ``param``), a missing or
            unreadable file, a missing column, a stream other than R/S, non-integer values or
            times going backwards (naming the row).
    """
    window = check_window(window)
    path = check_path(path, "path")
    frame, payload = read_with_payload(path, ("stream", "time", "key"))
    stream = frame["stream"]
    missing = stream.isna().to_numpy()
    if missing.any():
        row = first_row(missing)
        raise ShedError(f"{path}: column 'stream' has a missing value at row {row + 1}; fill or drop that row")
    labels = stream.astype(str).str.strip().str.upper().to_numpy()
    bad = (labels != "R") & (labels != "S")
    if bad.any():
        row = first_row(bad)
        raise ShedError(
            f"{path}: column 'stream' must be R or S, row {row + 1} has {str(stream.iloc[row]).strip()!r}; "
            f"rename the streams to R and S"
        )
    side = np.where(labels == "S", S, R).astype(np.int8)
    (time,), axis = time_steps([frame["time"]], [path], time_step)
    (key,), key_labels = key_columns([frame["key"]], [path])
    rows = np.arange(len(frame), dtype=np.int64)
    for which in (R, S):
        mask = side == which
        check_stream_times(time[mask], rows[mask], f"stream {SIDE_NAMES[which]} ", path)
    meta = {"source": str(path), "format": format_of(path), **axis}
    if key_labels is not None:
        meta["key_labels"] = key_labels
    return _merged(side, time, key, rows, window, warmup, path.name, meta, payload)


def load_two_streams(
    r_path: str | os.PathLike, s_path: str | os.PathLike, window: int, warmup: int | None = None,
    time_step: int | str | dt.timedelta | None = None,
) -> Workload:
    """Two CSV/Parquet files or folders of files (R, then S), each with columns ``time`` and
    ``key`` -> Workload.

    Within one time, R tuples come before S tuples. The payload columns are those every file of
    both streams has.

    Args:
        r_path: Stream R's file (``.csv``, ``.csv.gz``, ``.parquet`` or ``.pq``), or a folder
            of such files of one format, one stream in name order (:func:`stream_files`); times
            are integers >= 0 (or timestamps, with ``time_step`` a length of time),
            non-decreasing; keys integers or text, numbered together over both streams
            (:func:`~shedding.datasets.columns.key_columns`).
        s_path: Stream S's file or folder, likewise.
        window: w, in time steps (an integer >= 1).
        warmup: The first time step whose outputs count; default 2w.
        time_step: How the times become steps, as for :func:`load_workload`; with timestamps
            the steps count from the first of both files.

    Returns:
        The :class:`~shedding.model.Workload`; ``meta`` holds the sources and their formats,
        for text keys the text of each key number (``key_labels``) and for timestamps the step
        and the instant of step 0 (``time_step``, ``time_origin``).

    Raises:
        ShedError: A bad ``window``, ``r_path`` or ``s_path`` (naming it in ``param``), a
            missing or unreadable file, a missing column, non-integer values or times going
            backwards (naming the row).
    """
    window = check_window(window)
    paths = [check_path(r_path, "r_path"), check_path(s_path, "s_path")]
    files = [stream_files(path, param) for path, param in zip(paths, ("r_path", "s_path"))]
    every = [f for stream in files for f in stream]
    read = [_stream_frame(f) for f in every]
    keys, key_labels = key_columns([frame["key"] for frame, _ in read], every)
    times, axis = time_steps([frame["time"] for frame, _ in read], every, time_step)
    for f, time in zip(every, times):
        check_stream_times(time, np.arange(len(time), dtype=np.int64), "", f)
    parts, payloads, first = [], [], 0
    for which, stream in zip((R, S), files):
        last = first + len(stream)
        _check_file_order(stream, times[first:last])
        time, key = np.concatenate(times[first:last]), np.concatenate(keys[first:last])
        parts.append((np.full(len(time), which, dtype=np.int8), time, key, np.arange(len(time), dtype=np.int64)))
        payloads.append(functools.reduce(common, [payload for _, payload in read[first:last]]))
        first = last
    side, time, key, rows = (np.concatenate(cols) for cols in zip(*parts))
    r_path, s_path = paths
    meta: dict = {"source": (str(r_path), str(s_path)), "format": (format_of(files[0][0]), format_of(files[1][0])),
                  **axis}
    if key_labels is not None:
        meta["key_labels"] = key_labels
    return _merged(side, time, key, rows, window, warmup, f"{r_path.name}+{s_path.name}", meta, common(*payloads))


def stream_files(path: Path, param: str) -> list[Path]:
    """One stream's files: the file ``path``, or the stream files of the folder ``path`` in name
    order (:func:`~shedding.datasets.formats.data_files`, the order ``shed stream-join`` takes
    them in), all of one format; a folder without any is refused naming ``param``."""
    if not path.is_dir():
        return [path]
    names = data_files(path)
    if not names:
        raise ShedError(f"{{param}} {path} is a folder without {_ACCEPTED} files (names starting with . or _ are "
                        "skipped, subfolders are not read); give a folder of one stream's files, or one file",
                        param=param)
    if len({format_of(path / name) for name in names}) > 1:
        raise ShedError(f"{{param}} {path} holds both CSV and Parquet files; keep one format per stream", param=param)
    return [path / name for name in names]


def _check_file_order(files: list[Path], times: list[np.ndarray]) -> None:
    """A folder's files are one stream in name order: no file's first time before the last time of
    the files before it."""
    latest, where = None, files[0]
    for f, time in zip(files, times):
        if time.size and latest is not None and time[0] < latest:
            raise ShedError(f"{f}: times go backwards at row 1 ({latest} at the end of {where.name}, then {time[0]}); "
                            "a folder's files are one stream in name order, so sort the stream by time across them")
        if time.size:
            latest, where = time[-1], f


def stream_table(path: str | os.PathLike, columns: Sequence[str]) -> pd.DataFrame:
    """:func:`read_table` of one stream: a file, or a folder's files in name order, one after the
    other (:func:`stream_files`)."""
    return pd.concat([read_table(f, columns) for f in stream_files(Path(path), "path")], ignore_index=True)


def common(r: pd.DataFrame, s: pd.DataFrame) -> pd.DataFrame:
    """The payload columns both streams' files have (matched case-insensitively, named as in R's
    file), R's rows then S's: a group must have a value on both sides."""
    s_names = {str(c).lower(): c for c in s.columns}
    both = [c for c in r.columns if str(c).lower() in s_names]
    s_part = s[[s_names[str(c).lower()] for c in both]]
    s_part.columns = both
    return pd.concat([r[both], s_part], ignore_index=True)


def read_stream(path: str | os.PathLike) -> tuple[np.ndarray, np.ndarray]:
    """One stream's file of a W-join (CSV/Parquet, columns ``time`` and ``key``) -> (times, keys)
    as int64; times must be >= 0 and non-decreasing, keys integers."""
    path = Path(path)
    frame, _ = _stream_frame(path, one_file=False)  # the W-join reads no one-file layout
    time = int_column(frame["time"], "time", path)
    (key,), labels = key_columns([frame["key"]], [path])
    if labels is not None:
        raise ShedError(f"{path}: column 'key' holds text ({labels[0]!r}, ...); the W-join takes integer keys: map "
                        "them to integers, the same in every stream (pandas.factorize over all of them)")
    check_stream_times(time, np.arange(len(time), dtype=np.int64), "", path)
    return time, key


def _stream_frame(path: Path, one_file: bool = True) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One stream's file: its time and key columns as read, and its other columns."""
    return read_with_payload(path, ("time", "key"), refused="stream", one_file=one_file)


def write_workload(wl: Workload, path: str | os.PathLike) -> Path:
    """Write ``wl`` in the one-file layout (``stream,time,key``); CSV or Parquet by extension."""
    path = Path(path)
    fmt = format_of(path)
    frame = pd.DataFrame({
        "stream": np.array(SIDE_NAMES, dtype=object)[wl.side.astype(np.intp)],
        "time": wl.time.astype(np.int64),
        "key": wl.key.astype(np.int64),
    })
    return write_atomically(path, lambda tmp: frame.to_csv(tmp, index=False) if fmt == "csv" else
                            frame.to_parquet(tmp, index=False))


def read_keys(*paths: str | os.PathLike) -> list[np.ndarray]:
    """The join keys of relations, one CSV or Parquet file each (column ``key``), as int64:
    integers, or text numbered together over the files
    (:func:`~shedding.datasets.columns.key_columns`)."""
    files = [Path(p) for p in paths]
    return key_columns([read_table(p, ["key"])["key"] for p in files], files)[0]
