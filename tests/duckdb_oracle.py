"""DuckDB as the independent oracle of the time-range join (docs/semantics.md, "Time ranges"): r
and s pair when their keys are equal and ``lo <= s.time - r.time <= hi``. Each function is one SQL
query over pandas frames, so the engines are held to a database's join, not to another copy of
our own loops."""

from __future__ import annotations

import duckdb
import pandas as pd

from shedding.model import Workload


def _query(sql: str, **frames: pd.DataFrame) -> pd.DataFrame:
    with duckdb.connect() as con:
        for name, frame in frames.items():
            con.register(name, frame)
        return con.execute(sql).df()


def range_pairs(wl: Workload) -> set[tuple[int, int]]:
    """The (R index, S index) pairs of ``wl`` by SQL: keys equal, the range's condition, and the
    warmup on the later of the two times (the pairs EXACT counts)."""
    lo, hi = wl.bounds
    tuples = pd.DataFrame({"i": range(len(wl)), "side": wl.side, "time": wl.time, "key": wl.key})
    got = _query(f"""
        SELECT r.i AS r, s.i AS s FROM tuples r JOIN tuples s
          ON r.key = s.key AND s.time - r.time BETWEEN {lo} AND {hi}
        WHERE r.side = 0 AND s.side = 1 AND greatest(r.time, s.time) >= {wl.warmup}""", tuples=tuples)
    return set(zip(got["r"].tolist(), got["s"].tolist()))


def without_partner(r: pd.DataFrame, s: pd.DataFrame, condition: str) -> tuple[list, list]:
    """The sorted (key, time) of the R and of the S rows with no partner under ``condition`` (SQL
    over ``r.time`` and ``s.time``), by a full outer join."""
    got = _query(f"""
        SELECT r.key AS r_key, r.time AS r_time, s.key AS s_key, s.time AS s_time
        FROM r FULL OUTER JOIN s ON r.key = s.key AND {condition}
        WHERE r.time IS NULL OR s.time IS NULL""", r=r, s=s)
    lone_r, lone_s = got[got["s_time"].isna()], got[got["r_time"].isna()]
    return (sorted(zip(lone_r["r_key"].astype(int), lone_r["r_time"])),
            sorted(zip(lone_s["s_key"].astype(int), lone_s["s_time"])))


def inner_pairs(r: pd.DataFrame, s: pd.DataFrame, condition: str) -> list[tuple]:
    """The sorted (key, r.time, s.time) of the pairs under ``condition``."""
    got = _query(f"SELECT r.key, r.time AS r_time, s.time AS s_time FROM r JOIN s ON r.key = s.key AND {condition}",
                 r=r, s=s)
    return sorted(zip(got["key"].astype(int), got["r_time"], got["s_time"]))


def windowed_counts(r: pd.DataFrame, s: pd.DataFrame, condition: str, minutes: int) -> dict[pd.Timestamp, int]:
    """The count of pairs per tumbling window of ``minutes`` of event time, a pair's event time being
    the later of its two times (the streaming join's ``event_time``). Times are UTC; they go to
    DuckDB without their zone, so no session time zone enters the buckets."""
    naive = {name: frame.assign(time=frame["time"].dt.tz_convert(None)) for name, frame in (("r", r), ("s", s))}
    got = _query(f"""
        SELECT time_bucket(INTERVAL {minutes} MINUTE, greatest(r.time, s.time)) AS start, count(*) AS n
        FROM r JOIN s ON r.key = s.key AND {condition} GROUP BY start""", **naive)
    return {pd.Timestamp(start).tz_localize("UTC"): int(n) for start, n in zip(got["start"], got["n"])}
