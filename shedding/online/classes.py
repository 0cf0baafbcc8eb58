"""The memory structures of the age-aware kinds, AGE and HAZARD: age segments, priority classes
and their tournament trees, compiled for the join kernel (:mod:`~shedding.online.kernel`).

A tuple's priority under AGE or HAZARD depends on its age, so it changes while the tuple sits in
memory; it stays constant between events whose times are known, and these structures turn each
event into O(log M) work:

* *age segments*: per side a list of its memory tuples in arrival order per segment of ages
  (HAZARD: its age buckets, one segment for a side ranked like PROB; AGE: within and past the hold
  age). At every step the tuples that reached the next segment's first age are the oldest of
  theirs, so *crossing* pops them from one head and appends them to the next tail;
* *priority classes* (HAZARD): the tuples of one (side, key, group, matched, bucket) share their
  priority, so the oldest of a class (the head of its FIFO) is its minimum, as a key class is for
  PROB. Classes are made on demand from a free list and found through a short list per (side,
  key). A bucket crossing moves a head to the tail of the next bucket's class (it is the youngest
  there); an arrival of the key on the other side *matches* the unmatched classes of the key,
  whose tuples are all younger than its matched ones, so each unmatched FIFO is spliced onto the
  tail of its matched class; then the key's classes take their new priority (its frequency moved);
* a *tournament tree* per side over the class ids (priorities are constant between events, so no
  certificates are needed); the variable split compares the two roots. A crossing that raises a
  class's priority (a tuple nearing the age of its partner) leaves the tree's lower value in place
  and marks the class *stale*; the minimum is checked before it is used and, if stale, updated and
  looked up again. Stale values only ever underestimate, so the checked minimum is the true one,
  and raises of classes that never come near the minimum cost nothing.

AGE needs no classes: past its hold age a tuple goes first (oldest first), within it the youngest
goes first (Srivastava and Widom 2004, :mod:`~shedding.online.ageing`), so the candidates are the
head of the past-hold segment or the last arrivals of the other.
"""


from numba import njit

from shedding.online.hazard import (H_CFREE, H_GROUPS, H_HOLD0, H_KNOWN, H_LEAVES, H_NSEG0, H_SHAPED0, HF_DENS0,
                                    HF_FAC0, K_FIRST, K_LAST, K_Q, Q_PRIO_OCTAVE, bin_beta, index, key_bin,
                                    shadow_events)
from shedding.online.kinds import AGE, HAZARD
from shedding.online.layout import (N_KEY, N_SEQ, N_SIDE, N_TIME, P_VARIABLE)
from shedding.online.order import ties_before

# node columns of the age-aware kinds: class, class FIFO links, segment, segment list links, group
HN_CLS, HN_PREV, HN_NEXT, HN_SEG, HN_SPREV, HN_SNEXT, HN_GROUP = range(7)
HN_FIELDS = 7
# class columns: FIFO head, tail and size, its (side, key, group, matched, bucket), next of its key,
# whether its priority in the tree is below its true one
HC_HEAD, HC_TAIL, HC_SIZE, HC_SIDE, HC_KEY, HC_GROUP, HC_C, HC_SEG, HC_KNEXT, HC_STALE = range(10)
HC_FIELDS = 10


def learns(kind: int, known: bool) -> bool:
    """Whether a kind learns from the shadow sample: HAZARD always, AGE unless its curve is known."""
    return kind == HAZARD or (kind == AGE and not known)


# ---------------------------------------------------------------- segment lists and classes


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


@njit(cache=True, inline="always", _nrt=False)
def _cls_find(hc, hk, s, k, g, c, j):
    """The class (s, k, g, c, j), -1 if it does not exist."""
    cid = hk[s, k, K_FIRST]
    while cid >= 0:
        if hc[cid, HC_GROUP] == g and hc[cid, HC_C] == c and hc[cid, HC_SEG] == j:
            return cid
        cid = hc[cid, HC_KNEXT]
    return -1


@njit(cache=True, _nrt=False)
def cls_get(hc, hk, hfree, hsc, s, k, g, c, j):
    """The class (s, k, g, c, j), made (empty) if it does not exist; (id, made)."""
    cid = _cls_find(hc, hk, s, k, g, c, j)
    if cid >= 0:
        return cid, False
    top = hsc[H_CFREE] - 1
    cid = hfree[top]
    hsc[H_CFREE] = top
    hc[cid, HC_HEAD] = -1
    hc[cid, HC_TAIL] = -1
    hc[cid, HC_SIZE] = 0
    hc[cid, HC_STALE] = 0
    hc[cid, HC_SIDE], hc[cid, HC_KEY], hc[cid, HC_GROUP], hc[cid, HC_C], hc[cid, HC_SEG] = s, k, g, c, j
    hc[cid, HC_KNEXT] = hk[s, k, K_FIRST]
    hk[s, k, K_FIRST] = cid
    return cid, True


@njit(cache=True, _nrt=False)
def _cls_release(hc, hk, hfree, hsc, cid):
    """Free an empty class."""
    s, k = hc[cid, HC_SIDE], hc[cid, HC_KEY]
    prev = -1
    cur = hk[s, k, K_FIRST]
    while cur != cid:
        prev = cur
        cur = hc[cur, HC_KNEXT]
    if prev >= 0:
        hc[prev, HC_KNEXT] = hc[cid, HC_KNEXT]
    else:
        hk[s, k, K_FIRST] = hc[cid, HC_KNEXT]
    hfree[hsc[H_CFREE]] = cid
    hsc[H_CFREE] += 1


@njit(cache=True, inline="always", _nrt=False)
def cls_push(hn, hc, cid, x):
    tail = hc[cid, HC_TAIL]
    hn[x, HN_CLS] = cid
    hn[x, HN_PREV] = tail
    hn[x, HN_NEXT] = -1
    if tail >= 0:
        hn[tail, HN_NEXT] = x
    else:
        hc[cid, HC_HEAD] = x
    hc[cid, HC_TAIL] = x
    hc[cid, HC_SIZE] += 1


@njit(cache=True, inline="always", _nrt=False)
def _cls_unlink(hn, hc, x):
    cid = hn[x, HN_CLS]
    p, nx = hn[x, HN_PREV], hn[x, HN_NEXT]
    if p >= 0:
        hn[p, HN_NEXT] = nx
    else:
        hc[cid, HC_HEAD] = nx
    if nx >= 0:
        hn[nx, HN_PREV] = p
    else:
        hc[cid, HC_TAIL] = p
    hc[cid, HC_SIZE] -= 1
    return cid


# ---------------------------------------------------------------- priorities and the trees


@njit(cache=True, _nrt=False)
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
def _node_before(node, x, y):
    """Of two nodes of equal priority, x goes first (:func:`ties_before`)."""
    return ties_before(node[x, N_TIME], node[x, N_SIDE], node[x, N_SEQ], node[y, N_TIME], node[y, N_SIDE],
                       node[y, N_SEQ])


@njit(cache=True, inline="always", _nrt=False)
def _before(node, hc, hprio, a, b):
    """Whether the head of class a is dropped before the head of class b (-1: no class)."""
    if a < 0:
        return False
    if b < 0:
        return True
    if hprio[a] != hprio[b]:
        return hprio[a] < hprio[b]
    return _node_before(node, hc[a, HC_HEAD], hc[b, HC_HEAD])


@njit(cache=True, _nrt=False)
def _leaf(node, hc, hprio, htree, hsc, cid):
    """Class ``cid`` changed its head, size or priority: refresh its leaf and the path up, as far as
    the winners change (the tree is consistent for every other class)."""
    s = hc[cid, HC_SIDE]
    n = hsc[H_LEAVES] + cid
    htree[s, n] = cid if hc[cid, HC_SIZE] > 0 else -1
    n //= 2
    while n >= 1:
        a, b = htree[s, 2 * n], htree[s, 2 * n + 1]
        win = b if _before(node, hc, hprio, b, a) else a
        if win == htree[s, n] and win != cid:
            return  # another class still wins here and only cid changed: nothing above changes
        htree[s, n] = win
        n //= 2


@njit(cache=True, _nrt=False)
def _refresh(node, cnt, hc, hprio, htree, hk, hsc, hf, eg, th, memo, lens, cid, moved):
    """Class ``cid`` may have a new priority; its leaf is refreshed if it did change or the class
    is new or has a new head (``moved``)."""
    p = prio(cnt, hsc, hf, hk, eg, th, memo, lens, hc[cid, HC_SIDE], hc[cid, HC_KEY], hc[cid, HC_GROUP], hc[cid, HC_C],
             hc[cid, HC_SEG])
    if moved or p != hprio[cid]:
        hprio[cid] = p
        hc[cid, HC_STALE] = 0
        _leaf(node, hc, hprio, htree, hsc, cid)


@njit(cache=True)
def rebuild_tree(node, hc, hprio, htree, hsc):
    """Both trees from the classes' leaves (after the node pool grew)."""
    leaves = hsc[H_LEAVES]
    htree[:] = -1
    for cid in range(hc.shape[0]):
        if hc[cid, HC_SIZE] > 0:
            htree[hc[cid, HC_SIDE], leaves + cid] = cid
    for s in range(2):
        for n in range(leaves - 1, 0, -1):
            a, b = htree[s, 2 * n], htree[s, 2 * n + 1]
            htree[s, n] = b if _before(node, hc, hprio, b, a) else a


# ---------------------------------------------------------------- the kernel's hooks


@njit(cache=True, _nrt=False)
def insert(node, cnt, hn, hc, hprio, hfree, htree, hk, sg, hsc, hf, eg, th, memo, lens, x, group, kind):
    """Tuple x entered memory (age 0, segment 0, not matched)."""
    s, k = node[x, N_SIDE], node[x, N_KEY]
    hn[x, HN_GROUP] = group
    seg_push(hn, sg, s, 0, x)
    if kind == AGE:
        return
    shaped = hsc[H_SHAPED0 + s]
    g = group if shaped and hsc[H_GROUPS] else 0
    cid, made = cls_get(hc, hk, hfree, hsc, s, k, g, 0, 0)
    cls_push(hn, hc, cid, x)
    if made:
        _refresh(node, cnt, hc, hprio, htree, hk, hsc, hf, eg, th, memo, lens, cid, True)


@njit(cache=True, _nrt=False)
def remove(node, hn, hc, hprio, hfree, htree, hk, sg, hsc, x, kind):
    """Tuple x left memory."""
    _seg_unlink(hn, sg, node[x, N_SIDE], x)
    if kind == AGE:
        return
    cid = hn[x, HN_CLS]
    head = hc[cid, HC_HEAD] == x
    _cls_unlink(hn, hc, x)
    if hc[cid, HC_SIZE] == 0:
        _leaf(node, hc, hprio, htree, hsc, cid)
        _cls_release(hc, hk, hfree, hsc, cid)
    elif head:
        _leaf(node, hc, hprio, htree, hsc, cid)


@njit(cache=True, _nrt=False)
def _match(node, hn, hc, hprio, hfree, htree, hk, hsc, cid):
    """The unmatched class ``cid`` met a partner: splice its FIFO onto the tail of its matched
    class (its tuples are younger than all of those) and free it, or, if there is no matched
    class, make it the matched one."""
    tgt = _cls_find(hc, hk, hc[cid, HC_SIDE], hc[cid, HC_KEY], hc[cid, HC_GROUP], 1, hc[cid, HC_SEG])
    if tgt < 0:  # the class itself becomes the matched one
        hc[cid, HC_C] = 1
        return
    x = hc[cid, HC_HEAD]
    while x >= 0:
        hn[x, HN_CLS] = tgt
        x = hn[x, HN_NEXT]
    head, tail = hc[cid, HC_HEAD], hc[cid, HC_TAIL]
    last = hc[tgt, HC_TAIL]
    if last >= 0:
        hn[last, HN_NEXT] = head
        hn[head, HN_PREV] = last
    else:
        hc[tgt, HC_HEAD] = head
    hc[tgt, HC_TAIL] = tail
    hc[tgt, HC_SIZE] += hc[cid, HC_SIZE]
    hc[cid, HC_HEAD] = hc[cid, HC_TAIL] = -1
    hc[cid, HC_SIZE] = 0
    _leaf(node, hc, hprio, htree, hsc, cid)
    _cls_release(hc, hk, hfree, hsc, cid)


@njit(cache=True, _nrt=False)
def arrival(node, cnt, hn, hc, hprio, hfree, htree, hk, sh, hsc, hf, edges, ev, eg, th, memo, lens, o, k, t, w,
            rank):
    """An arrival of key k on side o (after the estimator counted it): the shadow's events; while
    HAZARD ranks by its classes (``rank``), the other side's tuples of k are matched now, and
    their classes take k's new beta."""
    if hsc[H_KNOWN] == 0:
        shadow_events(sh, hk, hsc, edges, ev, o, k, t, w)
    hk[o, k, K_LAST] = t
    if rank != HAZARD:
        return
    s = 1 - o
    key_bin(cnt, hf, hk, s, k)
    if hsc[H_SHAPED0 + s]:
        cid = hk[s, k, K_FIRST]
        while cid >= 0:
            nxt = hc[cid, HC_KNEXT]
            if hc[cid, HC_C] == 0:
                _match(node, hn, hc, hprio, hfree, htree, hk, hsc, cid)
            cid = nxt
    cid = hk[s, k, K_FIRST]
    while cid >= 0:
        _refresh(node, cnt, hc, hprio, htree, hk, hsc, hf, eg, th, memo, lens, cid, False)
        cid = hc[cid, HC_KNEXT]


@njit(cache=True, _nrt=False)
def cross(node, cnt, hn, hc, hprio, hfree, htree, hk, sg, segedge, hsc, hf, eg, th, memo, lens, t, kind):
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
                if kind == AGE:
                    continue
                cid = _cls_unlink(hn, hc, x)  # x is its class's head: the oldest of its segment
                g, c = hc[cid, HC_GROUP], hc[cid, HC_C]
                if hc[cid, HC_SIZE] == 0 and _cls_find(hc, hk, s, node[x, N_KEY], g, c, j + 1) < 0:
                    hc[cid, HC_SEG] = j + 1  # x was alone and goes to a new class: its class moves with it
                    cls_push(hn, hc, cid, x)
                    p = prio(cnt, hsc, hf, hk, eg, th, memo, lens, s, node[x, N_KEY], g, c, j + 1)
                    if p >= hprio[cid]:  # a raise waits until the class is the minimum
                        hc[cid, HC_STALE] = 1 if p > hprio[cid] else 0
                    else:
                        hprio[cid] = p
                        hc[cid, HC_STALE] = 0
                        _leaf(node, hc, hprio, htree, hsc, cid)
                    continue
                tgt, made = cls_get(hc, hk, hfree, hsc, s, node[x, N_KEY], g, c, j + 1)
                _leaf(node, hc, hprio, htree, hsc, cid)
                if hc[cid, HC_SIZE] == 0:
                    _cls_release(hc, hk, hfree, hsc, cid)
                cls_push(hn, hc, tgt, x)
                if made:
                    _refresh(node, cnt, hc, hprio, htree, hk, hsc, hf, eg, th, memo, lens, tgt, True)


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


@njit(cache=True, _nrt=False)
def victim(node, cnt, hn, hc, hprio, htree, hk, sg, hsc, hf, eg, th, memo, lens, sc, part, t, kind):
    """The memory tuple dropped next from partition ``part`` (a side, or both under the variable
    split), -1 when it is empty."""
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
        if not variable:
            cid = htree[part, 1]
        else:
            a, b = htree[0, 1], htree[1, 1]
            cid = b if _before(node, hc, hprio, b, a) else a
        if cid < 0 or hc[cid, HC_STALE] == 0:
            return hc[cid, HC_HEAD] if cid >= 0 else -1
        _refresh(node, cnt, hc, hprio, htree, hk, hsc, hf, eg, th, memo, lens, cid, True)


@njit(cache=True, _nrt=False)
def loses(node, cnt, hn, hc, hprio, hk, hsc, hf, eg, th, memo, lens, sc, v, s, k, group, t, seq, kind):
    """Whether an arrival (side s, key k, ``group``, sequence number ``seq``) would be dropped
    before the memory tuple v, the partition's next victim."""
    sv, tv, qv = node[v, N_SIDE], node[v, N_TIME], node[v, N_SEQ]
    if kind == AGE:
        return age_before(hsc, hf, sc[P_VARIABLE], s, t, seq, sv, tv, qv, t)
    shaped = hsc[H_SHAPED0 + s]
    p = prio(cnt, hsc, hf, hk, eg, th, memo, lens, s, k, group if shaped and hsc[H_GROUPS] else 0, 0, 0)
    pv = hprio[hn[v, HN_CLS]]
    if p != pv:
        return p < pv
    if t != tv:
        return t < tv
    if s != sv:
        return s < sv
    return seq < qv
