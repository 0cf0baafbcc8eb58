"""The W-join suites (kind ``wjoin``): the W-join paper's Figures 9, 13 and 14 and the N-stream
shedding study.

Hammad, Aref, Elmagarmid (2002), §4.3, measure the *service time per arriving tuple* of NLW, HW and
MW: Figure 9(a) for 2 to 6 synthetic streams of variable rates, 9(b) of comparable rates, and
9(c) the slow-stream test (four streams; stream D switching between 10 and 1000 tuples/s every 100
tuples, against all four at 1000 tuples/s). §5.3 compares the global and local conservative
approaches on four streams whose windows are all equal but one pair's (Figure 13), and the path
W-join by the pipelined NLW against LCA for streams of comparable and of variable rates
(Figure 14). The shedding study runs DGR's policies carried to N streams
(:mod:`shedding.wjoin.loadshed`) and plots outputs / exact against the memory M.

A suite is a TOML file with ``kind = "wjoin"``, ``[defaults]`` and ``[[experiment]]`` tables (the
format of :mod:`shedding.studies.suite`), with the fields below; any grid field may be a list.
Shipped: ``wjoin`` (small, about ten minutes on a busy 2-core machine) and ``wjoin-full`` (the
study at full size).

* ``figure``: ``service`` (x = streams, one line per algorithm), ``slow`` (x = tuples processed,
  service time per block of ``block`` tuples), ``windows`` (Figure 13: x = ``small``, the window of
  every pair but A-B, whose window is ``window``; lines ``gca`` and ``lca``, both the paper's MW),
  ``path`` (Figure 14: the directed path A-B-C-... with ``window`` per step, x = rates; lines
  ``pipeline``, ``lca``, ``gca``) or ``shedding`` (x = M, one line per policy);
* ``streams`` (2 to 8), ``rates`` (a name of :data:`RATE_SETS`), ``length`` (tuples of the fastest
  stream), ``window`` (w), ``small`` (windows only), ``domain`` and ``skew`` (Zipf keys), ``memory``
  (shedding only);
* ``algorithms`` (service, slow: ``nlw``, ``hw``, ``mw``, ``mw-paper``; windows and path: see
  above) or ``policies`` (shedding);
* ``repeats`` (timed figures; default 5): the least number of timed rounds of each run, after a
  discarded warm-up; more rounds follow until each run has been timed for :data:`BUDGET` seconds
  (:mod:`.execute`); the median round counts, and the middle half of the rounds, widened to the
  timing resolution, is the spread the checks decide against (:mod:`.timing`; §4.3: "We repeated
  the experiment multiple times");
* ``claim``, the paper's claim the experiment checks, or ``hypothesis``, the project's own where the
  paper says nothing (the shedding study: the W-join paper does not shed);
* ``seeds`` (optional): this experiment's seeds per point instead of the suite's (``--seeds``
  overrides both), for a claim judged on the spread over seeds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from shedding.online.policies import WJOIN, names_for
from shedding.studies.suite import (TOP_FIELDS, ExperimentBase, Run, SuiteBase, check, check_values, experiment_fields,
                                    experiment_tables, integer_at_least, lines_of, number_at_least, one_of, points,
                                    seeds_of, whole)

WJOIN_FIGURES = ("service", "slow", "shedding", "windows", "path")
ALGORITHMS = ("nlw", "hw", "mw", "mw-paper")
#: the lines each timed figure takes
LINES = {"service": ALGORITHMS, "slow": ALGORITHMS, "windows": ("gca", "lca"), "path": ("pipeline", "lca", "gca")}
SHED_POLICIES = names_for(WJOIN)  # the registry's policies that run on the W-join
# rates in tuples per time unit, per stream i of n (§4.2-4.3: "between 1000 and 100 tuples/sec"; the
# slow stream D alternates between 10 and 1000 tuples/s, here 0.01 and 1, every 100 tuples)
RATE_SETS: dict[str, Callable[[int], list[float | tuple[float, float]]]] = {  # per stream: a rate, or a cycle of rates
    "variable": lambda n: [1.0 if i % 2 == 0 else 0.1 for i in range(n)],
    "comparable": lambda n: [1.0] * n,
    "switching": lambda n: [1.0] * (n - 1) + [(0.01, 1.0)],
}
BUDGET = 1.0  # seconds each timed run is timed for at least, over its rounds
MAX_ROUNDS = 200  # the most rounds of one batch and seed
GRID_FIELDS = ("streams", "rates", "length", "window", "small", "domain", "skew", "memory", "block", "repeats")


@dataclass(frozen=True)
class WJoinRun(Run):
    """One run: a timed algorithm (service, slow) or a shedding policy at memory M (shedding)."""

    figure: str
    streams: int
    rates: str
    length: int
    window: int
    domain: int
    skew: float
    seed: int
    policy: str  # the algorithm (nlw, hw, mw) or the shedding policy
    memory: int = 0
    block: int = 1000
    repeats: int = 5  # timed runs: the least number of rounds (the median round counts)
    small: int = 0  # windows: the window of every pair but A-B


@dataclass(frozen=True)
class WJoinExperiment(ExperimentBase):
    """One figure of the report and the runs behind it."""

    policies: tuple[str, ...]  # algorithms or shedding policies: the figure's lines
    grid: dict = field(default_factory=dict)
    claim: str = ""
    caption: str = ""
    seeds: int | None = None  # seeds per point instead of the suite's
    hypothesis: str = ""  # the project's own claim, where the paper says nothing


@dataclass(frozen=True)
class WJoinSuite(SuiteBase):
    """A W-join suite: its experiments are :class:`WJoinExperiment`."""

    def runs(self, seeds: int | None = None) -> list[WJoinRun]:
        """Every run, seeds 0..seeds-1 per point (``seeds``, else the experiment's, else the
        suite's); the lines of one point are adjacent, so that the algorithms timed at one point
        see the same machine load, and memory varies fastest, so that the runs on one workload are
        adjacent too (the runner caches a few workloads)."""
        out = []
        for exp in self.experiments:
            for p in points(exp.grid, sorted(exp.grid, key=lambda k: (k == "memory", k))):
                for seed in range(seeds_of(seeds, exp.seeds or self.seeds)):
                    for policy in exp.policies:
                        out.append(WJoinRun(self.name, exp.id, exp.figure, int(p["streams"]), str(p["rates"]),
                                            int(p["length"]), int(p["window"]), int(p["domain"]), float(p["skew"]),
                                            seed, policy, int(p.get("memory", 0)), int(p.get("block", 1000)),
                                            int(p.get("repeats", 5)), int(p.get("small", 0))))
        return out


def rates_of(name: str, n: int) -> list[float | tuple[float, float]]:
    """The per-stream rates of a named rate set for ``n`` streams."""
    return RATE_SETS[name](n)


def parse_wjoin_suite(data: dict, where: str) -> WJoinSuite:
    """Validate a W-join suite's TOML tables; every error names the file, the experiment and the fix."""
    seeds, tables = experiment_tables(data, where, TOP_FIELDS, GRID_FIELDS,
                                      experiment_fields("algorithms", "policies", "seeds", "hypothesis"), WJOIN_FIGURES)
    experiments: list[WJoinExperiment] = []
    for t in tables:
        here, figure, grid = t.here, t.figure, t.grid
        lines = (lines_of(t.raw, "policies", here, SHED_POLICIES, "policy") if figure == "shedding" else
                 lines_of(t.raw, "algorithms", here, LINES[figure], "algorithm"))
        grid.setdefault("skew", [1.0])
        own = {"shedding": ("memory",), "windows": ("small",)}.get(figure, ())
        for key in ("streams", "rates", "length", "window", "domain") + own:
            check(key in grid, here, f"needs {key} (in the experiment or in [defaults])")
        for key, figures in (("memory", ("shedding",)), ("block", ("slow",)), ("small", ("windows",)),
                             ("repeats", ("service", "slow", "windows", "path"))):
            if figure not in figures:
                grid.pop(key, None)
        exp_seeds = t.raw.get("seeds")
        check(exp_seeds is None or (whole(exp_seeds) and exp_seeds >= 1), here,
              f"seeds = {exp_seeds!r} is not an integer >= 1")
        _check_values(grid, here)
        experiments.append(WJoinExperiment(t.id, str(t.raw.get("title", t.id)), figure, lines, grid,
                                           str(t.raw.get("claim", "")), str(t.raw.get("caption", "")),
                                           None if exp_seeds is None else int(exp_seeds),
                                           str(t.raw.get("hypothesis", ""))))
    return WJoinSuite(str(data.get("name", Path(where).stem)), str(data.get("description", "")),
                      tuple(experiments), seeds)


def _check_values(grid: dict, here: str) -> None:
    check_values(grid, here, (
        ("streams", lambda v: whole(v) and 2 <= v <= 8, "an integer from 2 to 8"),
        ("rates", *one_of(RATE_SETS)),
        ("length", *integer_at_least(1)),
        ("window", *integer_at_least(0)),
        ("small", *integer_at_least(0)),
        ("domain", *integer_at_least(1)),
        ("skew", *number_at_least(0)),
        ("memory", *integer_at_least(0)),
        ("block", *integer_at_least(1)),
        ("repeats", *integer_at_least(1))))
