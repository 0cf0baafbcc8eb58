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
 H_EVERY, H_FIRST, H_ITERS, H_REFITS, H_WHEEL_NEXT,
 H_GUARD, H_FITSHAPED0, H_FITSHAPED1, H_CHOSE0, H_CHOSE1, H_OK0, H_OK1, H_VN0, H_VN1, H_VN2, H_VN3,
 H_VCAP0, H_VCAP1, H_JEVERY0, H_JEVERY1, H_JSEEN0, H_JSEEN1, H_FORGOT, H_FCHOSE, H_ROWS,
 H_FIT_EVERY, H_NEXT_FIT, H_NCAND, H_PICK0, H_PICK1, H_PICKN0) = range(61)
#: the most candidate groupings HAZARD chooses among (``group="auto"``: no group and up to five
#: payload columns, :mod:`~shedding.online.autogroup`); a shadow entry's group packs one id of
#: ``GROUP_BITS`` bits per candidate
MAX_CANDIDATES, GROUP_BITS = 6, 10
#: where each candidate's block of groups starts in the statistics (``H_GOFF0 + a``; the last one
#: ends the blocks)
H_GOFF0 = H_PICKN0 + 2 * MAX_CANDIDATES
H_FIELDS = H_GOFF0 + MAX_CANDIDATES + 1
# (HAZARD's guard, :mod:`~shedding.online.guard`: whether it judges, the model test's verdict
# per side, the refits at which each side ranked by its age shape, whether the guard allows the
# shape per side, the sizes of its virtual memories per side and order (2 s + order), their
# capacities per side, and which shadow entries of a side it judges: every ``H_JEVERY``-th;
# whether the guard ranks by the fit that forgets, and at how many refits it did,
# :mod:`~shedding.online.forgetting`; how many rows of the memo of priorities were filled since
# the last refit, listed in ``hsc[H_FIELDS:]`` (-1: more than it holds), so that a refit empties
# only those: :func:`~shedding.online.hazardindex.forget_rows`; the candidate groupings, 1 unless
# ``group="auto"``, the one each side ranks by, and at how many refits each side ranked by each,
# ``H_PICKN0 + MAX_CANDIDATES * s + a``, :mod:`~shedding.online.autogroup`)
# float scalars (``hf``): beta per count of the other side's key, arrival rates, AGE's gain
# per slot, the fit's shrinkage and evidence factor, the last model test per side
(HF_FAC0, HF_FAC1, HF_RHO0, HF_RHO1, HF_DENS0, HF_DENS1, HF_KAPPA, HF_EVIDENCE, HF_DEV0, HF_DEV1,
 HF_PEN0, HF_PEN1, HF_JNUM0, HF_JNUM1, HF_JDEN0, HF_JDEN1, HF_HYST, HF_KEPT0, HF_KEPT1, HF_KEPT2,
 HF_KEPT3, HF_FORGET, HF_FGAIN, HF_ASCORE0) = range(24)
HF_FIELDS = HF_ASCORE0 + 2 * MAX_CANDIDATES
# (the guard's running sums per side: outputs the shape keeps beyond PROB's order, and PROB's
# outputs, both decayed by half at each judgement; its hysteresis; the partners each virtual
# memory kept since the last judgement, per side and order, 2 s + order; the share of its
# statistics the forgetting fit forgets at each refit, and the running prequential gain of that
# fit over the fit of all arrivals; per side and candidate grouping its running prequential score,
# ``HF_ASCORE0 + MAX_CANDIDATES * s + a``)
# shadow entry columns: arrival time, key, group, beta bin, age of the first partner (-1: none
# yet), exposure accounted so far (steps), next entry of the same key, and (HAZARD's guard) its
# slot in the virtual memory of PROB's order and of the shaped one (-1: not in it)
SH_TIME, SH_KEY, SH_GROUP, SH_Q, SH_FIRST, SH_ACC, SH_NEXT, SH_VM0, SH_VM1 = range(9)
SH_FIELDS = 9
# per (side, key): its last arrival time, its shadow entries (FIFO), the priority bin of its beta
# (while HAZARD ranks by age)
K_LAST, K_SHEAD, K_STAIL, K_Q = range(4)
KEY_FIELDS = 4
# node columns (``hn``): the list it is in (AGE: its segment; HAZARD: its wheel slot,
# -1 for none) and its links there, payload group, matched, stale (its priority rose above its
# value in the tree), and HAZARD's bucket of that value and the time its priority falls below it
HN_SEG, HN_SPREV, HN_SNEXT, HN_GROUP, HN_C, HN_STALE, HN_BUCKET, HN_DUE = range(8)
HN_FIELDS = 8
