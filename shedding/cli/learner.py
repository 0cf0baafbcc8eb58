"""``--tuning``: the settings of HAZARD's learner (and AGE's when it estimates its age curve) on
the command line, shared by ``shed simulate``, ``shed explain`` and ``shed stream-join``
(:class:`~shedding.online.tuning.HazardTuning`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from shedding.cli.checks import parsed
from shedding.cli.rules import Ignored, Values
from shedding.online.policies import grouped, uses

if TYPE_CHECKING:
    from shedding.online.tuning import HazardTuning

TUNING_HELP = ("HAZARD's learner (and AGE's when it estimates its age curve): field=value,... of first (steps of the "
               "first age bucket, 8), ratio (each next bucket this much wider, 1.3), shadow (sample size per side, "
               "256), refit_first (64), refit_every (arrivals between refits, 4096), "
               "group_fit_every (with groups, arrivals between fits, 16384), iters (EM steps, 8), kappa (100), "
               "evidence (1), test (true), guard (true: the age shape only where a replay keeps more than PROB's "
               "order), hysteresis (0.002), forget (0: off; 0 <= forget < 1, the share a second fit forgets at "
               "each fit); e.g. ratio=2,shadow=128 trades some quality for speed.")


def _learners() -> str:
    """The policies that take a tuning, those that always learn first: ``hazard, hazardv, age or agev``."""
    from shedding.online.policies import POLICIES

    names = sorted(uses("tuning"), key=lambda n: not POLICIES[n].learns(True) or not POLICIES[n].learns(False))
    return ", ".join(names[:-1]) + " or " + names[-1]


def tunable(name: str) -> bool:
    """Whether policy ``name`` takes ``--tuning`` at all (:attr:`~shedding.online.policies.Policy.tunable`)."""
    from shedding.online.policies import POLICIES

    return name in POLICIES and POLICIES[name].tunable


def learns(name: str, known: bool) -> bool:
    """Whether policy ``name`` learns in a run, so that ``--tuning`` changes it: HAZARD always,
    AGE unless it is told its age curve (``known``; :func:`shedding.online.kinds.learns`)."""
    from shedding.online.policies import POLICIES

    return name in POLICIES and POLICIES[name].learns(known)


def parse_tuning(text: str) -> HazardTuning:
    """The settings ``--tuning`` names (the library imported only when the flag is used)."""
    from shedding.online.tuning import HazardTuning

    return HazardTuning.parse(text)


#: the option's check, for ``typer.Option(None, "--tuning", callback=CHECK_TUNING)``
CHECK_TUNING = parsed(parse_tuning)


def check_buckets(v: Values) -> None:
    """``--tuning``'s age buckets over the window are not too many (in steps, under --range too; the
    library's check, :func:`~shedding.online.hazard.age_buckets`, before any data is read)."""
    if v.tuning is not None:
        from shedding.cli.workload import window_of
        from shedding.online.hazard import age_buckets

        settings = parse_tuning(v.tuning)
        age_buckets(window_of(v), settings.first, settings.ratio)


def tuning_rules(policies: Callable[[Values], list[str]], flag: str = "--policy",
                 known: Callable[[Values], bool] | None = None) -> tuple[Ignored, ...]:
    """``--tuning`` is refused unless one of the policies chosen with ``flag`` (``policies(values)``)
    learns: HAZARD always, AGE unless ``known(values)`` says the run tells it its age curve (the
    static estimator of ``shed simulate`` and ``shed explain``; without ``known`` AGE always
    learns, as with ``shed stream-join``'s frequency tables, which hold no curve)."""
    rules = (Ignored(("--tuning",), lambda v: any(tunable(name) for name in policies(v)),
                     f"applies to the learning policies only ({flag} {_learners()})"),)
    if known is None:
        return rules
    return (*rules, Ignored(("--tuning",), lambda v: any(learns(name, known(v)) for name in policies(v)),
                            "applies to AGE only with --estimator online (with the static estimator AGE knows its "
                            "curve and learns nothing)", "add --estimator online or drop it"))


def group_rule(policies: Callable[[Values], list[str]], flag: str = "--policy") -> Ignored:
    """``--group`` is refused unless one of the policies chosen with ``flag`` ranks by a payload
    group (HAZARD and HAZARDV); the fix names the flag that would choose one."""
    rankers = uses("group")
    return Ignored(("--group",), lambda v: any(map(grouped, policies(v))),
                   f"applies to the policies that rank by a payload group only ({' or '.join(rankers)})",
                   f"drop it, or add {flag} {rankers[0]}")
