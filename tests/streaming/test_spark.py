"""The semantic window join as real Structured Streaming queries (RocksDB state, checkpoints, file
sources) against the batch simulator, EXACT and Spark's own stream-stream join."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from helpers import assert_one_line_error
from shedding import Workload, exact_pairs, simulate, zipf_workload
from shedding.errors import ShedError
from shedding.streaming.job import StreamJob, run_on
from shedding.streaming.partition import shard_budgets, shard_of
from shedding.streaming.results import PAIRS, read_table
from shedding.streaming.shard import JoinSpec
from shedding.streaming.sources import inspect_source

W, M = 60, 60


def write_stream(folder: Path, time: np.ndarray, key: np.ndarray, cuts: list[int], fmt: str = "csv",
                 first: int = 0) -> None:
    """One stream as files cut at row positions ``cuts``; file i is older than file i + 1."""
    folder.mkdir(parents=True, exist_ok=True)
    for i, idx in enumerate(np.split(np.arange(len(time)), cuts), start=first):
        frame = pd.DataFrame({"time": time[idx], "key": key[idx], "tag": [f"x{t}" for t in time[idx]]})
        path = folder / f"part-{i:03d}.{fmt}"
        frame.to_csv(path, index=False) if fmt == "csv" else frame.to_parquet(path, index=False)
        os.utime(path, (1_000_000 + i, 1_000_000 + i))


def write_workload(base: Path, wl: Workload, files: int, out_of_step: bool = False, fmt: str = "csv") -> tuple:
    for side, name in ((0, "r"), (1, "s")):
        t, k = wl.stream(side)
        cuts = list(np.linspace(0, len(t), files + 1).astype(int)[1:-1])
        if out_of_step and side == 1:
            cuts = [max(1, c - len(t) // (3 * files)) for c in cuts]  # S lags R in every file
        write_stream(base / name, t, k, cuts, fmt)
    return base / "r", base / "s"


def stream_job(base: Path, spec: JoinSpec, max_files: int | None, estimator: str = "online",
               fmt: str | None = None) -> StreamJob:
    return StreamJob(inspect_source(base / "r", fmt, "stream R"), inspect_source(base / "s", fmt, "stream S"),
                     base / "out", base / "ck", spec, estimator=estimator, trigger="available-now",
                     max_files_per_trigger=max_files, master="local[2]")


def pairs_of(out: Path) -> list[tuple]:
    p = read_table(out, PAIRS)
    return sorted(zip(p["key"], p["r_time"], p["s_time"]))


def simulated(wl: Workload, policy: str, memory: int, **kw) -> list[tuple]:
    p = simulate(wl, policy, memory, pairs=True, **kw).pairs
    return sorted(zip(wl.key[p[:, 0]], wl.time[p[:, 0]], wl.time[p[:, 1]]))


@pytest.fixture(scope="module")
def workload() -> Workload:
    return zipf_workload(1.0, 40, 1200, seed=3, window=W, warmup=0)


def test_shard_of_is_sparks_pmod_hash(spark):
    keys = np.random.default_rng(0).integers(-2**62, 2**62, 500)
    got = spark.createDataFrame(pd.DataFrame({"k": keys})).selectExpr("k", "pmod(hash(k), 5) AS p").toPandas()
    assert (shard_of(got["k"].to_numpy(), 5) == got["p"].to_numpy()).all()


@pytest.mark.parametrize("policy, estimator, max_files, out_of_step", [
    ("prob", "static", 1, False),    # one file per trigger, the paper's frequency table
    ("lifev", "online", 3, True),    # several files per trigger, S lagging R
    ("rand", "online", None, False),  # everything in one micro-batch
    ("probv", "table", 2, True),     # a frequency-table file
])
def test_p1_equals_the_simulator(spark, tmp_path, workload, policy, estimator, max_files, out_of_step):
    write_workload(tmp_path, workload, 6, out_of_step)
    est = estimator
    if estimator == "table":
        keys, cr, cs = workload.key_counts()
        est = str(tmp_path / "freq.csv")
        pd.DataFrame({"key": keys, "count_r": cr, "count_s": cs}).to_csv(est, index=False)
    spec = JoinSpec(W, M, policy, estimator="online" if est == "online" else "static", seed=9,
                    payload_r=("tag",), payload_s=("tag",))
    summary = run_on(spark, stream_job(tmp_path, spec, max_files, est))
    expected = simulated(workload, policy, M, estimator="online" if est == "online" else "static", seed=9)
    assert pairs_of(tmp_path / "out") == expected
    assert summary["outputs"] == len(expected) and summary["arrivals"] == len(workload)
    assert summary["late"] == summary["bad"] == 0 and summary["peak_memory"] <= M
    # the end of input goes in with the last files: with the first micro-batch when it takes every
    # file, else once the last batch but one is planned (job._marker_after)
    assert summary["batches"] == (1 if max_files is None else -(-6 // max_files)) and summary["ended"] == 1
    tags = read_table(tmp_path / "out", PAIRS)
    assert (tags["r_tag"] == "x" + tags["r_time"].astype(str)).all()
    assert (tags["s_tag"] == "x" + tags["s_time"].astype(str)).all()


def test_each_shard_equals_a_simulator_on_its_keys(spark, tmp_path, workload):
    shards = 3
    write_workload(tmp_path, workload, 4, fmt="parquet")
    spec = JoinSpec(W, M, "prob", shards=shards, budget="even")
    summary = run_on(spark, stream_job(tmp_path, spec, 2))
    assert summary["ended"] == 1  # one flag, not one per shard
    got = pairs_of(tmp_path / "out")
    mine = shard_of(workload.key, shards)
    expected = []
    for i, (m, m_r, m_s) in enumerate(shard_budgets(M, None, shards)):
        sel = mine == i
        part = Workload(workload.side[sel], workload.time[sel], workload.key[sel], W, 0)
        expected += simulated(part, "prob", m, memory_split=(m_r, m_s), estimator="online", seed=i)
    assert got == sorted(expected)
    metrics = read_table(tmp_path / "out", "metrics")
    assert sorted(metrics["shard"].unique()) == [0, 1, 2]


def test_none_is_exact_and_equals_sparks_native_join(spark, tmp_path, workload):
    from shedding.streaming.native import native_window_join

    r_dir, s_dir = write_workload(tmp_path, workload, 5)
    run_on(spark, stream_job(tmp_path, JoinSpec(W, 0, "none"), 2))
    p = exact_pairs(workload)
    exact = sorted(zip(workload.key[p[:, 0]], workload.time[p[:, 0]], workload.time[p[:, 1]]))
    assert pairs_of(tmp_path / "out") == exact

    def read(d):
        return spark.readStream.schema("time long, key long, tag string").option("header", True) \
            .option("maxFilesPerTrigger", 2).csv(str(d))

    got = []
    query = (native_window_join(read(r_dir), read(s_dir), W).writeStream
             .foreachBatch(lambda df, _: got.extend(map(tuple, df.collect())))
             .option("checkpointLocation", str(tmp_path / "native-ck")).trigger(availableNow=True).start())
    query.awaitTermination()
    assert sorted(got) == exact


def test_the_library_call_on_batch_frames_with_float_times_and_string_keys(spark, tmp_path, workload):
    # semantic_window_join on batch DataFrames (they end by themselves): a double time column and a
    # string key column, joined on the strings; rows whose time is not a whole number (1.5, empty)
    # are counted as bad, the rest joined exactly
    from shedding.streaming.spark_join import configure_session, metric, semantic_window_join

    configure_session(spark, 2)
    t_r, k_r = workload.stream(0)
    t_s, k_s = workload.stream(1)
    r = pd.DataFrame({"ts": t_r.astype(float), "k": k_r.astype(str)})
    r = pd.concat([r, pd.DataFrame({"ts": [1.5, 7.0, np.nan], "k": ["3", "abc", "4"]})], ignore_index=True)
    s = pd.DataFrame({"ts": t_s, "k": k_s.astype(str)})
    out = semantic_window_join(spark.createDataFrame(r), spark.createDataFrame(s), key="K", time="ts", window=W,
                               memory=0, shedding="none", shards=2, with_metrics=True).toPandas()
    p = exact_pairs(workload)
    exact = sorted(zip(workload.key[p[:, 0]].astype(str), workload.time[p[:, 0]], workload.time[p[:, 1]]))
    pairs = out[out["metrics"].isna()]
    assert sorted(zip(pairs["key"], pairs["r_time"], pairs["s_time"])) == exact
    rows = spark.createDataFrame(out[out["metrics"].notna()][["metrics"]])
    totals = rows.select(*(metric(m, total=True) for m in ("bad", "arrivals", "ended"))).first()
    assert (totals["bad"], totals["arrivals"], totals["ended"]) == (2, len(t_r) + len(t_s) + 1, 1)  # a flag
    # with pairs_dir the shards' tasks write the pairs (a batch query is batch 0), the result is the metrics rows
    rows = semantic_window_join(spark.createDataFrame(r), spark.createDataFrame(s), key="K", time="ts", window=W,
                                memory=0, shedding="none", shards=2,
                                pairs_dir=tmp_path / "pairs", metrics_dir=tmp_path / "metrics").toPandas()
    assert len(rows) == 2 and rows["metrics"].notna().all()
    written = read_table(tmp_path, "pairs")
    assert sorted(zip(written["key"], written["r_time"], written["s_time"])) == exact
    assert set(written["batch"]) == {0} and sorted(read_table(tmp_path, "metrics")["shard"]) == [0, 1]


def test_bad_and_late_rows_are_counted_and_the_rest_equals_the_simulator(spark, tmp_path, workload):
    write_workload(tmp_path, workload, 4)
    # garbage rows in a file that arrives mid-stream, and a file of steps long since joined
    (tmp_path / "r" / "part-001.csv").write_text(
        (tmp_path / "r" / "part-001.csv").read_text() + "abc,1,x\n7,1.5,x\n,3,x\n9,,x\n")
    os.utime(tmp_path / "r" / "part-001.csv", (1_000_001, 1_000_001))
    write_stream(tmp_path / "s", np.array([1, 2]), np.array([5, 6]), [], first=900)
    os.utime(tmp_path / "s" / "part-900.csv", (1_000_002, 1_000_002))  # with S's file 2
    summary = run_on(spark, stream_job(tmp_path, JoinSpec(W, M, "prob"), 1))
    assert summary["bad"] == 4 and summary["late"] == 2 and summary["arrivals"] == len(workload)
    assert pairs_of(tmp_path / "out") == simulated(workload, "prob", M, estimator="online")


def test_a_checkpoint_made_with_other_parameters_is_refused_and_kept(spark, tmp_path, workload):
    write_workload(tmp_path, workload, 2)
    run_on(spark, stream_job(tmp_path, JoinSpec(W, M, "prob"), None))
    before = {p: p.stat().st_mtime_ns for p in (tmp_path / "ck").rglob("*")}
    for spec in (JoinSpec(W, M + 1, "prob"), JoinSpec(W, M, "life"), JoinSpec(W + 1, M, "prob"),
                 JoinSpec(W, M, "prob", shards=2)):
        with pytest.raises(ShedError) as exc:
            run_on(spark, stream_job(tmp_path, spec, None))
        assert_one_line_error(exc, "checkpoint", "other parameters", "use a new checkpoint")
    assert {p: p.stat().st_mtime_ns for p in (tmp_path / "ck").rglob("*")} == before
    # the same parameters continue: nothing new, nothing duplicated
    first = pairs_of(tmp_path / "out")
    run_on(spark, stream_job(tmp_path, JoinSpec(W, M, "prob"), None))
    assert pairs_of(tmp_path / "out") == first


def test_hazard_runs_with_the_learner_it_is_given_and_keeps_it_with_the_checkpoint(spark, tmp_path):
    from shedding.datasets.age import age_workload
    from shedding.online.tuning import HazardTuning

    aged = age_workload(length=1500, window=100, lag_mean=30, lag_spread=5)
    order = np.lexsort((aged.key, aged.side, aged.time))  # the streaming join's order within a step
    wl = Workload(aged.side[order], aged.time[order], aged.key[order], 100, 0)
    write_workload(tmp_path, wl, 3)
    spec = JoinSpec(100, 20, "hazard", tuning="ratio=1.5,first=4")
    summary = run_on(spark, stream_job(tmp_path, spec, None))
    expected = simulated(wl, "hazard", 20, estimator="online", tuning=HazardTuning(first=4, ratio=1.5))
    assert pairs_of(tmp_path / "out") == expected != simulated(wl, "hazard", 20, estimator="online")
    assert summary["outputs"] == len(expected)
    with pytest.raises(ShedError) as exc:  # the default learner is another parameter
        run_on(spark, stream_job(tmp_path, JoinSpec(100, 20, "hazard"), None))
    assert_one_line_error(exc, "checkpoint", "other parameters", "use a new checkpoint")


def test_payload_columns_named_with_a_dot_or_twice_are_carried(spark, tmp_path):
    """Spark reads a dot in a column's name as a struct's field: a payload ``price.usd``, or the
    ``v.1`` of a CSV file with two columns ``v``, once failed the query's planning (a traceback)."""
    for name, rows in (("r", "1,1,3.5,a,b\n2,2,4,c,d\n"), ("s", "3,1,1,e,f\n9,2,2,g,h\n")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "a.csv").write_text("time,key,price.usd,v,v\n" + rows)
    run_on(spark, stream_job(tmp_path, JoinSpec(6, M, "none", payload_r=("price.usd", "v", "v.1"),
                                                payload_s=("price.usd", "v.1"), range=(0, 5), how="full"), None))
    out = read_table(tmp_path / "out", PAIRS).sort_values("r_time", na_position="last")
    assert out[["r_price.usd", "r_v", "r_v.1", "s_price.usd", "s_v.1"]].astype(str).values.tolist() == [
        ["3.5", "a", "b", "1.0", "f"], ["4.0", "c", "d", "nan", "None"], ["nan", "None", "None", "2.0", "h"]]


def test_a_run_refused_while_its_query_is_built_records_no_parameters(spark, tmp_path):
    """A first run that fails before its query starts leaves no parameters or sources behind,
    which a corrected rerun would be held to."""
    for name, rows in (("r", "0,1,1\n"), ("s", "1,1,one\n")):  # tag: integers in R, text in S
        (tmp_path / name).mkdir()
        (tmp_path / name / "a.csv").write_text("time,key,tag\n" + rows)
    with pytest.raises(ShedError) as exc:
        run_on(spark, stream_job(tmp_path, JoinSpec(W, M, "hazard", group=("tag",)), None))
    assert_one_line_error(exc, "group", "'tag'")
    assert not [p.name for p in (tmp_path / "out").rglob("*.json")] + [p.name for p in (tmp_path / "ck").rglob("*.json")]


@pytest.mark.parametrize("content, needle", [
    ("when,key\n1,2\n", "has the columns time, key"),
    ("time,key\nx,1\ny,2\n", "holds neither whole numbers nor timestamps"),
])
def test_bad_sources_are_refused_up_front(tmp_path, content, needle):
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "a.csv").write_text(content)
    with pytest.raises(ShedError) as exc:
        inspect_source(tmp_path / "r", None, "stream R")
    assert_one_line_error(exc, needle)


def test_text_keys_and_timestamps_are_read_as_such(tmp_path):
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "a.csv").write_text("time,key,n\n2024-01-01 10:00:00,a,1\n2024-01-01 10:00:01,b,2.5\n")
    assert inspect_source(tmp_path / "r", None, "stream R").types == {"time": "timestamp", "key": "string",
                                                                     "n": "double"}


def test_a_file_of_a_header_alone_does_not_fix_the_types(tmp_path):
    """An hour without rows, written first by pandas, is skipped: the next file's rows tell the types
    (it once refused the folder: "holds neither whole numbers nor timestamps (first value [])")."""
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "a.csv").write_text("time,key\n")
    with pytest.raises(ShedError) as exc:
        inspect_source(tmp_path / "r", None, "stream R")
    assert_one_line_error(exc, "holds no rows yet", "a.csv has only its header line", "add one")
    assert exc.value.param == "r"
    (tmp_path / "r" / "b.csv").write_text("time,key\n3,x\n")
    assert inspect_source(tmp_path / "r", None, "stream R").types == {"time": "bigint", "key": "string"}


def test_the_unnamed_index_pandas_writes_is_no_column(tmp_path):
    """pandas writes an index other than 0, 1, ... as ``__index_level_0__``, and reads it back as the
    index, not a column (as ``shed simulate`` does): no payload ``r___index_level_0__``."""
    (tmp_path / "r").mkdir()
    frame = pd.DataFrame({"time": [1, 2, 3], "key": [4, 5, 6], "n": [7, 8, 9]})
    frame[frame["time"] > 1].to_parquet(tmp_path / "r" / "a.parquet")
    assert inspect_source(tmp_path / "r", None, "stream R").columns == ("time", "key", "n")


def test_a_changed_range_is_named_without_the_window_it_implies(tmp_path):
    from shedding.streaming.job import check_params, record_params
    from shedding.timerange import range_horizon

    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "a.csv").write_text("time,key\n1,1\n")
    src = inspect_source(tmp_path / "r", None, "stream R")

    def job(bounds):
        return StreamJob(src, src, tmp_path / "out", tmp_path / "ck", JoinSpec(range_horizon(*bounds), M, "prob",
                                                                                range=bounds))

    check_params(job((0, 30)))
    record_params(job((0, 30)))
    with pytest.raises(ShedError) as exc:
        check_params(job((0, 31)))
    assert "spec.range was [0, 30], now [0, 31])" in assert_one_line_error(exc, "other parameters")


def test_a_new_checkpoint_beside_a_begun_output_or_the_reverse_is_refused_and_makes_no_folder(tmp_path):
    """A run's output with a new checkpoint would start the join over into the old pairs (it
    reprinted the old summary, joining nothing); a begun checkpoint with a new output would go on
    into a folder without the earlier pairs. A refused run leaves no new folder."""
    from shedding.streaming.job import check_params, record_params

    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "a.csv").write_text("time,key\n1,1\n")
    src = inspect_source(tmp_path / "r", None, "stream R")

    def job(out, checkpoint):
        return StreamJob(src, src, tmp_path / out, tmp_path / checkpoint, JoinSpec(30, M, "prob"))

    check_params(job("out", "ck"))
    record_params(job("out", "ck"))
    check_params(job("out", "ck"))  # the same run goes on
    with pytest.raises(ShedError) as exc:
        check_params(job("out", "ck2"))
    assert_one_line_error(exc, f"checkpoint {tmp_path / 'ck2'} is new, but {tmp_path / 'out'} belongs to a run "
                          "begun with another checkpoint")
    with pytest.raises(ShedError) as exc:
        check_params(job("out2", "ck"))
    assert_one_line_error(exc, f"out {tmp_path / 'out2'} is new", "give that run's out to go on with it")
    assert not (tmp_path / "ck2").exists() and not (tmp_path / "out2").exists()


def test_a_checkpoint_of_hazard_under_a_range_from_before_its_default_grouping_says_how_to_go_on(tmp_path):
    """A stream of HAZARD under a one-sided range started without a group (the default before
    auto-history) is refused when restarted with the default, with the fix: group none."""
    from shedding.streaming.job import check_params, record_params
    from shedding.streaming.spec import spec_group

    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "a.csv").write_text("time,key\n1,1\n")
    src = inspect_source(tmp_path / "r", None, "stream R")

    def job(group):
        return StreamJob(src, src, tmp_path / "out", tmp_path / "ck",
                         JoinSpec(31, M, "hazard", range=(0, 30), group=spec_group(group, "hazard", (0, 30))))

    check_params(job("none"))
    record_params(job("none"))  # as a run before the default recorded it: no group in the spec
    check_params(job("none"))
    with pytest.raises(ShedError) as exc:
        check_params(job(None))
    line = assert_one_line_error(exc, "other parameters", "give group none to go on with it")
    assert "spec.group was None, now ['auto-history']" in line


def test_missing_or_empty_source_directories(tmp_path):
    with pytest.raises(ShedError) as exc:
        inspect_source(tmp_path / "nope", None, "stream R")
    assert_one_line_error(exc, "not found")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ShedError) as exc:
        inspect_source(tmp_path / "empty", "csv", "stream R")
    assert_one_line_error(exc, "no csv files")
    with pytest.raises(ShedError) as exc:  # not "cannot tell the format; add --format", which did not help
        inspect_source(tmp_path / "empty", None, "stream R")
    assert_one_line_error(exc, "no CSV or Parquet files", "add one before starting")


@pytest.mark.parametrize("name, content", [("a.parquet", b"\x00garbage" * 40), ("a.csv", b"time,key\n\x94\xff,1\n")])
def test_a_source_whose_files_cannot_be_read_names_the_file_and_why(tmp_path, name, content):
    """Was "no file among the first 1 has the columns time, key (none could be read)"."""
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / name).write_bytes(content)
    with pytest.raises(ShedError) as exc:
        inspect_source(tmp_path / "r", None, "stream R")
    assert_one_line_error(exc, f"{name} cannot be read as {name.split('.')[1].upper()} (", "give")


@pytest.mark.parametrize("bounds, how", [(None, "inner"), ((-10, 30), "full")])
def test_report_sets_the_stream_beside_simulate_exact_and_the_native_join(spark, tmp_path, workload, bounds, how):
    """Over the window, and over a time range with a full outer join (whose rows without a partner
    are not pairs: the outputs count pairs)."""
    from shedding.exact import exact_count
    from shedding.timerange import range_horizon
    from shedding.streaming.report import stream_report

    write_workload(tmp_path, workload, 3)
    window = W if bounds is None else range_horizon(*bounds)
    job = stream_job(tmp_path, JoinSpec(window, M, "prob", range=bounds, how=how), 2)
    summary = run_on(spark, job)
    page = stream_report(spark, job, summary | {"query_seconds": 1.0})
    table = pd.read_csv(tmp_path / "out" / "report.csv").set_index("join")["outputs"]
    workload = workload if bounds is None else workload.with_params(range=bounds)
    expected = len(simulated(workload, "prob", M, estimator="online"))
    assert table["streaming PROB"] == table["batch (shed simulate)"] == expected
    assert table["EXACT"] == table["Spark native join"] == exact_count(workload)
    html = page.read_text()
    assert "Plotly.newPlot" in html and "state size over micro-batches" in html


@pytest.mark.parametrize("shards, stamped", [(2, False), (1, True)])
def test_report_replays_the_query_s_micro_batches(spark, tmp_path, workload, shards, stamped):
    """The batch reference replays the files per trigger with the shards' shared budget (P > 1), and
    reads timestamps and text keys as the shards do: the streaming output equals it."""
    from shedding.streaming.report import reference_name, stream_report

    write_workload(tmp_path, workload, 3)
    if stamped:  # the same workload with timestamps and text keys
        for path in [*(tmp_path / "r").iterdir(), *(tmp_path / "s").iterdir()]:
            frame = pd.read_csv(path)
            frame["time"] = pd.Timestamp("2024-01-01") + pd.to_timedelta(frame["time"], unit="s")
            frame["key"] = "k" + frame["key"].astype(str)
            stamp = path.stat().st_mtime
            frame.to_csv(path, index=False)
            os.utime(path, (stamp, stamp))
    job = stream_job(tmp_path, JoinSpec(W, M, "prob", shards=shards), 1)
    summary = run_on(spark, job)
    stream_report(spark, job, summary | {"query_seconds": 1.0})
    table = pd.read_csv(tmp_path / "out" / "report.csv").set_index("join")["outputs"]
    assert table["streaming PROB"] == table[reference_name(job.spec)] == summary["outputs"]
    assert table["EXACT"] == table["Spark native join"] == len(exact_pairs(workload))


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_report_reads_files_that_write_their_columns_in_another_order_by_name(spark, tmp_path, workload, fmt):
    """The report's batch read takes a CSV file's fields by its header's names, as the stream does:
    by position (Spark's own CSV reader), EXACT, the batch reference and the native join counted
    the files written ``key,tag,time`` with keys as times. Parquet: the same by Spark's reader."""
    from shedding.exact import exact_count
    from shedding.streaming.report import stream_report

    write_workload(tmp_path, workload, 3, fmt=fmt)
    read, write = (pd.read_csv, "to_csv") if fmt == "csv" else (pd.read_parquet, "to_parquet")
    for path in (tmp_path / "s" / f"part-001.{fmt}", tmp_path / "r" / f"part-002.{fmt}"):
        stamp = path.stat().st_mtime
        getattr(read(path)[["key", "tag", "time"]], write)(path, index=False)
        os.utime(path, (stamp, stamp))
    job = stream_job(tmp_path, JoinSpec(W, M, "prob"), 1)
    summary = run_on(spark, job)
    stream_report(spark, job, summary | {"query_seconds": 1.0})
    table = pd.read_csv(tmp_path / "out" / "report.csv").set_index("join")["outputs"]
    whole = {n: pd.concat([read(p) for p in sorted((tmp_path / n).iterdir())]) for n in ("r", "s")}  # by name
    assert table["streaming PROB"] == table["batch (shed simulate)"] == summary["outputs"]
    assert table["EXACT"] == table["Spark native join"] == exact_count(Workload.from_streams(
        whole["r"]["time"].to_numpy(), whole["r"]["key"].to_numpy(), whole["s"]["time"].to_numpy(),
        whole["s"]["key"].to_numpy(), W, 0)) == exact_count(workload)
