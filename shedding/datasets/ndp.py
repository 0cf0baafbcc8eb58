"""NDP-026B "edited synoptic cloud reports" (Hahn, Warren, London; CDIAC NDP-026B), read on Spark.

The paper's real-data experiment (Das, Gehrke, Riedewald 2003, §4.5) joins the land reports of
September 1985 and September 1986 (files ``SEP85L``, ``SEP86L``, distributed as ``SEP85L.Z``).
Each report is one fixed-width 56-character line (1-based columns):

====== ============================================================ ==========================
cols   field                                                        accepted
====== ============================================================ ==========================
1-8    year (2 digits, 19YY), month, day, hour (UTC): YYMMDDHH      a real date, hour 0-23
9      sky-brightness indicator (illuminance criterion met = 1)     one digit
10-14  latitude x 100, right-justified, signed                      -9000 .. 9000
15-19  longitude x 100, degrees east                                0 .. 36000
20-24  station number (land) or source deck / ship type (ocean)     digits
25     land/ocean indicator: 1 = land, 2 = ocean                    1 or 2
26-56  present weather and cloud fields (ww N Nh h CL CM CH AM AH   kept as text
       UM UH IC SA RI), not used by the join
====== ============================================================ ==========================

Numeric fields may carry leading blanks (Fortran ``I`` format). Lines that break these rules are
*dropped and reported* (count per reason, line numbers of the first few), never kept and never
fatal; a file without a single valid record is a :class:`ShedError`. Plain, gzip (``.gz``) and
Unix-compress (``.Z``) files are accepted; ``.Z`` is decompressed to a temporary file first.
"""

from __future__ import annotations

import gzip
import os
import shutil
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import ncompress
import numpy as np
import pandas as pd
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from shedding.atomic import write_atomically
from shedding.errors import ShedError, cause
from shedding.datasets.files import check_file

NDP_WIDTH = 56
#: (name, first column (1-based), width) of each field of a record.
NDP_FIELDS = (
    ("year", 1, 2), ("month", 3, 2), ("day", 5, 2), ("hour", 7, 2), ("sky", 9, 1),
    ("lat100", 10, 5), ("lon100", 15, 5), ("station", 20, 5), ("land_flag", 25, 1), ("weather", 26, 31),
)
#: A plausible cloud part (columns 26-56) for written test records: ww=2, N=8, Nh=8, h=5, CL=5,
#: CM=2, CH=-1, AM=0, AH=900, UM=0, UH=9, IC=0, SA=35.0 deg, RI=-1.10.
DEFAULT_WEATHER = " 28 8 5 5 2-1  090009 0 350-110"
#: How many bad line numbers a report keeps.
FIRST_BAD = 5

_GZIP, _COMPRESS = b"\x1f\x8b", b"\x1f\x9d"
_OTHER_MAGIC = {b"BZh": "bzip2", b"\xfd7zXZ": "xz", b"PK\x03\x04": "zip", b"\x28\xb5\x2f\xfd": "zstd",
                b"7z\xbc\xaf": "7z", b"\x04\x22\x4d\x18": "lz4"}
_OTHER_EXT = {".bz2": "bzip2", ".xz": "xz", ".lzma": "lzma", ".zip": "zip", ".zst": "zstd", ".7z": "7z",
              ".lz4": "lz4", ".tgz": "tar+gzip"}


@dataclass(frozen=True)
class ReadReport:
    """What reading one file found: lines (rows) read, valid records, drops by reason, first bad lines."""

    path: str
    fmt: str
    records: int
    valid: int
    dropped: dict[str, int] = field(default_factory=dict)
    first_bad: tuple[tuple[int, str], ...] = ()

    @property
    def dropped_total(self) -> int:
        return sum(self.dropped.values())

    def as_dict(self) -> dict:
        """JSON-ready form (for ``Workload.meta``)."""
        return {
            "path": self.path, "format": self.fmt, "records": self.records, "valid": self.valid,
            "dropped": self.dropped_total, "dropped_by_reason": dict(self.dropped),
            "first_bad_lines": [int(line) for line, _ in self.first_bad],
            "first_bad": [[int(line), reason] for line, reason in self.first_bad],
            "sentence": self.sentence(),
        }

    def sentence(self) -> str:
        """One human sentence, e.g. ``SEP85L: 1,000,012 lines read, 1,000,000 valid, 12 dropped (...)``."""
        unit = "lines" if self.fmt == "ndp" else "reports"
        text = f"{Path(self.path).name}: {self.records:,} {unit} read, {self.valid:,} valid"
        if not self.dropped_total:
            return text + ", none dropped"
        by_count = sorted(self.dropped.items(), key=lambda kv: (-kv[1], kv[0]))
        reasons = ", ".join(f"{n:,} {reason}" for reason, n in by_count)
        lines = ", ".join(str(line) for line, _ in self.first_bad)
        return f"{text}, {self.dropped_total:,} dropped ({reasons}; first bad lines: {lines})"


@dataclass(frozen=True)
class Parsed:
    """Valid records of one file as a Spark DataFrame (lineage cut, safe to reuse) and the report.

    Every reader gives at least the columns ``line`` (1-based line in the file), ``time``
    (YYYYMMDDHHMMSS as a long), ``lat``, ``lon`` (degrees), ``station`` and ``land`` (boolean).
    """

    frame: DataFrame
    report: ReadReport


# ------------------------------------------------------------------ files and compression


def _compression(path: Path) -> str:
    """``plain``, ``gzip`` or ``compress`` from the magic bytes; unknown or inconsistent ones are refused."""
    with path.open("rb") as f:
        head = f.read(6)
    ext = path.suffix if path.suffix == ".Z" else path.suffix.lower()
    kind = _OTHER_EXT.get(ext) or next((k for magic, k in _OTHER_MAGIC.items() if head.startswith(magic)), None)
    if kind:
        raise ShedError(f"{path}: unsupported compression ({kind}); decompress it, "
                        f"or give a plain, .gz or .Z (Unix compress) file")
    if ext == ".Z" and not head.startswith(_COMPRESS):
        raise ShedError(f"{path} ends in .Z but is not Unix-compress data (magic {head[:2].hex() or 'empty'}, "
                        f"expected 1f9d); re-download it or rename it")
    if ext == ".gz" and not head.startswith(_GZIP):
        raise ShedError(f"{path} ends in .gz but is not gzip data (magic {head[:2].hex() or 'empty'}, "
                        f"expected 1f8b); re-download it or rename it")
    if head.startswith(_COMPRESS):
        return "compress"
    return "gzip" if head.startswith(_GZIP) else "plain"


@contextmanager
def spark_readable(path: str | os.PathLike) -> Iterator[str]:
    """A path Spark can read as text for ``path``: plain and ``.gz`` as they are (gzip without the
    ``.gz`` name through a link), ``.Z`` decompressed into a temporary file removed on exit."""
    path = Path(path).absolute()
    check_file(path)
    kind = _compression(path)
    if kind == "plain" or (kind == "gzip" and path.name.endswith(".gz")):
        yield str(path)
        return
    tmp = Path(tempfile.mkdtemp(prefix="shedding-"))
    try:
        if kind == "gzip":
            target = tmp / (path.name + ".gz")
            target.symlink_to(path)
        else:
            target = tmp / (path.name[:-2] if path.name.endswith(".Z") else path.name)
            try:
                with path.open("rb") as src, target.open("wb") as dst:
                    ncompress.decompress(src, dst)
            except ValueError as exc:
                raise ShedError(f"cannot decompress {path} ({exc}); the .Z file is damaged, re-download it") from None
        yield str(target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def first_line(readable: str) -> str:
    """The first line of a plain or gzip file (for recognising a file given in the wrong format)."""
    opener = gzip.open if readable.endswith(".gz") else open
    try:
        with opener(readable, "rt", encoding="utf-8", errors="replace", newline="") as f:
            return f.readline(4096).rstrip("\r\n")
    except (OSError, EOFError) as exc:
        raise ShedError(f"cannot read {readable} ({exc}); the file is damaged, re-download it") from None


# ------------------------------------------------------------------ Spark helpers


def tagged(frame: DataFrame) -> DataFrame:
    """``frame`` (straight from a file scan) with its file position: ``_block`` (byte offset of the
    scan block) and ``_id`` (increasing within a block). Rows keep file order within a block and
    blocks are ordered by offset, so (``_block``, ``_id``) orders rows as in the file; :func:`finish`
    turns it into line numbers."""
    return frame.select("*", F.input_file_block_start().alias("_block"), F.monotonically_increasing_id().alias("_id"))


def line_column(blocks: list, first: int) -> Column:
    """The 1-based file line (``first`` for the first row) from per-block (``_block``, ``n``, ``lo``)."""
    shift, start = [], first
    for block, n, lo in sorted(blocks):
        shift += [F.lit(block), F.lit(start - lo)]
        start += n
    return F.col("_id") + F.create_map(*shift)[F.col("_block")] if shift else F.lit(None).cast("long")


def days_in_month(year: str, month: str) -> str:
    """Gregorian month length as a Spark SQL expression of two integer expressions (month 1..12)."""
    leap = f"(({year} % 4 = 0 AND {year} % 100 <> 0) OR {year} % 400 = 0)"
    return f"CASE WHEN {month} = 2 THEN IF({leap}, 29, 28) ELSE 31 - (({month} - 1) % 7) % 2 END"


def unreadable(path: Path, exc: Exception) -> ShedError:
    """The one-line error for a file Spark failed to read (damaged gzip, I/O error, ...)."""
    return ShedError(f"cannot read {path} ({cause(exc, 160)}); check that the file is intact")


def finish(checked: DataFrame, path: Path, fmt: str, hint: str, first: int = 1) -> Parsed:
    """Cut the lineage of ``checked`` (file positions from :func:`tagged`, ``problem`` = null for a
    valid row), count rows per reason, number the lines (``first`` = line of the first row: 2 after
    a CSV header) and keep the first bad ones. No valid row -> ShedError; a damaged file too."""
    try:
        checked = checked.localCheckpoint(eager=True)
        groups = checked.groupBy("_block", "problem").agg(F.count("*").alias("n"), F.min("_id").alias("lo")).collect()
    except Exception as exc:  # Spark/Py4J raise many types for unreadable input
        raise unreadable(path, exc) from None
    counts: dict[str | None, int] = {}
    blocks: dict[int, tuple[int, int]] = {}
    for row in groups:
        counts[row["problem"]] = counts.get(row["problem"], 0) + row["n"]
        n, lo = blocks.get(row["_block"], (0, row["lo"]))
        blocks[row["_block"]] = (n + row["n"], min(lo, row["lo"]))
    numbered = checked.withColumn("line", line_column([(b, n, lo) for b, (n, lo) in blocks.items()], first))
    valid = counts.pop(None, 0)
    first_bad: tuple[tuple[int, str], ...] = ()
    if counts:
        bad = numbered.where(F.col("problem").isNotNull()).orderBy("_block", "_id").limit(FIRST_BAD)
        first_bad = tuple((row["line"], row["problem"]) for row in bad.select("line", "problem").collect())
    dropped = {problem: n for problem, n in counts.items() if problem is not None}  # None (valid) was popped
    report = ReadReport(str(path), fmt, valid + sum(dropped.values()), valid, dropped, first_bad)
    if not valid:
        where = "; ".join(f"line {line}: {reason}" for line, reason in first_bad[:3]) or "the file is empty"
        raise ShedError(f"no valid {hint} record in {path} ({report.records:,} read; {where}); "
                        f"check the file and its format")
    return Parsed(numbered.where(F.col("problem").isNull()).drop("problem", "_block", "_id"), report)


# ------------------------------------------------------------------ the NDP reader


#: Characters allowed in columns 1-25: digits, blanks and a minus sign where a field may have them,
#: each number ending in a digit (right-justified). One cheap test for the common, valid line.
_PREFIX = "^[0-9]{9}[-0-9 ]{4}[0-9][0-9 ]{4}[0-9][0-9 ]{4}[0-9][0-9]"
#: (field, what it is called in a message, pattern its text must match): names the bad field of a
#: line that failed the quick test.
_DIGITS = (("date", "date", "^[0-9]{8}$"), ("sky", "sky-brightness indicator", "^[0-9]$"),
           ("lat100", "latitude", "^ *-?[0-9]+$"), ("lon100", "longitude", "^ *[0-9]+$"),
           ("station", "station", "^ *[0-9]+$"), ("land_flag", "land/ocean flag", "^[0-9]$"))
_INTS = ("year", "month", "day", "hour", "sky", "lat100", "lon100", "station", "land_flag")


def _ndp_checked(lines: DataFrame) -> DataFrame:
    """Every line sliced into the NDP fields, with ``problem`` naming the first rule it breaks.
    (Spark SQL text: one JVM call per stage instead of one per column operation.)"""
    sliced = lines.selectExpr(
        "_block", "_id", "value", "substring(value, 1, 8) AS t_date",
        *(f"substring(value, {start}, {width}) AS t_{name}" for name, start, width in NDP_FIELDS),
    )
    numbers = sliced.selectExpr(
        "*", *(f"try_cast(t_{name} AS INT) AS {name}" for name in _INTS if name != "year"),
        "CAST(try_cast(t_year AS INT) + 1900 AS BIGINT) AS year",
    )
    which = " ".join(f"WHEN NOT t_{name} RLIKE '{pattern}' THEN 'non-digit {label}'"
                     for name, label, pattern in _DIGITS)
    problem = " ".join([
        f"CASE WHEN length(value) <> {NDP_WIDTH} THEN 'wrong length'",
        f"WHEN NOT value RLIKE '{_PREFIX}' OR lat100 IS NULL OR lon100 IS NULL OR station IS NULL",
        f"THEN CASE {which} ELSE 'non-digit field' END",
        "WHEN NOT (lat100 BETWEEN -9000 AND 9000 AND lon100 BETWEEN 0 AND 36000) THEN 'coordinates out of range'",
        "WHEN NOT (month BETWEEN 1 AND 12 AND hour BETWEEN 0 AND 23"
        f" AND day BETWEEN 1 AND {days_in_month('year', 'month')}) THEN 'impossible date'",
        "WHEN land_flag NOT IN (1, 2) THEN 'bad land/ocean flag' END",
    ])
    return numbers.selectExpr(
        "_block", "_id", f"{problem} AS problem", *_INTS, "t_weather AS weather",
        "(((year * 100 + month) * 100 + day) * 100 + hour) * 10000 AS time",
        "CAST(lat100 AS DOUBLE) / 100 AS lat", "CAST(lon100 AS DOUBLE) / 100 AS lon", "land_flag = 1 AS land",
    )


def read_ndp(spark: SparkSession, path: str | os.PathLike) -> Parsed:
    """Read one NDP-026B file (plain, ``.gz`` or ``.Z``) on Spark: valid records and the drop report.

    Columns: ``line``, ``year`` (19YY), ``month``, ``day``, ``hour``, ``sky``, ``lat100``, ``lon100``,
    ``station``, ``land_flag``, ``weather`` (columns 26-56 as text) and the common ``time``, ``lat``,
    ``lon``, ``land``.
    """
    path = Path(path)
    with spark_readable(path) as readable:
        head = first_line(readable)
        if ";" in head or "," in head:
            raise ShedError(f"{path} looks like a CSV file (first line {head[:40]!r}), not NDP-026B fixed-width "
                            f"records; use format 'synop' for it (R and S must have the same format)")
        return finish(_ndp_checked(tagged(spark.read.text(readable))), path, "ndp", "NDP-026B")


# ------------------------------------------------------------------ the NDP writer (test data)


_REQUIRED = ("year", "month", "day", "hour", "lat", "lon", "station", "land")


def _values(column: pd.Series, name: str, low: float, high: float) -> np.ndarray:
    """``column`` as integers-or-floats within [low, high], or a one-line ShedError naming the row."""
    values = pd.to_numeric(column, errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(values) | (values < low) | (values > high)
    if bad.any():
        i = int(np.argmax(bad))
        raise ShedError(f"NDP table row {i}: {name} = {column.iloc[i]!r} is outside {low:g}..{high:g}; fix that row")
    return values


def _text(values: np.ndarray, width: int, fill: str = " ") -> pd.Series:
    text = pd.Series(np.rint(values).astype(np.int64)).astype(str)
    return text.str.zfill(width) if fill == "0" else text.str.rjust(width)


def write_ndp_lines(table: pd.DataFrame) -> list[str]:
    """Format-exact 56-character NDP-026B lines from a table (one line per row, in row order).

    Columns: ``year`` (1900-1999), ``month``, ``day``, ``hour`` (0-99 each: calendar checks are the
    reader's job, so impossible dates can be written on purpose), ``lat`` (degrees, -90..90),
    ``lon`` (degrees east, 0..360), ``station`` (0..99999), ``land`` (True or 1 = land, False or
    2 = ocean); optional ``sky`` (0-9, default 1) and ``weather`` (31 characters, default
    :data:`DEFAULT_WEATHER`).
    """
    missing = [name for name in _REQUIRED if name not in table.columns]
    if missing:
        raise ShedError(f"the NDP table lacks the column(s) {', '.join(missing)}; it needs {', '.join(_REQUIRED)}")
    table = table.reset_index(drop=True)
    land = table["land"]
    if land.dtype == bool:
        land = pd.Series(np.where(land, 1, 2))
    sky = table["sky"] if "sky" in table.columns else pd.Series(np.ones(len(table), dtype=int))
    weather = table["weather"].astype(str) if "weather" in table.columns else pd.Series([DEFAULT_WEATHER] * len(table))
    wrong = (weather.str.len() != NDP_WIDTH - 25).to_numpy()
    if wrong.any():
        i = int(np.argmax(wrong))
        raise ShedError(f"NDP table row {i}: weather must have exactly {NDP_WIDTH - 25} characters; pad or cut it")
    fields = [
        _text(_values(table["year"], "year", 1900, 1999) - 1900, 2, "0"),
        *(_text(_values(table[name], name, 0, 99), 2, "0") for name in ("month", "day", "hour")),
        _text(_values(sky, "sky", 0, 9), 1),
        _text(_values(table["lat"], "lat", -90, 90) * 100, 5),
        _text(_values(table["lon"], "lon", 0, 360) * 100, 5),
        _text(_values(table["station"], "station", 0, 99999), 5),
        _text(_values(land, "land", 1, 2), 1),
        weather,
    ]
    return fields[0].str.cat(fields[1:]).tolist() if len(table) else []


def write_ndp(table: pd.DataFrame, path: str | os.PathLike) -> Path:
    """Write :func:`write_ndp_lines` to ``path``: gzip if it ends in ``.gz``, Unix compress if ``.Z``."""
    path = Path(path)
    data = "".join(line + "\n" for line in write_ndp_lines(table)).encode("ascii")
    if path.name.endswith(".gz"):
        data = gzip.compress(data)
    elif path.name.endswith(".Z"):
        data = ncompress.compress(data)
    return write_atomically(path, lambda tmp: tmp.write_bytes(data))
