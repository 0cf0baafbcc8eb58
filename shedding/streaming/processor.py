"""The stateful processor that ``transformWithStateInPandas`` runs per shard.

Per shard one ValueState ``blob`` holds the :class:`~shedding.streaming.shard.ShardJoin` (the join
operator's arrays, held-back arrivals, payloads), read and written once per micro-batch.

This module is kept light on purpose. When a query plans its first micro-batch, Spark starts a
fresh Python process on the driver and unpickles the processor there, only to learn its state
variables (``init``). Everything the pickle refers to is imported in that process. If this
module imported pandas and the numba join engine at the top, that import would add about 0.4 s
to every query start (measured: a trivial processor plans its first batch in 1.1 s without
pandas and in 1.5 s with it). So the processor holds plain values, and the join is imported
only in ``handleInputRows``, on the executors.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Iterator

from pyspark.sql.streaming import StatefulProcessor
from pyspark.sql.types import BinaryType, IntegerType, LongType, StructField, StructType

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

    from shedding.online.estimators import StaticEstimator
    from shedding.streaming.shard import JoinSpec


#: the rows ``transformWithStateInPandas`` receives: a shard, a part of its micro-batch in Arrow
#: IPC (``rows``, empty on a tick), the micro-batch's census part (pickled, or null) and its
#: processing time in ms (or null)
PACKED = StructType([StructField("shard", IntegerType()), StructField("rows", BinaryType()),
                     StructField("census", BinaryType()), StructField("now", LongType())])


@dataclass(frozen=True)
class Packer:
    """``mapInArrow`` before the stateful step: each Arrow batch of tagged rows becomes one row per
    shard that holds the shard's rows as an Arrow IPC stream (column ``rows``).

    Why: the Python side of ``transformWithStateInPandas`` (pyspark 4.x) hands a group's rows to the
    handler by iterating them one at a time (``itertuples``) and building a DataFrame from the row
    tuples again: 74 ms per 40,000 rows and 0.9 s per 400,000 here. Packed, it iterates one row per
    shard and Arrow batch, and the handler reads the rows back column by column
    (:func:`unpack_rows`).

    Every shard gets a row per Arrow batch, empty if it has no rows in it (a *tick*), so every
    shard runs in every micro-batch: with ``census`` each row also carries the batch's census
    part (:class:`~shedding.streaming.budget.Census`, over all shards), and the batch's processing
    time (column ``now`` of the tagged rows, when present) reaches idle shards too.

    ``names``: the tagged rows' column names, which the batches get back here. ``mapInArrow``
    refers to its input's columns by name and Spark reads a dot in a name as a field of a struct
    (a payload ``price.usd``, or the ``v.1`` a CSV with two columns ``v`` gives), so the rows reach
    it under the positional names ``c0``, ``c1``, ... (:func:`positional`)."""

    shards: int
    census: bool = False
    names: tuple[str, ...] = ()

    def __call__(self, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        import pickle

        import pyarrow as pa
        import pyarrow.compute as pc

        schema = pa.schema([("shard", pa.int32()), ("rows", pa.binary()), ("census", pa.binary()), ("now", pa.int64())])
        for batch in batches:
            if self.names:
                batch = batch.rename_columns(list(self.names))
            shards = batch.column("shard")
            census = None
            if self.census:
                from shedding.streaming.budget import Census

                census = pickle.dumps(Census.of(*(batch.column(c).to_numpy(zero_copy_only=False)
                                                  for c in ("side", "key", "time"))))
            now = pc.max(batch.column("now")).as_py() if "now" in batch.schema.names else None
            found = set(pc.unique(shards).to_pylist())
            for shard in range(self.shards):
                if shard in found:
                    part = batch if len(found) == 1 else batch.filter(pc.equal(shards, shard))
                    sink = pa.BufferOutputStream()
                    with pa.ipc.new_stream(sink, part.schema) as writer:
                        writer.write_batch(part)
                    rows = sink.getvalue().to_pybytes()
                else:
                    rows = b""
                yield pa.RecordBatch.from_pydict({"shard": [shard], "rows": [rows], "census": [census], "now": [now]},
                                                 schema=schema)


def positional(names: list[str]) -> list[str]:
    """The names ``c0``, ``c1``, ... of ``names``' columns on their way into :class:`Packer`."""
    return [f"c{i}" for i in range(len(names))]


def unpack_rows(packed: Iterator[pd.DataFrame]) -> tuple[pd.DataFrame, Any, int | None]:
    """The tagged rows of one shard's micro-batch, from the packed rows of :class:`Packer`; the
    batch's census (None without one) and processing time (None without one)."""
    import pickle

    import pandas as pd
    import pyarrow as pa

    tables, census, now = [], None, None
    for frame in packed:
        tables += [pa.ipc.open_stream(blob).read_all() for blob in frame["rows"] if len(blob)]
        for blob in frame["census"].dropna():
            part = pickle.loads(blob)
            if census is None:
                census = part
            else:
                census.merge(part)
        stamps = frame["now"].dropna()
        now = int(stamps.max()) if len(stamps) else now
    if not tables:
        rows = pd.DataFrame({"side": pd.Series(dtype="int32"), "time": pd.Series(dtype="int64"),
                             "key": pd.Series(dtype="int64")})
    else:
        rows = (pa.concat_tables(tables) if len(tables) > 1 else tables[0]).to_pandas()
    return rows, census, now


def write_shard_file(folder: str, shard: int, table: pa.Table) -> None:
    """One shard's rows of the running micro-batch N as ``folder/batch=N/shard-K.parquet``, written
    whole or not at all (:func:`shedding.atomic.write_parquet`: a hidden temporary file, then a
    rename).

    The task writes it before the micro-batch commits. A batch replayed after a crash (or a task
    retried) runs on the same input and state, so it writes the same rows and replaces the file:
    each committed batch's files are written exactly once, without sending the rows through the
    JVM or collecting them on the driver."""
    import os

    from pyspark import TaskContext

    from shedding.atomic import write_parquet

    context = TaskContext.get()
    assert context is not None, "write_shard_file runs in a Spark task"
    batch = context.getLocalProperty("streaming.sql.batchId") or "0"  # a batch query: one batch
    target = os.path.join(folder, f"batch={batch}")
    os.makedirs(target, exist_ok=True)
    write_parquet(os.path.join(target, f"shard-{shard}.parquet"), table)  # a dot-file until renamed: never read


class ShedProcessor(StatefulProcessor):
    """One :class:`~shedding.streaming.shard.ShardJoin` per shard, kept in a ValueState blob.

    ``spec`` and the frequency ``table`` are stored as plain values (a dict and numpy arrays) so
    that unpickling the processor imports neither pandas nor the join engine (module docstring).
    ``schema`` is the output's (:func:`~shedding.streaming.spark_join.output_schema`). With
    ``metrics_dir`` each shard's task also writes its metrics row of micro-batch N to
    ``metrics_dir/batch=N/shard-K.parquet``; with ``pairs_dir`` it writes its pairs there in the
    same way (:func:`write_shard_file`) and yields only the metrics row.
    """

    def __init__(self, spec: JoinSpec, table: StaticEstimator | None, schema: StructType,
                 metrics_dir: str | None = None, pairs_dir: str | None = None) -> None:
        self.spec = asdict(spec)
        self.table = None if table is None else (table.keys, table.counts_r, table.counts_s)
        self.schema = schema
        self.metrics_dir = metrics_dir
        self.pairs_dir = pairs_dir

    def init(self, handle: Any) -> None:
        self.state = handle.getValueState("shard", StructType([StructField("blob", BinaryType())]))

    def handleInputRows(self, key: Any, rows: Iterator[pd.DataFrame], timerValues: Any) -> Iterator[pd.DataFrame]:
        import pandas as pd

        from shedding.streaming.shard import JoinSpec, ShardJoin

        started = time.perf_counter()
        shard = int(key[0])
        batch, census, now = unpack_rows(rows)
        if self.state.exists():
            join = ShardJoin.from_bytes(self.state.get()[0])
        else:
            from shedding.online.estimators import StaticEstimator
            from shedding.streaming.frequencies import shard_table

            spec = JoinSpec.restore(self.spec)  # checked on the driver
            table = None if self.table is None else StaticEstimator(*self.table)
            join = ShardJoin(spec, shard, shard_table(table, shard, spec.shards))
        pairs, metrics = join.push(batch, census, now)
        blob = join.to_bytes()
        self.state.update((blob,))
        columns = self.schema.fieldNames()
        pairs = typed_pairs(pairs, self.schema)
        if self.pairs_dir is not None:
            write_shard_file(self.pairs_dir, shard, _arrow_pairs(pairs, self.schema))
        metrics = {"shard": shard} | {k: int(v) for k, v in metrics.items()} | {
            "state_bytes": len(blob), "handler_ms": round(1000 * (time.perf_counter() - started))}
        if self.metrics_dir is not None:
            import pyarrow as pa

            write_shard_file(self.metrics_dir, shard, pa.table({k: pa.array([v], pa.int64()) for k, v in metrics.items()}))
        if self.pairs_dir is None:
            yield pairs.assign(metrics=None)[columns]  # two frames: the pairs keep their int64 columns
        yield pd.DataFrame({c: [None] for c in columns[:-1]} | {"metrics": [json.dumps(metrics)]})


#: the output's time columns (:func:`~shedding.streaming.inputs.output_schema`)
TIMES = ("r_time", "s_time", "event_time")


def typed_pairs(pairs: pd.DataFrame, schema: StructType) -> pd.DataFrame:
    """The pairs with their times as the output's types: original timestamps (microseconds since
    the epoch) as UTC datetimes (without a time zone: as the wall-clock times they were), dates
    (days) as dates; integer times stay (nullable integers where an outer row has none)."""
    import pandas as pd
    from pyspark.sql.types import DateType, TimestampNTZType, TimestampType

    for f in schema.fields:
        if f.name not in TIMES:
            continue
        if isinstance(f.dataType, (TimestampType, TimestampNTZType)):
            pairs[f.name] = pd.to_datetime(_instants(pairs[f.name], "us"), utc=isinstance(f.dataType, TimestampType))
        elif isinstance(f.dataType, DateType):
            days = pd.Series(_instants(pairs[f.name], "D"))
            pairs[f.name] = days.dt.date.astype(object).where(days.notna(), None)
    return pairs


def _instants(values: pd.Series, unit: str) -> Any:
    """Integer times (nulls in an outer row's other side) as numpy datetimes of ``unit``, nulls NaT."""
    import numpy as np

    ints = values.astype("Int64")
    out = ints.to_numpy(dtype="int64", na_value=0).astype(f"datetime64[{unit}]")
    out[ints.isna().to_numpy()] = np.datetime64("NaT")
    return out


def _arrow_pairs(pairs: pd.DataFrame, schema: StructType) -> pa.Table:
    """The pairs as an Arrow table with the output's column types (``schema`` less ``metrics``);
    timestamps as instants in UTC (:func:`typed_pairs`)."""
    import pyarrow as pa
    from pyspark.sql.pandas.types import to_arrow_schema

    target = to_arrow_schema(StructType(schema.fields[:-1]), timezone="UTC")
    return pa.Table.from_pandas(pairs[target.names], schema=target, preserve_index=False)
