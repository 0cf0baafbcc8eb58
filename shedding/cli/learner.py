"""``--tuning``: the settings of HAZARD's learner (and AGE's when it estimates its age curve) on
the command line, shared by ``shed simulate``, ``shed explain`` and ``shed stream-join``
(:class:`~shedding.online.tuning.HazardTuning`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shedding.cli.checks import parsed
from shedding.cli.rules import Ignored

if TYPE_CHECKING:
    from shedding.online.tuning import HazardTuning

TUNING_HELP = ("HAZARD's learner (and AGE's when it estimates its age curve): field=value,... of first (steps of the "
               "first age bucket, 8), ratio (each next bucket this much wider, 1.3), shadow (sample size per side, "
               "256), refit_first (64), refit_every (arrivals between refits, 4096), iters (EM steps, 8), kappa (100), "
               "evidence (1), test (true); e.g. ratio=2,shadow=128 trades some quality for speed.")


def learner(name: str) -> bool:
    """Whether policy ``name`` takes ``--tuning`` (:attr:`~shedding.online.policies.Policy.tunable`)."""
    from shedding.online.policies import POLICIES

    return name in POLICIES and POLICIES[name].tunable


def parse_tuning(text: str) -> HazardTuning:
    """The settings ``--tuning`` names (the library imported only when the flag is used)."""
    from shedding.online.tuning import HazardTuning

    return HazardTuning.parse(text)


#: the option's check, for ``typer.Option(None, "--tuning", callback=CHECK_TUNING)``
CHECK_TUNING = parsed(parse_tuning)


def tuning_rule(policies, flag: str = "--policy") -> Ignored:
    """``--tuning`` is refused unless one of the policies chosen with ``flag`` (``policies(values)``)
    learns."""
    return Ignored(("--tuning",), lambda v: any(learner(name) for name in policies(v)),
                   f"applies to the learning policies only ({flag} hazard, hazardv, age or agev)")
