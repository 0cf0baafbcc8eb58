"""A shard's state between micro-batches (ShardJoin.to_bytes / from_bytes): a compressed Arrow IPC
stream of plain data, never a pickle; a shard restored from it mid-stream gives the pairs and
metrics of the uninterrupted one, for every shedding choice, with held-back tuples, payloads of
every Arrow type and original keys whose hashes collide."""

from __future__ import annotations

import datetime as dt
import json
import zlib
from decimal import Decimal

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from helpers import assert_one_line_error, assert_same_state, unpickling_refused
from shedding import zipf_workload
from shedding.errors import ShedError
from shedding.online.estimators import StaticEstimator
from shedding.streaming.budget import Census
from shedding.streaming.shard import END, SHEDDING, STATE_LAYOUT, JoinSpec, ShardJoin


def arrow_batches(wl, parts: int, seed: int) -> list[pd.DataFrame]:
    """Micro-batches as the processor hands them over (Arrow to pandas), rows shuffled, with payloads
    of many Arrow types, nulls where the other side's payload is (as the tagged union has them)."""
    rng = np.random.default_rng(seed)
    n = len(wl)
    r = wl.side == 0
    when = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    columns = {
        "side": pa.array(wl.side.astype(np.int32)), "time": pa.array(wl.time), "key": pa.array(wl.key),
        "r_tag": pa.array([f"r{t}" if s else None for t, s in zip(wl.time, r)], pa.string()),
        "r_n": pa.array([int(t) if s else None for t, s in zip(wl.time, r)], pa.int64()),
        "r_ok": pa.array([bool(t % 2) if s else None for t, s in zip(wl.time, r)], pa.bool_()),
        "r_day": pa.array([dt.date(2026, 1, 1) + dt.timedelta(days=int(t)) if s else None
                           for t, s in zip(wl.time, r)], pa.date32()),
        "s_at": pa.array([when + dt.timedelta(seconds=int(t)) if not s else None for t, s in zip(wl.time, r)],
                         pa.timestamp("us", tz="UTC")),
        "s_x": pa.array([t / 3 if not s else None for t, s in zip(wl.time, r)], pa.float64()),
        "s_bin": pa.array([bytes([t % 256]) if not s else None for t, s in zip(wl.time, r)], pa.binary()),
        "s_dec": pa.array([Decimal(int(t)) / 4 if not s else None for t, s in zip(wl.time, r)], pa.decimal128(12, 2)),
    }
    table = pa.table(columns)
    cuts = np.sort(rng.choice(np.arange(1, n), size=parts - 1, replace=False))
    return [table.take(pa.array(rng.permutation(idx))).to_pandas() for idx in np.split(np.arange(n), cuts)]


PAYLOAD_R, PAYLOAD_S = ("tag", "n", "ok", "day"), ("at", "x", "bin", "dec")


def run(spec: JoinSpec, batches: list[pd.DataFrame], cut: int | None, table=None, census: bool = False):
    """The pairs and metrics of every micro-batch; with ``cut``, the shard is stored and restored
    from its bytes before micro-batch ``cut``."""
    join = ShardJoin(spec, 0, table)
    out = []
    for i, batch in enumerate([*batches, pd.DataFrame({"side": [END], "time": [0], "key": [0]})]):
        if i == cut:
            assert len(join._held) and len(join._resident), "the cut should find tuples held back and in memory"
            blob = join.to_bytes()
            with unpickling_refused():
                restored = ShardJoin.from_bytes(blob)
            assert_same_state(join, restored, "shard")
            join = restored
        whole = Census.of(batch["side"].to_numpy(), batch["key"].to_numpy(), batch["time"].to_numpy())
        out.append(join.push(batch, whole if census else None, now=1000 * i))
    return out


def assert_same_runs(a: list, b: list) -> None:
    assert len(a) == len(b)
    for (pairs_a, metrics_a), (pairs_b, metrics_b) in zip(a, b):
        pd.testing.assert_frame_equal(pairs_a, pairs_b, check_exact=True)
        assert metrics_a == metrics_b
    assert sum(len(p) for p, _ in a) > 0


@pytest.mark.parametrize("shedding", SHEDDING)
def test_a_restored_shard_continues_as_the_uninterrupted_one(shedding):
    wl = zipf_workload(1.0, 40, 1500, seed=4, window=60, warmup=0)
    tunable = shedding in ("hazard", "hazardv", "age", "agev")
    tuning = "first=2,ratio=1.5,refit_first=4,refit_every=64" if tunable else ""
    spec = JoinSpec(60, 30, shedding, lateness=3, payload_r=PAYLOAD_R, payload_s=PAYLOAD_S, seed=5, tuning=tuning)
    batches = arrow_batches(wl, 8, seed=1)
    assert_same_runs(run(spec, batches, cut=4), run(spec, batches, cut=None))


@pytest.mark.parametrize("shedding", ["prob", "hazard", "rand"])
def test_a_shared_budget_and_a_static_table_are_restored(shedding):
    wl = zipf_workload(1.0, 40, 1500, seed=5, window=60, warmup=0)
    spec = JoinSpec(60, 30, shedding, shards=2, estimator="static", idle_timeout_ms=2500, max_held=200)
    assert spec.shares_budget
    table = StaticEstimator.from_workload(wl, ages=True)
    batches = arrow_batches(wl, 8, seed=2)
    restored = run(spec, batches, cut=5, table=table, census=True)
    assert_same_runs(restored, run(spec, batches, cut=None, table=table, census=True))


def test_string_keys_whose_hashes_collide():
    """Original keys carried as text (and an original time): three names share each hash, so the
    operator joins them as one key and the shard drops the pairs whose names differ."""
    wl = zipf_workload(1.0, 30, 1500, seed=6, window=50, warmup=0)
    names = np.array([f"k{k}" if k % 5 else None for k in wl.key], dtype=object)  # None: a key absent here
    batches = []
    for batch in arrow_batches(wl, 6, seed=3):
        rows = batch.index.to_numpy()  # the rows of wl, shuffled
        batch = batch.assign(key=wl.key[rows] // 3, _t=wl.time[rows] * 60, _k0=names[rows])
        batches.append(batch[["side", "time", "key", "_t", "_k0", "r_tag", "s_x"]])
    spec = JoinSpec(50, 25, "prob", lateness=2, carry_time=True, key_names=("name",), payload_r=("tag",),
                    payload_s=("x",))
    restored = run(spec, batches, cut=3)
    assert_same_runs(restored, run(spec, batches, cut=None))
    pairs = pd.concat([p for p, _ in restored])
    assert len(pairs) and set(pairs.columns) >= {"name", "r_time", "s_time"}


def test_the_state_is_a_compressed_arrow_stream_of_plain_data():
    wl = zipf_workload(1.0, 20, 600, seed=1, window=30)
    spec = JoinSpec(30, 20, "hazard", lateness=2, payload_r=PAYLOAD_R, payload_s=PAYLOAD_S)
    join = ShardJoin(spec)
    join.push(arrow_batches(wl, 2, seed=0)[0])
    blob = join.to_bytes()
    assert blob.startswith(b"\x28\xb5\x2f\xfd")  # a Zstandard frame
    raw = unpacked(blob)
    assert raw.startswith(b"\xff\xff\xff\xff")  # an Arrow IPC stream
    batch = pa.ipc.open_stream(raw).read_next_batch()
    assert batch.num_rows == 1
    assert {"spec", "held", "resident", "op.state.node", "op.aged.hsc"} <= set(batch.schema.names)
    assert batch.column("layout")[0].as_py() == STATE_LAYOUT == 11
    assert batch.column("format")[0].as_py() == "shedding.streaming.shard"
    assert batch.schema.field("op.state.node").metadata[b"shape"] == b"%d,9" % len(join.op._node)
    assert JoinSpec(**{k: tuple(v) if isinstance(v, list) else v
                       for k, v in json.loads(batch.column("spec")[0].as_py()).items()}) == spec


def unpacked(blob: bytes) -> bytes:
    """The Arrow IPC stream of a stored state."""
    return pa.CompressedInputStream(pa.BufferReader(blob), "zstd").read()


def packed(raw: bytes) -> bytes:
    return pa.Codec("zstd").compress(raw, asbytes=True)


def stored(batch: pa.RecordBatch) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, batch.schema) as writer:
        writer.write_batch(batch)
    return packed(sink.getvalue().to_pybytes())


def test_objects_in_the_state_are_refused_unread():
    wl = zipf_workload(1.0, 20, 300, seed=1, window=30)
    join = ShardJoin(JoinSpec(30, 20, "prob"))
    join.push(pd.DataFrame({"side": wl.side.astype(np.int64), "time": wl.time, "key": wl.key}))
    with pytest.raises(ShedError) as exc, unpickling_refused():
        ShardJoin.restore(join.snapshot() | {"op.keys": np.array([1, "a"], dtype=object)})
    assert_one_line_error(exc, "'op.keys'", "object", "no Python objects")
    batch = pa.ipc.open_stream(unpacked(join.to_bytes())).read_next_batch()
    at = batch.schema.get_field_index("op.keys")
    for column in (pa.array([{"a": 1}]), pa.array([b"\x80\x04K\x01."], pa.binary())):  # a struct; a pickle's bytes
        damaged = batch.set_column(at, pa.field("op.keys", column.type, metadata={"shape": ""}), column)
        with pytest.raises(ShedError) as exc, unpickling_refused():
            ShardJoin.from_bytes(stored(damaged))
        assert_one_line_error(exc, "op.keys", "not a readable Arrow snapshot", "new checkpoint")


@pytest.mark.parametrize("damage, needle", [
    (lambda blob: blob[:40], "not a readable Arrow snapshot"),
    (lambda blob: b"\x80\x05" + blob, "not a compressed Arrow snapshot"),
    (lambda blob: zlib.compress(unpacked(blob)), "not a compressed Arrow snapshot"),
    (lambda blob: packed(unpacked(blob)[:300]), "not a readable Arrow snapshot"),
    (lambda blob: packed(b"\x80\x05" + unpacked(blob)), "not a compressed Arrow snapshot"),
])
def test_a_damaged_state_is_refused_in_one_line(damage, needle):
    join = ShardJoin(JoinSpec(30, 20, "prob"))
    with pytest.raises(ShedError) as exc, unpickling_refused():
        ShardJoin.from_bytes(damage(join.to_bytes()))
    assert_one_line_error(exc, needle, "new checkpoint")


def test_a_column_of_mixed_types_is_refused_when_stored():
    join = ShardJoin(JoinSpec(30, 20, "prob", lateness=5, payload_r=("v",)))
    join.push(pd.DataFrame({"side": [0, 0], "time": [1, 2], "key": [1, 1], "r_v": pd.Series([1, "a"], dtype=object)}))
    with pytest.raises(ShedError) as exc:
        join.to_bytes()
    assert_one_line_error(exc, "held-back", "mixed types", "one type")
