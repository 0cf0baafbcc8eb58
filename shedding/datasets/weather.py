"""The paper's real-data workload (Das, Gehrke, Riedewald 2003, §4.5), prepared on Spark.

"We chose the readings taken by the land sensors in the month of September over two consecutive
years (1985, 1986) ... We divided locations on the earth into a 18 by 36 square grid consisting of
10 degrees of latitude and longitude each, and mapped sensors falling in the same grid cell to the
same location for the purpose of the join." Here:

* the join key is the grid cell ``row * n_cols + col`` with ``row = floor((lat + 90) / cell)``
  (lat = 90 falls in the last row) and ``col = floor(lon' / cell)``, ``lon'`` the longitude
  normalized to [0, 360); the cell size is configurable (10 degrees -> 18 x 36 cells);
* only land reports are kept by default (NDP land/ocean flag; SYNOP stations are all on land);
* each file is ordered by observation time, ties in file order, and its i-th report arrives at
  time i (the tuple-synchronous model); the longer stream is truncated to the shorter one's length;
* the frequency tables p_R, p_S (the paper's static predictor) are computed on Spark over the
  truncated streams and kept in ``Workload.meta["frequencies"]``;
* the prepared streams are cached as Parquet, keyed by the input files (path, size, mtime) and the
  options, so a second run skips parsing.

:func:`synop_sample_workload` builds the same workload from the SYNOP January/February 2013 sample
bundled with the package, without Spark and without the original files.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from contextlib import ExitStack
from importlib.resources import files
from numbers import Real
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from shedding.atomic import write_parquet
from shedding.errors import ShedError
from shedding.model import Workload, check_window
from shedding.spark import spark_session
from shedding.datasets.files import check_file
from shedding.datasets.ndp import read_ndp
from shedding.datasets.synop import read_stations, read_synop, station_table

FORMATS = ("ndp", "synop")
#: The bundled SYNOP sample (see ``make_sample.py`` and ``data/SYNOP-ATTRIBUTION.md``).
SAMPLE_FILE = "synop_2013_01_02.parquet"
#: Default window of the sample: about one day of reports (60 stations x 8 synoptic hours).
SAMPLE_WINDOW = 500
#: Bump when the cached layout or the preparation changes.
CACHE_VERSION = 1
_META_KEY = b"shedding.weather"
#: Parquet metadata key of the sample: per-month read reports, source file names, attribution.
SAMPLE_META_KEY = b"shedding.synop_sample"
#: Values this close below a cell boundary count as on it (cell sizes like 0.1 are inexact in binary).
_EPS = 1e-9


# ------------------------------------------------------------------ the grid


def check_cell_size(cell_size: Any) -> float:
    """A cell size in degrees, in (0, 180]."""
    if isinstance(cell_size, bool) or not isinstance(cell_size, Real) or not math.isfinite(cell_size) \
            or not 0 < cell_size <= 180:  # type: ignore[operator]  # typeshed's Real compares only to Real
        raise ShedError(f"{{param}} must be a number of degrees in (0, 180], got {cell_size!r}; the paper uses 10",
                        param="cell_size")
    return float(cell_size)


def grid_shape(cell_size: float) -> tuple[int, int]:
    """(rows, columns) of the grid: 18 x 36 for 10-degree cells."""
    cell = check_cell_size(cell_size)
    return math.ceil(180 / cell - _EPS), math.ceil(360 / cell - _EPS)


def cell_key_column(lat: Column, lon: Column, cell_size: float) -> Column:
    """The grid-cell key as a Spark column (see the module docstring; same as :func:`cell_keys`)."""
    rows, cols = grid_shape(cell_size)
    lon360 = ((lon % 360.0) + 360.0) % 360.0
    row = F.least(F.floor((lat + 90.0) / cell_size + _EPS), F.lit(rows - 1))
    col = F.least(F.floor(lon360 / cell_size + _EPS), F.lit(cols - 1))
    return (row * cols + col).cast("int")


def cell_keys(lat: Any, lon: Any, cell_size: float) -> np.ndarray:
    """The grid-cell keys of arrays of latitudes and longitudes (degrees), as numpy."""
    rows, cols = grid_shape(cell_size)
    lat, lon = np.asarray(lat, dtype=float), np.asarray(lon, dtype=float)
    lon360 = np.fmod(np.fmod(lon, 360.0) + 360.0, 360.0)
    row = np.minimum(np.floor((lat + 90.0) / cell_size + _EPS), rows - 1)
    col = np.minimum(np.floor(lon360 / cell_size + _EPS), cols - 1)
    return (row * cols + col).astype(np.int64)


# ------------------------------------------------------------------ assembling the workload


def frequency_tables(wl: Workload) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(keys, p_R, p_S) of a weather workload: the static frequency tables of §4.5 as probabilities."""
    freq = wl.meta.get("frequencies")
    if freq is None:
        raise ShedError("this workload has no frequency tables; "
                        "build it with weather_workload or synop_sample_workload")
    keys = np.asarray(freq["key"], dtype=np.int64)
    r, s = (np.asarray(freq[side], dtype=float) for side in ("R", "S"))
    return keys, r / max(r.sum(), 1.0), s / max(s.sum(), 1.0)


def _truncation(n_r: int, n_s: int, names: tuple[str, str]) -> dict:
    """Which stream is cut and by how much, with the human sentence."""
    length = min(n_r, n_s)
    side = None if n_r == n_s else ("R" if n_r > n_s else "S")
    cut = abs(n_r - n_s)
    if side is None:
        sentence = f"R and S both have {length:,} reports; nothing was truncated."
    else:
        name = names[0] if side == "R" else names[1]
        sentence = (f"{side} ({name}) had {cut:,} more reports than the other stream; its last {cut:,} were dropped so "
                    f"both streams have {length:,} (tuple-synchronous model, paper §4.5).")
    return {"length": length, "stream": side, "count": cut, "sentence": sentence}


def _assemble(r_keys: np.ndarray, s_keys: np.ndarray, freq: dict | None, meta: dict, window: int,
              warmup: int | None, name: str) -> Workload:
    """The tuple-synchronous Workload of two already truncated key streams, with its meta
    (``freq`` None: the frequency tables are counted here)."""
    wl = Workload.synchronous(r_keys, s_keys, window, warmup, name)
    if freq is None:
        keys, count_r, count_s = wl.key_counts()
        freq = {"key": keys.tolist(), "R": count_r.tolist(), "S": count_s.tolist()}
    wl.meta.update(meta, frequencies=freq, distinct_keys=len(freq["key"]))
    return wl


def _summary(reports: dict, truncated: dict, land_only: bool) -> str:
    parts = []
    for side in ("R", "S"):
        rep = reports[side]
        ocean = f"; {rep['not_land']:,} ocean reports left out" if land_only and rep["not_land"] else ""
        parts.append(f"{side} = {rep['sentence']}{ocean}.")
    return " ".join(parts + [truncated["sentence"]])


# ------------------------------------------------------------------ Spark preparation


def _meta(origin: dict, cell_size: float, land_only: bool, reports: dict, truncated: dict) -> dict:
    """``Workload.meta`` of a weather workload: where it comes from (``origin``), the grid, the
    per-file reports, the truncation and their one-paragraph summary."""
    return {**origin, "cell_size": cell_size, "grid": list(grid_shape(cell_size)), "land_only": land_only,
            "streams": reports, "truncated": truncated, "summary": _summary(reports, truncated, land_only)}


def _ordered_keys(frame: DataFrame, cell_size: float) -> tuple[DataFrame, np.ndarray, np.ndarray, np.ndarray]:
    """Keyed frame and its (time, line, key) in observation-time order, ties in file order.

    The order goes to the driver anyway, so one sorted partition is the cheapest global sort (no
    range-partitioning sample pass; twice as fast on 1M reports)."""
    keyed = frame.select("time", "line", cell_key_column(frame["lat"], frame["lon"], cell_size).alias("key"))
    table = keyed.coalesce(1).orderBy("time", "line").toArrow()
    return keyed, *(table.column(c).to_numpy() for c in ("time", "line", "key"))


def _counts(keyed: dict[str, DataFrame], cut: dict[str, tuple[int, int] | None]) -> dict[str, dict[int, int]]:
    """Key counts per stream on Spark (one job), each stream up to its cut (time, line) if it has one."""
    parts = []
    for side, frame in keyed.items():
        if (last := cut[side]) is not None:
            last_t, last_l = last
            frame = frame.where((F.col("time") < last_t) | ((F.col("time") == last_t) & (F.col("line") <= last_l)))
        parts.append(frame.select(F.lit(side).alias("side"), "key"))
    counts: dict[str, dict[int, int]] = {side: {} for side in keyed}
    for row in parts[0].unionByName(parts[1]).groupBy("side", "key").count().collect():
        counts[row["side"]][row["key"]] = row["count"]
    return counts


def _prepare(spark: SparkSession, paths: tuple[Path, Path], fmt: str, stations: Path | None,
             cell_size: float, land_only: bool) -> tuple[np.ndarray, np.ndarray, dict, dict]:
    """Parse, filter, grid, order, truncate and count both files: (r_keys, s_keys, freq, meta)."""
    prepared, reports = {}, {}
    table = read_stations(spark, stations) if stations is not None else None  # SYNOP's alone (check_inputs)
    for side, path in zip(("R", "S"), paths, strict=True):
        parsed = read_ndp(spark, path) if fmt == "ndp" else read_synop(spark, path, table)
        frame = parsed.frame.where(F.col("land")) if land_only else parsed.frame
        keyed, time, line, key = _ordered_keys(frame, cell_size)
        prepared[side] = (keyed, time, line, key)
        reports[side] = {**parsed.report.as_dict(), "not_land": parsed.report.valid - len(key), "used": len(key)}
    truncated = _truncation(len(prepared["R"][3]), len(prepared["S"][3]), (paths[0].name, paths[1].name))
    length = truncated["length"]
    if length == 0:
        empty = [side for side in ("R", "S") if not len(prepared[side][3])]
        raise ShedError(f"stream {' and '.join(empty)} has no {'land ' if land_only else ''}report left; "
                        f"give files with land reports (or land_only=False)")
    cut = {side: (int(time[length - 1]), int(line[length - 1])) if len(time) > length else None
           for side, (_, time, line, _) in prepared.items()}
    counts = _counts({side: prepared[side][0] for side in prepared}, cut)
    keys = sorted(set(counts["R"]) | set(counts["S"]))
    freq = {"key": keys, "R": [counts["R"].get(k, 0) for k in keys], "S": [counts["S"].get(k, 0) for k in keys]}
    meta = _meta({"source": [str(p.absolute()) for p in paths], "format": fmt}, cell_size, land_only, reports,
                 truncated)
    return prepared["R"][3][:length], prepared["S"][3][:length], freq, meta


# ------------------------------------------------------------------ the Parquet cache


def _cache_path(cache_dir: Path, paths: tuple[Path, ...], options: dict) -> Path:
    def stamp(p: Path) -> list:
        st = p.stat()
        return [str(p.resolve()), st.st_size, st.st_mtime_ns]

    text = json.dumps({"version": CACHE_VERSION, "files": [stamp(p) for p in paths], **options}, sort_keys=True)
    return cache_dir / f"weather-{hashlib.sha256(text.encode()).hexdigest()[:20]}.parquet"


def _default_cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "shedding" / "weather"


def _write_cache(path: Path, r_keys: np.ndarray, s_keys: np.ndarray, freq: dict, meta: dict) -> None:
    table = pa.table({"key_r": pa.array(r_keys, pa.int32()), "key_s": pa.array(s_keys, pa.int32())})
    table = table.replace_schema_metadata({_META_KEY: json.dumps({"meta": meta, "frequencies": freq}).encode()})
    path.parent.mkdir(parents=True, exist_ok=True)
    write_parquet(path, table)


def _read_cache(path: Path) -> tuple[np.ndarray, np.ndarray, dict, dict] | None:
    """The cached streams, or None if there is no usable cache file."""
    try:
        table = pq.read_table(path)
        stored = json.loads(table.schema.metadata[_META_KEY])
    except (OSError, KeyError, TypeError, ValueError, pa.ArrowException):
        return None
    return (table.column("key_r").to_numpy().astype(np.int64), table.column("key_s").to_numpy().astype(np.int64),
            stored["frequencies"], stored["meta"])


# ------------------------------------------------------------------ public entry points


def check_inputs(r_path: str | os.PathLike, s_path: str | os.PathLike, fmt: str,
                 stations: str | os.PathLike | None = None) -> tuple[tuple[Path, Path], Path | None]:
    """The two report files and (SYNOP only) the station table exist and the format is known,
    else a ShedError; cheap, so callers can check before they start Spark."""
    if fmt not in FORMATS:
        raise ShedError(f"unknown weather format {fmt!r}; use one of: {', '.join(FORMATS)}")
    paths = (Path(r_path), Path(s_path))
    for path in paths:
        check_file(path, f"one {fmt} file")
    return paths, station_table(stations, paths[0].absolute().parent) if fmt == "synop" else None


def weather_workload(
    r_path: str | os.PathLike,
    s_path: str | os.PathLike,
    fmt: str,
    window: int,
    warmup: int | None = None,
    cell_size: float = 10.0,
    land_only: bool = True,
    spark: SparkSession | None = None,
    cache_dir: str | os.PathLike | None = None,
    stations: str | os.PathLike | None = None,
) -> Workload:
    """The §4.5 workload from two report files (R, S) of format ``ndp`` or ``synop``.

    ``warmup`` defaults to 2w (the paper: w = 5000, warmup 10000). ``spark`` defaults to the active
    session, else a local one for this call. ``cache_dir`` defaults to ``$XDG_CACHE_HOME/shedding/
    weather`` (``~/.cache/...``). ``stations`` (SYNOP only) defaults to ``postesSynop.csv`` next to
    ``r_path``. ``meta`` holds the sources, format, cell size, per-stream counts (records read,
    valid, dropped with the first bad line numbers, ocean reports left out), the truncation, the
    distinct keys, the frequency tables (counts), a one-paragraph ``summary`` and ``cache`` (file, hit,
    and ``error`` if the cache could not be written).
    """
    window = check_window(window)
    cell_size = check_cell_size(cell_size)
    paths, station_path = check_inputs(r_path, s_path, fmt, stations)
    options = {"format": fmt, "cell_size": cell_size, "land_only": bool(land_only)}
    cache = _cache_path(Path(cache_dir) if cache_dir is not None else _default_cache_dir(),
                        paths + ((station_path,) if station_path else ()), options)
    name = f"{paths[0].name}+{paths[1].name}"
    cached = _read_cache(cache)
    note: dict = {}
    if cached is None:
        with ExitStack() as stack:
            if spark is None:
                spark = SparkSession.getActiveSession() or stack.enter_context(spark_session())
            r_keys, s_keys, freq, meta = _prepare(spark, paths, fmt, station_path, cell_size, bool(land_only))
        try:
            _write_cache(cache, r_keys, s_keys, freq, meta)
        except OSError as exc:
            note["error"] = f"not written ({exc.strerror or exc}); the next run parses again"
    else:
        r_keys, s_keys, freq, meta = cached
    meta = {**meta, "cache": {"path": str(cache), "hit": cached is not None, **note}}
    return _assemble(r_keys, s_keys, freq, meta, window, warmup, name)


def synop_sample_workload(cell_size: float = 10.0, window: int = SAMPLE_WINDOW, warmup: int | None = None) -> Workload:
    """January 2013 (R) against February 2013 (S) of the bundled Météo-France SYNOP sample.

    Needs neither Spark nor the original files: the package ships station, time, latitude and
    longitude of every report (``data/synop_2013_01_02.parquet``, "Source: Météo-France"). Same
    grid, ordering, truncation and meta as :func:`weather_workload`; frequency tables with numpy.
    """
    window = check_window(window)
    cell_size = check_cell_size(cell_size)
    source = files("shedding.datasets").joinpath("data", SAMPLE_FILE)
    with source.open("rb") as f:
        table = pq.read_table(f)
    stored = json.loads(table.schema.metadata[SAMPLE_META_KEY])
    columns = {name: table.column(name).to_numpy() for name in ("month", "line", "time", "lat", "lon")}
    keys = {}
    for side, month in (("R", 1), ("S", 2)):
        mine = columns["month"] == month
        order = np.lexsort((columns["line"][mine], columns["time"][mine]))
        keys[side] = cell_keys(columns["lat"][mine][order], columns["lon"][mine][order], cell_size)
    reports = {side: {**stored["reports"][side], "not_land": 0, "used": len(keys[side])} for side in ("R", "S")}
    truncated = _truncation(len(keys["R"]), len(keys["S"]), tuple(stored["files"]))
    r_keys, s_keys = keys["R"][:truncated["length"]], keys["S"][:truncated["length"]]
    meta = _meta({"source": [f"{SAMPLE_FILE} ({name})" for name in stored["files"]], "format": "synop-sample",
                  "attribution": stored["attribution"]}, cell_size, True, reports, truncated)
    return _assemble(r_keys, s_keys, None, meta, window, warmup, "synop-2013-01+2013-02")
