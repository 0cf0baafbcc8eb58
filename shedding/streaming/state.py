"""The streaming join's state between micro-batches as one binary value: an npz file of plain data.

A shard's snapshot (:meth:`~shedding.streaming.shard.ShardJoin.snapshot`) is a dict of numpy
arrays and scalars; :func:`to_npz` stores it as an npz file (the zip of ``.npy`` arrays that
``numpy.savez`` writes, each written with ``allow_pickle=False`` and deflated at level 1) and
:func:`from_npz` reads it back with ``numpy.load(..., allow_pickle=False)``: restoring a
checkpoint runs no code the checkpoint holds. A table of tuples (the held-back and resident ones,
with their original keys and payloads) is one entry, the bytes of an Arrow IPC stream
(:func:`table_bytes`), so every column keeps the Arrow type it arrived in, nulls included.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Mapping

import numpy as np
import pandas as pd
import pyarrow as pa

from shedding.errors import ShedError

#: how every npz file begins (the signature of a zip file's first entry)
ZIP_MAGIC = b"PK\x03\x04"
#: the fix every refused state names
NEW_CHECKPOINT = "start from a new --checkpoint (and --out)"


def to_npz(snapshot: Mapping[str, object]) -> bytes:
    """``snapshot``'s entries as an npz file, one ``<name>.npy`` member each (an object array is
    refused by numpy's writer)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as npz:
        for name, value in snapshot.items():
            with npz.open(f"{name}.npy", "w") as member:
                np.lib.format.write_array(member, np.asarray(value), allow_pickle=False)
    return out.getvalue()


def from_npz(blob: bytes, what: str, before: str) -> dict[str, np.ndarray]:
    """The entries of the npz file ``blob`` (``what`` it is, for the errors), read without
    pickles; anything else is refused in one line, never unpickled (``before``: what earlier
    versions stored instead)."""
    if not blob.startswith(ZIP_MAGIC):
        raise ShedError(f"{what} is not an npz snapshot ({before}; this version never unpickles): {NEW_CHECKPOINT}")
    try:
        with np.load(io.BytesIO(blob), allow_pickle=False) as npz:
            return {name: npz[name] for name in npz.files}
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
        raise ShedError(f"{what} is not a readable npz snapshot ({exc}): {NEW_CHECKPOINT}") from None


def table_bytes(frame: pd.DataFrame, what: str) -> np.ndarray:
    """``frame`` as the bytes (a uint8 array) of an Arrow IPC stream: each column in its Arrow type
    (text and nulls as a string column); a column of mixed types is refused."""
    try:
        table = pa.Table.from_pandas(frame, preserve_index=False)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise ShedError(f"the {what} tuples have a column of mixed types, which the streaming state cannot keep "
                        f"({exc}); give each column one type") from None
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return np.frombuffer(sink.getvalue(), dtype=np.uint8)


def bytes_table(stream: np.ndarray, what: str) -> pd.DataFrame:
    """The frame :func:`table_bytes` wrote."""
    try:
        return pa.ipc.open_stream(stream.tobytes()).read_all().to_pandas()
    except pa.ArrowInvalid as exc:
        raise ShedError(f"the streaming state's {what} tuples are not an Arrow stream ({exc}): {NEW_CHECKPOINT}"
                        ) from None
