"""Paths a streaming job can share with its executors.

The driver resolves every folder (sources, output, checkpoint) to an absolute path before the
query starts: a relative path would otherwise be resolved by each executor against its own working
directory (on a standalone worker, ``work/app-.../N/``), so the pairs would land there and the
driver would read an empty output. The shards write their tables with plain file I/O, so every
folder must be a file system path that the driver and every executor see at the same place: any
local path when the master is local (one machine), and on a cluster a path the user names as
shared, ``file:///shared/...``.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

from shedding.errors import ShedError


def is_local(master: str) -> bool:
    """Whether ``master`` runs the executors on this machine (``local``, ``local[N]``, ``local[*]``)."""
    return master.strip().lower().startswith("local")


def shared_path(text: str | Path, master: str, param: str) -> Path:
    """``text`` as an absolute path the driver and the executors of ``master`` share (module
    docstring): ``file:///path``, or on a local master any path (resolved here)."""
    raw = str(text).strip()
    url = urlparse(raw)
    if url.scheme == "file":
        if url.netloc not in ("", "localhost"):
            raise ShedError(f"{{param}} {raw} names a host; write file:///path (three slashes)", param=param)
        return Path(url.path).resolve()
    if url.scheme and len(url.scheme) > 1:  # not a Windows drive letter
        raise ShedError(f"{{param}} {raw}: only file system paths are supported (the shards write with file I/O); "
                        "mount the storage and give file:///path", param=param)
    if not is_local(master):
        raise ShedError(f"{{param}} {raw} is a path on this machine, but the executors of {master} run elsewhere; "
                        f"give a folder every worker sees at the same place as file:///shared/...", param=param)
    return Path(raw).expanduser().resolve()
