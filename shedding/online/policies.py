"""The online shedding policies of Das, Gehrke, Riedewald (SIGMOD 2003), §3.3 and §4, and those
for streams beyond their i.i.d. model.

PROB (§3.3.1) keeps the tuples whose partners are most likely to arrive: the priority of r is
p_S(r.key), of s is p_R(s.key). LIFE (§3.3.2) weighs that probability by the remaining lifetime.
RAND drops uniformly at random (the paper's baseline, §4). AGE is Srivastava and Widom's policy for
the age-based model (VLDB 2004): hold each tuple to the age that catches the most partners per
slot. HAZARD (ours) learns how a tuple's future partners depend on its age, whether it has met one,
its key's frequency and a payload group, and ranks as PROB where they depend on the frequency
alone. Each comes with the fixed split of memory between R and S (M_R, M_S) and a variable split
(suffix V, §4.3) where an R tuple may displace an S tuple and back.
"""

from __future__ import annotations

from dataclasses import dataclass

from shedding.errors import ShedError
from shedding.online.kinds import AGE, DUAL, HAZARD, LIFE, PROB, RAND, SCHEDULE, SURV, is_age_aware

#: DUAL's price as a multiple of the fluid price, learned from OPT on training seeds
#: (benchmarks/train_dual.py; fixed and variable split)
DUAL_ALPHA, DUAL_ALPHA_V = 0.724, 0.614


@dataclass(frozen=True)
class Policy:
    """A shedding policy: its kernel kind and whether the R/S memory split is variable."""

    name: str
    kind: int
    variable: bool
    summary: str
    alpha: float = 1.0  # DUAL: the price is alpha times the fluid price
    replay: bool = False  # replays a given schedule (OPT's, §3.2) instead of choosing

    @property
    def age_aware(self) -> bool:
        """Whether the policy ranks each tuple by its age as well (AGE, HAZARD), in the kernel's
        loop compiled apart for them (:func:`shedding.online.kernel.process`)."""
        return is_age_aware(self.kind)

    @property
    def tunable(self) -> bool:
        """Whether the policy takes a :class:`~shedding.online.tuning.HazardTuning`: HAZARD, and AGE,
        which uses it when it estimates its age curve (whether a run learns at all is
        :func:`shedding.online.kinds.learns`)."""
        return self.age_aware


POLICIES: dict[str, Policy] = {
    p.name: p
    for p in (
        Policy("rand", RAND, False, "drop uniformly at random (§4 baseline)"),
        Policy("prob", PROB, False, "drop the lowest partner-arrival probability first (§3.3.1)"),
        Policy("life", LIFE, False, "drop the lowest probability x remaining lifetime first (§3.3.2)"),
        Policy("randv", RAND, True, "RAND with a variable R/S memory split (§4.3)"),
        Policy("probv", PROB, True, "PROB with a variable R/S memory split (§4.3)"),
        Policy("lifev", LIFE, True, "LIFE with a variable R/S memory split"),
        Policy("surv", SURV, False, "drop the lowest expected output p x min(remaining life, mean residence time) "
               "first (ours)"),
        Policy("survv", SURV, True, "SURV with a variable R/S memory split"),
        Policy("dual", DUAL, False, "drop the lowest surplus (p - price) x remaining life first, the price a "
               "multiple of the fluid price learned from OPT on training seeds (ours)", DUAL_ALPHA),
        Policy("dualv", DUAL, True, "DUAL with a variable R/S memory split", DUAL_ALPHA_V),
        Policy("fluid", DUAL, False, "DUAL at the fluid price itself, nothing learned (ours)"),
        Policy("fluidv", DUAL, True, "FLUID with a variable R/S memory split"),
        Policy("age", AGE, False, "hold each tuple to the age that catches the most partners per slot, its side's "
               "age curve known (static) or estimated (online); past it first, else refuse the newest (Srivastava "
               "and Widom 2004)"),
        Policy("agev", AGE, True, "AGE with a variable R/S memory split (the split of the largest gain)"),
        Policy("hazard", HAZARD, False, "drop the lowest learned partner rate first: by age, matched or not, key "
               "frequency and payload group, PROB unless the data shows more (ours)"),
        Policy("hazardv", HAZARD, True, "HAZARD with a variable R/S memory split"),
        Policy("opt-schedule", SCHEDULE, False, "replay a given schedule, fixed split", replay=True),
        Policy("optv-schedule", SCHEDULE, True, "replay a given schedule, variable split", replay=True),
    )
}


def get_policy(name: str) -> Policy:
    """Look a policy up by name (case-insensitive)."""
    try:
        return POLICIES[name.strip().lower()]
    except KeyError:
        valid = ", ".join(n for n, p in POLICIES.items() if not p.replay)
        raise ShedError(f"unknown {{param}} {name!r}; choose from {valid}", param="policy") from None


def family(name: str) -> str:
    """The fixed-split name of a policy (``survv`` -> ``surv``, ``prob`` -> ``prob``)."""
    pol = get_policy(name)
    return pol.name[:-1] if pol.variable else pol.name


def check_group(name: str, group: str | None, band: bool = False) -> None:
    """A payload ``group`` is HAZARD's alone, and only on an equi-join: refused for any other policy
    (``name``, as given) rather than ignored."""
    if group is not None and (band or name not in POLICIES or POLICIES[name].kind != HAZARD):
        raise ShedError(f"{{param}} is HAZARD's payload column on an equi-join (hazard, hazardv), not {name}'s"
                        f"{' on a band join' if band else ''}; leave it out", param="group")
