"""The kernel's policy kinds: how the compiled join (:mod:`~shedding.online.kernel`) ranks the
candidates for eviction. Plain integers in a module of their own, so that the policy registry can
be read without loading numba.

PROB and LIFE are Das, Gehrke, Riedewald (SIGMOD 2003) §3.3.1 and §3.3.2, RAND their §4
baseline, SCHEDULE the replay of a given (OPT) schedule (§3.2); SURV and DUAL are the project's
own (``docs/policies.md``).
"""

PROB, LIFE, RAND, SCHEDULE, SURV, DUAL = 0, 1, 2, 3, 4, 5
