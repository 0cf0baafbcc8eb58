"""Per-side doubly linked lists of memory tuples, threaded through the age-aware kinds' node
columns (``HN_SEG``: the list a tuple is in, ``HN_SPREV``, ``HN_SNEXT``: its neighbours), with each
list's head and tail in ``sg[s, list]``: AGE's age segments (:mod:`~shedding.online.ageing`) and the
slots of HAZARD's wheel (:mod:`~shedding.online.hazardmemory`).
"""

from shedding.jit import njit
from shedding.online.agedlayout import HN_SEG, HN_SNEXT, HN_SPREV


@njit(_nrt=False)
def seg_push(hn, sg, s, j, x):
    """Append tuple x to list j of side s."""
    tail = sg[s, j, 1]
    hn[x, HN_SEG] = j
    hn[x, HN_SPREV] = tail
    hn[x, HN_SNEXT] = -1
    if tail >= 0:
        hn[tail, HN_SNEXT] = x
    else:
        sg[s, j, 0] = x
    sg[s, j, 1] = x


@njit(_nrt=False)
def seg_unlink(hn, sg, s, x):
    """Take tuple x out of its list (side s)."""
    j = hn[x, HN_SEG]
    p, nx = hn[x, HN_SPREV], hn[x, HN_SNEXT]
    if p >= 0:
        hn[p, HN_SNEXT] = nx
    else:
        sg[s, j, 0] = nx
    if nx >= 0:
        hn[nx, HN_SPREV] = p
    else:
        sg[s, j, 1] = p
