"""HAZARD in memory: its per-tuple priorities, their tournament trees, the wheel of the times
they fall, the next victim and the admission test, compiled for the join kernel
(:mod:`~shedding.online.kernel`, through :mod:`~shedding.online.agehooks`); the priorities come
from HAZARD's learner (:mod:`~shedding.online.hazard`).

A tuple's priority under HAZARD depends on its age, so it changes while the tuple sits in memory;
it stays constant between events whose times are known, and these structures turn each event into
O(log M) work (AGE's own, its age segments, are in :mod:`~shedding.online.ageing`):

* the *state* of a tuple: its side, key, payload group, whether it met a partner yet
  (*matched*) and its age bucket; its priority is that of its state (the index of
  :mod:`~shedding.online.hazard`, looked up per state and beta bin). An arrival of the key on
  the other side *matches* the key's unmatched tuples, the youngest of the key's FIFO in the
  kernel's key classes, and moves the key's beta bin, so only the key's tuples change priority;
* a *tournament tree* per side over the memory tuples; the variable split compares the two roots.
  A tuple's value in the tree never exceeds its priority: a change that raises the priority
  (a tuple nearing the age of its partner) leaves the lower value in place (the tuple is *stale*),
  and the minimum is checked before it is used and, if its priority is above its value, placed
  anew and looked up again. So the checked minimum is the true one, and raises of tuples that
  never come near the minimum cost nothing;
* the *wheel*: the one event that must reach the tree at once is a priority falling below the
  tuple's value there. When a tuple is placed (or its state changes), the first later age
  bucket whose priority is below its value gives the time it falls (a look along its state's row
  of priorities, every bucket's computed at once), and the tuple waits in that time's slot of a per-side
  wheel (a ring of lists, one slot per step of the window). At each step only the slots of the
  steps since the last come due. Most bucket crossings raise the priority (the learned rates
  grow towards the partner's age), and none of those is visited: moving every tuple at every
  bucket edge, as age segments do, was a quarter of HAZARD's time on the flights.

One leaf per tuple, not per class of tuples of one state: on the streams where the age matters a
key has one or two tuples in memory. The next victim is the minimum of the trees, checked first:
a tuple whose priority rose above its value in the tree (stale, or in a later age bucket than the
one it was placed in) is placed anew and the minimum looked up again, so the checked minimum is the
true one.
"""

from shedding.jit import njit
from shedding.online.agebuckets import bucket_at
from shedding.online.agedlayout import (HF_FAC0, HN_BUCKET, HN_C, HN_DUE, HN_GROUP, HN_SNEXT, HN_STALE, H_LEAVES, H_SHAPED0, H_WHEEL_NEXT, K_LAST, K_Q)
from shedding.online.agelists import seg_push, seg_unlink
from shedding.online.guard import verdict
from shedding.online.hazard import fit, key_bin, key_bins, picked_group
from shedding.online.hazardindex import forget_rows, shaped_prio
from shedding.online.kinds import HAZARD, PROB
from shedding.online.layout import C_TAIL, INF, N_CPREV, N_GNEXT, N_KEY, N_SEQ, N_SIDE, N_TIME, P_VARIABLE
from shedding.online.order import ties_before

#: the most slots of HAZARD's wheel (one per step of a window up to that; a longer window's lists
#: hold later turns too, passed over until due), so that a shard's state stays small
WHEEL_SLOTS = 1024


def wheel_slots(window: int) -> int:
    """Slots of HAZARD's wheel for a window of w steps: the power of two at or above w, at most
    :data:`WHEEL_SLOTS`."""
    return min(1 << max(0, (max(window, 1) - 1).bit_length()), WHEEL_SLOTS)


# ---------------------------------------------------------------- priorities and the trees


@njit(_nrt=False)
def prio(cnt, hsc, hf, hk, eg, th, memo, lens, s, k, g, c, j):
    """HAZARD's priority of a tuple of side s, key k in state (g, c, j): beta (PROB's order) on a
    side ranked like PROB, else the index of its state at its key's beta bin (``key_bin``; the
    index is computed once per state and bin after each refit, a row of buckets at a time)."""
    if hsc[H_SHAPED0 + s] == 0:
        return cnt[1 - s, k] * hf[HF_FAC0 + 1 - s]
    return shaped_prio(hsc, eg, th, memo, lens, s, g, c, j, hk[s, k, K_Q])


@njit(_nrt=False)
def group_of(hn, hsc, s, x):
    """The payload group HAZARD ranks tuple x by (0 unless side s is shaped and ranked by groups)."""
    return picked_group(hsc, s, hn[x, HN_GROUP]) if hsc[H_SHAPED0 + s] else 0


@njit(_nrt=False)
def tuple_prio(node, cnt, hn, hsc, hf, hk, eg, th, memo, lens, x, j):
    """The priority of memory tuple x in its present state, in age bucket j."""
    s = node[x, N_SIDE]
    return prio(cnt, hsc, hf, hk, eg, th, memo, lens, s, node[x, N_KEY], group_of(hn, hsc, s, x), hn[x, HN_C], j)


@njit(_nrt=False)
def falls_at(node, cnt, hn, hsc, hf, hk, eg, th, memo, lens, x, j, p):
    """The first age bucket after j in which tuple x's priority (in its present state) is below p,
    the number of buckets if none: a look along its state's row of priorities
    (:func:`~shedding.online.hazardindex.shaped_prio`). A side ranked like PROB never falls."""
    s = node[x, N_SIDE]
    nb = lens.shape[0]
    if hsc[H_SHAPED0 + s] == 0:
        return nb
    g, c, q = group_of(hn, hsc, s, x), hn[x, HN_C], hk[s, node[x, N_KEY], K_Q]
    shaped_prio(hsc, eg, th, memo, lens, s, g, c, j, q)  # the row is there
    b = j + 1
    while b < nb and memo[s, g, c, q, b] >= p:
        b += 1
    return b


@njit(_nrt=False)
def before(node, hprio, a, b):
    """Whether tuple a is dropped before tuple b (-1: none): priority, then :func:`ties_before`."""
    if a < 0:
        return False
    if b < 0:
        return True
    if hprio[a] != hprio[b]:
        return hprio[a] < hprio[b]
    return ties_before(node[a, N_TIME], node[a, N_SIDE], node[a, N_SEQ], node[b, N_TIME], node[b, N_SIDE],
                       node[b, N_SEQ])


@njit(_nrt=False)
def _leaf(node, hprio, htree, hsc, x, present):
    """Tuple x entered, left (``present`` False) or changed its priority: refresh its leaf and the
    path up, as far as the winners change (the tree is consistent for every other tuple)."""
    s = node[x, N_SIDE]
    n = hsc[H_LEAVES] + x
    htree[s, n] = x if present else -1
    n //= 2
    while n >= 1:
        a, b = htree[s, 2 * n], htree[s, 2 * n + 1]
        win = b if before(node, hprio, b, a) else a
        if win == htree[s, n] and win != x:
            return  # another tuple still wins here and only x changed: nothing above changes
        htree[s, n] = win
        n //= 2


@njit(_nrt=False)
def _schedule(node, hn, sg, hsc, edges, x, b):
    """Tuple x's priority falls below its value in the tree when it enters age bucket b (never,
    when b is past the last bucket): list it in the wheel slot of that time."""
    s = node[x, N_SIDE]
    if hn[x, HN_DUE] >= 0:
        seg_unlink(hn, sg, s, x)
        hn[x, HN_DUE] = -1
    if b < edges.shape[0] - 1:
        due = node[x, N_TIME] + edges[b]
        hn[x, HN_DUE] = due
        seg_push(hn, sg, s, due & (sg.shape[1] - 1), x)
        hsc[H_WHEEL_NEXT] = min(hsc[H_WHEEL_NEXT], due)


@njit(_nrt=False)
def schedule(node, cnt, hn, hprio, hk, sg, hsc, hf, eg, th, memo, lens, edges, x):
    """Tuple x, just placed in the tree at its priority in bucket ``HN_BUCKET``, waits in the wheel
    for the first later bucket below it."""
    _schedule(node, hn, sg, hsc, edges, x, falls_at(node, cnt, hn, hsc, hf, hk, eg, th, memo, lens, x,
                                                    hn[x, HN_BUCKET], hprio[x]))


@njit(_nrt=False)
def place(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, lens, edges, x, j, p):
    """Tuple x, in age bucket j, takes its priority p there as its value in the tree now, and
    waits in the wheel for the first later bucket below p."""
    hprio[x] = p
    hn[x, HN_STALE] = 0
    hn[x, HN_BUCKET] = j
    _leaf(node, hprio, htree, hsc, x, True)
    schedule(node, cnt, hn, hprio, hk, sg, hsc, hf, eg, th, memo, lens, edges, x)


@njit(_nrt=False)
def _settle(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, lens, edges, x, j):
    """Tuple x changed its state (matched, or its key's beta bin moved) in age bucket j: a fall of
    its priority goes into the tree now, a raise waits (stale) until x is the minimum; either way
    the wheel learns when it next falls below its value."""
    p = tuple_prio(node, cnt, hn, hsc, hf, hk, eg, th, memo, lens, x, j)
    if p < hprio[x]:
        place(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, lens, edges, x, j, p)
        return
    hn[x, HN_STALE] = 1 if p > hprio[x] else 0
    _schedule(node, hn, sg, hsc, edges, x, falls_at(node, cnt, hn, hsc, hf, hk, eg, th, memo, lens, x, j,
                                                    hprio[x]))


@njit
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
            htree[s, n] = b if before(node, hprio, b, a) else a


# ---------------------------------------------------------------- the wheel


@njit(_nrt=False)
def _fall(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, lens, edges, ab, x, t):
    """Tuple x came due in the wheel by time t: it takes its priority in the bucket it
    fell in, and again in each later one it fell in by t (a step may pass several edges)."""
    while 0 <= hn[x, HN_DUE] <= t:
        j = bucket_at(ab, edges, hn[x, HN_DUE] - node[x, N_TIME])
        place(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, lens, edges, x, j,
              tuple_prio(node, cnt, hn, hsc, hf, hk, eg, th, memo, lens, x, j))


@njit(_nrt=False)
def turn(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, lens, edges, ab, t):
    """The wheel's slots from the first that holds a tuple (``H_WHEEL_NEXT``, no tuple is
    due before it) up to t come due, each slot once at most (a longer window's lists hold later
    turns too); then the next slot that holds a tuple is found for the next step."""
    slots = sg.shape[1]
    first = hsc[H_WHEEL_NEXT]
    for s in range(2):
        for tau in range(first, min(t, first + slots - 1) + 1):
            x = sg[s, tau & (slots - 1), 0]
            while x >= 0:
                nxt = hn[x, HN_SNEXT]
                _fall(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, lens, edges, ab, x, t)
                x = nxt
    hsc[H_WHEEL_NEXT] = INF
    for tau in range(t + 1, t + slots + 1):
        if sg[0, tau & (slots - 1), 0] >= 0 or sg[1, tau & (slots - 1), 0] >= 0:
            hsc[H_WHEEL_NEXT] = tau
            break


# ---------------------------------------------------------------- the kernel's hooks


@njit(_nrt=False)
def admit(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, lens, edges, x):
    """Tuple x entered memory (age 0, not matched; the kernel has set its payload group): its tree
    at its priority in bucket 0."""
    hn[x, HN_C] = 0
    hn[x, HN_DUE] = -1
    place(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, lens, edges, x, 0,
          tuple_prio(node, cnt, hn, hsc, hf, hk, eg, th, memo, lens, x, 0))


@njit(_nrt=False)
def leave(node, hn, hprio, htree, sg, hsc, x, walk):
    """Tuple x left memory: out of the wheel and the tree, or (``walk`` False) out of the wheel
    only, when an arrival takes its node and its leaf at once (its :func:`admit` walks the path)."""
    if hn[x, HN_DUE] >= 0:
        seg_unlink(hn, sg, node[x, N_SIDE], x)
    if walk:
        _leaf(node, hprio, htree, hsc, x, False)


@njit(_nrt=False)
def match(node, cls, cnt, hn, hprio, htree, hk, sg, hsc, hf, edges, ab, eg, th, memo, lens, o, k, last, born):
    """An arrival of key k on side o (after the estimator counted it), while HAZARD ranks by age:
    the other side's tuples of k that arrived by the time ``born`` are matched now (it partners
    them; the younger ones wait for their range to begin, lo > 0 for R), and all take k's new beta,
    in the age bucket of the last step (``last``: the buckets move on at this step's admission).
    The key's FIFO (the kernel's key class) holds them in arrival order, and the unmatched ones are
    its youngest (a tuple older than a matched one met the same partner, in its range too), so a
    beta bin that did not move touches only those. On a side ranked like PROB every tuple of k takes
    k's new beta (the arrival's count raised it): a raise waits (stale) and, as such a side never
    falls (:func:`falls_at`), never reaches the wheel, so only a fall or a tuple the wheel still
    lists needs :func:`_settle` (a call with its arrays was a tenth of HAZARD's time)."""
    s = 1 - o
    q = hk[s, k, K_Q]
    key_bin(cnt, hf, hk, s, k)
    shaped = hsc[H_SHAPED0 + s]
    x = cls[s, k, C_TAIL]
    if not shaped:
        p = cnt[o, k] * hf[HF_FAC0 + o]  # its priority (:func:`prio`) in every state
        while x >= 0:
            if p < hprio[x] or hn[x, HN_DUE] >= 0:
                _settle(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, lens, edges, x,
                        bucket_at(ab, edges, last - node[x, N_TIME]))
            else:
                hn[x, HN_STALE] = 1 if p > hprio[x] else 0
            x = node[x, N_CPREV]
        return
    every = hk[s, k, K_Q] != q
    while x >= 0:
        if node[x, N_TIME] > born:  # too young to meet it
            if not every:
                x = node[x, N_CPREV]
                continue
        elif hn[x, HN_C] == 0:
            hn[x, HN_C] = 1
        elif not every:
            break
        _settle(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, lens, edges, x,
                bucket_at(ab, edges, last - node[x, N_TIME]))
        x = node[x, N_CPREV]


@njit(_nrt=False)
def _top(node, hprio, htree, variable, part):
    """The minimum tuple of partition ``part`` as the trees hold it (-1: empty)."""
    if not variable:
        return htree[part, 1]
    a, b = htree[0, 1], htree[1, 1]
    return b if before(node, hprio, b, a) else a


@njit(_nrt=False)
def _fresh(node, hn, hsc, edges, x, t):
    """Whether the value of tuple x in the tree is its priority at t: not raised since it was
    placed, and still in the bucket it was placed in (or on a side ranked like PROB)."""
    if hn[x, HN_STALE]:
        return False
    j = hn[x, HN_BUCKET]
    return hsc[H_SHAPED0 + node[x, N_SIDE]] == 0 or j + 2 >= edges.shape[0] or t - node[x, N_TIME] < edges[j + 1]


@njit(_nrt=False)
def victim(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, lens, edges, ab, sc, part, t):
    """The memory tuple dropped next from partition ``part`` (a side, or both under the variable
    split), -1 when it is empty: most of the time the minimum as its tree holds it, unless its
    priority rose above that value (:func:`_search`)."""
    x = _top(node, hprio, htree, sc[P_VARIABLE], part)
    if x < 0 or _fresh(node, hn, hsc, edges, x, t):
        return x
    return _search(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, lens, edges, ab, sc, part, t)


@njit(_nrt=False)
def _search(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, lens, edges, ab, sc, part, t):
    """:func:`victim`'s search: the minimum after placing anew the tuples that reach the top with a
    priority above their value."""
    variable = sc[P_VARIABLE]
    while True:
        x = _top(node, hprio, htree, variable, part)
        if x < 0 or _fresh(node, hn, hsc, edges, x, t):
            return x
        j = bucket_at(ab, edges, t - node[x, N_TIME])
        p = tuple_prio(node, cnt, hn, hsc, hf, hk, eg, th, memo, lens, x, j)
        if p == hprio[x]:  # its priority is its value again
            hn[x, HN_STALE] = 0
            hn[x, HN_BUCKET] = j
            return x
        place(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, lens, edges, x, j, p)


@njit(_nrt=False)
def loses(node, cnt, hn, hprio, hk, hsc, hf, eg, th, memo, lens, v, s, k, group, t, seq):
    """Whether an arrival (side s, key k, ``group``, sequence number ``seq``) would be dropped
    before the memory tuple v, the partition's next victim: its priority in bucket 0, then the
    kernel's tie order."""
    sv, tv, qv = node[v, N_SIDE], node[v, N_TIME], node[v, N_SEQ]
    shaped = hsc[H_SHAPED0 + s]
    p = prio(cnt, hsc, hf, hk, eg, th, memo, lens, s, k, picked_group(hsc, s, group) if shaped else 0, 0, 0)
    pv = hprio[v]
    if p != pv:
        return p < pv
    if t != tv:
        return t < tv
    if s != sv:
        return s < sv
    return seq < qv


@njit
def rebuild(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, lens, edges, ab, head, t, young0, young1):
    """Re-sort the memory (the global list from ``head``) after a refit: every tuple's state (matched
    if its key's last arrival on the other side came when it was at least ``young0`` steps old for
    R, ``young1`` for S: the youngest age its range meets a partner at, at least 1; an earlier
    arrival of the key came younger still), its priority in the bucket of its age as its value in
    the trees, and the wheel of the times they fall."""
    sg[:] = -1
    key_bins(cnt, hf, hk)
    hsc[H_WHEEL_NEXT] = INF
    x = head
    while x >= 0:
        s, k = node[x, N_SIDE], node[x, N_KEY]
        age = t - node[x, N_TIME]
        young = young0 if s == 0 else young1
        hn[x, HN_C] = 1 if hsc[H_SHAPED0 + s] and hk[1 - s, k, K_LAST] >= node[x, N_TIME] + young else 0
        hn[x, HN_STALE] = 0
        hn[x, HN_BUCKET] = bucket_at(ab, edges, age)
        hprio[x] = tuple_prio(node, cnt, hn, hsc, hf, hk, eg, th, memo, lens, x, hn[x, HN_BUCKET])
        hn[x, HN_DUE] = -1
        schedule(node, cnt, hn, hprio, hk, sg, hsc, hf, eg, th, memo, lens, edges, x)
        x = node[x, N_GNEXT]
    rebuild_tree(node, hprio, htree, hsc, head)


@njit(inline="always")
def refit(hsc, hf, ev, ex, eg, th, ep, memo, whole):
    """HAZARD's model fitted anew (:func:`~shedding.online.hazard.fit` on counts that are ``whole``
    numbers or decayed ones, then the guard's
    :func:`~shedding.online.guard.verdict`) and the priorities of the last one forgotten
    (:func:`~shedding.online.hazardindex.forget_rows`); returns the kind it ranks as now: PROB while
    no side is shaped."""
    fit(hsc, hf, ev, ex, eg, th, ep, whole)
    verdict(hsc)
    forget_rows(hsc, memo)
    return HAZARD if hsc[H_SHAPED0] or hsc[H_SHAPED0 + 1] else PROB
