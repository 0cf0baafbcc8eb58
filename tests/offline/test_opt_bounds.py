"""Bounds on OPT / OPTV (docs/bounds.md): the Lagrangian upper bound and the replayed
lower bound bracket the exact optimum (Das, Gehrke, Riedewald 2003, §3.2) wherever it is computed,
at any prices, and are tight where the memory is not binding; ``shed opt --bounds``."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shedding.datasets import zipf_workload
from shedding.exact import KeyedStreams, exact_count
from shedding.model import Workload
from shedding.offline import bound_opt, solve_opt
from shedding.offline.bounds import Relaxation
from shedding.online import simulate

from helpers import SCHEMA
from oracles import brute_force, replay, split_of, zipf_like
from strategies import tiny_workloads


def caps_of(wl: Workload, memory: int, allocation: str) -> np.ndarray:
    if allocation == "variable":
        return np.array([min(memory, len(wl))])
    m_r, m_s = split_of(memory, allocation)
    return np.array([min(m_r, wl.n_r), min(m_s, wl.n_s)])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wl=tiny_workloads(), memory=st.integers(1, 5), allocation=st.sampled_from(["fixed", "variable"]))
def test_bounds_bracket_the_exhaustive_optimum(wl: Workload, memory: int, allocation: str) -> None:
    b = bound_opt(wl, memory, allocation=allocation)
    best = brute_force(wl, memory, split_of(memory, allocation))
    assert b.lower <= best <= b.upper
    assert b.upper <= b.exact == exact_count(wl)


@pytest.mark.parametrize("allocation", ["fixed", "variable"])
@pytest.mark.parametrize("seed, gaps", [(0, False), (1, True), (2, False)])
def test_bounds_bracket_and_are_close_to_opt(allocation: str, seed: int, gaps: bool) -> None:
    """Skewed streams where memory binds: both bounds within 5% of the exact OPT."""
    wl = zipf_like(3000, 100, 200, seed, domain=20, gaps=gaps)
    memory = 60
    opt = solve_opt(wl, memory, allocation=allocation).outputs
    b = bound_opt(wl, memory, allocation=allocation)
    assert b.lower <= opt <= b.upper
    assert b.upper <= 1.05 * opt and b.lower >= 0.95 * opt, (b.as_dict(), opt)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), allocation=st.sampled_from(["fixed", "variable"]), scale=st.floats(0.0, 3.0))
def test_any_prices_give_an_upper_bound(seed: int, allocation: str, scale: float) -> None:
    """Weak duality: L(lambda) >= OPT for every lambda >= 0, not only the ones the method meets."""
    wl = zipf_like(200, 12, 5, seed % 97, gaps=seed % 2 == 1)
    memory = 6
    relax = Relaxation.of(wl, KeyedStreams.of(wl), caps_of(wl, memory, allocation), allocation == "variable")
    prices = np.random.default_rng(seed).random((len(relax.caps), len(relax.events))) * scale
    value = relax.value(prices)[0]
    assert value >= solve_opt(wl, memory, allocation=allocation).outputs - 1e-9


@pytest.mark.parametrize("allocation", ["fixed", "variable"])
def test_repaired_schedule_is_feasible_and_counted_right(allocation: str) -> None:
    """The lower bound's repaired schedule obeys the memory (checked independently of the
    engine), and its count is what the pair rule and the engine's replay count."""
    wl = zipf_like(800, 40, 80, 4, domain=10)
    memory = 20
    relax = Relaxation.of(wl, KeyedStreams.of(wl), caps_of(wl, memory, allocation), allocation == "variable")
    _, _, choice, worth = relax.value(np.full((len(relax.caps), len(relax.events)), 0.3))
    schedule, output = relax.repaired(wl, choice, worth)
    split = split_of(memory, allocation)
    count = replay(wl, schedule, memory, split)
    engine = simulate(wl, f"{'opt' if allocation == 'fixed' else 'optv'}-schedule", memory, memory_split=split,
                      schedule=schedule).outputs
    assert output == count == engine
    assert 0 < count <= solve_opt(wl, memory, allocation=allocation).outputs


@pytest.mark.parametrize("allocation", ["fixed", "variable"])
def test_memory_enough_for_exact_gives_exact(allocation: str) -> None:
    wl = zipf_like(500, 20, 40, 5)
    b = bound_opt(wl, 2 * 20 - 2, allocation=allocation)
    assert b.lower == b.upper == b.exact and b.gap == 0


def shed(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "shedding.cli", *args], capture_output=True, text=True, timeout=300)


def test_cli_bounds_json_and_table() -> None:
    flags = ["--length", "3000", "--window", "100", "--memory", "80"]
    proc = shed("opt", "--bounds", "--json", *flags)
    assert proc.returncode == 0, proc.stderr
    row = json.loads(proc.stdout)
    opt = solve_opt(zipf_workload(1.0, 50, 3000, seed=0, window=100), 80).outputs
    assert row["lower"] <= opt <= row["upper"] and row["policy"] == "opt"
    assert row["gap"] == pytest.approx((row["upper"] - row["lower"]) / row["upper"], abs=1e-6)
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator(SCHEMA).validate(row)  # docs/shed-output.schema.json, as every --json row
    table = shed("opt", "--bounds", *flags)
    assert table.returncode == 0 and f"{row['lower']:,}" in table.stdout and f"{row['upper']:,}" in table.stdout
    assert "gap" in table.stdout


def test_cli_bounds_refuses_a_schedule_out(tmp_path) -> None:
    proc = shed("opt", "--bounds", "--schedule-out", str(tmp_path / "s.parquet"))
    assert proc.returncode == 2 and "--schedule-out" in proc.stderr and "\n" not in proc.stderr.strip()
