"""The online upper bound on i.i.d. streams (shedding.online.bound) against its definition."""

from __future__ import annotations

import numpy as np
import pytest

from shedding import ShedError, Workload, simulate, zipf_workload
from shedding.online import POLICIES
from shedding.online.bound import _partner_p, expected_outputs, online_bound, same_batch_pairs

ONLINE = ["prob", "life", "rand", "surv", "dual", "fluid", "probv", "dualv", "survv"]


def brute_bound(wl: Workload, caps: list[tuple[tuple[int, ...], int]]) -> float:
    """Per join step, the top-cap partner probabilities of the tuples of each partition that arrived
    before it and could pair with its arrival (lo <= s.time - r.time <= hi)."""
    p, n_steps, total = _partner_p(wl), len(wl) // 2, 0.0
    lo, hi = wl.bounds
    for t in range(max(wl.warmup, 1), n_steps):
        gap = np.where(wl.side == 0, t - wl.time, wl.time - t)  # s.time - r.time with the arrival at t
        live = (wl.time <= t - 1) & (gap >= lo) & (gap <= hi)
        for sides, cap in caps:
            vals = sorted(p[live & np.isin(wl.side, sides)], reverse=True)
            total += sum(vals[:cap])
    return total + same_batch_pairs(wl)


@pytest.mark.parametrize("skew, domain, correlation, window, memory", [
    (1.0, 10, "independent", 20, 8), (0.0, 5, "same", 15, 3), (1.5, 12, "reversed", 25, 11), (1.0, 10, "same", 7, 30),
])
def test_bound_matches_its_definition_and_bounds_every_policy_in_expectation(skew, domain, correlation, window,
                                                                             memory):
    wl = zipf_workload(skew, domain, 250, seed=3, correlation=correlation, window=window)
    fixed = online_bound(wl, memory)
    variable = online_bound(wl, memory, variable=True)
    assert np.isclose(fixed, brute_bound(wl, [((0,), memory // 2), ((1,), memory - memory // 2)]))
    assert np.isclose(variable, brute_bound(wl, [((0, 1), memory)]))
    assert fixed <= variable + 1e-9
    for policy in ONLINE:
        res = simulate(wl, policy, memory)
        assert expected_outputs(wl, res.schedule) <= (variable if POLICIES[policy].variable else fixed) + 1e-9


@pytest.mark.parametrize("bounds", [(0, 9), (3, 12), (-12, -2), (-5, 7), (0, 0), (-9, 0), (4, 4)])
@pytest.mark.parametrize("memory", [0, 3, 8])
def test_under_a_time_range_the_bound_follows_each_tuples_partner_ages(bounds, memory):
    """The bound with a range: its definition, above every policy's expected output under the
    split the policies run with (all of M on the side a one-sided range stores), and equal to
    the expected output of keeping every tuple."""
    wl = zipf_workload(1.0, 8, 200, seed=5, correlation="same", window=20).with_params(range=bounds)
    fixed, variable = online_bound(wl, memory), online_bound(wl, memory, variable=True)
    m_r, m_s = simulate(wl, "prob", memory).memory_r, simulate(wl, "prob", memory).memory_s
    assert np.isclose(fixed, brute_bound(wl, [((0,), m_r), ((1,), m_s)]))
    assert np.isclose(variable, brute_bound(wl, [((0, 1), memory)]))
    assert fixed <= variable + 1e-9
    for policy in ONLINE:
        res = simulate(wl, policy, memory)
        assert expected_outputs(wl, res.schedule) <= (variable if POLICIES[policy].variable else fixed) + 1e-9
    full = simulate(wl, "probv", 2 * wl.horizon)
    assert full.outputs == full.exact
    assert np.isclose(expected_outputs(wl, full.schedule), online_bound(wl, 2 * wl.horizon, variable=True))


def test_expected_outputs_of_keeping_everything_is_the_expected_exact():
    wl = zipf_workload(1.0, 10, 300, seed=1, window=20)
    full = simulate(wl, "prob", 2 * wl.window - 2)
    assert np.isclose(expected_outputs(wl, full.schedule), online_bound(wl, 2 * wl.window - 2))


def test_needs_synchronous_streams():
    with pytest.raises(ShedError, match="synchronous"):
        online_bound(Workload([0, 1, 1], [0, 0, 1], [1, 1, 1], 3), 2)
