"""The next victim of the age-aware kinds, AGE and HAZARD, from their memory structures
(:mod:`~shedding.online.agememory`), and whether an arrival would be dropped before it.

AGE needs no priorities: past its hold age a tuple goes first (oldest first), within it the
youngest goes first (Srivastava and Widom 2004, :mod:`~shedding.online.ageing`), so the
candidates are the head of the past-hold segment or the last arrivals of the other. HAZARD's is
the minimum of its trees, checked first: a tuple whose priority rose above its value in the tree
(stale, or in a later age bucket than the one it was placed in) is placed anew and the minimum
looked up again, so the checked minimum is the true one.
"""


from shedding.jit import njit
from shedding.online.agememory import HN_BUCKET, HN_SPREV, HN_STALE, before, place, prio, tuple_prio
from shedding.online.hazard import H_GROUPS, H_HOLD0, H_SHAPED0, HF_DENS0, bucket_of
from shedding.online.kinds import AGE
from shedding.online.layout import N_SEQ, N_SIDE, N_TIME, P_VARIABLE


@njit(_nrt=False)
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


@njit(_nrt=False)
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


@njit(_nrt=False)
def _top(node, hprio, htree, variable, part):
    """HAZARD's minimum tuple of partition ``part`` as the trees hold it (-1: empty)."""
    if not variable:
        return htree[part, 1]
    a, b = htree[0, 1], htree[1, 1]
    return b if before(node, hprio, b, a) else a


@njit(_nrt=False)
def _fresh(node, hn, hsc, edges, x, t):
    """Whether HAZARD's value of tuple x in the tree is its priority at t: not raised since it was
    placed, and still in the bucket it was placed in (or on a side ranked like PROB)."""
    if hn[x, HN_STALE]:
        return False
    j = hn[x, HN_BUCKET]
    return hsc[H_SHAPED0 + node[x, N_SIDE]] == 0 or j + 2 >= edges.shape[0] or t - node[x, N_TIME] < edges[j + 1]


@njit(_nrt=False)
def victim(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, fall, lens, edges, sc, part, t, kind):
    """The memory tuple dropped next from partition ``part`` (a side, or both under the variable
    split), -1 when it is empty: most of the time HAZARD's minimum as its tree holds it, unless its
    priority rose above that value (:func:`_search`)."""
    if kind != AGE:
        x = _top(node, hprio, htree, sc[P_VARIABLE], part)
        if x < 0 or _fresh(node, hn, hsc, edges, x, t):
            return x
    return _search(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, fall, lens, edges, sc, part, t, kind)


@njit(_nrt=False)
def _search(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, fall, lens, edges, sc, part, t, kind):
    """:func:`victim`'s search: AGE's candidates, or HAZARD's minimum after placing anew the
    tuples that reach the top with a priority above their value."""
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
        if x < 0 or _fresh(node, hn, hsc, edges, x, t):
            return x
        j = bucket_of(edges, t - node[x, N_TIME])
        p = tuple_prio(node, cnt, hn, hsc, hf, hk, eg, th, memo, lens, x, j)
        if p == hprio[x]:  # its priority is its value again
            hn[x, HN_STALE] = 0
            hn[x, HN_BUCKET] = j
            return x
        place(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, fall, lens, edges, x, j, p)


@njit(_nrt=False)
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
