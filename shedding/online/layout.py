"""The layout of the join operator's state arrays: which column of the node pool, the key classes
and the scalar arrays holds what.

The compiled join (:mod:`~shedding.online.kernel`) and the memory structures of the age-aware
kinds (:mod:`~shedding.online.agehooks`) index the same arrays, so the indices live here, in one
place. Das, Gehrke, Riedewald (SIGMOD 2003), §2.1, is the join these arrays hold the state of.
"""

from typing import NamedTuple

import numpy as np

# node columns
N_SEQ, N_TIME, N_KEY, N_SIDE, N_GPREV, N_GNEXT, N_CPREV, N_CNEXT, N_POS = range(9)
NODE_FIELDS = 9
# key class columns; the head's time and sequence number are cached for the tournament trees
C_HEAD, C_TAIL, C_SIZE, C_HTIME, C_HSEQ = range(5)
CLS_FIELDS = 5
# integer scalars: parameters first, then mutable state; SC_RANK is the kind that ranks the
# candidates now (the policy's kind, but PROB while HAZARD's learner sees nothing beyond it).
# P_LO, P_HI: the time range, r(a) and s(b) pair iff P_LO <= b - a <= P_HI (-(w-1), w-1 for the
# window); P_W is then the longest a tuple can wait for a partner, plus one. SC_RTAIL: the last R
# tuple of the memory list when the two sides live for different times (R tuples first, then S)
(P_W, P_M, P_MR, P_MS, P_VARIABLE, P_KIND, P_WARMUP, P_ONLINE, P_LEAVES, P_SHARE_EVERY, P_LO, P_HI,
 SC_GHEAD, SC_GTAIL, SC_NMEM_R, SC_NMEM_S, SC_BAGN_0, SC_BAGN_1, SC_FREETOP, SC_STEP, SC_LAST_T,
 SC_ARR_R, SC_ARR_S, SC_T0, SC_RANK, SC_RTAIL) = range(26)
SC_FIELDS = 26
# float scalars: side totals of the estimator, decay reference time and log growth per step; SURV's
# horizon per partition, DUAL's price per side and its multiple of the fluid price, and the side
# totals SURV and DUAL divide by (the estimator's, as of their last parameter update)
F_TOT_R, F_TOT_S, F_TREF, F_LOGG, F_H0, F_H1, F_TH0, F_TH1, F_ALPHA, F_N0, F_N1 = range(11)
FSC_FIELDS = 11

#: a time later than any arrival (and "never" for the certificates of the kinetic trees)
INF = np.int64(2**62)


class JoinState(NamedTuple):
    """The join operator's state, as the compiled join takes it: one array per field, by name.

    C is the node pool's capacity, D the number of key classes, P the leaves of a tournament tree
    (the power of two at or above D). The compiled code reads the fields by name (``st.node``)."""

    node: np.ndarray  #: int64 [C, NODE_FIELDS]: the memory tuples and their links (``N_*`` columns)
    cls: np.ndarray  #: int64 [2, D, CLS_FIELDS]: per side and key, the FIFO of its memory tuples (``C_*``)
    cnt: np.ndarray  #: float64 [2, D]: the estimator's count of each key per side
    tree: np.ndarray  #: int64 [2, 2, 2P]: per plane (winner, certificate) and side, the tournament tree
    bag: np.ndarray  #: int64 [2, C]: RAND's bag of candidates per partition
    free: np.ndarray  #: int64 [C]: the stack of free nodes
    sc: np.ndarray  #: int64 [SC_FIELDS]: parameters and counters (``P_*``, ``SC_*``)
    fsc: np.ndarray  #: float64 [FSC_FIELDS]: the estimator's totals and SURV's and DUAL's parameters (``F_*``)
    bcnt: np.ndarray  #: int64 [2, D]: the current batch's arrivals per side and key
    bhead: np.ndarray  #: int64 [2, D]: the first of them (index into the batch)
    bnext: np.ndarray  #: int64 [C]: the next arrival of the same side and key in the batch
    stack: np.ndarray  #: int64 [4P]: scratch for advancing the kinetic trees
