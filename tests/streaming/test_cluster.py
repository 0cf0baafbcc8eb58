"""``shed stream-join`` on a real standalone master and worker with relative paths: a bare relative
path is refused before any work (the executors would resolve it in their own working folder and the
summary would read an empty output), and the same relative paths named as shared (``file:runs/x``)
are resolved on the driver, so the summary reads the pairs the executors wrote."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from shedding import exact_count, zipf_workload
from shedding.streaming.results import PAIRS, read_table


def write_sources(base: Path, files: int = 2) -> int:
    """A small Zipf workload as ``files`` CSV files per stream under ``base/r`` and ``base/s``, in
    modification-time order; returns its exact number of pairs (w = 40)."""
    wl = zipf_workload(1.0, 40, 1200, seed=3, window=40, warmup=0)
    for side, name in ((0, "r"), (1, "s")):
        time, key = wl.stream(side)
        (base / name).mkdir(parents=True)
        for i, part in enumerate(range(0, len(time), -(-len(time) // files))):
            path = base / name / f"part-{i}.csv"
            cut = slice(part, part + -(-len(time) // files))
            pd.DataFrame({"time": time[cut], "key": key[cut]}).to_csv(path, index=False)
            os.utime(path, (1_000_000 + i, 1_000_000 + i))
    return exact_count(wl)


def shed(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, SPARK_LOCAL_IP="127.0.0.1")
    return subprocess.run([sys.executable, "-m", "shedding.cli", "stream-join", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=900)


def written_by_executors(work: Path) -> list[Path]:
    """Output folders under the worker's application folders (where a relative path would land)."""
    return [p for p in work.rglob("*") if p.name in ("runs", PAIRS)]


@pytest.mark.slow
def test_relative_paths_on_a_standalone_cluster_are_refused_or_resolved_on_the_driver(cluster, tmp_path):
    job = tmp_path / "job"
    exact = write_sources(job)
    plain = shed(job, "--r", "r", "--s", "s", "--window", "40", "--shedding", "none", "--out", "runs/x",
                 "--master", cluster)
    lines = plain.stderr.strip().splitlines()
    assert plain.returncode == 2 and len(lines) == 1, plain.stderr[-3000:]
    assert "--out runs/x" in lines[0] and "file:///" in lines[0]
    assert not (job / "runs").exists()

    named = shed(job, "--r", "file:r", "--s", "file:s", "--window", "40", "--shedding", "none", "--out",
                 "file:runs/x", "--max-files-per-trigger", "1", "--master", cluster, "--json")
    assert named.returncode == 0, named.stderr[-3000:]
    summary = json.loads(named.stdout)
    assert summary["pairs"] == str(job / "runs" / "x" / PAIRS)
    assert summary["batches"] >= 2 and summary["outputs"] == exact > 0
    assert len(read_table(job / "runs" / "x", PAIRS)) == exact
    assert written_by_executors(tmp_path / "work") == []
