"""A Spark session for the experiment runner: embedded ``local[*]`` by default, any master URL.

Spark's Python workers must run the driver's interpreter, or they would not find this package and
its compiled dependencies; an unreachable master is refused up front instead of retried forever.
"""

from __future__ import annotations

import logging
import os
import re
import socket
import sys
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Iterator
from urllib.parse import urlparse

from shedding.errors import ShedError, cause
from shedding.spark.local_fs import NIO_FS, nio_fs_jar
from shedding.spark.workers import launcher_for_env, worker_python

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


#: the JVM option that points log4j at this package's configuration (warnings and errors only)
LOG_OPTION = f"-Dlog4j2.configurationFile={resources.files('shedding.spark').joinpath('log4j2.properties')}"


def _cache() -> Path:
    """This package's cache folder (the JVM log, the launcher, the compiled file system)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "shedding"


def check_master(master: str, reach: bool = True) -> None:
    """Refuse an unknown master (and with ``reach`` an unreachable one) with a one-line error."""
    if master.startswith("local"):
        m = re.fullmatch(r"local(?:\[(\*|\d+)(?:,\s*(\d+))?\])?", master)
        if not m or m.group(1) not in (None, "*") and int(m.group(1)) < 1:
            raise ShedError(f"unknown Spark master {master!r} ({{param}}); use local, local[*] or local[N] with N >= 1 "
                            "threads", param="master")
        return
    url = urlparse(master)
    if url.scheme not in ("spark", "yarn", "k8s", "mesos") and master != "yarn":
        raise ShedError(f"unknown Spark master {master!r} ({{param}}); use local[*], local[N] or spark://HOST:PORT",
                        param="master")
    if url.scheme == "spark" and reach:
        host, port = url.hostname, url.port or 7077
        try:
            with socket.create_connection((host, port), timeout=5):
                pass
        except OSError as exc:
            raise ShedError(f"cannot reach the Spark master at {host}:{port} ({exc.strerror or exc}); "
                            "start it or check {param}", param="master") from None


def check_remote(remote: str) -> None:
    """Refuse a Spark Connect server (``sc://HOST:PORT``) that does not answer."""
    if remote.startswith("sc://"):
        url = urlparse(remote)
        try:
            with socket.create_connection((url.hostname, url.port or 15002), timeout=5):
                pass
        except OSError as exc:
            raise ShedError(f"cannot reach the Spark Connect server at {url.hostname}:{url.port or 15002} "
                            f"({exc.strerror or exc}); start it or check {{param}}", param="remote") from None


def effective_master(master: str) -> str:
    """The master a session will run on: ``master``, or under ``spark-submit`` the one it was given."""
    if "PYSPARK_GATEWAY_PORT" not in os.environ:
        return master
    from pyspark import SparkConf

    return SparkConf().get("spark.master", master)


@contextmanager
def spark_session(master: str = "local[*]", app_name: str = "shedding", jvm_log: Path | None = None,
                  ui: bool = False, remote: str | None = None) -> Iterator[SparkSession]:
    """A SparkSession on ``master`` whose Python workers use this interpreter; stopped on exit.

    ``jvm_log``: the file that takes everything the JVM it starts writes to stderr, instead of the
    terminal: the Java launcher's warnings and the start-up chatter of Spark's Python runners, which
    bypass log4j (default ``$XDG_CACHE_HOME/shedding/spark-jvm.log``). ``ui`` keeps Spark's web UI
    (off by default). ``remote``: a Spark Connect URL (``sc://HOST:PORT``, or ``local[N]`` for a
    server started in this process, which needs the ``pyspark[connect]`` extra) instead of a master.
    Under ``spark-submit`` its master and JVM rule, and Spark logs warnings only (not every query
    plan and progress report)."""
    if remote is not None:
        yield from _connect_session(remote, app_name, jvm_log)
        return
    submitted = "PYSPARK_GATEWAY_PORT" in os.environ  # under spark-submit: its --master and JVM rule
    if not submitted:
        check_master(master)
    cache = _cache()
    # embedded sessions: Python processes start without the bundled pyspark.zip (see spark_python)
    jvm_log = jvm_log or cache / "spark-jvm.log"
    embedded = master.startswith("local") and not submitted
    python = worker_python(cache) if embedded else sys.executable
    fs_jar = nio_fs_jar(cache) if embedded else None  # file: paths without a chmod process (spark_fs)
    launcher_for_env(python)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    logging.getLogger("py4j").setLevel(logging.CRITICAL)  # its errors reach us as exceptions
    from pyspark.sql import SparkSession

    builder = SparkSession.builder if submitted else SparkSession.builder.master(master)
    builder = (
        builder.appName(app_name)
        # read by the JVM at start-up, so Spark's own start-up lines are filtered too
        .config("spark.driver.extraJavaOptions", LOG_OPTION)
        .config("spark.executor.extraJavaOptions", LOG_OPTION)
        .config("spark.ui.enabled", str(ui).lower())
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.pyspark.python", python)
        .config("spark.python.worker.reuse", "true")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
    )
    if fs_jar is not None:
        builder = builder.config("spark.driver.extraClassPath", str(fs_jar)).config("spark.hadoop.fs.file.impl", NIO_FS)
    try:
        with _stderr_to(None if submitted else jvm_log):
            spark = builder.getOrCreate()
    except KeyboardInterrupt:  # Ctrl-C while the JVM starts: it would outlive us, ignoring SIGINT
        _stop_own_jvms()
        raise
    except Exception as exc:  # py4j/Java start-up failures come in many types
        raise ShedError(f"cannot start Spark on {master} ({cause(exc)}); "
                        f"check Java 17+ and {{param}} (the JVM's output is in {jvm_log})", param="master") from None
    if submitted:
        spark.sparkContext.setLogLevel("WARN")
    try:
        yield spark
    finally:
        spark.stop()


def _stop_own_jvms() -> None:
    """Terminate the Java processes this process started (PySpark's gateway, launched with SIGINT
    ignored, so that a Ctrl-C during its start-up left it running with nobody to stop it); Linux's
    /proc tells the children, elsewhere nothing is done."""
    import signal

    me = str(os.getpid())
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if fields[1] == me and "java" in (stat.parent / "cmdline").read_bytes().decode(errors="replace"):
                os.kill(int(stat.parent.name), signal.SIGTERM)
        except (OSError, IndexError, ValueError):  # gone meanwhile, or not ours to read
            continue


def _connect_session(remote: str, app_name: str, jvm_log: Path | None) -> Iterator[SparkSession]:
    """A Spark Connect session on ``remote`` (for ``local[N]``, a server in this process whose JVM
    writes to ``jvm_log``); stopped on exit."""
    try:
        from pyspark.sql.connect.utils import check_dependencies

        check_dependencies()
    except ImportError as exc:
        raise ShedError(f"Spark Connect needs the pyspark[connect] extra ({exc}); pip install 'pyspark[connect]'") \
            from None
    from pyspark.sql import SparkSession

    check_remote(remote)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # an in-process server's Python workers
    local = remote.startswith("local")
    try:
        with _stderr_to((jvm_log or _cache() / "spark-jvm.log") if local else None):
            if local:
                spark = _local_connect(remote, app_name)
            else:
                spark = SparkSession.builder.remote(remote).appName(app_name).getOrCreate()
    except Exception as exc:  # grpc and py4j failures come in many types
        raise ShedError(f"cannot start a Spark Connect session on {remote} ({cause(exc)})") from None
    try:
        yield spark
    finally:
        spark.stop()


def _local_connect(master: str, app_name: str):
    """A Spark Connect server on ``master`` (``local[N]``) started in this process, and a session
    on it. pyspark's own ``remote("local[N]")`` binds the server to port 15002 and fails when that
    port is taken (by another server, or another user's run); this one binds port 0, so the
    system picks a free port, and connects to that port (as pyspark does in its own tests)."""
    from pyspark import SparkContext
    from pyspark.sql.connect.session import SparkSession as ConnectSession

    os.environ["SPARK_LOCAL_REMOTE"] = "1"  # pyspark's mark of an in-process server: stopping the session stops it
    ConnectSession._start_connect_server(master, {
        "spark.connect.grpc.binding.port": "0", "spark.app.name": app_name,
        "spark.ui.showConsoleProgress": "false", "spark.driver.extraJavaOptions": LOG_OPTION})
    service = getattr(SparkContext._jvm, "org.apache.spark.sql.connect.service.SparkConnectService$")
    port = getattr(service, "MODULE$").localPort()
    os.environ["SPARK_CONNECT_MODE_ENABLED"] = "1"
    return ConnectSession.builder.remote(f"sc://localhost:{port}").appName(app_name).getOrCreate()


@contextmanager
def _stderr_to(path: Path | None) -> Iterator[None]:
    """Point file descriptor 2 at ``path`` while a child process (the JVM) is started, so that the
    child keeps writing there; this process's own stderr is restored afterwards."""
    if path is None:
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    sys.stderr.flush()
    saved = os.dup(2)
    target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.dup2(target, 2)
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
        os.close(target)
