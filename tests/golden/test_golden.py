"""Golden outputs: the JSON of ``shed simulate``, ``opt``, ``wjoin`` and ``bmj`` on a few small
workloads, recorded before the package was restructured, must not change.

Timings are dropped before comparing; every count, ratio and pair is compared exactly. When the
tree's shipped engines are fresh (``make`` compiles them: shedding/jit.py, "The shipped engines"),
each case runs on them alone, with numba's cache empty, and must compile nothing at run time: the
runs of shedding/cli/engines.py reach every engine these commands reach.
Record again (only when a change of results is intended) with:
``python tests/golden/test_golden.py --record``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
DATA = HERE / "data"
EXPECTED = HERE / "expected.json"
SHED = str(Path(sys.executable).parent / "shed")

#: name -> the shed arguments (run in DATA)
CASES: dict[str, list[str]] = {
    "simulate-zipf-all": ["simulate", "--policy", "exact,rand,prob,life,randv,probv,lifev,surv,survv,dual,dualv,"
                          "fluid,fluidv,opt,optv", "--window", "40", "--memory", "20", "--length", "400", "--json"],
    "simulate-zipf-online": ["simulate", "--policy", "rand,prob,life,probv,lifev,surv,dual", "--window", "30",
                             "--memory", "24", "--memory-split", "10,14", "--length", "500", "--zipf-skew", "1.5",
                             "--domain", "20", "--seed", "3", "--estimator", "online", "--decay", "0.99",
                             "--policy-seed", "5", "--json"],
    "simulate-correlated": ["simulate", "--policy", "exact,prob,life,opt", "--window", "25", "--memory", "10",
                            "--length", "300", "--correlation", "reversed", "--warmup", "0", "--json"],
    # recorded with the static estimator, the default on files until the online one became it: kept by
    # naming it (the online default on files is the golden case simulate-file-online)
    "simulate-file": ["simulate", "--workload", "async.csv", "--policy", "exact,rand,prob,life,probv,opt,optv",
                      "--window", "20", "--memory", "8", "--json", "--estimator", "static"],
    "simulate-file-online": ["simulate", "--workload", "async.csv", "--policy", "rand,prob,life,probv",
                             "--window", "20", "--memory", "8", "--json"],
    "simulate-band": ["simulate", "--workload", "async.csv", "--predicate", "band", "--eps", "1",
                      "--policy", "exact,rand,prob,life,opt", "--window", "20", "--memory", "8", "--json",
                      "--estimator", "static"],
    "simulate-age-online": ["simulate", "--generator", "age", "--param", "lag_mean=40", "--param", "lag_spread=8",
                            "--param", "domain=200", "--policy", "exact,prob,age,agev,hazard,hazardv,opt",
                            "--window", "120", "--memory", "40", "--length", "3000", "--warmup", "0",
                            "--estimator", "online", "--json"],
    "simulate-age-static": ["simulate", "--generator", "age", "--param", "lag_mean=30", "--param", "lag=uniform",
                            "--policy", "age,agev,hazard,prob", "--window", "90", "--memory", "30", "--length",
                            "2000", "--warmup", "0", "--json", "--estimator", "static"],  # the default until online
    "simulate-drift-hazard": ["simulate", "--generator", "drift", "--param", "period=300", "--policy",
                              "rand,prob,hazard,hazardv,lifev", "--window", "60", "--memory", "30", "--length",
                              "2000", "--estimator", "online", "--tuning", "refit_every=512,shadow=128", "--json"],
    "simulate-bursts-hazard": ["simulate", "--generator", "bursts", "--param", "quiet=200", "--param", "burst=50",
                               "--policy", "prob,hazard,survv,opt", "--window", "50", "--memory", "30", "--length",
                               "2000", "--estimator", "online", "--json"],
    "simulate-flights-group": ["simulate", "--generator", "flights", "--param", "months=1", "--policy",
                               "prob,hazard,hazardv", "--group", "dest", "--window", "720", "--memory", "150",
                               "--warmup", "0", "--estimator", "online", "--json"],
    "opt-compact": ["opt", "--window", "30", "--memory", "12", "--length", "300", "--graph", "compact", "--json"],
    "opt-keyed-ortools": ["opt", "--window", "30", "--memory", "12", "--length", "300", "--graph", "keyed",
                          "--solver", "ortools", "--json"],
    "opt-paper-variable": ["opt", "--window", "15", "--memory", "8", "--length", "120", "--graph", "paper",
                           "--allocation", "variable", "--json"],
    "opt-bounds": ["opt", "--window", "40", "--memory", "20", "--length", "600", "--bounds", "--json"],
    "wjoin-files": ["wjoin", "--streams", "a.csv,b.csv,c.csv", "--window", "5", "--json"],
    "wjoin-windows": ["wjoin", "--streams", "a.csv,b.csv,c.csv", "--windows", "a-b:5,b-c:3", "--json"],
    "wjoin-shed": ["wjoin", "--streams", "a.csv,b.csv,c.csv", "--window", "5", "--memory", "30",
                   "--policy", "rand,prob,life,opt", "--json"],
    "wjoin-synthetic": ["wjoin", "--n-streams", "4", "--length", "300", "--rates", "1,1,0.5,0.2", "--window", "8",
                        "--memory", "40", "--policy", "rand,prob,life,probv,lifev,randv", "--json"],
    "bmj-nested": ["bmj", "--r", "bm_r.csv", "--s", "bm_s.csv", "--attrs", "y1,y2", "--eps", "0.2,0.2", "--json"],
    "bmj-matwin-bmj": ["bmj", "--r", "bm_r.csv", "--s", "bm_s.csv", "--attrs", "y1,y2", "--eps", "0.3,0.3",
                       "--variant", "bmj", "--algorithm", "matwin-ego", "--json"],
    "bmj-shed": ["bmj", "--r", "bm_r.csv", "--s", "bm_s.csv", "--attrs", "y1,y2", "--eps", "0.2,0.2",
                 "--memory", "10", "--policy", "rand,prob,ahead", "--json"],
    "bmj-time": ["bmj", "--r", "bm_r.csv", "--s", "bm_s.csv", "--attrs", "y1,y2", "--eps", "0.2,0.2",
                 "--time", "t", "--horizon", "20", "--json"],
}

TIMINGS = {"seconds", "build_seconds", "solve_seconds", "us_per_tuple"}


def _strip(value):
    """The value without its timings (they differ from run to run)."""
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in TIMINGS}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def run_case(args: list[str], env: dict[str, str] | None = None) -> list:
    done = subprocess.run([SHED, *args], cwd=DATA, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    return [_strip(json.loads(line)) for line in done.stdout.splitlines() if line.strip()]


@pytest.mark.parametrize("name", sorted(CASES))
def test_json_output_is_unchanged(name: str, tmp_path: Path) -> None:
    from shedding.jit import shipped_stamp, source_stamp

    expected = json.loads(EXPECTED.read_text())[name]
    shipped = shipped_stamp() == source_stamp()
    log = tmp_path / "compiled.txt"
    env = os.environ | {"NUMBA_CACHE_DIR": str(tmp_path / "cache"), "SHEDDING_JIT_LOG": str(log)} if shipped else None
    assert run_case(CASES[name], env) == expected
    if shipped:
        assert not log.exists(), f"compiled at run time, not shipped: {log.read_text().split()}"


if __name__ == "__main__" and "--record" in sys.argv:
    EXPECTED.write_text(json.dumps({name: run_case(args) for name, args in sorted(CASES.items())}, indent=1) + "\n")
    print(f"recorded {len(CASES)} cases in {EXPECTED}")
