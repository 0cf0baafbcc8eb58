"""Shared fixtures: one embedded Spark session for the whole run, a standalone Spark cluster on
loopback, and the ``shed`` runner.

Tests that take the ``spark`` or the ``cluster`` fixture are marked ``spark`` here, so ``make test-fast``
(``-m "not spark and not slow"``) leaves them out without each module saying so; tests that start Spark
in a subprocess (``shed stream-join``, ``shed compare``) carry the mark themselves.
"""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
# pytest-xdist's workers (make test-fast) inherit COLUMNS=80, which the CLI's rich consoles would read
# once at import and keep, so a test that sets COLUMNS would not be heard: a worker drops it, as a
# plain terminal session would not have it
if "PYTEST_XDIST_WORKER" in os.environ:
    os.environ.pop("COLUMNS", None)

import pytest


def pytest_collection_modifyitems(items: list) -> None:
    for item in items:
        if {"spark", "cluster"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.spark)


@pytest.fixture(scope="session")
def spark():
    """One embedded Spark session for every test that needs one."""
    from shedding.spark import spark_session

    with spark_session("local[2]", "shedding-tests") as session:
        yield session


@pytest.fixture()
def shed():
    """The CLI runner: ``shed ARGS`` through the entry point in this process, its error handling
    included: (exit code, stdout, stderr) (:func:`helpers.run_shed`)."""
    from helpers import run_shed

    return run_shed


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
    """A standalone Spark master and one worker (2 cores, work folder ``tmp_path/work``) started on
    loopback for one test: its master URL. Both are stopped by their process ids at the end."""
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
