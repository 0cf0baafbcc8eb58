"""Validate once, at the entry: the memory check, the policy name's normalisation and the stream
join's time amounts each run once per command or library call, and the layers below take the
checked objects (``Memory``, ``RunParams``, ``OperatorParams``, ``JoinSpec``) without checking
them again. The messages of bad input are the sweep tests' (tests/cli/test_bad_input_sweep.py,
tests/core/test_misuse.py)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import shedding.model
from helpers import run_shed
from shedding import run_policy, simulate, zipf_workload
from shedding.model import Memory
from shedding.online.engine import JoinOperator


@pytest.fixture
def memory_checks(monkeypatch) -> list[tuple]:
    """Every call of the memory check (:func:`shedding.model.check_memory`, which only
    :meth:`~shedding.model.Memory.of` calls), with its arguments. The commands' warm-up (tiny runs
    that compile the engines first, runs of their own) is left out."""
    for command in ("simulate", "opt", "explain"):
        monkeypatch.setattr(f"shedding.cli.{command}.warm_up", lambda names: None)
    calls: list[tuple] = []
    real = shedding.model.check_memory

    def counted(memory, split=None, bounds=None):
        calls.append((memory, split))
        return real(memory, split, bounds)

    monkeypatch.setattr(shedding.model, "check_memory", counted)
    return calls


@pytest.fixture
def name_checks(monkeypatch) -> list[object]:
    """Every normalisation of a policy's name by the library (:func:`shedding.model.check_name`
    as the run parameters call it)."""
    import shedding.online.params as params

    calls: list[object] = []
    real = params.check_name

    def counted(name, param):
        calls.append(name)
        return real(name, param)

    monkeypatch.setattr(params, "check_name", counted)
    return calls


def test_no_module_checks_memory_but_memory_of():
    """``check_memory`` is called in one place, so the counts below see every check."""
    from pathlib import Path

    root = Path(shedding.model.__file__).parent
    callers = sorted(str(p.relative_to(root)) for p in root.rglob("*.py") if "check_memory(" in p.read_text()
                     and p.name != "model.py")
    assert callers == []


def test_shed_simulate_checks_memory_once_and_each_name_once(memory_checks, name_checks):
    policies = ["exact", "rand", "prob", "life", "hazard", "probv", "opt", "optv"]
    code, out, err = run_shed("simulate", "--window", 40, "--length", 600, "--memory", 30, "--memory-split", "10,20",
                              "--policy", ",".join(policies), "--json")
    assert code == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["policy"] for r in rows] == policies
    assert memory_checks == [(30, (10, 20))]
    assert name_checks == policies  # once each, already in lower case from the flag
    assert {(r["memory_r"], r["memory_s"]) for r in rows if r["policy"] in ("rand", "prob", "life", "opt")} == \
        {(10, 20)}


def test_shed_simulate_default_memory_is_checked_once(memory_checks):
    code, _, err = run_shed("simulate", "--window", 40, "--length", 300, "--policy", "prob,life", "--json")
    assert code == 0, err
    assert memory_checks == [(40, None)]


def test_shed_opt_and_explain_check_memory_once(memory_checks, tmp_path):
    for bounds in ([], ["--bounds"]):  # OPT, or its bounds (the lower one runs PROB)
        code, _, err = run_shed("opt", "--window", 30, "--length", 300, "--memory", 20, "--json", *bounds)
        assert code == 0, err
        assert memory_checks == [(20, None)]
        memory_checks.clear()
    code, _, err = run_shed("explain", "--window", 30, "--length", 300, "--memory", 20, "--policy", "prob", "--json")
    assert code == 0, err
    assert memory_checks == [(20, None)]


def test_a_bad_split_is_still_one_line_naming_the_flag(memory_checks):
    code, _, err = run_shed("simulate", "--window", 40, "--length", 300, "--memory", 30, "--memory-split", "10,10")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "--memory-split" in err, err
    assert len(memory_checks) == 1


def test_the_library_entries_check_once(memory_checks, name_checks):
    wl = zipf_workload(1.0, 50, 400, 3, window=30)
    run_policy(wl, " PROB ", 20, memory_split=(8, 12))
    assert memory_checks == [(20, (8, 12))] and name_checks == [" PROB "]
    memory_checks.clear()
    simulate(wl, "hazardv", 20)
    assert memory_checks == [(20, None)]
    memory_checks.clear()
    budget = Memory.of(20)
    for name in ("prob", "rand", "opt"):
        run_policy(wl, name, budget)
    assert memory_checks == [(20, None)]  # the caller's one check, for three runs
    memory_checks.clear()
    JoinOperator(30, 20, "prob").set_memory(Memory(10, 5, 5))
    assert memory_checks == [(20, None)]


def test_a_stream_join_spec_is_checked_once_not_per_shard_or_batch(memory_checks):
    from shedding.streaming.shard import END, JoinSpec, ShardJoin

    spec = JoinSpec(20, 16, "prob", shards=2, budget="even", tuning="")
    assert memory_checks == [(16, None)]
    wl = zipf_workload(1.0, 30, 200, 1, window=20)
    rows = pd.DataFrame({"side": wl.side.astype(np.int64), "time": wl.time, "key": wl.key})
    for shard in (0, 1):
        join = ShardJoin(spec, shard)
        for batch in (rows[:100], rows[100:], pd.DataFrame({"side": [END], "time": [0], "key": [0]})):
            join = ShardJoin.from_bytes(join.to_bytes())  # as every micro-batch restores it
            join.push(batch)
        assert join.spec == spec
    assert memory_checks == [(16, None)]


def test_shed_stream_join_parses_each_time_amount_once(monkeypatch, memory_checks, tmp_path):
    """The window, the lateness and the step are parsed once (their flags' callbacks); the rules
    and the body take the parsed amounts. The job itself is not started (no Spark here)."""
    import shedding.cli.event_amounts as amounts
    import shedding.cli.stream_join as sj

    parsed: list[str] = []
    real = amounts.time_amount

    def counted(flag, text, low):
        parsed.append(flag)
        return real(flag, text, low)

    jobs = []

    def no_spark(job, *args):
        jobs.append(job)
        return {}

    monkeypatch.setattr(amounts, "time_amount", counted)
    monkeypatch.setattr(sj, "run_job", no_spark)
    code, _, err = run_shed("stream-join", "--r", "zipf:1:50", "--s", "zipf:1:50", "--length", 200, "--files", 2,
                            "--window", 40, "--allowed-lateness", 2, "--time-step", 2, "--memory", 10,
                            "--out", tmp_path / "out", "--json")
    assert code == 0, err
    assert sorted(parsed) == ["--allowed-lateness", "--time-step", "--window"]
    spec = jobs[0].spec
    assert (spec.window, spec.lateness, spec.memory) == (20, 1, 10)
    assert memory_checks == [(10, None), (10, None)]  # the rules' check up front, then the spec's (the driver)
