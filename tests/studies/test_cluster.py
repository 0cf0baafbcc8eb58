"""The quick suite on a real standalone Spark cluster on loopback equals the local run."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pandas as pd
import pytest

from shedding.studies.registry import load_suite
from shedding.studies.runner import run_study


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _spark_class() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent / "bin" / "spark-class"


def _start(args: list[str], log: Path) -> subprocess.Popen:
    env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1", PYSPARK_PYTHON=sys.executable)
    return subprocess.Popen([str(_spark_class()), *args], stdout=log.open("w"), stderr=subprocess.STDOUT, env=env,
                            start_new_session=True)


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.fixture()
def cluster(tmp_path):
    port, ui, worker_ui = _free_port(), _free_port(), _free_port()
    master = _start(["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
                     "--webui-port", str(ui)], tmp_path / "master.log")
    worker = None
    try:
        deadline = time.time() + 120
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{ui}/json", timeout=2) as r:
                    state = json.load(r)
                if worker is None:
                    worker = _start(["org.apache.spark.deploy.worker.Worker", f"spark://127.0.0.1:{port}",
                                     "--host", "127.0.0.1", "--cores", "2", "--memory", "2g",
                                     "--webui-port", str(worker_ui), "--work-dir", str(tmp_path / "work")],
                                    tmp_path / "worker.log")
                if state.get("aliveworkers", 0) >= 1:
                    break
            except OSError:
                pass
            if time.time() > deadline:
                pytest.fail("the standalone cluster did not start: " + (tmp_path / "master.log").read_text()[-2000:])
            time.sleep(1)
        yield f"spark://127.0.0.1:{port}"
    finally:
        for proc in (worker, master):
            if proc is not None:
                _stop(proc)
    assert master.poll() is not None and (worker is None or worker.poll() is not None)


def test_quick_suite_on_a_standalone_cluster_equals_local(cluster, spark, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "shedding.cli", "compare", "--suite", "quick", "--master", cluster,
                           "--out", str(tmp_path / "cluster")], capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    remote = pd.read_parquet(tmp_path / "cluster" / "results.parquet")
    outcome = run_study(*load_suite("quick"), tmp_path / "local", spark=spark)
    local, complete = outcome.results, outcome.complete
    assert complete and len(remote) == len(local)
    cols = ["run_id", "policy", "outputs", "exact", "arm", "share_r"]
    # equal row for row; NaN (the arm of LIFE's other readings, which is not measured) equals NaN
    pd.testing.assert_frame_equal(remote.sort_values("run_id")[cols].reset_index(drop=True),
                                  local.sort_values("run_id")[cols].reset_index(drop=True), check_dtype=False)
    assert (tmp_path / "cluster" / "report.html").is_file()
