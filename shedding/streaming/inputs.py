"""The two inputs of the semantic window join as one stream of tagged rows.

Each input becomes rows (side, time step, key, shard, carried originals, payloads) by one
``selectExpr`` per input (building the columns from Column functions costs a py4j round trip per
function, about 0.1 s per query start). Times become steps by the rules of
:mod:`~shedding.streaming.event_time`. A single integer key column is the operator's key as it
is; any other key (strings, other types, several columns) is hashed to 64 bits with Spark's
``xxhash64`` for the operator and the sharding, and its original values ride along so that only
equal keys pair (:class:`~shedding.streaming.shard.ShardJoin`). A row whose time or key is
missing or not valid gets side BAD: counted and skipped. HAZARD's payload group (``group``) is
Spark's ``xxhash64`` of the group columns' values (a missing value is a value of its own): a
function of the values alone, the same in every partition and micro-batch, and which number a
group gets changes no decision (:mod:`shedding.online.groups`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import (BooleanType, DataType, DateType, DecimalType, FractionalType, IntegralType, LongType,
                               StringType, StructField, StructType, TimestampNTZType, TimestampType)

from shedding.errors import ShedError
from shedding.streaming.event_time import DATE, INTEGER, TIME_LIMIT, TIMESTAMP, TimeAxis, whole_number_sql
from shedding.streaming.shard import BAD, END, EVENT_TIME, GROUP_VALUE, KEY_VALUE, SHED, TIME_VALUE, JoinSpec

#: the column of the tagged rows with the micro-batch's processing time (for idle sources)
NOW = "now"


def payload_names(payload: Sequence[str] | Mapping[str, Sequence[str]] | None) -> tuple[tuple, tuple]:
    """The R and S payload columns of ``payload``: one list for both, or ``{"r": [...], "s": [...]}``."""
    if payload is None:
        return (), ()
    if isinstance(payload, str):
        payload = [payload]
    if isinstance(payload, Mapping):
        unknown = set(payload) - {"r", "s"}
        if unknown:
            raise ShedError(f"{{param}} maps the streams 'r' and 's' to column lists, got keys {sorted(unknown)}",
                            param="payload")
        return tuple(payload.get("r", ())), tuple(payload.get("s", ()))
    return tuple(payload), tuple(payload)


def column(df: DataFrame, name: str, what: str, param: str) -> str:
    """The column of ``df`` called ``name`` (case-insensitively), or a one-line error."""
    found = {c.lower(): c for c in df.columns}
    if not isinstance(name, str) or name.lower() not in found:
        raise ShedError(f"{what} has no column {name!r} for {{param}} (it has {', '.join(df.columns) or 'none'}); "
                        "name the right column or fix the input", param=param)
    return found[name.lower()]


def quoted(name: str) -> str:
    """A column name as a SQL identifier."""
    return "`" + name.replace("`", "``") + "`"


def time_kind(kind: DataType, step: object) -> str:
    """The time kind of a column of Spark type ``kind`` (strings: integers, or timestamps when
    ``step`` is a length of time)."""
    if isinstance(kind, (IntegralType, FractionalType, DecimalType)):
        return INTEGER
    if isinstance(kind, StringType):
        return TIMESTAMP if isinstance(step, str) else INTEGER
    if isinstance(kind, (TimestampType, TimestampNTZType)):
        return TIMESTAMP
    if isinstance(kind, DateType):
        return DATE
    raise ShedError(f"{{param}} column has type {kind.simpleString()}; use integers, a timestamp or a date",
                    param="time")


@dataclass(frozen=True)
class Inputs:
    """Which columns of R and S the join reads, and how (see the module docstring)."""

    time: tuple[str, str]
    time_types: tuple[DataType, DataType]
    axis: TimeAxis
    keys: tuple[tuple[str, ...], tuple[str, ...]]
    key_fields: tuple[StructField, ...]  # the pairs' key columns
    hashed: bool  # keys other than one integer column: hashed, originals carried

    @classmethod
    def of(cls, r: DataFrame, s: DataFrame, key: str | Sequence[str], time: str, step: object) -> "Inputs":
        names = [key] if isinstance(key, str) else list(key)
        if not names:
            raise ShedError("{param} names no column; give a column name or a list of them", param="key")
        frames = ((r, "stream R"), (s, "stream S"))
        times = (column(r, time, "stream R", "time"), column(s, time, "stream S", "time"))
        types = (r.schema[times[0]].dataType, s.schema[times[1]].dataType)
        kinds = [time_kind(t, step) for t in types]
        if kinds[0] != kinds[1] or isinstance(types[0], TimestampNTZType) != isinstance(types[1], TimestampNTZType):
            raise ShedError(f"{{param}} is {types[0].simpleString()} in R but {types[1].simpleString()} in S; "
                            "cast one so both are integers, timestamps (both with or both without a time zone) or dates", param="time")
        keys = (tuple(column(r, k, "stream R", "key") for k in names),
                tuple(column(s, k, "stream S", "key") for k in names))
        key_types = [[df.schema[k].dataType for k in ks] for (df, _), ks in zip(frames, keys)]
        hashed = len(names) > 1 or not all(isinstance(t[0], IntegralType) for t in key_types)
        for name, a, b in zip(names, *key_types):
            if hashed and a != b:
                raise ShedError(f"key column {name!r} is {a.simpleString()} in R but {b.simpleString()} in S; "
                                "cast one so both have the same type (keys join on equal values)")
        if hashed:
            out = ("key",) if len(names) == 1 else keys[0]
            fields = tuple(StructField(n, t) for n, t in zip(out, key_types[0]))
        else:
            fields = (StructField("key", LongType()),)
        return cls(times, types, TimeAxis.of(kinds[0], step), keys, fields, hashed)

    @property
    def time_type(self) -> DataType:
        """The type of the pairs' ``r_time`` and ``s_time``: the original times' (a timestamp
        without a time zone stays one)."""
        if isinstance(self.time_types[0], TimestampNTZType):
            return TimestampNTZType()
        return {INTEGER: LongType(), TIMESTAMP: TimestampType(), DATE: DateType()}[self.axis.kind]

    @property
    def event_time_type(self) -> DataType:
        """The type of the output's event time: the times' own, but a TIMESTAMP for timestamps
        without a time zone (their wall-clock time read as UTC, as the join reads them), since
        Spark's watermark takes a TIMESTAMP only."""
        return TimestampType() if isinstance(self.time_type, TimestampNTZType) else self.time_type

    def value_sql(self, side: int) -> str:
        """SQL: the time of input ``side`` as an integer (the value, microseconds or days)."""
        col, kind = quoted(self.time[side]), self.time_types[side]
        if self.axis.kind == INTEGER:
            return whole_number_sql(col, kind.simpleString())
        if self.axis.kind == DATE:
            return f"CAST(unix_date({col}) AS BIGINT)"
        if isinstance(kind, TimestampNTZType):  # a wall-clock time, read as the same time in UTC
            return f"timestampdiff(MICROSECOND, TIMESTAMP_NTZ'1970-01-01 00:00:00', {col})"
        return f"unix_micros({col})" if isinstance(kind, TimestampType) else f"unix_micros(TRY_CAST({col} AS TIMESTAMP))"

    def key_sql(self, side: int) -> tuple[str, list[str]]:
        """SQL: the operator's key of input ``side``, and the conditions of a valid key."""
        cols = [quoted(k) for k in self.keys[side]]
        if not self.hashed:
            k = whole_number_sql(cols[0], "bigint")
            return k, [f"({k}) IS NOT NULL"]
        return f"xxhash64({', '.join(cols)})", [f"{c} IS NOT NULL" for c in cols]


def tagged(df: DataFrame, side: int, spec: JoinSpec, inputs: Inputs, idle: bool, what: str,
           kept: Sequence[str] = ()) -> DataFrame:
    """One input as rows (side, time, key, shard, carried originals, payloads); bad rows get
    side BAD. With ``idle`` the rows carry the micro-batch's processing time (:data:`NOW`;
    ``current_timestamp()`` is the batch's time from the offset log, the same when replayed).
    ``kept``: columns of ``df`` passed on as they are (the report's file path column)."""
    own = spec.payload_r if side == 0 else spec.payload_s
    cols = {c: column(df, c, what, "payload") for c in own}
    value = inputs.value_sql(side)
    t = inputs.axis.step_sql(value)
    k, valid = inputs.key_sql(side)
    bad = " OR ".join([f"({value}) IS NULL", f"({value}) < 0", f"({value}) >= {TIME_LIMIT}",
                       *(f"NOT ({v})" for v in valid)])
    out = [f"CAST(CASE WHEN {bad} THEN {BAD} ELSE {side} END AS INT) AS side",
           f"COALESCE({t}, 0) AS time",
           f"COALESCE({k}, 0) AS key",
           f"CAST(CASE WHEN {bad} THEN 0 ELSE pmod(hash({k}), {spec.shards}) END AS INT) AS shard"]
    if spec.carry_time:
        out.append(f"COALESCE({value}, 0) AS {TIME_VALUE}")
    if inputs.hashed:
        out += [f"{quoted(c)} AS {KEY_VALUE}{i}" for i, c in enumerate(inputs.keys[side])]
    if spec.payload_group:
        out.append(f"xxhash64({', '.join(quoted(column(df, c, what, 'group')) for c in spec.payload_group)}) AS {GROUP_VALUE}")
    if idle:
        out.append(f"unix_millis(current_timestamp()) AS {NOW}")
    out += [f"{quoted(cols[c])} AS {quoted(('r_' if side == 0 else 's_') + c)}" for c in own]
    return df.selectExpr(*out, *map(quoted, kept))


def check_group_types(r: DataFrame, s: DataFrame, group: Sequence[str]) -> None:
    """Each group column is in both inputs with one type: equal values of two types (an int and a
    long) hash apart, so they would be two groups."""
    for name in group:
        a, b = (df.schema[column(df, name, what, "group")].dataType for df, what in ((r, "stream R"), (s, "stream S")))
        if a != b:
            raise ShedError(f"{{param}} column {name!r} is {a.simpleString()} in R but {b.simpleString()} in S; cast "
                            "one so both have the same type (a group is its values)", param="group")


def with_missing(df: DataFrame, fields: list[StructField]) -> DataFrame:
    """Add the columns of ``fields`` that ``df`` lacks as typed nulls, so the inputs union by name."""
    for field in fields:
        if field.name not in df.columns:
            df = df.withColumn(field.name, F.lit(None).cast(field.dataType))
    return df


def tagged_union(r: DataFrame, s: DataFrame, spec: JoinSpec, inputs: Inputs, idle: bool,
          end_of_input: DataFrame | None) -> tuple[DataFrame, list[StructField]]:
    """Both inputs (and the end-of-input marker, one row per shard) as one stream of tagged rows,
    and the payload fields."""
    check_group_types(r, s, spec.payload_group)
    parts = [tagged(r, 0, spec, inputs, idle, "stream R"), tagged(s, 1, spec, inputs, idle, "stream S")]
    payload = [f for df in parts for f in df.schema.fields if f.name in spec.payload_columns]
    extra = [f for f in parts[0].schema.fields
             if f.name in spec.carried_columns or f.name in spec.group_columns or f.name == NOW]
    parts = [with_missing(df, payload) for df in parts]
    joined = parts[0].unionByName(parts[1])
    if end_of_input is not None:
        marker = end_of_input.selectExpr(f"{END} AS side", "CAST(0 AS BIGINT) AS time", "CAST(0 AS BIGINT) AS key",
                                         f"explode(sequence(0, {spec.shards - 1})) AS shard")
        joined = joined.unionByName(with_missing(marker, extra + payload))
    return joined, payload


def output_schema(inputs: Inputs, payload_fields: list[StructField], outer: bool = False) -> StructType:
    """The pair columns (the key columns, ``r_time``, ``s_time``, the event time
    :data:`~shedding.streaming.shard.EVENT_TIME` (:attr:`Inputs.event_time_type`), payloads, and with ``outer``
    the outer rows' flag :data:`~shedding.streaming.shard.SHED`), then ``metrics``: null on a pair
    row, and on the one metrics row per shard and micro-batch a JSON object (``shard``,
    :data:`~shedding.streaming.shard.METRICS`, ``state_bytes``, ``handler_ms``). One narrow column
    keeps the Arrow transfer of a batch's pairs small."""
    fields = [*inputs.key_fields, *(StructField(c, inputs.time_type) for c in ("r_time", "s_time")),
              StructField(EVENT_TIME, inputs.event_time_type)]
    fields += [StructField(f.name, f.dataType) for f in payload_fields]
    if outer:
        fields.append(StructField(SHED, BooleanType()))
    names = [f.name.lower() for f in fields]
    clash = sorted({n for n in names if names.count(n) > 1} | ({"metrics"} & set(names)))
    if clash:
        raise ShedError(f"the pairs would have two columns named {clash[0]!r}; rename the key or payload column")
    fields.append(StructField("metrics", StringType()))
    return StructType(fields)
