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

from dataclasses import dataclass, replace

from shedding.errors import ShedError
from shedding.online.kinds import AGE, DUAL, HAZARD, LIFE, PROB, RAND, SCHEDULE, SURV, is_age_aware
from shedding.online.kinds import learns as kind_learns

#: DUAL's price as a multiple of the fluid price, learned from OPT on training seeds
#: (benchmarks/train_dual.py; fixed and variable split)
DUAL_ALPHA, DUAL_ALPHA_V = 0.724, 0.614


#: The join families, where a policy may run: the equi window join (:mod:`shedding.online`), the band
#: join (:mod:`shedding.band`), the multi-way W-join (:mod:`shedding.wjoin`), the bestmatch join
#: (:mod:`shedding.bestmatch`) and the streaming join (:mod:`shedding.streaming`). Each family
#: accepts exactly the policies that list it (:func:`names_for`, :func:`require`).
EQUI, BAND, WJOIN, BESTMATCH, STREAM = "equi", "band", "wjoin", "bestmatch", "stream"
FAMILIES: tuple[str, ...] = (EQUI, BAND, WJOIN, BESTMATCH, STREAM)
#: what each family is called in a message
FAMILY_NAMES = {EQUI: "the equi-join", BAND: "the band join", WJOIN: "the W-join", BESTMATCH: "the bestmatch join",
                STREAM: "the streaming join"}


@dataclass(frozen=True)
class Policy:
    """A shedding policy: its kernel kind, whether the R/S memory split is variable, what it uses
    and where it runs.

    What it uses: ``seed``, random draws (RAND), so a seed changes its run; ``group``, a payload
    group column it ranks by (HAZARD); ``tuning``, a :class:`~shedding.online.tuning.HazardTuning`
    (the age-aware kinds); whether it ranks by age and whether it learns follow from its kind
    (:attr:`age_aware`, :meth:`learns`). Where it runs: ``families``, the join families of
    :data:`FAMILIES` whose kernels implement its ranking; every other family refuses it.

    Attributes:
        name: Its name in the registry (lower case; a ``v`` suffix for the variable split).
        kind: Its kernel kind (:mod:`shedding.online.kinds`).
        variable: Whether R and S share M freely (§4.3) instead of a fixed M_R + M_S.
        summary: What it drops first, for the docs.
        alpha: DUAL's price as a multiple of the fluid price.
        replay: It replays a given schedule (OPT's, §3.2) instead of choosing.
        seed: It draws random numbers (RAND).
        group: It ranks by a payload group column (HAZARD).
        tuning: It takes a :class:`~shedding.online.tuning.HazardTuning` (AGE, HAZARD).
        families: The join families that run it.
        brief: A few words for help texts and tables.
    """

    name: str
    kind: int
    variable: bool
    summary: str
    alpha: float = 1.0  # DUAL: the price is alpha times the fluid price
    replay: bool = False  # replays a given schedule (OPT's, §3.2) instead of choosing
    seed: bool = False
    group: bool = False
    tuning: bool = False
    families: tuple[str, ...] = (EQUI,)
    brief: str = ""  # a few words for help texts and tables: what it drops first or keeps

    @property
    def age_aware(self) -> bool:
        """Whether the policy ranks each tuple by its age as well (AGE, HAZARD), in the kernel's
        loop compiled apart for them (:func:`shedding.online.kernel.process`)."""
        return is_age_aware(self.kind)

    @property
    def tunable(self) -> bool:
        """Whether the policy takes a :class:`~shedding.online.tuning.HazardTuning`: HAZARD, and AGE,
        which uses it when it estimates its age curve (whether a run learns at all is
        :meth:`learns`)."""
        return self.tuning

    def learns(self, known: bool) -> bool:
        """Whether a run learns from the shadow sample, so that a tuning changes it: HAZARD always,
        AGE unless its age curve is ``known`` (:func:`shedding.online.kinds.learns`)."""
        return kind_learns(self.kind, known)

    @property
    def family(self) -> str:
        """The fixed-split name of the policy (``survv`` -> ``surv``), which shares its look and
        its row of the policies table."""
        return self.name[:-1] if self.variable and not self.replay else self.name

    def runs_on(self, family: str) -> bool:
        """Whether join family ``family`` (one of :data:`FAMILIES`) implements this policy."""
        return family in self.families


def _variable(p: Policy, summary: str, **changes: object) -> Policy:
    """The variable-split form of ``p`` (name suffix v, §4.3): the same uses, on the families of
    ``p`` that have a variable split (the bestmatch join has none)."""
    families = tuple(f for f in p.families if f != BESTMATCH)
    return replace(p, name=p.name + "v", variable=True, summary=summary, families=families, **changes)  # type: ignore[arg-type]


_EVERY = (EQUI, BAND, WJOIN, BESTMATCH, STREAM)
_RAND = Policy("rand", RAND, False, "drop uniformly at random (§4 baseline)", seed=True, families=_EVERY,
               brief="drop at random")
_PROB = Policy("prob", PROB, False, "drop the lowest partner-arrival probability first (§3.3.1)", families=_EVERY,
               brief="the lowest partner probability first")
_LIFE = Policy("life", LIFE, False, "drop the lowest probability x remaining lifetime first (§3.3.2)",
               families=(EQUI, BAND, WJOIN, STREAM), brief="the lowest probability x remaining life first")
_SURV = Policy("surv", SURV, False, "drop the lowest expected output p x min(remaining life, mean residence time) "
               "first (ours)", families=(EQUI, STREAM),
               brief="the lowest expected output over the realistic survival first")
_DUAL = Policy("dual", DUAL, False, "drop the lowest surplus (p - price) x remaining life first, the price a "
               "multiple of the fluid price learned from OPT on training seeds (ours)", DUAL_ALPHA,
               families=(EQUI, STREAM), brief="the lowest surplus over a memory price learned from OPT first")
_FLUID = Policy("fluid", DUAL, False, "DUAL at the fluid price itself, nothing learned (ours)",
                families=(EQUI, STREAM), brief="the lowest surplus over the fluid memory price first")
_AGE = Policy("age", AGE, False, "hold each tuple to the age that catches the most partners per slot, its side's "
              "age curve known (static) or estimated (online); past it first, else refuse the newest (Srivastava "
              "and Widom 2004)", tuning=True, families=(EQUI, STREAM),
              brief="hold each tuple to the age that catches the most partners per slot")
_HAZARD = Policy("hazard", HAZARD, False, "drop the lowest learned partner rate first: by age, matched or not, key "
                 "frequency and payload group, PROB unless the data shows more (ours)", group=True, tuning=True,
                 families=(EQUI, STREAM), brief="the lowest partner rate learned by age, match and key first")
_REPLAY = Policy("opt-schedule", SCHEDULE, False, "replay a given schedule, fixed split", replay=True,
                 families=(EQUI, BAND))

#: The registry: every policy by name, and what it uses and where it runs. A new policy on an
#: existing kind is one entry here (and its variable form); every command, family, figure and
#: docs table reads it.
POLICIES: dict[str, Policy] = {
    p.name: p
    for p in (
        _RAND, _PROB, _LIFE,
        _variable(_RAND, "RAND with a variable R/S memory split (§4.3)"),
        _variable(_PROB, "PROB with a variable R/S memory split (§4.3)"),
        _variable(_LIFE, "LIFE with a variable R/S memory split"),
        _SURV, _variable(_SURV, "SURV with a variable R/S memory split"),
        _DUAL, _variable(_DUAL, "DUAL with a variable R/S memory split", alpha=DUAL_ALPHA_V),
        _FLUID, _variable(_FLUID, "FLUID with a variable R/S memory split"),
        _AGE, _variable(_AGE, "AGE with a variable R/S memory split (the split of the largest gain)"),
        _HAZARD, _variable(_HAZARD, "HAZARD with a variable R/S memory split"),
        _REPLAY, replace(_REPLAY, name="optv-schedule", variable=True, summary="replay a given schedule, variable split"),
    )
}


def names_for(family: str) -> tuple[str, ...]:
    """The policies a user can name on a join family, the family's allow-list.

    Args:
        family: One of :data:`FAMILIES` (``equi``, ``band``, ``wjoin``, ``bestmatch``,
            ``stream``).

    Returns:
        Their names in registry order (not the replays of a schedule).
    """
    return tuple(n for n, p in POLICIES.items() if not p.replay and p.runs_on(family))


def require(policy: Policy, family: str, also: tuple[str, ...] = ()) -> Policy:
    """``policy`` if a join family implements its ranking (it lists the family).

    Args:
        policy: The :class:`Policy`.
        family: One of :data:`FAMILIES`.
        also: The family's own choices beside the registry's (``exact``, ``opt``), for the
            message.

    Returns:
        ``policy``.

    Raises:
        ShedError: The family does not run it: one line naming ``policy`` and the policies the
            family runs.
    """
    if not policy.runs_on(family):
        where = [FAMILY_NAMES[f] for f in policy.families]
        where_text = " and ".join(where) if len(where) < 3 else ", ".join(where[:-1]) + " and " + where[-1]
        raise ShedError(f"{{param}} {policy.name} runs on {where_text}, not on {FAMILY_NAMES[family]}; choose from "
                        f"{', '.join((*names_for(family), *also))}", param="policy")
    return policy


#: The offline optimum by allocation: OPT (fixed split) and OPTV (variable split), §3.2; not an
#: online policy of the registry, run by :func:`shedding.run.run_policy`.
OFFLINE = {"opt": "fixed", "optv": "variable"}


def get_policy(name: str) -> Policy:
    """Look a policy up by name.

    Args:
        name: A registry name (:data:`POLICIES`), any case.

    Returns:
        The :class:`Policy`.

    Raises:
        ShedError: Not text, or no policy of that name, naming ``policy``.
    """
    if not isinstance(name, str):
        raise ShedError(f"{{param}} must be a policy's name (text), got {name!r}", param="policy")
    key = name.strip().lower()
    if key in POLICIES:
        return POLICIES[key]
    valid = ", ".join(n for n, p in POLICIES.items() if not p.replay)
    if key == "exact" or key in OFFLINE:  # a reference, not an online policy: run_policy runs them all
        other = "exact_count" if key == "exact" else \
            "solve_opt" + ("" if OFFLINE[key] == "fixed" else "(..., allocation='variable')")
        raise ShedError(f"{{param}} {name!r} is not an online policy: run it with run_policy (or {other}); "
                        f"the online policies are {valid}", param="policy")
    raise ShedError(f"unknown {{param}} {name!r}; choose from {valid}", param="policy")


def family(name: str) -> str:
    """The fixed-split name of a policy (``survv`` -> ``surv``, ``prob`` -> ``prob``).

    Args:
        name: A registry name, any case.

    Returns:
        The name of its fixed-split form.

    Raises:
        ShedError: As :func:`get_policy`.
    """
    return get_policy(name).family


def uses(capability: str) -> tuple[str, ...]:
    """The policies a user can name that use a capability.

    Args:
        capability: ``seed``, ``group`` or ``tuning`` (a :class:`Policy` field).

    Returns:
        Their names in registry order.
    """
    return tuple(n for n, p in POLICIES.items() if not p.replay and getattr(p, capability))


def seeded(name: str) -> bool:
    """Whether a policy draws random numbers, so that a seed changes its run (RAND).

    Args:
        name: A policy's name in lower case.

    Returns:
        True for RAND and RANDV; False for the others and for a name outside the registry
        (EXACT, OPT).
    """
    return name in POLICIES and POLICIES[name].seed


def grouped(name: str) -> bool:
    """Whether a policy ranks by a payload group column.

    Args:
        name: A policy's name in lower case.

    Returns:
        True for HAZARD and HAZARDV; False otherwise (a name outside the registry too).
    """
    return name in POLICIES and POLICIES[name].group


def listing(names: tuple[str, ...] | list[str]) -> str:
    """Policies as a help text lists them.

    Args:
        names: Policy names; those outside the registry are left to the caller.

    Returns:
        Each fixed-split family with its brief, then the variable-split forms
        (``name: brief; ...; a v suffix = the variable R/S split``).
    """
    fams = dict.fromkeys(POLICIES[n].family for n in names if n in POLICIES and not POLICIES[n].replay)
    text = "; ".join(f"{f}: {POLICIES[f].brief}" for f in fams if f in POLICIES)
    if any(POLICIES[n].variable for n in names if n in POLICIES):
        text += " (a v suffix = the variable memory split)"
    return text


def check_group(name: str, group: object, band: bool = False) -> None:
    """A payload group is for the policies that rank by one (:attr:`Policy.group`: HAZARD), and
    only on an equi-join: refused for any other policy rather than ignored.

    Args:
        name: The policy's name in lower case.
        group: The payload column(s) (a name, a comma list or a list of names), or None.
        band: The run is on a band join.

    Raises:
        ShedError: A ``group`` the policy or the join would ignore, naming ``group``.
    """
    if group is not None and (band or name not in POLICIES or not POLICIES[name].group):
        grouped = uses("group")
        owners = " and ".join(dict.fromkeys(POLICIES[n].family.upper() for n in grouped))
        raise ShedError(f"{{param}} is {owners}'s payload column on an equi-join ({', '.join(grouped)}), not "
                        f"{name}'s{' on a band join' if band else ''}; leave it out", param="group")


#: the column headers of :func:`markdown_table`, and what each family is called in it
_TABLE_FAMILIES = {EQUI: "equi", BAND: "band", WJOIN: "W-join", BESTMATCH: "bestmatch", STREAM: "streaming"}
_USES = {"seed": "a seed", "group": "a payload group (equi)", "tuning": "a learner tuning"}


def markdown_table() -> str:
    """The registry as the docs show it (docs/policies.md, "The registry"; a tests/test_docs.py
    check holds the page to it).

    Returns:
        A Markdown table: one row per policy family with its variable form, what it drops
        first, what it uses and the join families that run it.
    """
    lines = ["| policy | variable split | drops first / keeps | uses | runs on |", "|---|---|---|---|---|"]
    for name, pol in POLICIES.items():
        if pol.replay or pol.variable:
            continue
        var = [n for n, p in POLICIES.items() if p.variable and p.family == name]
        used = ", ".join(text for cap, text in _USES.items() if getattr(pol, cap)) or "-"
        runs = ", ".join(_TABLE_FAMILIES[f] for f in FAMILIES if pol.runs_on(f))
        var_runs = {f for v in var for f in POLICIES[v].families}
        if var and var_runs != set(pol.families):
            only = [_TABLE_FAMILIES[f] for f in FAMILIES if f in pol.families and f not in var_runs]
            runs += f" (`{name}` only on {', '.join(only)})"
        lines.append(f"| `{name}` | {', '.join(f'`{v}`' for v in var) or '-'} | {pol.brief} | {used} | {runs} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # python -m shedding.online.policies: the table for docs/policies.md
    print(markdown_table(), end="")
