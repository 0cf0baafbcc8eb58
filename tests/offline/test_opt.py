"""OPT / OPTV (Das, Gehrke, Riedewald 2003, §3.2): every network and solver against a brute force
written straight from the join semantics (docs/semantics.md), and every returned schedule against a replay check."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shedding.errors import ShedError
from shedding.exact import exact_count, exact_pairs
from shedding.model import Schedule, Workload
from shedding.metrics import archive_metric
from shedding.offline import GRAPHS, SOLVERS, OptResult, solve_opt

from oracles import brute_force, produced_pairs, replay, split_of, zipf_like
from strategies import tiny_workloads

ALL_WAYS = [(g, s) for g in GRAPHS for s in SOLVERS]


# --- independent checkers -------------------------------------------------------------------









def arm_direct(wl: Workload, schedule: Schedule) -> int:
    """ArM straight from the pairs: tuples at t >= warmup with some window pair not produced
    (all pairs of such a tuple are counted, so ``exact_pairs`` lists them)."""
    pairs = exact_pairs(wl)
    missed = pairs[~produced_pairs(wl, schedule)]
    bad = np.unique(missed.ravel())
    return int(np.count_nonzero(wl.time[bad] >= wl.warmup))


def check_result(res: OptResult, wl: Workload, memory: int, split: tuple[int, int] | None) -> None:
    assert replay(wl, res.schedule, memory, split) == res.outputs
    assert res.exact == exact_count(wl)
    assert res.arm == arm_direct(wl, res.schedule)


# --- workloads ------------------------------------------------------------------------------

FIGURE2 = Workload.synchronous([1, 1, 1, 3, 2], [2, 3, 1, 1, 3], window=3, warmup=0)






# --- the paper's example ----------------------------------------------------------------------

@pytest.mark.parametrize("graph,solver", ALL_WAYS)
def test_figure2(graph: str, solver: str) -> None:
    res = solve_opt(FIGURE2, 2, graph=graph, solver=solver)
    assert (res.exact, res.outputs, res.policy) == (7, 5, "opt")
    assert (res.memory_r, res.memory_s) == (1, 1)
    check_result(res, FIGURE2, 2, (1, 1))
    assert np.count_nonzero(~produced_pairs(FIGURE2, res.schedule)) == 2


def test_figure2_paper_flow_is_optimal() -> None:
    """The optimum §3.2.1 reports for Figure 2 (r(0) held until s(2), r(2) until s(3), r(3)
    until s(4), s(1) until r(3)) is legal, reaches OPT = 5 = brute force and loses exactly the
    pairs the paper names, (r(1), s(2)) and (r(1), s(3)). Other optima lose other pairs."""
    idx = {(side, t): i for i, (side, t) in enumerate(zip(FIGURE2.side.tolist(), FIGURE2.time.tolist()))}
    left = FIGURE2.time.copy()
    for (side, t), until in {(0, 0): 2, (0, 2): 3, (0, 3): 4, (1, 1): 3}.items():
        left[idx[(side, t)]] = until
    paper = Schedule(left > FIGURE2.time, left)
    assert replay(FIGURE2, paper, 2, (1, 1)) == 5 == brute_force(FIGURE2, 2, (1, 1))
    pairs = exact_pairs(FIGURE2)
    lost = {(int(FIGURE2.time[r]), int(FIGURE2.time[s])) for r, s in pairs[~produced_pairs(FIGURE2, paper)]}
    assert lost == {(1, 2), (1, 3)}


def test_figure2_variable_and_enough_memory() -> None:
    assert solve_opt(FIGURE2, 2, allocation="variable").outputs == brute_force(FIGURE2, 2, None) == 6
    assert solve_opt(FIGURE2, 4).outputs == 7  # M = 2w - 2: nothing is lost


# --- brute force ------------------------------------------------------------------------------

@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wl=tiny_workloads(), memory=st.integers(0, 4), variable=st.booleans(), data=st.data())
def test_matches_brute_force(wl: Workload, memory: int, variable: bool, data: st.DataObject) -> None:
    allocation = "variable" if variable else "fixed"
    split = None
    if not variable and data.draw(st.booleans()):
        m_r = data.draw(st.integers(0, memory))
        split = (m_r, memory - m_r)
    expected = brute_force(wl, memory, split_of(memory, allocation, split))
    for graph, solver in ALL_WAYS:
        res = solve_opt(wl, memory, split, allocation, graph=graph, solver=solver)
        assert res.outputs == expected, (graph, solver)
        check_result(res, wl, memory, split_of(memory, allocation, split))


# --- the networks agree -----------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("allocation", ["fixed", "variable"])
def test_graphs_agree_small(seed: int, allocation: str) -> None:
    rng = np.random.default_rng(seed)
    w = int(rng.integers(2, 9))
    wl = zipf_like(int(rng.integers(10, 40)), w, int(rng.integers(0, 2 * w)), seed, gaps=seed % 2 == 1)
    memory = int(rng.integers(0, 2 * w))
    results = [solve_opt(wl, memory, allocation=allocation, graph=g, solver=s) for g, s in ALL_WAYS]
    assert len({r.outputs for r in results}) == 1
    for res in results:
        check_result(res, wl, memory, split_of(memory, allocation))


@pytest.mark.parametrize("seed,gaps", [(0, False), (1, True)])
@pytest.mark.parametrize("allocation", ["fixed", "variable"])
def test_graphs_agree_medium(seed: int, gaps: bool, allocation: str) -> None:
    wl = zipf_like(400, 30, 60, seed, domain=12, gaps=gaps)
    for memory in (6, 20, 45):
        results = [solve_opt(wl, memory, allocation=allocation, graph=g, solver=s) for g, s in ALL_WAYS]
        assert len({r.outputs for r in results}) == 1, [(r.graph, r.solver, r.outputs) for r in results]
        check_result(results[0], wl, memory, split_of(memory, allocation))
        assert all(r.nodes > 0 and r.arcs > 0 for r in results)
    sizes = {g: solve_opt(wl, 20, allocation=allocation, graph=g) for g in GRAPHS}
    assert sizes["compact"].arcs < sizes["paper"].arcs and sizes["keyed"].arcs < sizes["paper"].arcs


@pytest.mark.parametrize("window, picked", [(6, "compact"), (400, "keyed")])
def test_auto_builds_the_smaller_network(window: int, picked: str) -> None:
    # a short window has few partner pairs per tuple (compact is small); a long one has many
    # (compact grows with w, keyed stays O(N))
    wl = zipf_like(2000, window, 2 * window, 3, domain=6)
    for allocation in ("fixed", "variable"):
        auto = solve_opt(wl, window // 2 + 1, allocation=allocation)
        both = {g: solve_opt(wl, window // 2 + 1, allocation=allocation, graph=g) for g in ("compact", "keyed")}
        assert auto.graph == picked
        assert auto.outputs == both["compact"].outputs == both["keyed"].outputs
        other = both["keyed" if picked == "compact" else "compact"]
        assert auto.nodes + auto.arcs < other.nodes + other.arcs


def test_fixed_split_and_warmup_matter() -> None:
    wl = zipf_like(300, 25, 0, 7, domain=8)
    fixed = solve_opt(wl, 20)
    skewed = solve_opt(wl, 20, memory_split=(15, 5))
    variable = solve_opt(wl, 20, allocation="variable")
    assert variable.outputs >= max(fixed.outputs, skewed.outputs)
    assert fixed.outputs != skewed.outputs
    check_result(skewed, wl, 20, (15, 5))
    later = wl.with_params(warmup=100)
    assert solve_opt(later, 20).outputs < fixed.outputs
    check_result(solve_opt(later, 20), later, 20, (10, 10))


# --- properties -------------------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), memory=st.integers(0, 30), gaps=st.booleans())
def test_optv_at_least_opt(seed: int, memory: int, gaps: bool) -> None:
    wl = zipf_like(80, 12, 10, seed, gaps=gaps)
    opt = solve_opt(wl, memory)
    optv = solve_opt(wl, memory, allocation="variable")
    assert opt.exact >= optv.outputs >= opt.outputs
    m_r = seed % (memory + 1)
    assert optv.outputs >= solve_opt(wl, memory, memory_split=(m_r, memory - m_r)).outputs


def most_held(wl: Workload, side: int) -> int:
    """The most tuples of one side that can be alive after one step's admissions."""
    t = wl.time[wl.side == side]
    return max((int(np.count_nonzero((t <= u) & (u < t + wl.window - 1))) for u in np.unique(wl.time)), default=0)


@pytest.mark.parametrize("graph", list(GRAPHS))
@pytest.mark.parametrize("w", [1, 2, 5, 17])
def test_enough_memory_is_exact(graph: str, w: int) -> None:
    wl = zipf_like(120, w, 2 * w, w)
    opt = solve_opt(wl, 2 * w - 2, graph=graph)  # tuple-synchronous: M_R = M_S = w - 1 suffice
    assert opt.outputs == opt.exact == exact_count(wl) and opt.ratio == 1.0 and opt.arm == 0
    assert solve_opt(wl, 2 * w - 2, allocation="variable", graph=graph).outputs == opt.exact
    batches = zipf_like(120, w, 2 * w, w + 1, gaps=True)  # several tuples of a side per time
    need = (most_held(batches, 0), most_held(batches, 1))
    assert solve_opt(batches, sum(need), memory_split=need, graph=graph).outputs == exact_count(batches)


def test_archive_metric_examples() -> None:
    nothing = Schedule(np.zeros(len(FIGURE2), bool), FIGURE2.time.copy())
    # only r(4) and s(0) have no partner; r(2) and s(2) meet in their batch, but r(2) also
    # pairs with s(3) and s(2) with r(0), r(1)
    assert archive_metric(FIGURE2, nothing) == arm_direct(FIGURE2, nothing) == 8
    everything = Schedule(np.ones(len(FIGURE2), bool), FIGURE2.time + 2)
    assert archive_metric(FIGURE2, everything) == 0


def test_as_dict_is_json_ready() -> None:
    import json

    res = solve_opt(FIGURE2, 2, allocation="variable", graph="paper", solver="ortools")
    row = json.loads(json.dumps(res.as_dict()))
    assert row["policy"] == "optv" and row["outputs"] == 6 and row["exact"] == 7
    assert row["allocation"] == "variable" and row["graph"] == "paper" and row["solver"] == "ortools"
    assert row["ratio"] == round(6 / 7, 6) and row["memory_r"] is None
    assert row["nodes"] == res.nodes and row["arcs"] == res.arcs


def test_empty_workload() -> None:
    empty = Workload(np.zeros(0), np.zeros(0), np.zeros(0), 3, 0)
    for graph, solver in ALL_WAYS:
        res = solve_opt(empty, 4, graph=graph, solver=solver)
        assert (res.outputs, res.exact, res.arm, res.ratio) == (0, 0, 0, 1.0)


# --- bad input and the size guard -------------------------------------------------------------

@pytest.mark.parametrize("kwargs,words", [
    (dict(memory=-1), ["memory", ">= 0"]),
    (dict(memory=2.5), ["memory", "integer"]),
    (dict(memory=True), ["memory", "integer"]),
    (dict(memory=4, memory_split=(1, 2)), ["sums to 3", "M_R + M_S = M"]),
    (dict(memory=4, memory_split=(5, -1)), ["split", ">= 0"]),
    (dict(memory=4, memory_split=(2, "x")), ["split", "integers"]),
    (dict(memory=4, memory_split=(2, 2), allocation="variable"), ["split", "fixed"]),
    (dict(memory=4, allocation="shared"), ["allocation", "variable"]),
    (dict(memory=4, graph="chain"), ["graph", "compact"]),
    (dict(memory=4, solver="simplex"), ["solver", "ortools"]),
])
def test_bad_input(kwargs: dict, words: list[str]) -> None:
    with pytest.raises(ShedError) as excinfo:
        solve_opt(FIGURE2, **kwargs)
    msg = str(excinfo.value)
    assert msg and "\n" not in msg
    for word in words:
        assert word in msg, msg


@pytest.mark.parametrize("graph", list(GRAPHS))
def test_size_guard(graph: str) -> None:
    wl = zipf_like(2000, 100, 0, 3)
    with pytest.raises(ShedError) as excinfo:
        solve_opt(wl, 50, graph=graph, max_graph_bytes=100_000)
    msg = str(excinfo.value)
    assert "\n" not in msg and "GiB" in msg and "max_graph_bytes" in msg and graph in msg
    assert solve_opt(wl.with_params(), 50, graph="compact").outputs > 0


def test_size_estimate_bounds_the_built_graph() -> None:
    from shedding.exact import KeyedStreams
    from shedding.offline.network import estimate_bytes
    from shedding.offline.opt import GRAPHS as BUILDERS

    for seed, gaps in ((0, False), (1, True)):
        wl = zipf_like(300, 20, 10, seed, gaps=gaps)
        ks = KeyedStreams.of(wl)
        for name, (estimate, build) in BUILDERS.items():
            for variable, caps in ((False, np.array([5, 5])), (True, np.array([10]))):
                nodes, arcs = estimate(wl, ks, variable)
                net = build(wl, ks, caps, variable)
                assert net.n_nodes <= nodes and net.n_arcs <= arcs, name
                assert estimate_bytes(nodes, arcs) < 4 * estimate_bytes(net.n_nodes, net.n_arcs) + 10_000, name


# --- the specialized solver on its own ----------------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(data=st.data(), n=st.integers(2, 12), parts=st.integers(1, 3))
def test_ssp_matches_ortools_on_random_dags(data: st.DataObject, n: int, parts: int) -> None:
    """Random acyclic networks (arcs from lower to higher node ids, costs of both signs), one to
    three components, each with a supply at its first node and a demand at its last; a chain
    of spare capacity keeps them feasible. The warm-started solver gets random potentials: any
    give the optimum."""
    from shedding.offline.network import FlowGraph
    from shedding.offline.opt import solve_ortools, solve_ssp

    tails, heads, caps, costs, sup_nodes, sups = [], [], [], [], [], []
    for p in range(parts):
        base = p * n
        supply = data.draw(st.integers(0, 4))
        for u in range(n - 1):
            tails.append(base + u), heads.append(base + u + 1), caps.append(supply), costs.append(0)
        for _ in range(data.draw(st.integers(0, 3 * n))):
            u = data.draw(st.integers(0, n - 2))
            v = data.draw(st.integers(u + 1, n - 1))
            tails.append(base + u), heads.append(base + v)
            caps.append(data.draw(st.integers(0, 3))), costs.append(data.draw(st.integers(-5, 5)))
        sup_nodes += [base, base + n - 1]
        sups += [supply, -supply]
    net = FlowGraph(parts * n, np.array(tails, np.int32), np.array(heads, np.int32), np.array(caps, np.int64),
                    np.array(costs, np.int64), np.array(sup_nodes, np.int32), np.array(sups, np.int64), 0,
                    lambda flows: Schedule(np.zeros(0, bool), np.zeros(0, np.int64)))
    potentials = np.array(data.draw(st.lists(st.integers(-30, 30), min_size=parts * n, max_size=parts * n)))
    best = solve_ortools(net)[0]
    for cost, flows in (solve_ssp(net), solve_ssp(replace(net, potentials=potentials))):
        assert cost == best == int((flows * net.costs).sum())
        assert np.all((flows >= 0) & (flows <= net.caps))
        balance = np.bincount(net.tails, flows, parts * n) - np.bincount(net.heads, flows, parts * n)
        expected = np.zeros(parts * n)
        np.add.at(expected, net.supply_nodes, net.supplies)
        assert np.array_equal(balance, expected)


def test_ssp_refuses_cycles_and_infeasible_supplies() -> None:
    from shedding.offline.ssp import solve_dag_flow

    one = np.ones(3, np.int64)
    with pytest.raises(ValueError, match="cycle"):
        solve_dag_flow(3, np.array([0, 1, 2]), np.array([1, 2, 1]), one, one, np.array([0, 2]), np.array([1, -1]))
    for potentials in (None, np.array([0, 5, -3])):
        with pytest.raises(ValueError, match="infeasible"):
            solve_dag_flow(3, np.array([0, 1]), np.array([1, 2]), one[:2], one[:2], np.array([0, 2]), np.array([2, -2]),
                           potentials)


def test_timeline_networks_are_solved_warm(monkeypatch: pytest.MonkeyPatch) -> None:
    """solve_opt hands the compact network to the warm-started primal-dual solver (so every
    solve_opt test above checks it against brute force and OR-Tools) and the keyed and paper
    networks to the successive shortest paths."""
    from shedding.offline import primal_dual

    calls = []
    warm = primal_dual.solve_warm
    monkeypatch.setattr(primal_dual, "solve_warm", lambda *args: calls.append(1) or warm(*args))
    wl = zipf_like(300, 20, 10, 0, gaps=False)
    for graph, runs in (("compact", 2), ("keyed", 0), ("paper", 0)):
        calls.clear()
        assert solve_opt(wl, 10, graph=graph).outputs == solve_opt(wl, 10, graph=graph, solver="ortools").outputs
        assert len(calls) == runs, graph
