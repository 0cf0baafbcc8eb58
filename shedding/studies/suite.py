"""The one suite file format: a TOML file whose ``kind`` names the study that runs it.

A suite file has ``kind`` (default ``dgr``, the load-shedding experiments of Das, Gehrke,
Riedewald), ``name``, ``description``, an optional ``seeds`` (seeds per point when the command
line gives none), ``[defaults]`` and a list of ``[[experiment]]`` tables, each with an ``id``, a
``figure``, the lines it plots, the paper's ``claim`` and grid fields, any of which may be a list:
an experiment expands to the product of its lists. Which fields a kind knows, and what a run of
it is, is the study's own (``shedding.studies.dgr.spec``, ``.wjoin.spec``, ``.bestmatch.spec``);
this module reads the files and holds the checks they share, so every error names the file, the
experiment and the fix.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from shedding.errors import ShedError

#: the suites shipped in ``shedding/studies/suite_files``, by name
SHIPPED = ("quick", "paper", "weather-sample", "weather", "policies", "wjoin", "wjoin-full", "bestmatch", "beyond-iid",
           "beyond-iid-quick")
DEFAULT_KIND = "dgr"
#: the keys of an [[experiment]] table, and the top-level keys, that are one text each (the page prints them)
TEXT_FIELDS, TOP_TEXT_FIELDS = ("title", "claim", "caption"), ("name", "description")
#: the top-level keys of a suite file
TOP_FIELDS = ("kind", "name", "description", "seeds", "defaults", "experiment")


@dataclass(frozen=True)
class Run:
    """What every run of every study has: its suite and experiment (a study adds its parameters)."""

    suite: str
    experiment: str

    @property
    def run_id(self) -> str:
        """A stable id of the run's parameters (used to resume)."""
        return stable_id(self)


@dataclass(frozen=True)
class ExperimentBase:
    """What every experiment has: an id, a title and the figure it draws (a study adds its grid)."""

    id: str
    title: str
    figure: str


@dataclass(frozen=True)
class SuiteBase:
    """What every suite has (a study adds how its experiments expand into runs)."""

    name: str
    description: str
    experiments: tuple
    seeds: int = 1  # seeds per point unless the command line says otherwise
    shipped: bool = False  # one of SHIPPED, read by its name (a page tells a user's own suite apart)


def read_tables(name_or_path: str) -> tuple[dict, str]:
    """The TOML tables of a shipped suite (by name) or of a suite file (by path), and where they
    came from, for messages."""
    if name_or_path in SHIPPED:
        text = resources.files("shedding.studies.suite_files").joinpath(f"{name_or_path}.toml").read_text()
        where = f"suite {name_or_path}"
    else:
        path = Path(name_or_path)
        if path.is_dir():
            raise ShedError(f"{{param}} {name_or_path} is a folder; give a suite TOML file or one of "
                            f"{', '.join(SHIPPED)}", param="suite")
        if not path.is_file():
            raise ShedError(f"unknown suite {name_or_path!r}: not one of {', '.join(SHIPPED)} and no such file")
        try:
            text = path.read_text()
        except (OSError, UnicodeDecodeError) as exc:
            raise ShedError(f"cannot read suite file {path}: {exc}") from None
        where = str(path)
    try:
        return tomllib.loads(text), where
    except tomllib.TOMLDecodeError as exc:
        raise ShedError(f"{where} is not valid TOML ({exc}); fix the syntax") from None


def kind_of(data: dict, where: str, kinds: tuple[str, ...]) -> str:
    """The suite's ``kind`` (``dgr`` when it names none), one of ``kinds``."""
    kind = data.get("kind", DEFAULT_KIND)
    check(kind in kinds, where, f"unknown kind {kind!r}; choose from {', '.join(kinds)} (or leave kind out for "
          f"{DEFAULT_KIND})")
    return kind


def stable_id(spec: object) -> str:
    """A stable id of a run's parameters (a dataclass), the key that ``--resume`` skips by."""
    return hashlib.sha1(json.dumps(asdict(spec), sort_keys=True).encode()).hexdigest()[:16]  # type: ignore[call-overload]


def seeds_of(seeds: int | None, default: int) -> int:
    """The seeds per point to run: ``seeds``, or the suite's ``default`` when None."""
    seeds = default if seeds is None else seeds
    if seeds < 1:
        raise ShedError(f"{{param}} must be >= 1, got {seeds}", param="seeds")
    return seeds


def as_list(value: Any) -> list:
    """A grid value as a list (a single value is a list of one)."""
    return list(value) if isinstance(value, list) else [value]


def check(cond: bool, where: str, message: str) -> None:
    """Refuse a suite file: ``where`` (file and experiment) and ``message`` (the problem and fix)."""
    if not cond:
        raise ShedError(f"{where}: {message}")


def whole(v: Any) -> bool:
    """Whether a TOML value is an integer (not a boolean)."""
    return isinstance(v, int) and not isinstance(v, bool)


def number(v: Any) -> bool:
    """Whether a TOML value is a number (not a boolean)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def integer_at_least(low: int) -> tuple[Callable[[Any], bool], str]:
    """A value rule of :func:`check_values`: an integer >= ``low``."""
    return (lambda v: whole(v) and v >= low), f"an integer >= {low}"


def number_at_least(low: float) -> tuple[Callable[[Any], bool], str]:
    """A value rule of :func:`check_values`: a number >= ``low``."""
    return (lambda v: number(v) and v >= low), f"a number >= {low:g}"


def one_of(choices: Any) -> tuple[Callable[[Any], bool], str]:
    """A value rule of :func:`check_values`: one of ``choices``."""
    return (lambda v: v in choices), f"one of {', '.join(choices)}"


def check_values(grid: dict, here: str, rules: tuple[tuple[str, Callable[[Any], bool], str], ...]) -> None:
    """Every value of each grid field ``key`` of ``rules`` passes its ``ok``, or the error says it
    is not ``what`` (a rule is (key, ok, what))."""
    for key, ok, what in rules:
        for v in grid.get(key, []):
            check(ok(v), here, f"{key} = {v!r} is not {what}")


def _check_tables(data: dict, where: str, top_fields: tuple[str, ...], grid_fields: tuple[str, ...]) -> tuple[int, dict]:
    """The checks every suite file passes (its keys, its [[experiment]] list, ``seeds`` and
    ``[defaults]``); returns (seeds, defaults)."""
    unknown = set(data) - set(top_fields)
    check(not unknown, where, f"unknown top-level key(s) {', '.join(sorted(unknown))}; known: {', '.join(top_fields)} "
          f"(grid fields go in [defaults] or an [[experiment]])")
    check(isinstance(data.get("experiment"), list) and bool(data["experiment"]), where,
          "no [[experiment]] tables; add at least one")
    _check_text(data, TOP_TEXT_FIELDS, where)
    seeds = data.get("seeds", 1)
    check(whole(seeds) and seeds >= 1, where, f"seeds = {seeds!r} is not an integer >= 1")
    defaults = data.get("defaults", {})
    check(isinstance(defaults, dict), where, "[defaults] must be a table")
    unknown = set(defaults) - set(grid_fields)
    check(not unknown, where, f"unknown field(s) {', '.join(sorted(unknown))} in [defaults]; "
          f"known: {', '.join(grid_fields)}")
    return seeds, defaults


def _check_text(table: dict, names: tuple[str, ...], here: str) -> None:
    """Each of ``names`` in ``table``, where given, is one text: the page prints it, and a list
    would be printed as one ("['...']")."""
    for name in names:
        check(isinstance(table.get(name, ""), str), here, f"{name} = {table.get(name)!r} is not text; give one "
              f'quoted string, e.g. {name} = "..."')


def _check_experiment(raw: object, i: int, where: str, seen: set[str], fields: tuple[str, ...]) -> tuple[str, str]:
    """An [[experiment]] table's keys and id (new to ``seen``, which it joins); returns (where
    it is, for messages, and its id)."""
    check(isinstance(raw, dict), where, f"experiment {i + 1} must be a table")
    here = f"{where}, experiment {raw.get('id', i + 1)!r}"  # type: ignore[attr-defined]
    unknown = set(raw) - set(fields)  # type: ignore[call-overload]
    check(not unknown, here, f"unknown field(s) {', '.join(sorted(unknown))}; known: {', '.join(fields)}")
    exp_id = str(raw.get("id", ""))  # type: ignore[attr-defined]
    check(bool(exp_id) and exp_id.replace("-", "").replace("_", "").isalnum(), here,
          "needs an id of letters, digits, - or _")
    check(exp_id not in seen, here, "duplicate experiment id")
    seen.add(exp_id)
    return here, exp_id


def _grid_of(raw: dict, defaults: dict, fields: tuple[str, ...]) -> dict[str, list]:
    """An experiment's grid: the suite's defaults overridden by the experiment's own grid fields,
    every value a list."""
    return {k: as_list(v) for k, v in {**defaults, **{k: raw[k] for k in fields if k in raw}}.items()}


def experiment_fields(*lines: str) -> tuple[str, ...]:
    """The keys of an [[experiment]] table besides its grid fields: id, title, figure, the
    study's ``lines`` (what it plots, and how), claim and caption."""
    return ("id", "title", "figure", *lines, "claim", "caption")


@dataclass(frozen=True)
class ExperimentTable:
    """One [[experiment]] table as every kind checks it: where it is (for messages), its id, its
    figure, and its grid (the suite's ``[defaults]`` overridden by its own grid fields, every value
    a list); ``raw`` holds the rest for the study's own checks."""

    here: str
    id: str
    figure: str
    grid: dict[str, list]
    raw: dict


def experiment_tables(data: dict, where: str, top_fields: tuple[str, ...], grid_fields: tuple[str, ...],
                      other_fields: tuple[str, ...], figures: tuple[str, ...],
                      default_figure: str = "") -> tuple[int, list[ExperimentTable]]:
    """The checks every suite file passes (its keys, ``seeds``, ``[defaults]``, and each
    experiment's keys, id and figure, one of ``figures``); returns (seeds, the experiments)."""
    seeds, defaults = _check_tables(data, where, top_fields, grid_fields)
    seen: set[str] = set()
    tables = []
    for i, raw in enumerate(data["experiment"]):
        here, exp_id = _check_experiment(raw, i, where, seen, grid_fields + other_fields)
        figure = raw.get("figure", default_figure)
        check(figure in figures, here, f"unknown figure {figure!r}; choose from {', '.join(figures)}")
        _check_text(raw, TEXT_FIELDS, here)
        grid = _grid_of(raw, defaults, grid_fields)
        for name, values in grid.items():  # an empty list runs nothing (a list of numbers may be one value: a pmf)
            check(bool(values), here, f"{name} = [] gives no runs; give at least one value")
        tables.append(ExperimentTable(here, exp_id, figure, grid, raw))
    return seeds, tables


def lines_of(raw: dict, key: str, here: str, choices: tuple[str, ...], singular: str) -> tuple[str, ...]:
    """The lines an experiment plots (``policies`` or ``algorithms``), lower case, each one of
    ``choices``."""
    lines = [str(p).lower() for p in as_list(raw.get(key, []))]
    check(bool(lines), here, f"needs {key} = [...]")
    twice = next((p for k, p in enumerate(lines) if p in lines[:k]), None)
    check(twice is None, here, f"{key} names {twice!r} twice; give each once")
    for p in lines:
        check(p in choices, here, f"unknown {singular} {p!r}; choose from {', '.join(choices)}")
    return tuple(lines)


def points(grid: dict[str, list], keys: list[str]) -> Iterator[dict]:
    """Every point of a grid: one value per field, the fields in ``keys`` order, the last varying
    fastest."""
    for values in itertools.product(*(grid[k] for k in keys)):
        yield dict(zip(keys, values))
