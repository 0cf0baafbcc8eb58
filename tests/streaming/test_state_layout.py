"""The layout of a shard's pickled state (shedding.streaming.shard.STATE_LAYOUT): a checkpoint in
another layout is refused, on restart and when the state is read, and a change to the operator's
arrays made without raising the layout fails here."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pandas as pd
import pytest

from helpers import assert_one_line_error
from shedding import zipf_workload
from shedding.errors import ShedError
from shedding.online import agedlayout, layout
from shedding.streaming.job import PARAMS, StreamJob, check_params
from shedding.streaming.shard import R, S, STATE_LAYOUT, JoinSpec, ShardJoin
from shedding.streaming.sources import inspect_source, write_zipf_sources

#: the fingerprint of each layout's arrays (see :func:`fingerprint`); a new layout adds its own
FINGERPRINTS = {1: "7b8a90fdeb22", 2: "7c6e88bfb55f"}


def fed_shard(policy: str = "hazard") -> ShardJoin:
    wl = zipf_workload(1.0, 20, 300, seed=1, window=30)
    join = ShardJoin(JoinSpec(30, 20, policy))
    join.push(pd.DataFrame({"side": np.where(wl.side == 0, R, S), "time": wl.time, "key": wl.key}))
    return join


def fingerprint(join: ShardJoin) -> str:
    """The kernel's field counts, every array's dtype and rank, and the attributes of the pickled
    objects: what a restart reads back."""
    op = join.op
    parts = [layout.NODE_FIELDS, layout.CLS_FIELDS, layout.SC_FIELDS, layout.FSC_FIELDS, agedlayout.HN_FIELDS,
             agedlayout.H_FIELDS, agedlayout.HF_FIELDS, agedlayout.SH_FIELDS, agedlayout.KEY_FIELDS]
    parts += [(a.dtype.str, a.ndim) for a in (*op._state(), *op._aged.state())]
    parts += [sorted(vars(obj)) for obj in (join, op, op._aged)]
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:12]


def test_a_change_of_the_state_raises_the_layout():
    assert fingerprint(fed_shard()) == FINGERPRINTS[STATE_LAYOUT], (
        "the shard's pickled state changed: raise STATE_LAYOUT in shedding/streaming/shard.py and record the "
        "new fingerprint here")


def test_state_in_another_layout_is_refused():
    join = fed_shard()
    assert ShardJoin.from_bytes(join.to_bytes()).op.in_memory == join.op.in_memory > (0, 0)
    del join.layout  # pickled before the layout was recorded: layout 1
    if STATE_LAYOUT == 1:
        ShardJoin.from_bytes(join.to_bytes())
    else:
        with pytest.raises(ShedError):
            ShardJoin.from_bytes(join.to_bytes())
    join.layout = STATE_LAYOUT + 1
    with pytest.raises(ShedError) as exc:
        ShardJoin.from_bytes(join.to_bytes())
    assert_one_line_error(exc, f"layout {STATE_LAYOUT + 1}", "new --checkpoint")


def test_a_checkpoint_of_another_layout_is_refused_before_the_query(tmp_path):
    r, s = write_zipf_sources("zipf:1:20", "zipf:1:20", tmp_path / "src", 200, 2, 0)
    job = StreamJob(inspect_source(r, "csv", "stream R"), inspect_source(s, "csv", "stream S"), tmp_path / "out",
                    tmp_path / "ck", JoinSpec(30, 20, "prob"))
    check_params(job)  # a first start records the parameters, with the layout
    stored = json.loads((job.checkpoint / PARAMS).read_text())
    assert stored["state_layout"] == STATE_LAYOUT
    for folder in (job.checkpoint, job.out):  # made before the layout was recorded: layout 1
        (folder / PARAMS).write_text(json.dumps({k: v for k, v in stored.items() if k != "state_layout"}))
    if STATE_LAYOUT == 1:
        check_params(job)
    (job.checkpoint / PARAMS).write_text(json.dumps(stored | {"state_layout": STATE_LAYOUT + 1}))
    with pytest.raises(ShedError) as exc:
        check_params(job)
    assert_one_line_error(exc, "--checkpoint", f"layout {STATE_LAYOUT + 1}", "new --checkpoint")
