"""Météo-France SYNOP reports (CSV) and their station table, read on Spark.

The same kind of land synoptic reports as the NDP-026B cloud reports of the paper's §4.5
experiment (Das, Gehrke, Riedewald 2003), in Météo-France's open-data layout: ``;``-separated
with a header, one row per station and observation time, ``numer_sta`` (WMO station number),
``date`` (YYYYMMDDHHMMSS, UTC), ``mq`` for a missing value. Positions come from the station table
``postesSynop.csv`` (``ID;Nom;Latitude;Longitude;Altitude``, decimal degrees).

Rows with a missing or impossible date, a non-numeric station or a station absent from the table
are dropped and reported (count per reason, first line numbers), never silently kept.
"""

from __future__ import annotations

import os
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from shedding.errors import ShedError
from shedding.datasets.files import check_file
from shedding.datasets.ndp import NDP_WIDTH, Parsed, days_in_month, finish, first_line, spark_readable, tagged, unreadable

#: The station table's file name next to the report files.
STATIONS_FILE = "postesSynop.csv"


def station_table(stations: str | os.PathLike | None, folder: Path) -> Path:
    """The station table's path: ``stations``, by default ``postesSynop.csv`` in ``folder``; a
    missing table or one that is not a file is a ShedError."""
    path = Path(stations) if stations is not None else folder / STATIONS_FILE
    if not path.exists():
        raise ShedError(f"SYNOP station table not found: {path}; give it with {{param}} PATH ({STATIONS_FILE})",
                        param="stations")
    check_file(path)
    return path


def _csv(spark: SparkSession, readable: str, path: Path, needed: tuple[str, ...], what: str) -> DataFrame:
    """A ``;`` CSV with a header, every column as text, with file positions (:func:`tagged`); the
    ``needed`` columns (case-insensitive) renamed to lower case. Missing columns -> ShedError."""
    head = first_line(readable)
    names = [c.strip() for c in head.split(";")]
    missing = [c for c in needed if c not in {n.lower() for n in names}]
    if missing:
        ndp = ";" not in head and len(head) == NDP_WIDTH
        looks = "fixed-width NDP-026B records" if ndp else f"first line {head[:40]!r}"
        raise ShedError(f"{path} is not a {what} ({looks}; no column {', '.join(missing)}); "
                        f"give the right file or format (R and S must have the same format)")
    schema = ", ".join(f"`_c{i}` string" for i in range(len(names)))
    frame = tagged(spark.read.csv(readable, sep=";", header=True, schema=schema))
    index = {n.lower(): i for i, n in reversed(list(enumerate(names)))}
    return frame.select("_block", "_id", *(F.col(f"_c{index[c]}").alias(c) for c in needed))


def read_stations(spark: SparkSession, path: str | os.PathLike) -> DataFrame:
    """The station table as ``station`` (int), ``lat``, ``lon`` (degrees); a bad row is a ShedError."""
    path = Path(path)
    with spark_readable(path) as readable:
        table = _csv(spark, readable, path, ("id", "latitude", "longitude"),
                     "SYNOP station table (ID;Nom;Latitude;Longitude;...)")
        try:
            stations = table.selectExpr(
                "_block", "_id", "trim(id) AS id_text", "try_cast(trim(id) AS INT) AS station",
                "try_cast(trim(latitude) AS DOUBLE) AS lat", "try_cast(trim(longitude) AS DOUBLE) AS lon",
            ).orderBy("_block", "_id").collect()
        except Exception as exc:  # Spark/Py4J raise many types for unreadable input
            raise unreadable(path, exc) from None
    if not stations:
        raise ShedError(f"{path} lists no station; give the SYNOP station table ({STATIONS_FILE})")
    seen: set[int] = set()
    for line, row in enumerate(stations, start=2):
        if row["station"] is None or row["lat"] is None or row["lon"] is None \
                or not -90 <= row["lat"] <= 90 or not -360 <= row["lon"] <= 360:
            raise ShedError(f"{path} line {line}: station {row['id_text']!r} needs a numeric ID, latitude in "
                            f"[-90, 90] and longitude in [-360, 360]; fix that row")
        if row["station"] in seen:
            raise ShedError(f"{path} line {line}: station {row['id_text']} is listed twice; keep one row")
        seen.add(row["station"])
    rows = [(r["station"], r["lat"], r["lon"]) for r in stations]
    return spark.createDataFrame(rows, "station int, lat double, lon double")


def _valid_date(date: str) -> str:
    """Spark SQL: the 14-digit text ``date`` (YYYYMMDDHHMMSS) is a real calendar time."""
    part = {name: f"try_cast(substring({date}, {start}, {width}) AS INT)" for name, start, width in (
        ("year", 1, 4), ("month", 5, 2), ("day", 7, 2), ("hour", 9, 2), ("minute", 11, 2), ("second", 13, 2))}
    month_length = days_in_month(part["year"], part["month"])
    return (f"{part['month']} BETWEEN 1 AND 12 AND {part['day']} BETWEEN 1 AND {month_length}"
            f" AND {part['hour']} BETWEEN 0 AND 23 AND {part['minute']} BETWEEN 0 AND 59"
            f" AND {part['second']} BETWEEN 0 AND 59")


def read_synop(
    spark: SparkSession, path: str | os.PathLike, stations: str | os.PathLike | DataFrame | None = None
) -> Parsed:
    """Read one SYNOP CSV (plain, ``.gz`` or ``.Z``) on Spark, joined with the station table.

    ``stations``: the table's path (default ``postesSynop.csv`` next to ``path``) or a frame from
    :func:`read_stations`. Columns: ``line`` (file line, the header is line 1), ``station``,
    ``time`` (YYYYMMDDHHMMSS), ``lat``, ``lon``, ``land`` (always true: SYNOP stations are on land).
    """
    path = Path(path)
    if not isinstance(stations, DataFrame):
        stations = station_table(stations, path.absolute().parent)
    with spark_readable(path) as readable:
        rows = _csv(spark, readable, path, ("numer_sta", "date"), "SYNOP report file (numer_sta;date;...)")
        table = F.broadcast(stations if isinstance(stations, DataFrame) else read_stations(spark, stations))
        cleaned = rows.selectExpr("_block", "_id", "coalesce(trim(numer_sta), '') AS sta",
                                  "coalesce(trim(date), '') AS date")
        checked = cleaned.selectExpr(
            "_block", "_id", "try_cast(sta AS INT) AS station", "try_cast(date AS BIGINT) AS time",
            "CASE WHEN date IN ('', 'mq') THEN 'missing date' WHEN NOT date RLIKE '^[0-9]{14}$' THEN 'non-digit date' "
            f"WHEN NOT ({_valid_date('date')}) THEN 'impossible date' "
            "WHEN NOT sta RLIKE '^[0-9]+$' THEN 'non-digit station' END AS problem",
        ).join(table, "station", "left").selectExpr(
            "_block", "_id", "station", "time", "lat", "lon", "true AS land",
            "coalesce(problem, CASE WHEN lat IS NULL THEN 'unknown station' END) AS problem",
        )
        return finish(checked, path, "synop", "SYNOP", first=2)
