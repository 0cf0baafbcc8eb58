"""``semantic_window_join`` on a Spark Connect session (a server started in this process by
``SparkSession.builder.remote("local[2]")``, the ``pyspark[connect]`` extra), against the
simulator pair for pair."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("grpc", reason="Spark Connect needs the pyspark[connect] extra")

SCRIPT = textwrap.dedent("""
    import json, sys
    import pandas as pd
    from shedding import simulate, zipf_workload
    from shedding.spark import spark_session
    from shedding.streaming.spark_join import configure_session, semantic_window_join

    wl = zipf_workload(1.0, 30, 1500, seed=4, window=40, warmup=0)
    with spark_session(remote="local[2]") as spark:
        assert type(spark).__module__.startswith("pyspark.sql.connect"), type(spark)
        configure_session(spark, 2)
        r, s = (spark.createDataFrame(pd.DataFrame({"time": t, "key": [f"k{k}" for k in k]}))
                for t, k in (wl.stream(0), wl.stream(1)))
        exact = semantic_window_join(r, s, window=40, memory=0, shedding="none", shards=2).toPandas()
        r, s = (spark.createDataFrame(pd.DataFrame({"time": t, "key": k})) for t, k in (wl.stream(0), wl.stream(1)))
        shed = semantic_window_join(r, s, window=40, memory=40, shedding="prob").toPandas()
    from shedding.exact import exact_pairs
    p = exact_pairs(wl)
    expected = sorted(zip(("k" + wl.key[p[:, 0]].astype(str)).tolist(), wl.time[p[:, 0]].tolist(),
                          wl.time[p[:, 1]].tolist()))
    got = sorted(zip(exact["key"], exact["r_time"].tolist(), exact["s_time"].tolist()))
    ref = simulate(wl, "prob", 40, estimator="online", pairs=True).pairs
    kept = sorted(zip(wl.key[ref[:, 0]].tolist(), wl.time[ref[:, 0]].tolist(), wl.time[ref[:, 1]].tolist()))
    mine = sorted(zip(shed["key"].tolist(), shed["r_time"].tolist(), shed["s_time"].tolist()))
    print(json.dumps({"equal": got == expected and mine == kept, "pairs": len(got), "shed": len(mine)}))
""")


@pytest.mark.slow
def test_the_join_runs_on_spark_connect_and_equals_the_exact_join():
    # its own process: a Connect session cannot share this process with the tests' classic one
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    result = done.stdout.strip().splitlines()[-1]
    assert '"equal": true' in result, result


@pytest.mark.slow
def test_shed_stream_join_runs_on_a_remote_session(tmp_path):
    """--remote local[2] with Spark Connect's default port 15002 taken: the in-process server binds
    a free port."""
    from shedding import simulate, zipf_workload
    from shedding.streaming.results import PAIRS, read_table

    with socket.socket() as taken:
        try:
            taken.bind(("", 15002))
            taken.listen()
        except OSError:  # taken already, as the test wants
            pass
        done = subprocess.run([sys.executable, "-m", "shedding.cli", "stream-join", "--r", "zipf:1:40", "--s",
                               "zipf:1:40", "--length", "800", "--files", "4", "--max-files-per-trigger", "2",
                               "--window", "40", "--memory", "40", "--remote", "local[2]", "--out",
                               str(tmp_path / "out"), "--json"], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    wl = zipf_workload(1.0, 40, 800, seed=0, correlation="independent", window=40, warmup=0)
    ref = simulate(wl, "prob", 40, estimator="online", pairs=True).pairs
    pairs = read_table(tmp_path / "out", PAIRS)
    assert sorted(zip(pairs["key"], pairs["r_time"], pairs["s_time"])) == \
        sorted(zip(wl.key[ref[:, 0]], wl.time[ref[:, 0]], wl.time[ref[:, 1]]))
    assert summary["arrivals"] == len(wl) and summary["ended"] == 1 and summary["batches"] == 2
