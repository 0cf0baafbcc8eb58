"""Experiment suites: grids of (workload, window, memory, policy, seed) runs defined in TOML.

A suite has ``[defaults]``, an optional ``seeds`` (seeds per point when ``--seeds`` is not given;
the paper suite has 5, so its figures and verdicts rest on a spread, not one draw) and a list of
``[[experiment]]`` tables. Any workload or run field may be a list; an experiment expands to the
product of its lists, times its policies, times the seeds. The shipped suites (``quick``, ``paper``) reproduce the synthetic experiments of Das,
Gehrke, Riedewald (SIGMOD 2003), section 4.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import sys
from dataclasses import asdict, dataclass, field, fields, replace
from importlib import resources
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from shedding.errors import ShedError
from shedding.run import POLICY_NAMES

SHIPPED = ("quick", "paper", "weather-sample", "weather", "policies")
#: every shipped suite name, the W-join and bestmatch suites (their own loaders) included
ALL_SHIPPED = (*SHIPPED, "wjoin", "wjoin-full", "bestmatch")
FIGURES = ("memory", "skew", "domain", "share")
Y_AXES = ("outputs", "ratio_opt", "ratio")
POLICIES = POLICY_NAMES  # the one registry (shedding.run)
DATASETS = ("zipf", "synop-sample", "files")  # files: --r/--s given to shed compare
CORRELATIONS = ("independent", "same", "reversed")
# fields of a run that may be given per suite, per experiment, and as lists
GRID_FIELDS = ("dataset", "skew", "skew_s", "domain", "length", "correlation", "window", "warmup",
               "memory", "memory_factor", "estimator", "cell_size")
EXPERIMENT_FIELDS = ("id", "title", "figure", "y", "policies", "claim", "caption")
TOP_FIELDS = ("name", "description", "seeds", "defaults", "experiment")


@dataclass(frozen=True)
class RunSpec:
    """One run: everything needed to regenerate the workload and repeat the run anywhere."""

    suite: str
    experiment: str
    dataset: str
    skew: float
    skew_s: float
    domain: int
    length: int
    correlation: str
    seed: int
    window: int
    warmup: int
    memory: int
    policy: str
    estimator: str = "static"
    share: bool = False
    cell_size: float = 10.0
    source: str = ""  # the files read, for dataset "files"

    @property
    def run_id(self) -> str:
        """A stable id of the run's parameters (used to resume)."""
        text = json.dumps(asdict(self), sort_keys=True)
        return hashlib.sha1(text.encode()).hexdigest()[:16]


# a run's fields but suite, policy and share: the runs of one point (experiment, workload, seed, window,
# memory) share EXACT and OPT
POINT_FIELDS = tuple(f.name for f in fields(RunSpec) if f.name not in ("suite", "policy", "share"))


@dataclass(frozen=True)
class Experiment:
    """One figure of the report and the runs behind it."""

    id: str
    title: str
    figure: str
    y: str
    policies: tuple[str, ...]
    grid: dict = field(default_factory=dict)
    claim: str = ""
    caption: str = ""


@dataclass(frozen=True)
class Suite:
    name: str
    description: str
    experiments: tuple[Experiment, ...]
    seeds: int = 1  # seeds per point unless the command line says otherwise

    def with_cell_size(self, cell_size: float) -> "Suite":
        """The same suite with every experiment on grid cells of ``cell_size`` degrees."""
        _check(0 < cell_size <= 180, "--cell-size", f"{cell_size} is not a cell size in degrees (0 < size <= 180)")
        exps = tuple(replace(e, grid={**e.grid, "cell_size": [float(cell_size)]}) for e in self.experiments)
        return replace(self, experiments=exps)

    @property
    def reads_files(self) -> bool:
        """Whether some experiment reads the stream files given to ``shed compare --r/--s``."""
        return any("files" in e.grid["dataset"] for e in self.experiments)

    def runs(self, seeds: int | None = None, source: str = "") -> list[RunSpec]:
        """Every run of the suite, seeds 0..seeds-1 per point (default: the suite's ``seeds``), in a
        stable order. ``source`` names the files of dataset ``files``."""
        seeds = self.seeds if seeds is None else seeds
        if seeds < 1:
            raise ShedError(f"--seeds must be >= 1, got {seeds}")
        out: list[RunSpec] = []
        for exp in self.experiments:
            keys = sorted(exp.grid)
            for values in itertools.product(*(exp.grid[k] for k in keys)):
                params = dict(zip(keys, values))
                for seed in range(seeds):
                    for policy in exp.policies:
                        out.append(_spec(self.name, exp, params, seed, policy, source))
        return out


def _spec(suite: str, exp: Experiment, p: dict, seed: int, policy: str, source: str) -> RunSpec:
    window = int(p["window"])
    if p.get("memory") is not None:
        memory = int(p["memory"])
    else:
        memory = int(round(float(p.get("memory_factor", 1.0)) * window))
    warmup = 2 * window if p.get("warmup") is None else int(p["warmup"])
    skew = float(p.get("skew", 0.0))
    skew_s = skew if p.get("skew_s") is None else float(p["skew_s"])
    return RunSpec(suite, exp.id, p["dataset"], skew, skew_s, int(p.get("domain", 0)), int(p.get("length", 0)),
                   p["correlation"], seed, window, warmup, memory, policy, p.get("estimator", "static"),
                   share=exp.figure == "share", cell_size=float(p.get("cell_size", 10.0)),
                   source=source if p["dataset"] == "files" else "")


def _as_list(value: Any) -> list:
    return list(value) if isinstance(value, list) else [value]


def _check(cond: bool, where: str, message: str) -> None:
    if not cond:
        raise ShedError(f"{where}: {message}")


def check_tables(data: dict, where: str, top_fields: tuple[str, ...], grid_fields: tuple[str, ...]) -> tuple[int, dict]:
    """The checks every suite file passes (its keys, its [[experiment]] list, ``seeds`` and
    ``[defaults]``); returns (seeds, defaults)."""
    unknown = set(data) - set(top_fields)
    _check(not unknown, where, f"unknown top-level key(s) {', '.join(sorted(unknown))}; known: {', '.join(top_fields)} "
           f"(grid fields go in [defaults] or an [[experiment]])")
    _check(isinstance(data.get("experiment"), list) and data["experiment"], where,
           "no [[experiment]] tables; add at least one")
    seeds = data.get("seeds", 1)
    _check(isinstance(seeds, int) and not isinstance(seeds, bool) and seeds >= 1, where,
           f"seeds = {seeds!r} is not an integer >= 1")
    defaults = data.get("defaults", {})
    _check(isinstance(defaults, dict), where, "[defaults] must be a table")
    unknown = set(defaults) - set(grid_fields)
    _check(not unknown, where, f"unknown field(s) {', '.join(sorted(unknown))} in [defaults]; "
           f"known: {', '.join(grid_fields)}")
    return seeds, defaults


def check_experiment(raw: object, i: int, where: str, seen: set[str], fields: tuple[str, ...]) -> tuple[str, str]:
    """An [[experiment]] table's keys and id (new to ``seen``, which it joins); returns (where
    it is, for messages, and its id)."""
    _check(isinstance(raw, dict), where, f"experiment {i + 1} must be a table")
    here = f"{where}, experiment {raw.get('id', i + 1)!r}"  # type: ignore[union-attr]
    unknown = set(raw) - set(fields)  # type: ignore[arg-type]
    _check(not unknown, here, f"unknown field(s) {', '.join(sorted(unknown))}; known: {', '.join(fields)}")
    exp_id = str(raw.get("id", ""))  # type: ignore[union-attr]
    _check(bool(exp_id) and exp_id.replace("-", "").replace("_", "").isalnum(), here,
           "needs an id of letters, digits, - or _")
    _check(exp_id not in seen, here, "duplicate experiment id")
    seen.add(exp_id)
    return here, exp_id


def parse_suite(data: dict, where: str) -> Suite:
    """Validate a suite's TOML tables; every error names the file, the experiment and the fix."""
    seeds, defaults = check_tables(data, where, TOP_FIELDS, GRID_FIELDS)
    experiments = []
    seen: set[str] = set()
    for i, raw in enumerate(data["experiment"]):
        here, exp_id = check_experiment(raw, i, where, seen, GRID_FIELDS + EXPERIMENT_FIELDS)
        figure = raw.get("figure", "memory")
        _check(figure in FIGURES, here, f"unknown figure {figure!r}; choose from {', '.join(FIGURES)}")
        y = raw.get("y", "outputs")
        _check(y in Y_AXES, here, f"unknown y {y!r}; choose from {', '.join(Y_AXES)}")
        policies = [str(p).lower() for p in _as_list(raw.get("policies", []))]
        _check(bool(policies), here, "needs policies = [...]")
        for p in policies:
            _check(p in POLICIES, here, f"unknown policy {p!r}; choose from {', '.join(POLICIES)}")
        if y == "ratio_opt":
            _check("opt" in policies or "optv" in policies, here, "y = ratio_opt needs opt among the policies")
        grid = {k: _as_list(v) for k, v in {**defaults, **{k: raw[k] for k in GRID_FIELDS if k in raw}}.items()}
        grid.setdefault("dataset", ["zipf"])
        grid.setdefault("correlation", ["independent"])
        grid.setdefault("estimator", ["static"])
        _check("window" in grid, here, "needs window (in the experiment or in [defaults])")
        if "zipf" in grid["dataset"]:
            for key in ("skew", "domain", "length"):
                _check(key in grid, here, f"needs {key} for dataset zipf (in the experiment or in [defaults])")
        _check("memory" not in grid or "memory_factor" not in grid, here, "give memory or memory_factor, not both")
        _check_values(grid, here)
        experiments.append(Experiment(exp_id, str(raw.get("title", exp_id)), figure, y, tuple(policies), grid,
                                      str(raw.get("claim", "")), str(raw.get("caption", ""))))
    return Suite(str(data.get("name", Path(where).stem)), str(data.get("description", "")), tuple(experiments),
                 seeds)


def _check_values(grid: dict, here: str) -> None:
    def each(key, ok, what):
        for v in grid.get(key, []):
            _check(ok(v), here, f"{key} = {v!r} is not {what}")

    def number(v):
        return isinstance(v, (int, float)) and not isinstance(v, bool)

    def whole(v):
        return isinstance(v, int) and not isinstance(v, bool)

    each("dataset", lambda v: v in DATASETS, f"a known dataset ({', '.join(DATASETS)})")
    each("correlation", lambda v: v in CORRELATIONS, f"one of {', '.join(CORRELATIONS)}")
    each("skew", lambda v: number(v) and v >= 0, "a number >= 0")
    each("skew_s", lambda v: number(v) and v >= 0, "a number >= 0")
    each("domain", lambda v: whole(v) and v >= 1, "an integer >= 1")
    each("length", lambda v: whole(v) and v >= 0, "an integer >= 0")
    each("window", lambda v: whole(v) and v >= 1, "an integer >= 1")
    each("warmup", lambda v: whole(v) and v >= 0, "an integer >= 0")
    each("memory", lambda v: whole(v) and v >= 0, "an integer >= 0")
    each("memory_factor", lambda v: number(v) and v >= 0, "a number >= 0")
    each("estimator", lambda v: v in ("static", "online"), "static or online")
    each("cell_size", lambda v: number(v) and 0 < v <= 180, "a cell size in degrees (0 < size <= 180)")


def load_suite(name_or_path: str) -> Suite:
    """A shipped suite by name (quick, paper) or a TOML file by path."""
    if name_or_path in SHIPPED:
        text = resources.files("shedding.studies.suite_files").joinpath(f"{name_or_path}.toml").read_text()
        where = f"suite {name_or_path}"
    else:
        path = Path(name_or_path)
        if path.is_dir():
            raise ShedError(f"--suite {name_or_path} is a folder; give a suite TOML file or one of {', '.join(ALL_SHIPPED)}")
        if not path.is_file():
            raise ShedError(f"unknown suite {name_or_path!r}: not one of {', '.join(ALL_SHIPPED)} and no such file")
        try:
            text = path.read_text()
        except (OSError, UnicodeDecodeError) as exc:
            raise ShedError(f"cannot read suite file {path}: {exc}") from None
        where = str(path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ShedError(f"{where} is not valid TOML ({exc}); fix the syntax") from None
    return parse_suite(data, where)


# --- bestmatch suites (issue 13) -------------------------------------------------------------------
# A different run model (joins of two synthetic relations, not window-join policy runs): shed compare
# hands these suites to shedding.studies.bestmatch_suite. Kept in one block so that merges stay easy.
BESTMATCH_SUITES = ALL_SHIPPED[-1:]


def is_bestmatch_suite(name_or_path: str) -> bool:
    """Whether ``--suite`` names a bestmatch suite: shipped, or a TOML file with ``kind = "bestmatch"``."""
    if name_or_path in BESTMATCH_SUITES:
        return True
    path = Path(name_or_path)
    if name_or_path in SHIPPED or not path.is_file():
        return False
    try:
        return tomllib.loads(path.read_text()).get("kind") == "bestmatch"
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False  # load_suite reports the problem
