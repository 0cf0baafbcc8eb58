"""The bestmatch suites (kind ``bestmatch``): the shapes of Kemper/Stegmaier 2002, §4, and the
bestmatch join under load shedding.

A suite is a TOML file with ``kind = "bestmatch"`` and ``[[experiment]]`` tables (the format of
:mod:`shedding.studies.suite`; grid fields may also go in ``[defaults]``):

* ``figure``: ``time-size`` and ``time-dims`` (Figures 11 and 12: total time of every algorithm
  against the input size or the dimensions), ``propagated`` (Figures 13 and 14: the share of the
  result output against the share of the input read) or ``shedding`` (precision, recall and
  symmetric difference against the exact constrained left-outer BMJ as memory shrinks);
* the grid: ``sizes`` (tuples per input), ``dims``, ``distributions`` and ``first_decimals`` (the
  granularity of y_1), with ``eps`` (every eps_i);
* ``algorithms`` (the time figures; ``repeats``, default 1: the median time counts), or
  ``policies``, ``fractions`` (memory as a fraction of the exact run's peak) and ``seeds`` (RAND's
  seeds) for shedding;
* ``claim``, the paper's claim the experiment checks, or ``hypothesis``, the project's own where the
  paper says nothing (the shedding study), and ``caption``.

A run is one point of an experiment's grid.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from shedding.bestmatch.generator import DISTRIBUTIONS
from shedding.bestmatch.join import ALGORITHMS
from shedding.bestmatch.shed import POLICIES
from shedding.studies.suite import (TOP_FIELDS, ExperimentBase, Run, SuiteBase, as_list, check, check_values,
                                    experiment_fields, experiment_tables, integer_at_least, lines_of, number,
                                    number_at_least, one_of, points)

FIGURES = ("time-size", "time-dims", "propagated", "shedding")
TIMED = ("time-size", "time-dims")
GRID_FIELDS = ("sizes", "dims", "distributions", "first_decimals", "eps")


@dataclass(frozen=True)
class BestmatchExperiment(ExperimentBase):
    """One figure of the report and the grid behind it."""

    sizes: tuple[int, ...]
    dims: tuple[int, ...]
    distributions: tuple[str, ...]
    first_decimals: tuple[int | None, ...]
    eps: float
    algorithms: tuple[str, ...] = ()
    policies: tuple[str, ...] = ()
    fractions: tuple[float, ...] = ()
    repeats: int = 1
    seeds: int = 1
    claim: str = ""
    caption: str = ""
    hypothesis: str = ""


@dataclass(frozen=True)
class BestmatchRun(Run):
    """One point of an experiment: its two synthetic inputs and what runs on them."""

    figure: str
    n: int
    dims: int
    distribution: str
    first_decimals: int | None
    eps: float
    algorithms: tuple[str, ...]
    policies: tuple[str, ...]
    fractions: tuple[float, ...]
    repeats: int
    seeds: int


@dataclass(frozen=True)
class BestmatchSuite(SuiteBase):
    """A bestmatch suite: its experiments are :class:`BestmatchExperiment` (they give their own
    seeds: RAND's in shedding)."""

    def runs(self, seeds: int | None = None) -> list[BestmatchRun]:
        """Every run: the points of each experiment's grid, in the order sizes, dims,
        distributions, first_decimals (the last varying fastest)."""
        out = []
        for e in self.experiments:
            grid = {"n": e.sizes, "dims": e.dims, "distribution": e.distributions, "first": e.first_decimals}
            for p in points(grid, ["n", "dims", "distribution", "first"]):
                out.append(BestmatchRun(self.name, e.id, e.figure, p["n"], p["dims"], p["distribution"], p["first"],
                                        e.eps, e.algorithms, e.policies, e.fractions, e.repeats, e.seeds))
        return out


def parse_bestmatch_suite(data: dict, where: str) -> BestmatchSuite:
    """Validate a bestmatch suite's TOML tables; every error names the file, the experiment and the fix."""
    _, tables = experiment_tables(data, where, tuple(f for f in TOP_FIELDS if f != "seeds"), GRID_FIELDS,
                                  experiment_fields("algorithms", "policies", "repeats", "fractions", "seeds",
                                                    "hypothesis"), FIGURES)
    experiments = []
    for t in tables:
        here, raw, figure, grid = t.here, t.raw, t.figure, t.grid
        for key in ("sizes", "dims", "distributions", "eps"):
            check(key in grid, here, f"needs {key} (in the experiment or in [defaults])")
        check(len(grid["eps"]) == 1, here, "eps takes one value")
        options = {k: as_list(raw[k]) for k in ("fractions", "repeats", "seeds") if k in raw}
        check_values({**grid, **options}, here, (
            ("sizes", *integer_at_least(1)),
            ("dims", *integer_at_least(1)),
            ("distributions", *one_of(DISTRIBUTIONS)),
            ("first_decimals", *integer_at_least(0)),
            ("eps", lambda v: number(v) and v > 0, "a number > 0"),
            ("fractions", *number_at_least(0)),
            ("repeats", *integer_at_least(1)),
            ("seeds", *integer_at_least(1))))
        for key in ("repeats", "seeds"):
            check(len(options.get(key, [1])) == 1, here, f"{key} takes one value")
        algorithms = lines_of(raw, "algorithms", here, ALGORITHMS, "algorithm") if figure in TIMED else ()
        policies = lines_of(raw, "policies", here, POLICIES, "policy") if figure == "shedding" else ()
        if figure == "shedding":
            check(bool(options.get("fractions")), here, "needs fractions = [...]")
        experiments.append(BestmatchExperiment(
            t.id, str(raw.get("title", t.id)), figure, tuple(grid["sizes"]), tuple(grid["dims"]),
            tuple(grid["distributions"]), tuple(grid.get("first_decimals", [None])), float(grid["eps"][0]),
            algorithms, policies, tuple(float(f) for f in options.get("fractions", [])),
            options.get("repeats", [1])[0], options.get("seeds", [1])[0], str(raw.get("claim", "")),
            str(raw.get("caption", "")), str(raw.get("hypothesis", ""))))
    return BestmatchSuite(str(data.get("name", Path(where).stem)), str(data.get("description", "")),
                          tuple(experiments))
