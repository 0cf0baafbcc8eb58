"""The kernel's policy kinds: how the compiled join (:mod:`~shedding.online.kernel`) ranks the
candidates for eviction. Plain integers in a module of their own, so that the policy registry can
be read without loading numba.

PROB and LIFE are Das, Gehrke, Riedewald (SIGMOD 2003) §3.3.1 and §3.3.2, RAND their §4
baseline, SCHEDULE the replay of a given (OPT) schedule (§3.2); AGE is Srivastava and Widom's
policy for the age-based model (VLDB 2004); SURV, DUAL and HAZARD are the project's own
(``docs/policies.md``). PROB, LIFE, SURV and DUAL rank a tuple by its key's class; AGE and HAZARD
by its age as well (:mod:`~shedding.online.agehooks`).
"""

PROB, LIFE, RAND, SCHEDULE, SURV, DUAL, AGE, HAZARD = range(8)

# What a kind does is said by these predicates, each naming its kinds, never by the kinds' numeric
# order: a kind added later is added to the predicates it satisfies. The compiled kernel compiles
# the same functions (``kernel.keyed``, ...), so each is defined once.


def is_keyed(kind: int) -> bool:
    """Whether ``kind`` ranks the classes (side, key) in the kernel's tournament trees."""
    return kind == PROB or kind == LIFE or kind == SURV or kind == DUAL


def is_valued(kind: int) -> bool:
    """Whether ``kind`` ranks by float values that fall with time (SURV, DUAL)."""
    return kind == SURV or kind == DUAL


def is_age_aware(kind: int) -> bool:
    """Whether ``kind`` ranks each tuple by its age as well (AGE, HAZARD)."""
    return kind == AGE or kind == HAZARD


def learns(kind: int, known: bool) -> bool:
    """Whether a kind learns from the shadow sample: HAZARD always, AGE unless its curve is
    ``known`` (the static estimator of a workload tells it the workload's curve)."""
    return kind == HAZARD or (kind == AGE and not known)
