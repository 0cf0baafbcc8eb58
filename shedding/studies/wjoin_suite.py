"""The ``wjoin`` suites of ``shed compare``: the W-join paper's Figure 9 and the N-stream shedding study.

Hammad, Aref, Elmagarmid (2002), §4.3, measure the *service time per arriving tuple* of NLW, HW and
MW: Figure 9(a) for 2 to 6 synthetic streams of variable rates, 9(b) of comparable rates, and
9(c) the slow-stream test (four streams; stream D switching between 10 and 1000 tuples/s every 100
tuples, against all four at 1000 tuples/s). The shedding study runs DGR's policies carried to N
streams (:mod:`shedding.wjoin.loadshed`) and plots outputs / exact against the memory M.

A suite is a TOML file with ``kind = "wjoin"``, ``[defaults]`` and ``[[experiment]]`` tables, as
the DGR suites (:mod:`.suites`), with the fields below; any grid field may be a list. Shipped:
``wjoin`` (small, under a minute) and ``wjoin-full`` (the study at full size).

* ``figure``: ``service`` (x = streams, one line per algorithm), ``slow`` (x = tuples processed,
  service time per block of ``block`` tuples) or ``shedding`` (x = M, one line per policy);
* ``streams`` (2 to 8), ``rates`` (a name of :data:`RATE_SETS`), ``length`` (tuples of the fastest
  stream), ``window`` (w, Form 1), ``domain`` and ``skew`` (Zipf keys), ``memory`` (shedding only);
* ``algorithms`` (service, slow) or ``policies`` (shedding);
* ``repeats`` (service, slow; default 3): each timed run is repeated and the repeat with the median
  time counts (§4.3: "We repeated the experiment multiple times").
"""

from __future__ import annotations

import hashlib
import itertools
import json
import sys
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from shedding.errors import ShedError
from shedding.studies.suites import ALL_SHIPPED, _as_list, _check, check_experiment, check_tables

SHIPPED_WJOIN = ALL_SHIPPED[-3:-1]
WJOIN_FIGURES = ("service", "slow", "shedding")
ALGORITHMS = ("nlw", "hw", "mw")
SHED_POLICIES = ("rand", "prob", "life", "randv", "probv", "lifev")
# rates in tuples per time unit, per stream i of n (§4.2-4.3: "between 1000 and 100 tuples/sec"; the
# slow stream D alternates between 10 and 1000 tuples/s, here 0.01 and 1, every 100 tuples)
RATE_SETS = {
    "variable": lambda n: [1.0 if i % 2 == 0 else 0.1 for i in range(n)],
    "comparable": lambda n: [1.0] * n,
    "switching": lambda n: [1.0] * (n - 1) + [(0.01, 1.0)],
}
SINGULAR = {"policies": "policy", "algorithms": "algorithm"}
GRID_FIELDS = ("streams", "rates", "length", "window", "domain", "skew", "memory", "block", "repeats")
EXPERIMENT_FIELDS = ("id", "title", "figure", "algorithms", "policies", "claim", "caption")
TOP_FIELDS = ("kind", "name", "description", "seeds", "defaults", "experiment")


@dataclass(frozen=True)
class WJoinRun:
    """One run: a timed algorithm (service, slow) or a shedding policy at memory M (shedding)."""

    suite: str
    experiment: str
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
    repeats: int = 3  # timed runs: the repeat with the median time counts

    @property
    def run_id(self) -> str:
        """A stable id of the run's parameters (used to resume)."""
        return hashlib.sha1(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class WJoinExperiment:
    """One figure of the report and the runs behind it."""

    id: str
    title: str
    figure: str
    policies: tuple[str, ...]  # algorithms or shedding policies: the figure's lines
    grid: dict = field(default_factory=dict)
    claim: str = ""
    caption: str = ""


@dataclass(frozen=True)
class WJoinSuite:
    name: str
    description: str
    experiments: tuple[WJoinExperiment, ...]
    seeds: int = 1

    def runs(self, seeds: int | None = None) -> list[WJoinRun]:
        """Every run, seeds 0..seeds-1 per point; the lines of one point are adjacent, so that
        the algorithms timed at one point see the same machine load, and memory varies fastest,
        so that the runs on one workload are adjacent too (the runner caches a few workloads)."""
        seeds = self.seeds if seeds is None else seeds
        if seeds < 1:
            raise ShedError(f"--seeds must be >= 1, got {seeds}")
        out = []
        for exp in self.experiments:
            keys = sorted(exp.grid, key=lambda k: (k == "memory", k))
            for values in itertools.product(*(exp.grid[k] for k in keys)):
                p = dict(zip(keys, values))
                for seed in range(seeds):
                    for policy in exp.policies:
                        out.append(WJoinRun(self.name, exp.id, exp.figure, int(p["streams"]), str(p["rates"]),
                                            int(p["length"]), int(p["window"]), int(p["domain"]), float(p["skew"]),
                                            seed, policy, int(p.get("memory", 0)), int(p.get("block", 1000)),
                                            int(p.get("repeats", 3))))
        return out


def rates_of(name: str, n: int) -> list:
    """The per-stream rates of a named rate set for ``n`` streams."""
    return RATE_SETS[name](n)


def parse_wjoin_suite(data: dict, where: str) -> WJoinSuite:
    """Validate a wjoin suite's TOML tables; every error names the file, the experiment and the fix."""
    seeds, defaults = check_tables(data, where, TOP_FIELDS, GRID_FIELDS)
    _check(data.get("kind") == "wjoin", where, 'a W-join suite needs kind = "wjoin"')
    experiments: list[WJoinExperiment] = []
    seen: set[str] = set()
    for i, raw in enumerate(data["experiment"]):
        here, exp_id = check_experiment(raw, i, where, seen, GRID_FIELDS + EXPERIMENT_FIELDS)
        figure = raw.get("figure", "")
        _check(figure in WJOIN_FIGURES, here, f"unknown figure {figure!r}; choose from {', '.join(WJOIN_FIGURES)}")
        lines_key, choices = ("policies", SHED_POLICIES) if figure == "shedding" else ("algorithms", ALGORITHMS)
        lines = [str(p).lower() for p in _as_list(raw.get(lines_key, []))]
        _check(bool(lines), here, f"needs {lines_key} = [...]")
        for p in lines:
            _check(p in choices, here, f"unknown {SINGULAR[lines_key]} {p!r}; choose from {', '.join(choices)}")
        grid = {k: _as_list(v) for k, v in {**defaults, **{k: raw[k] for k in GRID_FIELDS if k in raw}}.items()}
        grid.setdefault("skew", [1.0])
        for key in ("streams", "rates", "length", "window", "domain") + (("memory",) if figure == "shedding" else ()):
            _check(key in grid, here, f"needs {key} (in the experiment or in [defaults])")
        if figure != "shedding":
            grid.pop("memory", None)
        if figure != "slow":
            grid.pop("block", None)
        if figure == "shedding":
            grid.pop("repeats", None)
        _check_values(grid, here)
        experiments.append(WJoinExperiment(exp_id, str(raw.get("title", exp_id)), figure, tuple(lines), grid,
                                           str(raw.get("claim", "")), str(raw.get("caption", ""))))
    return WJoinSuite(str(data.get("name", Path(where).stem)), str(data.get("description", "")),
                      tuple(experiments), seeds)


def _check_values(grid: dict, here: str) -> None:
    def each(key: str, ok, what: str) -> None:
        for v in grid.get(key, []):
            _check(ok(v), here, f"{key} = {v!r} is not {what}")

    def whole(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    each("streams", lambda v: whole(v) and 2 <= v <= 8, "an integer from 2 to 8")
    each("rates", lambda v: v in RATE_SETS, f"one of {', '.join(RATE_SETS)}")
    each("length", lambda v: whole(v) and v >= 1, "an integer >= 1")
    each("window", lambda v: whole(v) and v >= 0, "an integer >= 0")
    each("domain", lambda v: whole(v) and v >= 1, "an integer >= 1")
    each("skew", lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0, "a number >= 0")
    each("memory", lambda v: whole(v) and v >= 0, "an integer >= 0")
    each("block", lambda v: whole(v) and v >= 1, "an integer >= 1")
    each("repeats", lambda v: whole(v) and v >= 1, "an integer >= 1")


def wjoin_suite_toml(name_or_path: str) -> tuple[dict, str] | None:
    """The TOML tables of a W-join suite (a shipped name, or a file with ``kind = "wjoin"``) and
    where they came from; None for any other suite (the DGR suites of :mod:`.suites`)."""
    if name_or_path in SHIPPED_WJOIN:
        text = resources.files("shedding.studies.suite_files").joinpath(f"{name_or_path}.toml").read_text()
        return tomllib.loads(text), f"suite {name_or_path}"
    path = Path(name_or_path)
    if not path.is_file():
        return None
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None  # load_suite reports it
    return (data, str(path)) if data.get("kind") == "wjoin" else None


def load_wjoin_suite(name_or_path: str) -> WJoinSuite | None:
    """The W-join suite ``name_or_path`` names, or None if it names another kind of suite."""
    found = wjoin_suite_toml(name_or_path)
    return None if found is None else parse_wjoin_suite(*found)
