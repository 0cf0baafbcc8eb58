"""The memory structures of the age-aware kinds, AGE and HAZARD: age segments, per-tuple
priorities, their tournament trees and a wheel of the times they fall, compiled for the join
kernel (:mod:`~shedding.online.kernel`).

A tuple's priority under AGE or HAZARD depends on its age, so it changes while the tuple sits in
memory; it stays constant between events whose times are known, and these structures turn each
event into O(log M) work:

* AGE's *age segments*: per side a list of its memory tuples in arrival order within and past
  the hold age. At every step the tuples that reached the next segment's first age are the
  oldest of theirs, so *crossing* pops them from one head and appends them to the next tail;
* HAZARD's *state* of a tuple: its side, key, payload group, whether it met a partner yet
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
  bucket whose priority is below its value gives the time it falls (looked up once per state,
  bucket and beta bin after each refit), and the tuple waits in that time's slot of a per-side
  wheel (a ring of lists, one slot per step of the window). At each step only the slots of the
  steps since the last come due. Most bucket crossings raise the priority (the learned rates
  grow towards the partner's age), and none of those is visited: moving every tuple at every
  bucket edge, as age segments do, was a quarter of HAZARD's time on the flights.

One leaf per tuple, not per class of tuples of one state: on the streams where the age matters a
key has one or two tuples in memory. The next victim and the admission test read these structures
in :mod:`~shedding.online.agevictim`."""


from shedding.jit import njit
from shedding.online.hazard import (H_GROUPS, H_KNOWN, H_LEAVES, H_NSEG0, H_SHAPED0, H_WHEEL_NEXT, HF_FAC0, K_LAST,
                                    K_Q, Q_PRIO_OCTAVE, bin_beta, bucket_of, index, key_bin, shadow_events)
from shedding.online.kinds import AGE, HAZARD
from shedding.online.layout import C_TAIL, INF, N_CPREV, N_GNEXT, N_KEY, N_SEQ, N_SIDE, N_TIME
from shedding.online.order import ties_before

# node columns of the age-aware kinds: the list it is in (AGE: its segment; HAZARD: its wheel slot,
# -1 for none) and its links there, payload group, matched, stale (its priority rose above its
# value in the tree), and HAZARD's bucket of that value and the time its priority falls below it
HN_SEG, HN_SPREV, HN_SNEXT, HN_GROUP, HN_C, HN_STALE, HN_BUCKET, HN_DUE = range(8)
HN_FIELDS = 8
#: the most slots of HAZARD's wheel (one per step of a window up to that; a longer window's lists
#: hold later turns too, passed over until due), so that a shard's state stays small
WHEEL_SLOTS = 1024


def wheel_slots(window: int) -> int:
    """Slots of HAZARD's wheel for a window of w steps: the power of two at or above w, at most
    :data:`WHEEL_SLOTS`."""
    return min(1 << max(0, (max(window, 1) - 1).bit_length()), WHEEL_SLOTS)


# ---------------------------------------------------------------- segment lists


@njit(_nrt=False)
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


@njit(_nrt=False)
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


@njit(_nrt=False)
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


@njit(_nrt=False)
def group_of(hn, hsc, s, x):
    """The payload group HAZARD ranks tuple x by (0 unless side s is shaped and ranked by groups)."""
    return hn[x, HN_GROUP] if hsc[H_SHAPED0 + s] and hsc[H_GROUPS] else 0


@njit(_nrt=False)
def tuple_prio(node, cnt, hn, hsc, hf, hk, eg, th, memo, lens, x, j):
    """The priority of memory tuple x in its present state, in age bucket j."""
    s = node[x, N_SIDE]
    return prio(cnt, hsc, hf, hk, eg, th, memo, lens, s, node[x, N_KEY], group_of(hn, hsc, s, x), hn[x, HN_C], j)


@njit(_nrt=False)
def falls_at(node, cnt, hn, hsc, hf, hk, eg, th, memo, fall, lens, x, j, p):
    """The first age bucket after j in which tuple x's priority (in its present state) is below p,
    the number of buckets if none; with p its priority in bucket j, looked up once per state, bucket
    and beta bin after each refit (``fall``, -1: not yet). A side ranked like PROB never falls."""
    s = node[x, N_SIDE]
    nb = lens.shape[0]
    if hsc[H_SHAPED0 + s] == 0:
        return nb
    k = node[x, N_KEY]
    g, c = group_of(hn, hsc, s, x), hn[x, HN_C]
    q = hk[s, k, K_Q]
    if fall[s, g, c, j, q] >= 0 and p == memo[s, g, c, j, q]:
        return fall[s, g, c, j, q]
    return _falls_scan(cnt, hsc, hf, hk, eg, th, memo, fall, lens, s, k, g, c, j, p)


@njit(_nrt=False)
def _falls_scan(cnt, hsc, hf, hk, eg, th, memo, fall, lens, s, k, g, c, j, p):
    """:func:`falls_at` when ``fall`` does not know it yet: look along the buckets (and remember
    the answer when p is the priority in bucket j)."""
    nb = lens.shape[0]
    b = j + 1
    while b < nb and prio(cnt, hsc, hf, hk, eg, th, memo, lens, s, k, g, c, b) >= p:
        b += 1
    if p == prio(cnt, hsc, hf, hk, eg, th, memo, lens, s, k, g, c, j):
        fall[s, g, c, j, hk[s, k, K_Q]] = b
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
        _seg_unlink(hn, sg, s, x)
        hn[x, HN_DUE] = -1
    if b < edges.shape[0] - 1:
        due = node[x, N_TIME] + edges[b]
        hn[x, HN_DUE] = due
        seg_push(hn, sg, s, due & (sg.shape[1] - 1), x)
        hsc[H_WHEEL_NEXT] = min(hsc[H_WHEEL_NEXT], due)


@njit(_nrt=False)
def schedule(node, cnt, hn, hprio, hk, sg, hsc, hf, eg, th, memo, fall, lens, edges, x):
    """Tuple x, just placed in the tree at its priority in bucket ``HN_BUCKET``, waits in the wheel
    for the first later bucket below it."""
    _schedule(node, hn, sg, hsc, edges, x, falls_at(node, cnt, hn, hsc, hf, hk, eg, th, memo, fall, lens, x,
                                                    hn[x, HN_BUCKET], hprio[x]))


@njit(_nrt=False)
def place(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, fall, lens, edges, x, j, p):
    """Tuple x, in age bucket j, takes its priority p there as its value in the tree now, and
    waits in the wheel for the first later bucket below p."""
    hprio[x] = p
    hn[x, HN_STALE] = 0
    hn[x, HN_BUCKET] = j
    _leaf(node, hprio, htree, hsc, x, True)
    schedule(node, cnt, hn, hprio, hk, sg, hsc, hf, eg, th, memo, fall, lens, edges, x)


@njit(_nrt=False)
def _settle(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, fall, lens, edges, x, j):
    """Tuple x changed its state (matched, or its key's beta bin moved) in age bucket j: a fall of
    its priority goes into the tree now, a raise waits (stale) until x is the minimum; either way
    the wheel learns when it next falls below its value."""
    p = tuple_prio(node, cnt, hn, hsc, hf, hk, eg, th, memo, lens, x, j)
    if p < hprio[x]:
        place(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, fall, lens, edges, x, j, p)
        return
    hn[x, HN_STALE] = 1 if p > hprio[x] else 0
    _schedule(node, hn, sg, hsc, edges, x, falls_at(node, cnt, hn, hsc, hf, hk, eg, th, memo, fall, lens, x, j,
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


# ---------------------------------------------------------------- the kernel's hooks


@njit(_nrt=False)
def insert(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, fall, lens, edges, x, kind):
    """Tuple x entered memory (age 0, not matched; the kernel has set its payload group): AGE's
    first segment, HAZARD's tree at its priority in bucket 0."""
    if kind == AGE:
        seg_push(hn, sg, node[x, N_SIDE], 0, x)
        return
    hn[x, HN_C] = 0
    hn[x, HN_DUE] = -1
    place(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, fall, lens, edges, x, 0,
          tuple_prio(node, cnt, hn, hsc, hf, hk, eg, th, memo, lens, x, 0))


@njit(_nrt=False)
def remove(node, hn, hprio, htree, sg, hsc, x, kind):
    """Tuple x left memory."""
    if kind == AGE:
        _seg_unlink(hn, sg, node[x, N_SIDE], x)
        return
    if hn[x, HN_DUE] >= 0:
        _seg_unlink(hn, sg, node[x, N_SIDE], x)
    _leaf(node, hprio, htree, hsc, x, False)


@njit(_nrt=False)
def arrival(node, cls, cnt, hn, hprio, htree, hk, sg, sh, hsc, hf, edges, ev, eg, th, memo, fall, lens, o, k, t,
            last, w, rank):
    """An arrival of key k on side o at time t (after the estimator counted it): the shadow's
    events; while HAZARD ranks by age (``rank``), the other side's tuples of k are matched now, and
    take k's new beta, in the age bucket of the last step (``last``: the buckets move on at this
    step's admission). The key's FIFO (the kernel's key class) holds them in arrival order, and the
    unmatched ones are its youngest, so a beta bin that did not move touches only those."""
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
        _settle(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, fall, lens, edges, x,
                bucket_of(edges, last - node[x, N_TIME]))
        x = node[x, N_CPREV]


@njit(_nrt=False)
def cross(node, hn, sg, segedge, hsc, t, due0, due1):
    """AGE: move every tuple that reached the first age of its next segment (oldest first).

    ``due0``, ``due1``: per side a time no later than its next crossing (0: unknown). A side is
    not looked at before it; after a look it is the first crossing of the segments' heads, which
    only evictions and expiries change, and they can only delay it (arrivals lower it, see
    :func:`due_after_insert`). Returns the two times for the next step."""
    for s in range(2):
        due = due0 if s == 0 else due1
        if t < due:
            continue
        due = INF
        for j in range(hsc[H_NSEG0 + s] - 1):
            edge = segedge[s, j + 1]
            while True:
                x = sg[s, j, 0]
                if x < 0:
                    break
                if t - node[x, N_TIME] < edge:
                    due = min(due, node[x, N_TIME] + edge)
                    break
                _seg_unlink(hn, sg, s, x)
                seg_push(hn, sg, s, j + 1, x)
        if s == 0:
            due0 = due
        else:
            due1 = due
    return due0, due1


@njit(_nrt=False)
def due_after_insert(segedge, hsc, s, t, due):
    """:func:`cross`'s time for side s after an arrival at t entered its first segment."""
    return min(due, t + segedge[s, 1]) if hsc[H_NSEG0 + s] > 1 else due


@njit(_nrt=False)
def _fall(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, fall, lens, edges, x, t):
    """HAZARD: tuple x came due in the wheel by time t: it takes its priority in the bucket it
    fell in, and again in each later one it fell in by t (a step may pass several edges)."""
    while 0 <= hn[x, HN_DUE] <= t:
        j = bucket_of(edges, hn[x, HN_DUE] - node[x, N_TIME])
        place(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, fall, lens, edges, x, j,
              tuple_prio(node, cnt, hn, hsc, hf, hk, eg, th, memo, lens, x, j))


@njit(_nrt=False)
def turn(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, fall, lens, edges, t):
    """HAZARD: the wheel's slots from the first that holds a tuple (``H_WHEEL_NEXT``, no tuple is
    due before it) up to t come due, each slot once at most (a longer window's lists hold later
    turns too); then the next slot that holds a tuple is found for the next step."""
    slots = sg.shape[1]
    first = hsc[H_WHEEL_NEXT]
    for s in range(2):
        for tau in range(first, min(t, first + slots - 1) + 1):
            x = sg[s, tau & (slots - 1), 0]
            while x >= 0:
                nxt = hn[x, HN_SNEXT]
                _fall(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, fall, lens, edges, x, t)
                x = nxt
    hsc[H_WHEEL_NEXT] = INF
    for tau in range(t + 1, t + slots + 1):
        if sg[0, tau & (slots - 1), 0] >= 0 or sg[1, tau & (slots - 1), 0] >= 0:
            hsc[H_WHEEL_NEXT] = tau
            break
