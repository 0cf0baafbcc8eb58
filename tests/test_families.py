"""Every policy of the registry on every join family: it runs there (the family lists it) and obeys
the family's invariants, or the family refuses it in one line naming the policy parameter. No
family runs a policy it does not implement with parameters its kernel never sets (the band join
ran SURV, DUAL and FLUID that way, all three as first-in first-out)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from helpers import assert_one_line_error
from shedding.errors import ShedError
from shedding.exact import exact_memory
from shedding.online.policies import BAND, BESTMATCH, EQUI, FAMILIES, POLICIES, STREAM, WJOIN, names_for
from shedding.datasets import zipf_workload

CASES = [(name, fam) for name in POLICIES for fam in FAMILIES]


def _ids(case: tuple[str, str]) -> str:
    return f"{case[0]}-{case[1]}"


def _workload():
    return zipf_workload(1.0, 12, 300, seed=3, window=20, warmup=0)


def _pairs(res) -> set[tuple[int, int]]:
    return set(map(tuple, np.asarray(res.pairs).tolist()))


def _equi(name: str) -> None:
    from shedding.offline.opt import solve_opt
    from shedding.online.simulator import simulate

    wl = _workload()
    exact = simulate(wl, "exact", 0, pairs=True)
    ample = exact_memory(wl).fixed
    pol = POLICIES[name]
    for memory in (ample // 4, ample):
        schedule = None
        if pol.replay:
            schedule = solve_opt(wl, memory, None, allocation="variable" if pol.variable else "fixed").schedule
        res = simulate(wl, name, memory, pairs=True, schedule=schedule, estimator="online")
        assert _pairs(res) <= _pairs(exact)
        assert res.outputs == len(_pairs(res))
    assert res.outputs == exact.outputs


def _band(name: str) -> None:
    from shedding.band.opt import solve_opt
    from shedding.band.predicate import BandWorkload
    from shedding.band.simulate import simulate_band

    wl = _workload()
    bw = BandWorkload.of(wl, [wl.key.astype(float)], "1", ("key",))
    exact = simulate_band(bw, "exact", 0, pairs=True)
    ample = exact_memory(wl).fixed
    pol = POLICIES[name]
    for memory in (ample // 4, ample):
        schedule = None
        if pol.replay:
            schedule = solve_opt(bw, memory, None, allocation="variable" if pol.variable else "fixed").schedule
        res = simulate_band(bw, name, memory, pairs=True, schedule=schedule)
        assert _pairs(res) <= _pairs(exact)
    assert res.outputs == exact.outputs


def _wjoin(name: str) -> None:
    from shedding.wjoin import WindowSpec, brute_results
    from shedding.wjoin.generator import synthetic_streams
    from shedding.wjoin.loadshed import ShedWJoin, prob_priorities
    from shedding.wjoin.operator import run

    streams = synthetic_streams(3, 40, skew=1.0, domain=4, seed=2)
    windows = WindowSpec.uniform(3, 4)
    exact = set(map(tuple, brute_results(streams, windows).tolist()))
    prio = None if POLICIES[name].seed else prob_priorities(streams, windows)
    for memory in (6, 3 * 40):
        rows = set(map(tuple, np.asarray(run(ShedWJoin(windows, memory, name, priorities=prio), streams)).tolist()))
        assert rows <= exact
    assert rows == exact


def _bestmatch(name: str) -> None:
    from shedding.bestmatch.generator import synthetic_input
    from shedding.bestmatch.shed import shedding_study

    df = shedding_study(synthetic_input(80, 80, 2, "uniform", 0.1, 3, seed=1), [1.0, 0.3], [name])
    full = df[df.fraction == 1.0]
    # a shed bestmatch join may output false pairs (a dominated pair whose better partner left), so
    # only memory for the whole window is held to the exact result
    assert (full.precision == 1).all() and (full.recall == 1).all() and (full.symdiff == 0).all()


def _stream(name: str) -> None:
    from shedding.online.simulator import simulate
    from shedding.streaming.shard import END, JoinSpec, ShardJoin

    wl = _workload()
    order = np.lexsort((wl.key, wl.side, wl.time))  # the streaming join's order within a step
    frame = pd.DataFrame({"side": wl.side[order].astype(np.int64), "time": wl.time[order], "key": wl.key[order]})
    exact = simulate(wl, "exact", 0, pairs=True)
    exact_set = {(int(wl.key[r]), int(wl.time[r]), int(wl.time[s])) for r, s in exact.pairs}
    ample = exact_memory(wl).fixed
    for memory in (ample // 4, ample):
        join = ShardJoin(JoinSpec(wl.window, memory, name))
        out = [join.push(batch)[0] for batch in (frame.iloc[:300], frame.iloc[300:],
                                                pd.DataFrame({"side": [END], "time": [0], "key": [0]}))]
        pairs = pd.concat(out, ignore_index=True)
        found = set(zip(pairs["key"], pairs["r_time"], pairs["s_time"]))
        assert found <= exact_set and len(found) == len(pairs)
    assert len(pairs) == exact.outputs


RUN = {EQUI: _equi, BAND: _band, WJOIN: _wjoin, BESTMATCH: _bestmatch, STREAM: _stream}


def _refuse(name: str, family: str) -> None:
    """What a family does with a policy it does not implement: a ShedError about the policy."""
    if family == BAND:
        from shedding.band.operator import BandJoinOperator

        BandJoinOperator(10, 4, name, np.array([1]))
    elif family == WJOIN:
        from shedding.wjoin import WindowSpec
        from shedding.wjoin.loadshed import ShedWJoin

        ShedWJoin(WindowSpec.uniform(2, 3), 4, name)
    elif family == BESTMATCH:
        from shedding.bestmatch.generator import synthetic_input
        from shedding.bestmatch.shed import shed_bestmatch

        shed_bestmatch(synthetic_input(5, 5, 2, "uniform", 0.1, 3, seed=1), 4, name)
    elif family == STREAM:
        from shedding.streaming.shard import JoinSpec

        JoinSpec(10, 4, name)
    else:
        from shedding.online.simulator import simulate

        simulate(_workload(), name, 4)


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_every_policy_runs_or_is_refused_on_every_family(case):
    name, family = case
    if POLICIES[name].runs_on(family):
        RUN[family](name)
    else:
        with pytest.raises(ShedError) as err:
            _refuse(name, family)
        assert_one_line_error(err)
        assert name in str(err.value)
        if not POLICIES[name].replay:  # a replay is no policy a user names: it is unknown there
            assert err.value.param == "policy" or family == STREAM


def test_the_families_lists_come_from_the_registry():
    from shedding.bestmatch.shed import OWN
    from shedding.bestmatch.shed import POLICIES as BESTMATCH_POLICIES
    from shedding.streaming.shard import SHEDDING
    from shedding.wjoin.loadshed import POLICIES as WJOIN_POLICIES

    assert WJOIN_POLICIES == names_for(WJOIN)
    assert BESTMATCH_POLICIES == (*names_for(BESTMATCH), *OWN)
    assert SHEDDING == ("none", *names_for(STREAM))
    assert set(names_for(BAND)) == {"rand", "prob", "life", "randv", "probv", "lifev"}  # what its kernel ranks by
