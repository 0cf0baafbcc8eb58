"""The streaming join's state between micro-batches as one binary value: an Arrow IPC stream of plain
data, compressed.

A shard's snapshot (:meth:`~shedding.streaming.shard.ShardJoin.snapshot`) is a dict of numpy
arrays and scalars; :func:`to_state_bytes` stores it as an Arrow IPC stream (the Arrow columnar
format's streaming form: its schema, then one record batch) of one row, one column per entry: a scalar as a column of
its type (int64, float64, bool, string), an array as a list column of its values in C order with
the array's shape in the field's metadata (``shape``, e.g. ``2,500,9``), the whole stream
compressed as one Zstandard frame (level 1). :func:`from_state_bytes` reads it back without pickles (only these column
types are accepted): restoring a checkpoint runs no code the checkpoint holds. A table of tuples
(the held-back and resident ones, with their original keys and payloads) is one entry, the bytes
of an Arrow IPC stream (:func:`table_bytes`), so every column keeps the Arrow type it arrived in,
nulls included.

Why Arrow and not an npz file: writing and reading the 70-odd entries of a shard took 7 and 10 ms
as ``.npy`` members of a zip (a header parsed per entry), 1.6 and 1.3 ms as Arrow columns. Why a
stream and not an Arrow file: the file form repeats the schema (the entries' names and shapes)
in its footer. Why Zstandard: on a shard of 500 tuples (275 KB of arrays) it compresses in 0.36
ms CPU to 31 KB where zlib at level 1 takes 1.2 ms for 36 KB, and decompresses in 0.18 ms
against 0.47 ms.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping

import numpy as np
import pandas as pd
import pyarrow as pa

from shedding.errors import ShedError

#: how an Arrow IPC stream begins (the continuation marker of its schema message)
ARROW_MAGIC = b"\xff\xff\xff\xff"
#: how a Zstandard frame begins
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
#: how a pickle of protocol 2 or later begins (what layouts 1 and 2 stored, deflated by zlib)
PICKLE_MAGIC = b"\x80"
#: the fix every refused state names
NEW_CHECKPOINT = "start from a new {param} (and a new output folder)"
#: the numpy kinds an entry may have: flags, signed and unsigned integers, floats, text
_KINDS = "biufU"


def _column(name: str, value: object) -> tuple[pa.Array, pa.Field]:
    """One entry as a column of one row, and its field (with the array's shape)."""
    a = np.asarray(value)
    if a.dtype.kind not in _KINDS:
        raise ShedError(f"the snapshot's entry {name!r} is {a.dtype} data; a snapshot holds numbers, text and flags "
                        "only")
    kind = pa.string() if a.dtype.kind == "U" else pa.from_numpy_dtype(a.dtype)
    if a.ndim == 0:
        return pa.array([a.item()], kind), pa.field(name, kind, metadata={"shape": ""})
    flat = a.reshape(-1)
    values = pa.array(flat.tolist() if a.dtype.kind == "U" else flat, kind)
    column = pa.ListArray.from_arrays(pa.array([0, len(flat)], pa.int32()), values)
    return column, pa.field(name, column.type, metadata={"shape": ",".join(map(str, a.shape))})


def _entry(field: pa.Field, column: pa.Array) -> np.ndarray:
    """The numpy array (0-d for a scalar) a column of :func:`_column` holds."""
    kind = field.type.value_type if pa.types.is_list(field.type) else field.type
    if not (pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_boolean(kind)
            or pa.types.is_string(kind)) or field.metadata is None or b"shape" not in field.metadata:
        raise ValueError(f"entry {field.name!r} is of Arrow type {field.type}, which no snapshot holds")
    shape = field.metadata[b"shape"].decode()
    if not shape:
        value = column[0].as_py()
        return np.array(value) if pa.types.is_string(kind) else np.array(value, dtype=kind.to_pandas_dtype())
    values = column.values
    flat = np.array(values.to_pylist(), dtype=str) if pa.types.is_string(kind) else values.to_numpy(
        zero_copy_only=False)
    return flat.reshape(tuple(int(n) for n in shape.split(",")))


def to_state_bytes(snapshot: Mapping[str, object]) -> bytes:
    """``snapshot``'s entries as a compressed Arrow IPC stream (module docstring); an entry that
    is not numbers, text or flags is refused."""
    columns, fields = zip(*(_column(name, value) for name, value in snapshot.items()))
    batch = pa.RecordBatch.from_arrays(list(columns), schema=pa.schema(fields))
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, batch.schema) as writer:
        writer.write_batch(batch)
    return pa.Codec("zstd", compression_level=1).compress(sink.getvalue(), asbytes=True)


def from_state_bytes(blob: bytes, what: str, before: str) -> dict[str, np.ndarray]:
    """The entries :func:`to_state_bytes` stored in ``blob`` (``what`` it is, for the errors), read
    without pickles; anything else is refused in one line, never unpickled (``before``: what
    earlier versions stored instead)."""
    if not blob.startswith(ZSTD_MAGIC):
        try:  # the zlib-deflated pickle of layouts 1 and 2? Inflating it runs nothing.
            pickled = zlib.decompress(blob).startswith(PICKLE_MAGIC)
        except zlib.error:
            pickled = False
        if pickled:
            raise ShedError(f"{what} is a pickle ({before}; this version never unpickles): {NEW_CHECKPOINT}",
                            param="checkpoint")
        raise ShedError(f"{what} is not a compressed Arrow snapshot: {NEW_CHECKPOINT}", param="checkpoint")
    try:
        raw = pa.CompressedInputStream(pa.BufferReader(blob), "zstd").read()
    except (pa.ArrowInvalid, OSError) as exc:
        raise ShedError(f"{what} is not a readable Arrow snapshot ({exc}): {NEW_CHECKPOINT}",
                        param="checkpoint") from None
    if not raw.startswith(ARROW_MAGIC):
        raise ShedError(f"{what} is not a compressed Arrow snapshot: {NEW_CHECKPOINT}", param="checkpoint")
    try:
        batch = pa.ipc.open_stream(pa.py_buffer(raw)).read_next_batch()
        return {field.name: _entry(field, column) for field, column in zip(batch.schema, batch.columns)}
    except (pa.ArrowInvalid, ValueError, IndexError, StopIteration) as exc:
        raise ShedError(f"{what} is not a readable Arrow snapshot ({exc}): {NEW_CHECKPOINT}",
                        param="checkpoint") from None


def table_bytes(frame: pd.DataFrame, what: str) -> np.ndarray:
    """``frame`` as the bytes (a uint8 array) of an Arrow IPC stream: each column in its Arrow type
    (text and nulls as a string column); a column of mixed types is refused."""
    try:
        table = pa.Table.from_pandas(frame, preserve_index=False, nthreads=1)  # a few thousand rows
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
        return pa.ipc.open_stream(stream.tobytes()).read_all().to_pandas(use_threads=False)
    except pa.ArrowInvalid as exc:
        raise ShedError(f"the streaming state's {what} tuples are not an Arrow stream ({exc}): {NEW_CHECKPOINT}",
                        param="checkpoint") from None
