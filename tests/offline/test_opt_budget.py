"""OPT's memory budget: ``--max-graph-gib`` on ``shed opt`` and ``shed simulate``, an
estimate that includes the solver's workspace, refusal before anything is built, and a measured
peak of an accepted solve within 10% of the limit (Das, Gehrke, Riedewald 2003, §3.2.2)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from shedding.errors import ShedError
from shedding.exact import KeyedStreams
from shedding.datasets import zipf_workload
from shedding.offline import opt as opt_module
from shedding.offline import solve_opt
from shedding.offline.network import estimate_bytes

# One solve in a fresh process: the peak resident memory it adds (VmHWM after clear_refs reset
# the high-water mark to the resident size just before the solve) against the limit it was given.
PEAK = """
import json, sys
from shedding.datasets import zipf_workload
from shedding.exact import KeyedStreams
from shedding.offline import solve_opt
from shedding.offline.opt import GRAPHS
from shedding.offline.network import estimate_bytes

def status(field):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith(field))

n, graph, allocation, solver = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
solve_opt(zipf_workload(1.0, 10, 50, 0, window=5, warmup=0), 4, graph=graph, allocation=allocation, solver=solver)
wl = zipf_workload(1.0, 50, n, 0, window=400)
ks = KeyedStreams.of(wl)
limit = estimate_bytes(*GRAPHS[graph][0](wl, ks, allocation == "variable"), len(wl), solver)
del ks
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")
base = status("VmRSS:")
res = solve_opt(wl, 400, allocation=allocation, graph=graph, solver=solver, max_graph_bytes=limit)
print(json.dumps({"limit": limit, "peak": status("VmHWM:") - base, "arcs": res.arcs}))
"""


def shed(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "shedding.cli", *args], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("command", [["opt"], ["simulate", "--policy", "prob,opt"], ["simulate", "--policy", "optv"]])
def test_cli_refuses_a_solve_over_the_limit(command: list[str]) -> None:
    proc = shed(*command, "--length", "3000", "--window", "100", "--memory", "50", "--max-graph-gib", "0.0001")
    assert proc.returncode == 2, proc.stderr
    line = proc.stderr.strip()
    assert "\n" not in line and "Traceback" not in line
    assert "--max-graph-gib" in line and "GiB" in line and "0.0001" in line, line


def test_cli_simulate_checks_the_flag_before_reading() -> None:
    proc = shed("simulate", "--policy", "opt", "--max-graph-gib", "-1", "--workload", "/nonexistent.csv")
    assert proc.returncode == 2 and "--max-graph-gib must be a finite number > 0" in proc.stderr


def test_cli_simulate_accepts_a_limit_that_fits() -> None:
    proc = shed("simulate", "--policy", "opt,optv", "--length", "1500", "--window", "60", "--memory", "40",
                "--max-graph-gib", "1", "--json")
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    wl = zipf_workload(1.0, 50, 1500, seed=0, window=60)
    assert [r["outputs"] for r in rows] == [solve_opt(wl, 40).outputs, solve_opt(wl, 40, allocation="variable").outputs]


def test_refused_before_anything_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_build(*args: object) -> None:
        raise AssertionError("the network was built although its estimate is over the limit")

    monkeypatch.setitem(opt_module.GRAPHS, "compact", (opt_module.GRAPHS["compact"][0], no_build))
    wl = zipf_workload(1.0, 50, 3000, seed=0, window=100)
    with pytest.raises(ShedError, match="max_graph_bytes"):
        solve_opt(wl, 50, graph="compact", max_graph_bytes=10_000)


@pytest.mark.parametrize("solver", ["ssp", "ortools"])
def test_estimate_includes_the_solver_workspace(solver: str) -> None:
    wl = zipf_workload(1.0, 50, 2000, seed=0, window=100)
    nodes, arcs = opt_module.GRAPHS["compact"][0](wl, KeyedStreams.of(wl), False)
    need = estimate_bytes(nodes, arcs, len(wl), solver)
    assert need - 24 * arcs >= 100 * arcs  # the network's own arrays and at least 100 B per arc of workspace
    solve_opt(wl, 50, graph="compact", solver=solver, max_graph_bytes=need)  # exactly at the estimate: accepted
    with pytest.raises(ShedError):
        solve_opt(wl, 50, graph="compact", solver=solver, max_graph_bytes=need - 1)


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
@pytest.mark.parametrize("graph, allocation, solver, n", [
    ("compact", "fixed", "ssp", 20_000), ("keyed", "variable", "ssp", 20_000), ("compact", "fixed", "ortools", 5_000),
])
def test_measured_peak_stays_within_the_limit(graph: str, allocation: str, solver: str, n: int) -> None:
    """An accepted solve (limit = its own estimate, the tightest accepted) never passes the limit
    by more than 10%; and the estimate is not so loose that it refuses what would fit (<= 3x)."""
    proc = subprocess.run([sys.executable, "-c", PEAK, str(n), graph, allocation, solver],
                          capture_output=True, text=True, timeout=300, check=True)
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["arcs"] > 100_000 or solver == "ortools"
    assert got["peak"] <= 1.1 * got["limit"], got
    assert got["limit"] <= 3 * got["peak"], got
