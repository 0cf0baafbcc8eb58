"""The memory structures of the age-aware kinds, AGE and HAZARD: age segments, per-tuple
priorities and their tournament trees, compiled for the join kernel (:mod:`~shedding.online.kernel`).

A tuple's priority under AGE or HAZARD depends on its age, so it changes while the tuple sits in
memory; it stays constant between events whose times are known, and these structures turn each
event into O(log M) work:

* *age segments*: per side a list of its memory tuples in arrival order per segment of ages
  (HAZARD: its age buckets, one segment for a side ranked like PROB; AGE: within and past the hold
  age). At every step the tuples that reached the next segment's first age are the oldest of
  theirs, so *crossing* pops them from one head and appends them to the next tail;
* HAZARD's *state* of a tuple: its side, key, payload group, whether it met a partner yet
  (*matched*) and its bucket; its priority is that of its state (the index of
  :mod:`~shedding.online.hazard`, looked up per state and beta bin). An arrival of the key on
  the other side *matches* the key's unmatched tuples, the youngest of the key's FIFO in the
  kernel's key classes, and moves the key's beta bin, so only the key's tuples change priority;
* a *tournament tree* per side over the memory tuples (priorities are constant between events,
  so no certificates are needed); the variable split compares the two roots. A change that raises
  a tuple's priority (a tuple nearing the age of its partner) leaves the tree's lower value in
  place and marks the tuple *stale*; the minimum is checked before it is used and, if stale,
  updated and looked up again. Stale values only ever underestimate, so the checked minimum is
  the true one, and raises of tuples that never come near the minimum cost nothing.

One leaf per tuple, not per class of tuples of one state: on the streams where the age matters a
key has one or two tuples in memory, and classes cost a lookup, a FIFO and a free list per
bucket crossing, which is most of what a crossing costs.

AGE needs no priorities: past its hold age a tuple goes first (oldest first), within it the
youngest goes first (Srivastava and Widom 2004, :mod:`~shedding.online.ageing`), so the
candidates are the head of the past-hold segment or the last arrivals of the other.
"""


from numba import njit

from shedding.online.hazard import (H_GROUPS, H_HOLD0, H_KNOWN, H_LEAVES, H_NSEG0, H_SHAPED0, HF_DENS0, HF_FAC0, K_LAST,
                                    K_Q, Q_PRIO_OCTAVE, bin_beta, index, key_bin, shadow_events)
from shedding.online.kinds import AGE, HAZARD
from shedding.online.layout import C_TAIL, N_CPREV, N_GNEXT, N_KEY, N_SEQ, N_SIDE, N_TIME, P_VARIABLE
from shedding.online.order import ties_before

# node columns of the age-aware kinds: segment, segment list links, payload group, matched, stale
# (its priority in the tree is below its true one)
HN_SEG, HN_SPREV, HN_SNEXT, HN_GROUP, HN_C, HN_STALE = range(6)
HN_FIELDS = 6


# ---------------------------------------------------------------- segment lists


@njit(cache=True, inline="always", _nrt=False)
def seg_push(hn, sg, s, j, x):
    tail = sg[s, j, 1]
    hn[x, HN_SEG] = j
    hn[x, HN_SPREV] = tail
    hn[x, HN_SNEXT] = -1
    if tail >= 0:
        hn[tail, HN_SNEXT] = x
    else:
        sg[s, j, 0] = x
    sg[s, j, 1] = x


@njit(cache=True, inline="always", _nrt=False)
def _seg_unlink(hn, sg, s, x):
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


# ---------------------------------------------------------------- priorities and the trees


@njit(cache=True, inline="always", _nrt=False)
def prio(cnt, hsc, hf, hk, eg, th, memo, lens, s, k, g, c, j):
    """HAZARD's priority of a tuple of side s, key k in state (g, c, j): beta (PROB's order) on a
    side ranked like PROB, else the index of its state at its key's beta bin (``key_bin``; the
    index is computed once per state and bin after each refit)."""
    if hsc[H_SHAPED0 + s] == 0:
        return cnt[1 - s, k] * hf[HF_FAC0 + 1 - s]
    q = hk[s, k, K_Q]
    v = memo[s, g, c, j, q]
    if v != v:
        v = index(eg, th, lens, s, g, c, j, bin_beta(q, Q_PRIO_OCTAVE))
        memo[s, g, c, j, q] = v
    return v


@njit(cache=True, inline="always", _nrt=False)
def group_of(hn, hsc, s, x):
    """The payload group HAZARD ranks tuple x by (0 unless side s is shaped and ranked by groups)."""
    return hn[x, HN_GROUP] if hsc[H_SHAPED0 + s] and hsc[H_GROUPS] else 0


@njit(cache=True, inline="always", _nrt=False)
def tuple_prio(node, cnt, hn, hsc, hf, hk, eg, th, memo, lens, x):
    """The priority of memory tuple x in its present state."""
    s = node[x, N_SIDE]
    return prio(cnt, hsc, hf, hk, eg, th, memo, lens, s, node[x, N_KEY], group_of(hn, hsc, s, x), hn[x, HN_C],
                hn[x, HN_SEG])


@njit(cache=True, inline="always", _nrt=False)
def _before(node, hprio, a, b):
    """Whether tuple a is dropped before tuple b (-1: none): priority, then :func:`ties_before`."""
    if a < 0:
        return False
    if b < 0:
        return True
    if hprio[a] != hprio[b]:
        return hprio[a] < hprio[b]
    return ties_before(node[a, N_TIME], node[a, N_SIDE], node[a, N_SEQ], node[b, N_TIME], node[b, N_SIDE],
                       node[b, N_SEQ])


@njit(cache=True, inline="always", _nrt=False)
def _leaf(node, hprio, htree, hsc, x, present):
    """Tuple x entered, left (``present`` False) or changed its priority: refresh its leaf and the
    path up, as far as the winners change (the tree is consistent for every other tuple)."""
    s = node[x, N_SIDE]
    n = hsc[H_LEAVES] + x
    htree[s, n] = x if present else -1
    n //= 2
    while n >= 1:
        a, b = htree[s, 2 * n], htree[s, 2 * n + 1]
        win = b if _before(node, hprio, b, a) else a
        if win == htree[s, n] and win != x:
            return  # another tuple still wins here and only x changed: nothing above changes
        htree[s, n] = win
        n //= 2


@njit(cache=True, inline="always", _nrt=False)
def _place(node, hn, hprio, htree, hsc, x, p):
    """Tuple x takes the priority p in the tree now."""
    hprio[x] = p
    hn[x, HN_STALE] = 0
    _leaf(node, hprio, htree, hsc, x, True)


@njit(cache=True, inline="always", _nrt=False)
def _settle(node, hn, hprio, htree, hsc, x, p):
    """Tuple x has the new priority p: a fall goes into the tree now, a raise waits (stale) until x
    is the minimum."""
    if p > hprio[x]:
        hn[x, HN_STALE] = 1
    elif p < hprio[x]:
        _place(node, hn, hprio, htree, hsc, x, p)
    else:
        hn[x, HN_STALE] = 0


@njit(cache=True)
def rebuild_tree(node, hprio, htree, hsc, head):
    """Both trees from the memory tuples (the global list from ``head``), after a refit or after
    the node pool grew."""
    leaves = hsc[H_LEAVES]
    htree[:] = -1
    x = head
    while x >= 0:
        htree[node[x, N_SIDE], leaves + x] = x
        x = node[x, N_GNEXT]
    for s in range(2):
        for n in range(leaves - 1, 0, -1):
            a, b = htree[s, 2 * n], htree[s, 2 * n + 1]
            htree[s, n] = b if _before(node, hprio, b, a) else a


# ---------------------------------------------------------------- the kernel's hooks


@njit(cache=True, inline="always", _nrt=False)
def insert(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, lens, x, kind):
    """Tuple x entered memory (age 0, segment 0, not matched; the kernel has set its payload
    group)."""
    seg_push(hn, sg, node[x, N_SIDE], 0, x)
    if kind == AGE:
        return
    hn[x, HN_C] = 0
    _place(node, hn, hprio, htree, hsc, x, tuple_prio(node, cnt, hn, hsc, hf, hk, eg, th, memo, lens, x))


@njit(cache=True, inline="always", _nrt=False)
def remove(node, hn, hprio, htree, sg, hsc, x, kind):
    """Tuple x left memory."""
    _seg_unlink(hn, sg, node[x, N_SIDE], x)
    if kind != AGE:
        _leaf(node, hprio, htree, hsc, x, False)


@njit(cache=True, inline="always", _nrt=False)
def arrival(node, cls, cnt, hn, hprio, htree, hk, sh, hsc, hf, edges, ev, eg, th, memo, lens, o, k, t, w, rank):
    """An arrival of key k on side o (after the estimator counted it): the shadow's events; while
    HAZARD ranks by age (``rank``), the other side's tuples of k are matched now, and take k's new
    beta. The key's FIFO (the kernel's key class) holds them in arrival order, and the unmatched
    ones are its youngest, so a beta bin that did not move touches only those."""
    if hsc[H_KNOWN] == 0:
        shadow_events(sh, hk, hsc, edges, ev, o, k, t, w)
    hk[o, k, K_LAST] = t
    if rank != HAZARD:
        return
    s = 1 - o
    q = hk[s, k, K_Q]
    key_bin(cnt, hf, hk, s, k)
    shaped = hsc[H_SHAPED0 + s]
    every = hk[s, k, K_Q] != q or not shaped  # an unshaped side ranks by the count itself
    x = cls[s, k, C_TAIL]
    while x >= 0:
        if shaped and hn[x, HN_C] == 0:
            hn[x, HN_C] = 1
        elif not every:
            break
        _settle(node, hn, hprio, htree, hsc, x, tuple_prio(node, cnt, hn, hsc, hf, hk, eg, th, memo, lens, x))
        x = node[x, N_CPREV]


@njit(cache=True, inline="always", _nrt=False)
def cross(node, cnt, hn, hprio, htree, hk, sg, segedge, hsc, hf, eg, th, memo, lens, t, kind):
    """Move every tuple that reached the first age of its next segment (oldest first)."""
    for s in range(2):
        for j in range(hsc[H_NSEG0 + s] - 1):
            edge = segedge[s, j + 1]
            while True:
                x = sg[s, j, 0]
                if x < 0 or t - node[x, N_TIME] < edge:
                    break
                _seg_unlink(hn, sg, s, x)
                seg_push(hn, sg, s, j + 1, x)
                if kind != AGE:
                    _settle(node, hn, hprio, htree, hsc, x, tuple_prio(node, cnt, hn, hsc, hf, hk, eg, th, memo,
                                                                          lens, x))


@njit(cache=True, _nrt=False)
def age_before(hsc, hf, variable, sa, ta, qa, sb, tb, qb, t):
    """AGE's drop order of tuple a (side, time, seq) before b at time t: past the hold age first
    (oldest first); then, under the variable split, the side with the lower gain per slot; then
    the youngest; then R; then the sequence number."""
    oa = t - ta > hsc[H_HOLD0 + sa]
    ob = t - tb > hsc[H_HOLD0 + sb]
    if oa != ob:
        return oa
    if oa:
        if ta != tb:
            return ta < tb
    else:
        if variable and hf[HF_DENS0 + sa] != hf[HF_DENS0 + sb]:
            return hf[HF_DENS0 + sa] < hf[HF_DENS0 + sb]
        if ta != tb:
            return ta > tb
    if sa != sb:
        return sa < sb
    return qa < qb


@njit(cache=True, _nrt=False)
def _age_side_min(node, hn, sg, s):
    """AGE's next victim of side s: the oldest past the hold age, else the first of the youngest."""
    if sg[s, 1, 0] >= 0:
        return sg[s, 1, 0]
    y = sg[s, 0, 1]
    if y < 0:
        return -1
    while hn[y, HN_SPREV] >= 0 and node[hn[y, HN_SPREV], N_TIME] == node[y, N_TIME]:
        y = hn[y, HN_SPREV]
    return y


@njit(cache=True, inline="always", _nrt=False)
def _top(node, hprio, htree, variable, part):
    """HAZARD's minimum tuple of partition ``part`` as the trees hold it (-1: empty)."""
    if not variable:
        return htree[part, 1]
    a, b = htree[0, 1], htree[1, 1]
    return b if _before(node, hprio, b, a) else a


@njit(cache=True, inline="always", _nrt=False)
def victim(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, lens, sc, part, t, kind):
    """The memory tuple dropped next from partition ``part`` (a side, or both under the variable
    split), -1 when it is empty: most of the time HAZARD's minimum as its tree holds it, unless that
    is stale (:func:`_search`)."""
    if kind != AGE:
        x = _top(node, hprio, htree, sc[P_VARIABLE], part)
        if x < 0 or hn[x, HN_STALE] == 0:
            return x
    return _search(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, lens, sc, part, t, kind)


@njit(cache=True, inline="always", _nrt=False)
def _search(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, lens, sc, part, t, kind):
    """:func:`victim`'s search: AGE's candidates, or HAZARD's minimum after refreshing the stale
    tuples that reach the top."""
    variable = sc[P_VARIABLE]
    if kind == AGE:
        if not variable:
            return _age_side_min(node, hn, sg, part)
        a, b = _age_side_min(node, hn, sg, 0), _age_side_min(node, hn, sg, 1)
        if a < 0 or b < 0:
            return max(a, b)
        if age_before(hsc, hf, True, 1, node[b, N_TIME], node[b, N_SEQ], 0, node[a, N_TIME], node[a, N_SEQ], t):
            return b
        return a
    while True:
        x = _top(node, hprio, htree, variable, part)
        if x < 0 or hn[x, HN_STALE] == 0:
            return x
        _place(node, hn, hprio, htree, hsc, x, tuple_prio(node, cnt, hn, hsc, hf, hk, eg, th, memo, lens, x))


@njit(cache=True, inline="always", _nrt=False)
def loses(node, cnt, hn, hprio, hk, hsc, hf, eg, th, memo, lens, sc, v, s, k, group, t, seq, kind):
    """Whether an arrival (side s, key k, ``group``, sequence number ``seq``) would be dropped
    before the memory tuple v, the partition's next victim."""
    sv, tv, qv = node[v, N_SIDE], node[v, N_TIME], node[v, N_SEQ]
    if kind == AGE:
        return age_before(hsc, hf, sc[P_VARIABLE], s, t, seq, sv, tv, qv, t)
    shaped = hsc[H_SHAPED0 + s]
    p = prio(cnt, hsc, hf, hk, eg, th, memo, lens, s, k, group if shaped and hsc[H_GROUPS] else 0, 0, 0)
    pv = hprio[v]
    if p != pv:
        return p < pv
    if t != tv:
        return t < tv
    if s != sv:
        return s < sv
    return seq < qv
