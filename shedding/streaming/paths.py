"""Paths a streaming job can share with its executors.

The driver resolves every folder (sources, output, checkpoint) to an absolute path before the
query starts: a relative path would otherwise be resolved by each executor against its own working
directory (on a standalone worker, ``work/app-.../N/``), so the pairs would land there and the
driver would read an empty output. The shards write their tables with plain file I/O, so every
folder must be a file system path that the driver and every executor see at the same place: any
local path when the master is local (one machine), and on a cluster a path the user names as
shared, ``file:///shared/...`` (:func:`shared_path`, the command's rule). The library takes a
``file:`` URI or an absolute path as it is and refuses only a relative path on a cluster
(:func:`library_path`): its caller names the folders in code, not on a command line.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlparse

from shedding.errors import ShedError


def is_local(master: str) -> bool:
    """Whether ``master`` runs the executors on this machine (``local``, ``local[N]``, ``local[*]``)."""
    return master.strip().lower().startswith("local")


def place_of(master: str, remote: str | None) -> str:
    """Where the executors of a session on ``master`` (under spark-submit, its master) or on the
    Spark Connect server ``remote`` (``local[N]``: one in this process) run, as :func:`shared_path`
    takes it."""
    from shedding.spark import effective_master

    if remote is not None:
        return "local" if remote.startswith("local") else remote
    return effective_master(master)


def session_place(spark) -> str:
    """Where the executors of ``spark``'s session run, as :func:`shared_path` takes it: the master
    of a classic session or of a Spark Connect server started in this process (``local[N]``), the
    server's URL for any other Spark Connect session (its executors are elsewhere)."""
    import os

    connect = type(spark).__module__.startswith("pyspark.sql.connect")
    if connect and "SPARK_LOCAL_REMOTE" not in os.environ:  # pyspark's mark of a server in this process
        return os.environ.get("SPARK_REMOTE", "sc://(a Spark Connect server)")
    return spark.conf.get("spark.master", "local[*]")


def shared_path(text: str | Path, master: str, param: str) -> Path:
    """``text`` as an absolute path the driver and the executors of ``master`` share (module
    docstring): ``file:///path``, or on a local master any path (resolved here)."""
    raw = str(text).strip()
    url = urlparse(raw)
    if url.scheme == "file":
        if url.netloc not in ("", "localhost"):
            raise ShedError(f"{{param}} {raw} names a host; write file:///path (three slashes)", param=param)
        return Path(unquote(url.path)).resolve()
    if url.scheme and len(url.scheme) > 1:  # not a Windows drive letter
        raise ShedError(f"{{param}} {raw}: only file system paths are supported (the shards write with file I/O); "
                        "mount the storage and give file:///path", param=param)
    if not is_local(master):
        raise ShedError(f"{{param}} {raw} is a path on this machine, but the executors of {master} run elsewhere; "
                        f"give a folder every worker sees at the same place as file:///shared/...", param=param)
    return Path(raw).expanduser().resolve()


def library_path(value: str | Path, master: str, param: str) -> Path:
    """A folder given to the library (not the command): a ``file:`` URI or an absolute path as it
    is (on a cluster, the caller names a folder every worker shares), a relative path resolved on a
    local master and refused on any other, whose executors would resolve it against their own
    working directory."""
    raw = str(value).strip()
    if Path(raw).expanduser().is_absolute():
        raw = Path(raw).expanduser().as_uri()
    return shared_path(raw, master, param)
