"""The DGR suites: grids of (workload, window, memory, policy, seed) runs (kind ``dgr``).

A suite has ``[defaults]``, an optional ``seeds`` (seeds per point when ``--seeds`` is not given;
the paper suite has 5, so its figures and verdicts rest on a spread, not one draw; an experiment's
own ``seeds`` overrides it for that experiment) and a list of ``[[experiment]]`` tables (the format of :mod:`shedding.studies.suite`). Any workload or run field
may be a list; an experiment expands to the product of its lists, times its policies, times the
seeds. The shipped suites (``quick``, ``paper``) reproduce the synthetic experiments of Das,
Gehrke, Riedewald (SIGMOD 2003), section 4.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from inspect import signature
from pathlib import Path

from shedding.datasets.generators import GENERATORS, check_params
from shedding.errors import ShedError
from shedding.run import POLICY_NAMES, fixed_form, variable_split
from shedding.studies.suite import (TOP_FIELDS, ExperimentBase, Run, SuiteBase, check, check_values, experiment_fields,
                                    experiment_tables, integer_at_least, lines_of, number, number_at_least, one_of,
                                    points, seeds_of)

FIGURES = ("memory", "skew", "domain", "share")
#: what a line figure plots: output tuples, fractions of OPT or EXACT, or ``gain``, each variable
#: split's output over its fixed split's (the ratio section 4.3's claim is about)
Y_AXES = ("outputs", "ratio_opt", "ratio", "gain")
#: readings of LIFE's priority (section 3.3.2) that the paper's LIFE curve might have used, besides
#: the one it states (remaining lifetime x the partner stream's probability): the tuple's own
#: stream's probability instead of the partner's, and the remaining lifetime alone (every key alike)
LIFE_READINGS = {"life-own": "LIFE weighted by its own stream's probability",
                 "life-flat": "LIFE by remaining lifetime alone"}
POLICIES = (*POLICY_NAMES, *LIFE_READINGS)  # the one registry (shedding.run) and LIFE's readings
#: the generated workloads of the one registry (shedding.datasets.generators), the bundled SYNOP
#: sample, and files (--r/--s given to shed compare)
DATASETS = (*GENERATORS, "synop-sample", "files")
#: the run fields a generator takes as its own parameters, where its signature has them
SHARED_PARAMS = ("skew", "skew_s", "domain", "correlation")
CORRELATIONS = ("independent", "same", "reversed")
# fields of a run that may be given per suite, per experiment, and as lists
GRID_FIELDS = ("dataset", "skew", "skew_s", "domain", "length", "correlation", "window", "warmup",
               "memory", "memory_factor", "estimator", "cell_size")


@dataclass(frozen=True)
class RunSpec(Run):
    """One run: everything needed to regenerate the workload and repeat the run anywhere."""

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


# a run's fields but suite, policy and share: the runs of one point (experiment, workload, seed, window,
# memory) share EXACT and OPT
POINT_FIELDS = tuple(f.name for f in fields(RunSpec) if f.name not in ("suite", "policy", "share"))


@dataclass(frozen=True)
class Experiment(ExperimentBase):
    """One figure of the report and the runs behind it."""

    y: str
    policies: tuple[str, ...]
    grid: dict = field(default_factory=dict)
    claim: str = ""
    caption: str = ""
    like: str = ""  # the experiment whose figure this one's should resemble (Figure 4 like Figure 3)
    seeds: int | None = None  # seeds per point instead of the suite's


@dataclass(frozen=True)
class Suite(SuiteBase):
    """A DGR suite: its experiments are :class:`Experiment`."""

    def with_cell_size(self, cell_size: float) -> "Suite":
        """The same suite with every experiment on grid cells of ``cell_size`` degrees."""
        if not 0 < cell_size <= 180:
            raise ShedError(f"{{param}} {cell_size} is not a cell size in degrees (0 < size <= 180)", param="cell_size")
        exps = tuple(replace(e, grid={**e.grid, "cell_size": [float(cell_size)]}) for e in self.experiments)
        return replace(self, experiments=exps)

    @property
    def reads_files(self) -> bool:
        """Whether some experiment reads the stream files given to ``shed compare --r/--s``."""
        return any("files" in e.grid["dataset"] for e in self.experiments)

    def runs(self, seeds: int | None = None, source: str = "") -> list[RunSpec]:
        """Every run of the suite, seeds 0..seeds-1 per point (``seeds``, else the experiment's, else
        the suite's), in a stable order. ``source`` names the files of dataset ``files``."""
        out: list[RunSpec] = []
        for exp in self.experiments:
            for params in points(exp.grid, sorted(exp.grid)):
                for seed in range(seeds_of(seeds, exp.seeds or self.seeds)):
                    for policy in exp.policies:
                        out.append(_spec(self.name, exp, params, seed, policy, source))
        return out


def default_estimator(dataset: str) -> str:
    """A dataset's estimator when the suite names none: the generator's
    (:attr:`~shedding.datasets.generators.Source.estimator`: static on the paper's Zipf streams,
    online on the others), static on the weather reports (the paper's own data, §4.5)."""
    return GENERATORS[dataset].estimator if dataset in GENERATORS else "static"


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
                   p["correlation"], seed, window, warmup, memory, policy,
                   p.get("estimator", default_estimator(p["dataset"])),
                   share=exp.figure == "share", cell_size=float(p.get("cell_size", 10.0)),
                   source=source if p["dataset"] == "files" else "")


def parse_suite(data: dict, where: str) -> Suite:
    """Validate a DGR suite's TOML tables; every error names the file, the experiment and the fix."""
    seeds, tables = experiment_tables(data, where, TOP_FIELDS, GRID_FIELDS, experiment_fields("y", "policies", "like", "seeds"), FIGURES, "memory")
    experiments = []
    for t in tables:
        here, raw, grid = t.here, t.raw, t.grid
        y = raw.get("y", "outputs")
        check(y in Y_AXES, here, f"unknown y {y!r}; choose from {', '.join(Y_AXES)}")
        policies = lines_of(raw, "policies", here, POLICIES, "policy")
        check(t.figure != "share" or any(variable_split(p) for p in policies), here, "figure = 'share' plots how a "
              "variable split divides memory: add a variable-split policy ("
              + ", ".join(p for p in POLICY_NAMES if variable_split(p)) + ")")
        if y == "ratio_opt":
            check("opt" in policies or "optv" in policies, here, "y = ratio_opt needs opt among the policies")
        if y == "gain":
            check(any(variable_split(p) and fixed_form(p) in policies for p in policies), here,
                  "y = gain needs a variable split and its fixed split among the policies (e.g. prob and probv)")
        grid.setdefault("dataset", ["zipf"])
        grid.setdefault("correlation", ["independent"])
        defaults = {default_estimator(name) for name in grid["dataset"]}
        if len(defaults) == 1:  # else each dataset's own, per run (_spec)
            grid.setdefault("estimator", sorted(defaults))
        check("window" in grid, here, "needs window (in the experiment or in [defaults])")
        for name in grid["dataset"]:
            if name in GENERATORS:
                _check_generator(name, grid, here)
        check("memory" not in grid or "memory_factor" not in grid, here, "give memory or memory_factor, not both")
        _check_values(grid, here)
        exp_seeds = raw.get("seeds")
        check(exp_seeds is None or (isinstance(exp_seeds, int) and not isinstance(exp_seeds, bool) and exp_seeds >= 1),
              here, f"seeds = {exp_seeds!r} is not an integer >= 1")
        experiments.append(Experiment(t.id, str(raw.get("title", t.id)), t.figure, y, policies, grid,
                                      str(raw.get("claim", "")), str(raw.get("caption", "")), str(raw.get("like", "")),
                                      None if exp_seeds is None else int(exp_seeds)))
    ids = {e.id for e in experiments}
    for e in experiments:
        check(not e.like or e.like in ids, f"{where}, experiment {e.id}",
              f"like = {e.like!r} names no experiment of the suite; choose from {', '.join(sorted(ids))}")
    return Suite(str(data.get("name", Path(where).stem)), str(data.get("description", "")), tuple(experiments),
                 seeds)


def generator_params(name: str, values: dict) -> dict:
    """The own parameters generator ``name`` takes from a run's ``values`` (:data:`SHARED_PARAMS`)."""
    takes = set(signature(GENERATORS[name].generator()).parameters)
    return {k: values[k] for k in SHARED_PARAMS if k in takes and k in values}


def _check_generator(name: str, grid: dict, here: str) -> None:
    """A generated dataset gets its length (when drawn) and the shared parameters it takes from the
    grid, which must give them; each point's are checked as the generator checks them, before any
    run, without drawing (:func:`~shedding.datasets.generators.check_params`)."""
    need = [k for k in SHARED_PARAMS if k != "skew_s" and k != "correlation"
            and k in generator_params(name, dict.fromkeys(SHARED_PARAMS))]
    for key in (*need, *(("length",) if GENERATORS[name].drawn else ())):
        check(key in grid, here, f"needs {key} for dataset {name} (in the experiment or in [defaults])")
    if name == "zipf":  # the paper's streams: checked by the fields' own checks below
        return
    for p in points({**grid, "dataset": [name]}, [*need, "correlation", "window"]):
        try:
            check_params(name, generator_params(name, p), window=int(p["window"]))
        except ShedError as exc:
            raise ShedError(f"{here}: dataset {name}: {exc}") from None


def _check_values(grid: dict, here: str) -> None:
    check_values(grid, here, (
        ("dataset", lambda v: v in DATASETS, f"a known dataset ({', '.join(DATASETS)})"),
        ("correlation", *one_of(CORRELATIONS)),
        ("skew", *number_at_least(0)),
        ("skew_s", *number_at_least(0)),
        ("domain", *integer_at_least(1)),
        ("length", *integer_at_least(0)),
        ("window", *integer_at_least(1)),
        ("warmup", *integer_at_least(0)),
        ("memory", *integer_at_least(0)),
        ("memory_factor", *number_at_least(0)),
        ("estimator", lambda v: v in ("static", "online"), "static or online"),
        ("cell_size", lambda v: number(v) and 0 < v <= 180, "a cell size in degrees (0 < size <= 180)")))
