"""The layout of a shard's state (shedding.streaming.shard.STATE_LAYOUT): a checkpoint in another
layout is refused, on restart and when the state is read (the pickle of layouts 1 and 2 without
being unpickled), and a change to the operator's arrays or the snapshot's entries made without
raising the layout fails here."""

from __future__ import annotations

import hashlib
import json
import pickle
import zlib

import numpy as np
import pandas as pd
import pytest

from helpers import assert_one_line_error
from shedding import zipf_workload
from shedding.errors import ShedError
from shedding.online import agedlayout, layout
from shedding.streaming.job import PARAMS, StreamJob, check_params, record_params
from shedding.streaming.shard import R, S, STATE_LAYOUT, JoinSpec, ShardJoin
from shedding.streaming.sources import inspect_source, write_zipf_sources
from shedding.streaming.state import from_state_bytes

#: the fingerprint of each layout's state (see :func:`fingerprint`); a new layout adds its own. Layouts
#: 1 and 2 were pickles, fingerprinted by their arrays and the pickled objects' attributes; from
#: layout 3 on the fingerprint is of the snapshot's entries
FINGERPRINTS = {1: "7b8a90fdeb22", 2: "7c6e88bfb55f", 3: "020c36adfc0f", 4: "3ab9f9920a1f", 5: "ab7d80dd820b",
                6: "fb84c720c404", 7: "e1575c0ae561", 8: "eca90d35a663",
                9: "5b2621a1d530", 10: "be0bd1fa7761", 11: "ecc5fd04769b"}


def fed_shard(policy: str = "hazard") -> ShardJoin:
    """A shard of ``policy`` fed 600 tuples; HAZARD's by the key's history (from layout 11 on its
    entries are in the state, and so in the fingerprint)."""
    wl = zipf_workload(1.0, 20, 300, seed=1, window=30)
    join = ShardJoin(JoinSpec(30, 20, policy, group="history" if policy == "hazard" else ()))
    join.push(pd.DataFrame({"side": np.where(wl.side == 0, R, S), "time": wl.time, "key": wl.key}))
    return join


def fingerprint(join: ShardJoin) -> str:
    """The kernel's field counts and every entry of the stored snapshot (name, dtype, rank): what a
    restart reads back; from layout 8 on also the rows per state of HAZARD's memo of priorities
    (its bins and the scratch rows after them)."""
    parts = [layout.NODE_FIELDS, layout.CLS_FIELDS, layout.SC_FIELDS, layout.FSC_FIELDS, agedlayout.HN_FIELDS,
             agedlayout.H_FIELDS, agedlayout.HF_FIELDS, agedlayout.SH_FIELDS, agedlayout.KEY_FIELDS]
    entries = from_state_bytes(join.to_bytes(), "the state", "")
    parts += sorted((name, a.dtype.str, a.ndim) for name, a in entries.items())
    if join.layout >= 8:
        parts.append(entries["op.aged.memo"].shape[3])
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:12]


def test_a_change_of_the_state_raises_the_layout():
    assert fingerprint(fed_shard()) == FINGERPRINTS[STATE_LAYOUT], (
        "the shard's stored state changed: raise STATE_LAYOUT in shedding/streaming/shard.py and record the "
        "new fingerprint here")


def test_state_in_another_layout_is_refused():
    join = fed_shard()
    assert ShardJoin.from_bytes(join.to_bytes()).op.in_memory == join.op.in_memory > (0, 0)
    for layout_ in (1, 2, STATE_LAYOUT + 1):
        join.layout = layout_
        with pytest.raises(ShedError) as exc:
            ShardJoin.from_bytes(join.to_bytes())
        assert_one_line_error(exc, f"layout {layout_}", "new checkpoint")


def test_a_pickled_state_of_layout_2_is_refused_unread(monkeypatch):
    """The value layouts 1 and 2 stored (the compressed pickle of the shard) is refused in one line
    naming the fix, and never unpickled."""
    blob = zlib.compress(pickle.dumps(fed_shard(), protocol=pickle.HIGHEST_PROTOCOL), 1)

    def refuse(*args, **kwargs):
        raise AssertionError("the state was unpickled")

    for name in ("loads", "load", "Unpickler"):
        monkeypatch.setattr(pickle, name, refuse)
    with pytest.raises(ShedError) as exc:
        ShardJoin.from_bytes(blob)
    assert_one_line_error(exc, "is a pickle", f"before state layout {STATE_LAYOUT} pickled it", "never unpickles",
                          "new checkpoint")


def test_a_checkpoint_of_another_layout_is_refused_before_the_query(tmp_path):
    r, s = write_zipf_sources("zipf:1:20", "zipf:1:20", tmp_path / "src", 200, 2, 0)
    job = StreamJob(inspect_source(r, "csv", "stream R"), inspect_source(s, "csv", "stream S"), tmp_path / "out",
                    tmp_path / "ck", JoinSpec(30, 20, "prob"))
    check_params(job)
    record_params(job)  # a first start records the parameters, with the layout (once its query is built)
    stored = json.loads((job.checkpoint / PARAMS).read_text())
    assert stored["state_layout"] == STATE_LAYOUT
    for folder in (job.checkpoint, job.out):  # made before the layout was recorded: layout 1
        (folder / PARAMS).write_text(json.dumps({k: v for k, v in stored.items() if k != "state_layout"}))
    with pytest.raises(ShedError) as exc:
        check_params(job)
    assert_one_line_error(exc, "checkpoint", "layout 1", "new checkpoint")
    assert "new --checkpoint" in exc.value.naming("--checkpoint")  # as the command line names it
    for layout_ in (2, STATE_LAYOUT + 1):  # the last pickled layout, and one to come
        (job.checkpoint / PARAMS).write_text(json.dumps(stored | {"state_layout": layout_}))
        with pytest.raises(ShedError) as exc:
            check_params(job)
        assert_one_line_error(exc, "checkpoint", f"layout {layout_}", "new checkpoint")
