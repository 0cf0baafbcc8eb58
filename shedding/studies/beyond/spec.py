"""The suites beyond i.i.d. streams (kind ``beyond``): every online policy as a fraction of OPT
(Das, Gehrke, Riedewald 2003, §3.2) on the generated workloads of
:mod:`shedding.datasets.generators`: the age-based model of Srivastava and Widom (VLDB 2004),
drifting and bursty Zipf streams, and the flights of 2013.

A suite is a TOML file with ``kind = "beyond"`` and ``[[experiment]]`` tables (the format of
:mod:`shedding.studies.suite`); grid fields may also go in ``[defaults]`` and any may be a list:

* ``generator`` and any of its own parameters (``lag_spread``, ``background``, ``months``, ...;
  ``lag_pmf``, a list of probabilities, takes a list of numbers as one value and a list of lists
  as a grid), ``length`` (not for the flights), ``window``, ``range`` (a time range ``"LO,HI"`` of the
  join instead of the window, docs/semantics.md; ``""`` for the window), ``memory``, ``estimator``, ``group``
  (HAZARD's payload column of the flights, or a comma list of them, ``"dest,carrier"``, or
  ``history``, ``auto``, ``auto-history``, ``none``; "" for HAZARD's default: none on the window,
  ``auto-history`` under a one-sided range, which the rows then name) and ``tuning`` (the learner of HAZARD and AGE as ``field=value,...``,
  :meth:`~shedding.online.tuning.HazardTuning.parse`; "" for the defaults);
* ``split``: ``tuning`` or ``held-out``, what the experiment's data was to the policies' design
  (the page states it), and ``seed_offset``: the first seed drawn (held-out seeds start after the
  tuning seeds);
* ``policies`` (the online policies; OPT or OPTV is always run) and ``x``, the grid field on the
  figure's x axis;
* ``claim``, the goal the experiment tests, with ``checks``, how (:mod:`.claims`); an experiment
  without a claim is an observation and gets no verdict.

A run is one point of the grid and one seed (a generator that reads its tuples, as the flights, has
one seed: :attr:`~shedding.datasets.generators.Source.drawn`); it runs
every policy on the same workload. With a ``tuning`` grid the policies that learn nothing (PROB,
AGE told its curve by the static estimator: :func:`~shedding.online.kinds.learns`) run apart, with
the empty tuning, so that they run once for all the tuning values, not once per value.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from shedding.datasets.generators import GENERATORS, check_params, own_params, with_payload
from shedding.errors import ShedError
from shedding.timerange import check_range
from shedding.online.groups import group_columns, is_auto, payload_names
from shedding.online.kinds import learns
from shedding.online.policies import POLICIES
from shedding.online.tuning import HazardTuning
from shedding.studies.beyond.claims import parse_checks
from shedding.studies.suite import (TOP_FIELDS, ExperimentBase, Run, SuiteBase, check, check_values,
                                    experiment_fields, experiment_tables, integer_at_least, lines_of, number, one_of,
                                    points, seeds_of)

FIGURES = ("fraction",)
SPLITS = ("tuning", "held-out")
ONLINE = tuple(name for name, p in POLICIES.items() if not p.replay)
#: the fields of a run besides the generator's own parameters
RUN_FIELDS = ("generator", "length", "window", "range", "memory", "estimator", "group", "tuning", "split",
              "seed_offset")
#: every generator's own parameters, as grid fields
PARAM_FIELDS = tuple(sorted({p for name in GENERATORS for p in own_params(name)} - set(RUN_FIELDS)))
GRID_FIELDS = RUN_FIELDS + PARAM_FIELDS


@dataclass(frozen=True)
class BeyondExperiment(ExperimentBase):
    """One figure of the page and the grid behind it."""

    policies: tuple[str, ...]
    x: str
    grid: dict = field(default_factory=dict)
    claim: str = ""
    caption: str = ""
    checks: tuple = ()  # how the claim is checked (:mod:`.claims`)


@dataclass(frozen=True)
class BeyondRun(Run):
    """One workload (a grid point and a seed) and the policies run on it; ``params`` is the
    generator's own parameters as JSON."""

    generator: str
    params: str
    length: int
    window: int
    memory: int
    estimator: str
    group: str
    tuning: str
    split: str
    seed: int
    policies: tuple[str, ...]
    x: str
    range: str = ""  # "LO,HI", or "" for the window


@dataclass(frozen=True)
class BeyondSuite(SuiteBase):
    """A suite of :class:`BeyondExperiment`."""

    def runs(self, seeds: int | None = None) -> list[BeyondRun]:
        """Every run, seeds seed_offset.. per point (default: the suite's ``seeds``; one for the
        flights), in a stable order; with a ``tuning`` grid the policies that learn nothing run
        once, with the empty tuning (module docstring)."""
        seeds = seeds_of(seeds, self.seeds)
        out = []
        for exp in self.experiments:
            for p in points(exp.grid, sorted(exp.grid)):
                own = {k: v for k, v in p.items() if k in own_params(p["generator"])}
                estimator = p.get("estimator", "online")
                if "tuning" in exp.grid:
                    learning = tuple(n for n in exp.policies if learns(POLICIES[n].kind, known=estimator == "static"))
                    parts = [("", tuple(n for n in exp.policies if n not in learning)), (p["tuning"], learning)]
                else:
                    parts = [("", exp.policies)]
                for i in range(seeds if GENERATORS[p["generator"]].drawn else 1):
                    out += [BeyondRun(self.name, exp.id, p["generator"], json.dumps(own, sort_keys=True),
                                      int(p.get("length", 5600)), int(p["window"]), int(p["memory"]), estimator,
                                      p.get("group", ""), tuning, p["split"], int(p.get("seed_offset", 0)) + i,
                                      policies, exp.x, p.get("range", ""))
                            for tuning, policies in parts if policies]
        return list(dict.fromkeys(out))  # the runs of the policies that learn nothing, once


def _range(text: object, here: str) -> str:
    """A grid's ``range`` value as its runs carry it: ``"LO,HI"`` (:func:`~shedding.timerange.check_range`),
    or ``""`` for the window; else a refusal naming the file and experiment."""
    if text == "":
        return ""
    try:
        lo, hi = check_range(tuple(int(part) for part in str(text).split(",")))
    except (ShedError, ValueError) as exc:
        raise ShedError(f"{here}: range = {text!r} is not a time range \"LO,HI\" with LO <= HI (e.g. \"0,719\"; "
                        f"\"\" for the window){': ' + str(exc) if isinstance(exc, ShedError) else ''}") from None
    return f"{lo},{hi}"


def _tuning(text: object, here: str) -> str:
    """A grid's ``tuning`` value as its runs carry it: the settings that differ from the defaults
    (:attr:`~shedding.online.tuning.HazardTuning.spec`), or a refusal naming the file and experiment."""
    try:
        return HazardTuning.parse(str(text)).spec
    except ShedError as exc:
        raise ShedError(f"{here}: tuning = {text!r}: {exc}") from None


def _lag_pmfs(values: list, given: object, here: str) -> list:
    """A grid's ``lag_pmf`` values (``given`` as the file has it): a list of numbers is one lag
    distribution, as no number alone is one; a list of such lists is a grid of them."""
    if values and all(number(v) for v in values):
        return [values]
    check(bool(values) and all(isinstance(v, list) and v and all(number(p) for p in v) for v in values), here,
          f"lag_pmf = {given!r} is not a list of probabilities, one per lag 0, 1, 2, ... (e.g. lag_pmf = "
          "[0.0, 0.5, 0.5]; a list of such lists is a grid of them)")
    return values


def _check_workloads(grid: dict, here: str) -> None:
    """Every grid point's generator parameters and HAZARD's ``group``, checked as the runs would
    meet them but before any runs, without drawing or reading data."""
    for name in grid["generator"]:
        own = [k for k in own_params(name) if k in grid]
        for p in points(grid, [*own, "window"]):
            window = p.pop("window")
            try:
                check_params(name, p, window=window)
            except ShedError as exc:
                raise ShedError(f"{here}: {exc}") from None
        payload = GENERATORS[name].payload_columns()
        for group in grid.get("group", []):
            check(isinstance(group, str), here, f"group = {group!r} must be text: a payload column, a comma list of "
                  "them (\"dest,carrier\"), \"auto\" (HAZARD picks), \"history\" (the key's history) or \"\" "
                  "for none")
            try:
                columns = group_columns(group) if group else ()
            except ShedError as exc:
                raise ShedError(f"{here}: {exc}") from None
            named = payload_names(columns)
            check(not named or bool(payload), here, f"group = {group!r} needs the "
                  f"{' or '.join(with_payload())}' payload, not the {name} generator; leave group out (or \"\")")
            unknown = [c for c in named if c not in payload and not is_auto(columns)]
            check(not unknown, here, f"group = {group!r} is not one of {', '.join(payload)} (the {name} payload columns) "
                  f"or a comma list of them ({', '.join(map(repr, unknown))} is none of them), or \"\" for none")


def parse_beyond_suite(data: dict, where: str) -> BeyondSuite:
    """Validate a beyond suite's TOML tables; every error names the file, the experiment and the fix."""
    seeds, tables = experiment_tables(data, where, TOP_FIELDS, GRID_FIELDS, experiment_fields("policies", "x", "checks"),
                                      FIGURES, "fraction")
    experiments = []
    for t in tables:
        here, grid = t.here, t.grid
        policies = lines_of(t.raw, "policies", here, ONLINE, "policy")
        for key in ("generator", "window", "memory", "split"):
            check(key in grid, here, f"needs {key} (in the experiment or in [defaults])")
        check_values(grid, here, (("generator", *one_of(tuple(GENERATORS))), ("split", *one_of(SPLITS)),
                                  ("window", *integer_at_least(1)), ("memory", *integer_at_least(0)),
                                  ("length", *integer_at_least(1)), ("seed_offset", *integer_at_least(0)),
                                  ("estimator", *one_of(("static", "online")))))
        if "tuning" in grid:
            grid["tuning"] = [_tuning(text, here) for text in grid["tuning"]]
        if "range" in grid:
            grid["range"] = [_range(text, here) for text in grid["range"]]
        if "lag_pmf" in grid:
            given = t.raw["lag_pmf"] if "lag_pmf" in t.raw else data["defaults"]["lag_pmf"]
            grid["lag_pmf"] = _lag_pmfs(grid["lag_pmf"], given, here)
        for name in grid["generator"]:
            stray = [k for k in PARAM_FIELDS if k in grid and k not in own_params(name)]
            check(not stray, here, f"{', '.join(stray)} are no parameters of the {name} generator; drop them")
        _check_workloads(grid, here)
        x = str(t.raw.get("x", "memory"))
        check(x in grid, here, f"x = {x!r} is no grid field of the experiment; name one it varies")
        checks = parse_checks(t.raw.get("checks"), policies, here)
        check(not checks or bool(t.raw.get("claim")), here, "checks need the claim they check: add claim = \"...\"")
        experiments.append(BeyondExperiment(t.id, str(t.raw.get("title", t.id)), t.figure, policies, x, grid,
                                            str(t.raw.get("claim", "")), str(t.raw.get("caption", "")), checks))
    return BeyondSuite(str(data.get("name", Path(where).stem)), str(data.get("description", "")),
                       tuple(experiments), seeds)

