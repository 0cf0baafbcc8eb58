"""The layout of the age-aware kinds' arrays (:class:`~shedding.online.aged.AgedArrays`): which
scalar, column or cell holds what, for AGE (:mod:`~shedding.online.ageing`) and HAZARD (its learner
:mod:`~shedding.online.hazard` and its memory :mod:`~shedding.online.hazardmemory`), as
:mod:`~shedding.online.layout` is for the join operator's own arrays.
"""

# integer scalars (``hsc``): the learner's (HAZARD's, and AGE's when it estimates its age curve)
# and the memory's counters
(H_NB, H_NG, H_LEAVES, H_SHAPED0, H_SHAPED1, H_NSEG0, H_NSEG1, H_NEXT_REFIT, H_ARRIVALS,
 H_ARR0, H_ARR1, H_T0, H_SAMPLE0, H_SAMPLE1, H_SEEN0, H_SEEN1, H_RHEAD0, H_RHEAD1, H_RN0, H_RN1,
 H_EVENTS0, H_EVENTS1, H_DISTINCT0, H_DISTINCT1, H_HOLD0, H_HOLD1, H_KNOWN, H_TEST, H_GROUPS, H_CAP,
 H_EVERY, H_FIRST, H_ITERS, H_REFITS, H_WHEEL_NEXT) = range(35)
H_FIELDS = 35
# float scalars (``hf``): beta per count of the other side's key, arrival rates, AGE's gain
# per slot, the fit's shrinkage and evidence factor, the last model test per side
(HF_FAC0, HF_FAC1, HF_RHO0, HF_RHO1, HF_DENS0, HF_DENS1, HF_KAPPA, HF_EVIDENCE, HF_DEV0, HF_DEV1,
 HF_PEN0, HF_PEN1) = range(12)
HF_FIELDS = 12
# shadow entry columns: arrival time, key, group, beta bin, age of the first partner (-1: none
# yet), exposure accounted so far (steps), next entry of the same key
SH_TIME, SH_KEY, SH_GROUP, SH_Q, SH_FIRST, SH_ACC, SH_NEXT = range(7)
SH_FIELDS = 7
# per (side, key): its last arrival time, its shadow entries (FIFO), the priority bin of its beta
# (while HAZARD ranks by age)
K_LAST, K_SHEAD, K_STAIL, K_Q = range(4)
KEY_FIELDS = 4
# node columns (``hn``): the list it is in (AGE: its segment; HAZARD: its wheel slot,
# -1 for none) and its links there, payload group, matched, stale (its priority rose above its
# value in the tree), and HAZARD's bucket of that value and the time its priority falls below it
HN_SEG, HN_SPREV, HN_SNEXT, HN_GROUP, HN_C, HN_STALE, HN_BUCKET, HN_DUE = range(8)
HN_FIELDS = 8
