"""Weather workloads (paper §4.5): the NDP-026B and SYNOP readers, gridding, ordering, truncation,
frequency tables, the Parquet cache and the bundled SYNOP sample."""

from __future__ import annotations

import bz2
import gzip
import time
from pathlib import Path

import ncompress
import numpy as np
import pandas as pd
import pytest

from helpers import assert_one_line_error
from shedding.datasets.ndp import DEFAULT_WEATHER, NDP_WIDTH, read_ndp, write_ndp, write_ndp_lines
from shedding.datasets.synop import read_synop
from shedding.datasets.weather import (
    SAMPLE_FILE,
    cell_key_column,
    cell_keys,
    frequency_tables,
    grid_shape,
    synop_sample_workload,
    weather_workload,
)
from shedding.errors import ShedError
from shedding.model import R, S

SYNOP_DIR = "synop-meteofrance-2013-01-02"
SHARED = next((p for p in (Path(__file__).resolve().parents[3] / "shared" / "data" / SYNOP_DIR,
                           Path("/work/shared/data") / SYNOP_DIR) if p.is_dir()), None)


def reports(*rows: tuple) -> pd.DataFrame:
    """NDP rows (day, hour, lat, lon, land) of September 1985, station = row number."""
    table = pd.DataFrame(rows, columns=["day", "hour", "lat", "lon", "land"])
    return table.assign(year=1985, month=9, station=np.arange(len(rows)) + 1000)


def key(lat: float, lon: float) -> int:
    return int(cell_keys([lat], [lon], 10.0)[0])


# ------------------------------------------------------------------ the NDP writer and reader


def test_written_lines_are_format_exact():
    table = reports((1, 0, -90.0, 0.0, True), (30, 21, 90.0, 360.0, False), (2, 3, 45.12, 359.99, True))
    lines = write_ndp_lines(table)
    assert [len(line) for line in lines] == [NDP_WIDTH] * 3
    assert lines[0][:8] == "85090100" and lines[1][:8] == "85093021"
    assert [line[9:14] for line in lines] == ["-9000", " 9000", " 4512"]
    assert [line[14:19] for line in lines] == ["    0", "36000", "35999"]
    assert [line[19:24] for line in lines] == [" 1000", " 1001", " 1002"]
    assert [line[24] for line in lines] == ["1", "2", "1"]
    assert all(line[8] == "1" and line[25:] == DEFAULT_WEATHER for line in lines)
    with pytest.raises(ShedError) as exc:
        write_ndp_lines(table.drop(columns="land"))
    assert_one_line_error(exc, "land")
    with pytest.raises(ShedError) as exc:
        write_ndp_lines(table.assign(lat=[0.0, 91.0, 0.0]))
    assert_one_line_error(exc, "row 1", "lat")


@pytest.mark.parametrize("suffix", ["", ".gz", ".Z"])
def test_ndp_round_trip(spark, tmp_path, suffix):
    rng = np.random.default_rng(5)
    n = 40
    table = pd.DataFrame({
        "year": rng.integers(1981, 1992, n), "month": rng.integers(1, 13, n), "day": rng.integers(1, 29, n),
        "hour": rng.integers(0, 24, n), "lat": rng.integers(-9000, 9001, n) / 100,
        "lon": rng.integers(0, 36001, n) / 100,
        "station": rng.integers(1000, 99000, n), "land": rng.random(n) < 0.7, "sky": rng.integers(0, 2, n),
    })
    path = write_ndp(table, tmp_path / f"SEP85L{suffix}")
    if suffix:
        assert path.read_bytes()[:2] == {".gz": b"\x1f\x8b", ".Z": b"\x1f\x9d"}[suffix]
    parsed = read_ndp(spark, path)
    assert (parsed.report.records, parsed.report.valid, parsed.report.dropped_total) == (n, n, 0)
    got = parsed.frame.orderBy("line").toPandas()
    assert got["line"].tolist() == list(range(1, n + 1))
    for column in ("year", "month", "day", "hour", "station", "sky"):
        assert got[column].tolist() == table[column].tolist(), column
    assert np.allclose(got["lat"], table["lat"]) and np.allclose(got["lon"], table["lon"])
    assert got["land"].tolist() == table["land"].tolist()
    assert (got["land_flag"] == np.where(table["land"], 1, 2)).all() and (got["weather"] == DEFAULT_WEATHER).all()
    stamp = table.year * 10**10 + table.month * 10**8 + table.day * 10**6 + table.hour * 10**4
    assert got["time"].tolist() == stamp.tolist()


def test_malformed_lines_are_counted_with_line_numbers(spark, tmp_path):
    good = write_ndp_lines(reports((1, 0, 10.0, 10.0, True), (2, 6, -33.5, 151.2, True), (3, 12, 0.0, 0.0, False)))
    leap = write_ndp_lines(reports((29, 0, 1.0, 1.0, True)).assign(year=1984, month=2))[0]
    bad = {
        "wrong length": [good[0][:-1], good[0] + " ", ""],
        "non-digit date": ["85O" + good[0][3:]],
        "non-digit latitude": [good[0][:10] + "4x12" + good[0][14:], good[0][:9] + " 100 " + good[0][14:]],
        "non-digit station": [good[0][:19] + "+1000" + good[0][24:], good[0][:19] + " 1 00" + good[0][24:]],
        "coordinates out of range": [good[0][:9] + " 9001" + good[0][14:], good[0][:14] + "36001" + good[0][19:]],
        "impossible date": ["850931" + good[0][6:], "850229" + good[0][6:], "85090124" + good[0][8:],
                            "851301" + good[0][6:]],
        "bad land/ocean flag": [good[0][:24] + "3" + good[0][25:]],
    }
    lines = [good[0], *bad["wrong length"], good[1], *bad["non-digit date"], *bad["non-digit latitude"], leap,
             *bad["coordinates out of range"], *bad["impossible date"], *bad["bad land/ocean flag"],
             *bad["non-digit station"], good[2]]
    path = tmp_path / "SEP85L"
    path.write_text("\n".join(lines) + "\n")
    parsed = read_ndp(spark, path)
    rep = parsed.report
    assert rep.records == len(lines) and rep.valid == 4
    assert rep.dropped == {reason: len(rows) for reason, rows in bad.items()}
    assert rep.first_bad == ((2, "wrong length"), (3, "wrong length"), (4, "wrong length"),
                             (6, "non-digit date"), (7, "non-digit latitude"))
    assert parsed.frame.orderBy("line").toPandas()["line"].tolist() == [1, 5, 9, len(lines)]
    assert rep.sentence() == (
        "SEP85L: 19 lines read, 4 valid, 15 dropped (4 impossible date, 3 wrong length, 2 coordinates out of range, "
        "2 non-digit latitude, 2 non-digit station, 1 bad land/ocean flag, 1 non-digit date; "
        "first bad lines: 2, 3, 4, 6, 7)")


def test_bad_files_are_one_line_errors(spark, tmp_path):
    plain = write_ndp(reports((1, 0, 0.0, 0.0, True)), tmp_path / "ok")
    cases = {
        tmp_path / "missing.Z": ("not found",),
        tmp_path / "x.bz2": ("unsupported compression", "bzip2"),
        tmp_path / "bz2-inside": ("unsupported compression", "bzip2"),
        tmp_path / "plain.Z": ("not unix-compress", "1f9d"),
        tmp_path / "plain.gz": ("not gzip",),
        tmp_path / "damaged.Z": ("cannot decompress",),
        tmp_path / "garbage.txt": ("no valid ndp-026b record", "line 1: wrong length"),
        tmp_path / "empty": ("no valid", "empty"),
    }
    (tmp_path / "x.bz2").write_bytes(bz2.compress(plain.read_bytes()))
    (tmp_path / "bz2-inside").write_bytes(bz2.compress(plain.read_bytes()))
    (tmp_path / "plain.Z").write_bytes(plain.read_bytes())
    (tmp_path / "plain.gz").write_bytes(plain.read_bytes())
    (tmp_path / "damaged.Z").write_bytes(b"\x1f\x9d\x90" + bytes(range(256)) * 4)
    (tmp_path / "garbage.txt").write_text("this is not\na cloud report\n")
    (tmp_path / "empty").write_bytes(b"")
    for path, words in cases.items():
        with pytest.raises(ShedError) as exc:
            read_ndp(spark, path)
        assert_one_line_error(exc, *words)
    (tmp_path / "gzip-named-plain").write_bytes(gzip.compress(plain.read_bytes()))
    assert read_ndp(spark, tmp_path / "gzip-named-plain").report.valid == 1


def test_wrong_format_and_options_are_one_line_errors(spark, tmp_path):
    ndp = write_ndp(reports((1, 0, 0.0, 0.0, True)), tmp_path / "SEP85L")
    csv = tmp_path / "synop.csv"
    csv.write_text("numer_sta;date;n;\n07005;20130101000000;mq;\n")
    (tmp_path / "postesSynop.csv").write_text("ID;Nom;Latitude;Longitude;Altitude\n07005;ABBEVILLE;50.136;1.834;69\n")
    checks = [
        (dict(r_path=ndp, s_path=ndp, fmt="synop"), ("not a synop report file", "ndp-026b", "same format")),
        (dict(r_path=csv, s_path=csv, fmt="ndp"), ("csv", "synop", "same format")),
        (dict(r_path=ndp, s_path=ndp, fmt="netcdf"), ("unknown weather format",)),
        (dict(r_path=ndp, s_path=ndp, fmt="ndp", cell_size=0), ("cell_size",)),
        (dict(r_path=ndp, s_path=tmp_path / "nope", fmt="ndp"), ("not found",)),
    ]
    for kwargs, words in checks:
        with pytest.raises(ShedError) as exc:
            weather_workload(window=5, spark=spark, cache_dir=tmp_path / "cache", **kwargs)
        assert_one_line_error(exc, *words)


# ------------------------------------------------------------------ the grid


def test_grid_keys_at_edges(spark):
    assert grid_shape(10.0) == (18, 36) and grid_shape(1.0) == (180, 360) and grid_shape(7.0) == (26, 52)
    points = [  # lat, lon, key on the 10-degree grid
        (-90.0, 0.0, 0), (90.0, 0.0, 17 * 36), (0.0, 360.0, 9 * 36), (0.0, -0.5, 9 * 36 + 35),
        (-90.0, 359.99, 35), (89.99, -180.0, 17 * 36 + 18), (10.0, 10.0, 10 * 36 + 1), (-0.01, 720.0, 8 * 36),
        (45.12, -1.94, 13 * 36 + 35), (-60.0, 0.0, 3 * 36),
    ]
    lat, lon, expected = (np.array(col) for col in zip(*points, strict=True))
    assert cell_keys(lat, lon, 10.0).tolist() == expected.tolist()
    frame = spark.createDataFrame([(float(a), float(b)) for a, b, _ in points], "lat double, lon double")
    rows = frame.select(*(cell_key_column(frame["lat"], frame["lon"], cell) for cell in (10.0, 0.1))).collect()
    assert [row[0] for row in rows] == expected.tolist()
    assert [row[1] for row in rows] == cell_keys(lat, lon, 0.1).tolist()
    assert cell_keys([-60.0], [0.3], 0.1).tolist() == [300 * 3600 + 3]  # 0.1 is inexact in binary
    with pytest.raises(ShedError) as exc:
        grid_shape(-1)
    assert_one_line_error(exc, "cell_size")


# ------------------------------------------------------------------ the workload


A, B, C, D, E, F = (10.0, 10.0), (20.0, 20.0), (30.0, 30.0), (40.0, 40.0), (50.0, 50.0), (60.0, 60.0)
G, H, K = (-10.0, 100.0), (-20.0, 200.0), (-30.0, 300.0)


@pytest.fixture(scope="module")
def weather_files(tmp_path_factory):
    """R (.Z): land reports A 06h, B 00h, C 06h (ties with A), ocean D 00h, a bad line, E 03h, F next day.
    S (.gz): land H 12h, G 00h, ocean A 00h, K 12h. In time order R is B E A C F, S is G H K."""
    folder = tmp_path_factory.mktemp("weather")
    r_lines = write_ndp_lines(reports((1, 6, *A, True), (1, 0, *B, True), (1, 6, *C, True), (1, 0, *D, False),
                                      (1, 3, *E, True), (2, 0, *F, True)))
    r_lines.insert(4, "not a report")
    r_path = folder / "SEP85L.Z"
    r_path.write_bytes(ncompress.compress(("\n".join(r_lines) + "\n").encode()))
    s_table = reports((1, 12, *H, True), (1, 0, *G, True), (1, 0, *A, False), (1, 12, *K, True))
    s_path = write_ndp(s_table.assign(year=1986), folder / "SEP86L.gz")
    return r_path, s_path, folder / "cache"


@pytest.fixture(scope="module")
def weather(weather_files, spark):
    r_path, s_path, cache = weather_files
    start = time.perf_counter()
    wl = weather_workload(r_path, s_path, "ndp", window=2, spark=spark, cache_dir=cache)
    return wl, time.perf_counter() - start


def test_workload_orders_by_time_with_ties_in_file_order_and_truncates(weather):
    wl, _ = weather
    assert wl.window == 2 and wl.warmup == 4 and wl.n_r == wl.n_s == 3
    assert wl.stream(R)[1].tolist() == [key(*B), key(*E), key(*A)]  # C ties with A at 06h but comes later
    assert wl.stream(S)[1].tolist() == [key(*G), key(*H), key(*K)]
    assert wl.stream(R)[0].tolist() == [0, 1, 2]  # tuple-synchronous: the i-th report arrives at i
    meta = wl.meta
    assert meta["truncated"]["stream"] == "R" and meta["truncated"]["count"] == 2 and meta["truncated"]["length"] == 3
    assert "2 were dropped" in meta["truncated"]["sentence"] and meta["truncated"]["sentence"] in meta["summary"]
    r = meta["streams"]["R"]
    assert (r["records"], r["valid"], r["dropped"], r["first_bad_lines"], r["not_land"]) == (7, 6, 1, [5], 1)
    assert meta["streams"]["S"]["not_land"] == 1 and "1 ocean reports left out" in meta["summary"]
    assert meta["format"] == "ndp" and meta["cell_size"] == 10.0 and meta["grid"] == [18, 36]
    assert [Path(p).name for p in meta["source"]] == ["SEP85L.Z", "SEP86L.gz"]


def test_frequency_tables_come_from_the_truncated_streams(weather):
    wl, _ = weather
    keys, count_r, count_s = wl.key_counts()
    freq = wl.meta["frequencies"]
    assert freq == {"key": keys.tolist(), "R": count_r.tolist(), "S": count_s.tolist()}
    assert key(*C) not in freq["key"]  # C is cut: same time as A, later line
    assert wl.meta["distinct_keys"] == 6
    k, p_r, p_s = frequency_tables(wl)
    assert k.tolist() == keys.tolist() and np.isclose(p_r.sum(), 1) and np.isclose(p_s.sum(), 1)


def test_land_filter_can_be_switched_off(weather_files, spark):
    r_path, s_path, cache = weather_files
    wl = weather_workload(r_path, s_path, "ndp", window=2, land_only=False, spark=spark, cache_dir=cache)
    assert wl.stream(R)[1].tolist() == [key(*B), key(*D), key(*E), key(*A)]  # B, D at 00h in file order
    assert wl.stream(S)[1].tolist() == [key(*G), key(*A), key(*H), key(*K)]
    assert wl.meta["land_only"] is False and wl.meta["truncated"]["count"] == 2


def test_parquet_cache_hit_is_fast_and_equal(weather, weather_files):
    wl, first = weather
    r_path, s_path, cache = weather_files
    start = time.perf_counter()
    again = weather_workload(r_path, s_path, "ndp", window=2, cache_dir=cache)  # no Spark needed
    hit = time.perf_counter() - start
    assert wl.meta["cache"]["hit"] is False and again.meta["cache"]["hit"] is True
    assert hit < first / 3, (hit, first)
    for attr in ("side", "time", "key"):
        assert np.array_equal(getattr(again, attr), getattr(wl, attr))
    assert (again.window, again.warmup, again.name) == (wl.window, wl.warmup, wl.name)
    assert {k: v for k, v in again.meta.items() if k != "cache"} == {k: v for k, v in wl.meta.items() if k != "cache"}
    other = weather_workload(r_path, s_path, "ndp", window=7, warmup=3, cache_dir=cache)
    assert other.meta["cache"]["hit"] and (other.window, other.warmup) == (7, 3)


def test_changed_input_misses_the_cache(spark, tmp_path):
    table = reports((1, 0, *A, True), (1, 3, *B, True))
    r_path, s_path = write_ndp(table, tmp_path / "r"), write_ndp(table, tmp_path / "s")
    first = weather_workload(r_path, s_path, "ndp", window=1, spark=spark, cache_dir=tmp_path / "cache")
    assert not first.meta["cache"]["hit"]
    r_path.write_text("a changed file is parsed again: this one has no valid record\n")
    with pytest.raises(ShedError) as exc:
        weather_workload(r_path, s_path, "ndp", window=1, spark=spark, cache_dir=tmp_path / "cache")
    assert_one_line_error(exc, "no valid")


# ------------------------------------------------------------------ SYNOP


def test_synop_reader_reports_unknown_stations_and_bad_dates(spark, tmp_path):
    (tmp_path / "postesSynop.csv").write_text(
        "ID;Nom;Latitude;Longitude;Altitude\n"
        "07020;PTE DE LA HAGUE;49.725167;-1.939833;6\n07621;TARBES;43.188;0.0;360\n")
    rows = ["07020;20130101000000;1", "99999;20130101000000;2", "07621;mq;3", "07621;20130230000000;4",
            "7x;20130101030000;5", "07621;20130101030000;6", "07020;20130101030000;7"]
    path = tmp_path / "synop.201301.csv.gz"
    path.write_bytes(gzip.compress(("numer_sta;date;n;\n" + "\n".join(rows) + "\n").encode()))
    parsed = read_synop(spark, path)
    rep = parsed.report
    assert (rep.records, rep.valid) == (7, 3)
    assert rep.dropped == {"unknown station": 1, "missing date": 1, "impossible date": 1, "non-digit station": 1}
    assert rep.first_bad == ((3, "unknown station"), (4, "missing date"), (5, "impossible date"),
                             (6, "non-digit station"))
    got = parsed.frame.orderBy("line").toPandas()
    assert got["line"].tolist() == [2, 7, 8] and got["station"].tolist() == [7020, 7621, 7020]
    assert got["time"].tolist() == [20130101000000, 20130101030000, 20130101030000]
    assert np.allclose(got["lon"], [-1.939833, 0.0, -1.939833]) and got["land"].all()
    assert key(49.725167, -1.939833) == 13 * 36 + 35


def test_synop_sample_workload_needs_no_shared_data(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # only package data is read
    sample = Path(__file__).resolve().parents[2] / "shedding" / "datasets" / "data" / SAMPLE_FILE
    assert sample.is_file() and sample.stat().st_size < 500_000
    assert (sample.parent / "SYNOP-ATTRIBUTION.md").read_text().count("Source: Météo-France") >= 1
    wl = synop_sample_workload()
    assert wl.n_r == wl.n_s == 13_264 and wl.window == 500 and wl.warmup == 1000
    meta = wl.meta
    assert meta["streams"]["R"]["records"] == 14_719 and meta["streams"]["S"]["records"] == 13_264
    assert meta["truncated"]["stream"] == "R" and meta["truncated"]["count"] == 1_455
    assert meta["distinct_keys"] == 14 and "Météo-France" in meta["attribution"]
    fine = synop_sample_workload(cell_size=1.0, window=100, warmup=0)
    assert fine.meta["distinct_keys"] > 14 and fine.warmup == 0 and fine.meta["grid"] == [180, 360]


@pytest.mark.skipif(SHARED is None, reason="the shared SYNOP data (../shared/data or /work/shared/data) is absent")
def test_shared_synop_files_parse_with_the_expected_counts(spark, tmp_path):
    wl = weather_workload(SHARED / "synop.201301.csv.gz", SHARED / "synop.201302.csv.gz", "synop", window=500,
                          spark=spark, cache_dir=tmp_path)
    r, s = wl.meta["streams"]["R"], wl.meta["streams"]["S"]
    assert r["records"] == 14_719 and s["records"] == 13_264
    assert r["valid"] == 14_719 - r["dropped"] and s["valid"] == 13_264 - s["dropped"], wl.meta["summary"]
    assert (r["dropped"], s["dropped"]) == (0, 0), wl.meta["summary"]
    sample = synop_sample_workload()
    assert np.array_equal(wl.key, sample.key) and wl.meta["frequencies"] == sample.meta["frequencies"]
