"""Every file the package writes is written whole or not at all.

A crash, a full disk or Ctrl-C in the middle of a write leaves the file as it was (or absent),
never cut short: :func:`write_atomically` hands its ``write`` function a temporary path in the
same folder (so the rename never crosses file systems), then renames it over the target with
``os.replace``, which POSIX makes atomic. A reader sees the old file or the new one, nothing in
between. The temporary name starts with a dot and ends with the target's own name, so globs of
the target's pattern never list it and writers that choose a format by extension (pandas' CSV
compression) choose the same one.
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from typing import Any, Callable

#: how a temporary file of :func:`write_atomically` starts (``.tmp-1a2b3c4d-part-x.parquet``)
TEMP_PREFIX = ".tmp-"


def temporary_path(path: Path) -> Path:
    """A fresh temporary path beside ``path`` that ends with its name."""
    return path.with_name(f"{TEMP_PREFIX}{secrets.token_hex(4)}-{path.name}")


def write_atomically(path: str | os.PathLike, write: Callable[[Path], Any]) -> Path:
    """Write the file ``path`` whole or not at all: ``write(tmp)`` writes a temporary file in the
    same folder, which then replaces ``path`` in one rename; if ``write`` fails, the temporary
    file is removed and ``path`` is left as it was. Returns ``path``."""
    path = Path(path)
    tmp = temporary_path(path)
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def write_text(path: str | os.PathLike, text: str, encoding: str = "utf-8") -> Path:
    """:func:`write_atomically` for a text."""
    return write_atomically(path, lambda tmp: tmp.write_text(text, encoding=encoding))


def write_json(path: str | os.PathLike, data: Any, **dumps: Any) -> Path:
    """:func:`write_atomically` for a JSON document (``dumps``: ``json.dumps`` options)."""
    return write_text(path, json.dumps(data, **dumps))


def write_parquet(path: str | os.PathLike, table: Any, **options: Any) -> Path:
    """:func:`write_atomically` for a pyarrow ``table`` as a Parquet file (``options``:
    ``pyarrow.parquet.write_table``'s, e.g. ``compression``)."""
    import pyarrow.parquet as pq  # only where a Parquet file is written: the module stays light

    return write_atomically(path, lambda tmp: pq.write_table(table, tmp, **options))
