"""The compiled core of the join engine: one loop over arrival batches.

This implements the fast-CPU integrated window join of Das, Gehrke, Riedewald (SIGMOD 2003),
§2.1, with the shedding policies of §3.3 (PROB §3.3.1, LIFE §3.3.2, RAND §4) and a replay of a
given schedule (for OPT, §3.2), under the exact semantics of DESIGN.md section 1. At every time t:
join the batch with memory and with itself, expire, then admit the batch and evict the
lowest-priority candidates until each memory partition fits.

State is O(M + batch + domain) and lives in plain numpy arrays (the ``State`` tuple below), so the
same code serves the batch simulator, the OPT schedule replay and the Spark streaming job, and the
state can be pickled between micro-batches.

Data structures (all O(1) or O(log D) per arrival):

* a node pool with a doubly-linked list in arrival order (expiry pops its head);
* per class (side, key) a doubly-linked FIFO of its memory tuples: the join count of an arrival
  is the size of the other side's class, and within a class the oldest tuple goes first;
* PROB and LIFE: per side a *kinetic tournament tree* over the classes. A class's priority is
  that of its oldest tuple: ``p`` (PROB) or ``p * remaining lifetime`` (LIFE). LIFE priorities
  fall linearly with time, so each internal node also stores the first time its winner can be
  overtaken (a certificate); advancing the clock recomputes only the nodes whose certificate
  failed. PROB is the same tree with no certificates;
* RAND: per partition a bag with swap-remove and a uniform draw per eviction.

Priorities are compared exactly: counts are whole numbers held in float64, and a comparison
across sides (variable split) cross-multiplies by the other side's total instead of dividing.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

# policy kinds
PROB, LIFE, RAND, SCHEDULE = 0, 1, 2, 3

# node columns
N_SEQ, N_TIME, N_KEY, N_SIDE, N_GPREV, N_GNEXT, N_CPREV, N_CNEXT, N_POS = range(9)
NODE_FIELDS = 9
# class columns
C_HEAD, C_TAIL, C_SIZE = range(3)
# integer scalars
SC_GHEAD, SC_GTAIL, SC_NMEM_R, SC_NMEM_S, SC_BAGN_0, SC_BAGN_1, SC_FREETOP, SC_STEP, SC_LAST_T = range(9)
SC_FIELDS = 9
# integer parameters
P_W, P_M, P_MR, P_MS, P_VARIABLE, P_KIND, P_WARMUP, P_ONLINE, P_LEAVES, P_SHARE_EVERY = range(10)
PRM_FIELDS = 10
# float scalars: side totals of the estimator, decay reference time and log growth per step
F_TOT_R, F_TOT_S, F_TREF, F_LOGG = range(4)
FSC_FIELDS = 4

INF = np.int64(2**62)
_RESCALE_AT = 1e100

# errors returned by ``process``
ERR_NONE, ERR_SCHEDULE_OVERFULL = 0, 1


# ---------------------------------------------------------------- priorities and order


@njit(cache=True, inline="always")
def _weight(cnt, side, k):
    """Unnormalized PROB priority of class (side, k): the other side's count of key k."""
    return cnt[1 - side, k]


@njit(cache=True, inline="always")
def _class_before(st, side, ci, cj, t):
    """True if the head of class ci is dropped before the head of class cj (same side)."""
    node, cls, cnt, prm = st[0], st[1], st[2], st[12]
    if ci < 0:
        return False
    if cj < 0:
        return True
    hi = cls[side, ci, C_HEAD]
    hj = cls[side, cj, C_HEAD]
    vi = _weight(cnt, side, ci)
    vj = _weight(cnt, side, cj)
    if prm[P_KIND] == LIFE:
        w = prm[P_W]
        vi = vi * (node[hi, N_TIME] + w - 1 - t)
        vj = vj * (node[hj, N_TIME] + w - 1 - t)
    if vi != vj:
        return vi < vj
    if node[hi, N_TIME] != node[hj, N_TIME]:
        return node[hi, N_TIME] < node[hj, N_TIME]
    return node[hi, N_SEQ] < node[hj, N_SEQ]


@njit(cache=True, inline="always")
def _crossing(st, side, win_c, lose_c, t):
    """LIFE: an early bound on the first time > t at which ``lose_c`` may overtake ``win_c``.

    Priorities are ``c * (L - t)``; the loser can only catch up if its count is larger. Returning
    an early time is safe (the node is recomputed then); a late one would not be.
    """
    node, cls, cnt, prm = st[0], st[1], st[2], st[12]
    cw = _weight(cnt, side, win_c)
    cl = _weight(cnt, side, lose_c)
    if cl <= cw:
        return INF
    w = prm[P_W]
    lw = node[cls[side, win_c, C_HEAD], N_TIME] + w - 1
    ll = node[cls[side, lose_c, C_HEAD], N_TIME] + w - 1
    t0 = (cl * ll - cw * lw) / (cl - cw)
    if not (t0 < 4e18):
        return INF
    tc = np.int64(math.floor(t0))
    if tc <= t:
        return t + 1
    return tc


@njit(cache=True, inline="always")
def _recompute(st, side, n, t):
    win, cert, prm = st[4], st[5], st[12]
    a = win[side, 2 * n]
    b = win[side, 2 * n + 1]
    if _class_before(st, side, b, a, t):
        w_, l_ = b, a
    else:
        w_, l_ = a, b
    win[side, n] = w_
    c = INF
    if prm[P_KIND] == LIFE and w_ >= 0 and l_ >= 0:
        c = _crossing(st, side, w_, l_, t)
    c = min(c, cert[side, 2 * n], cert[side, 2 * n + 1])
    cert[side, n] = c


@njit(cache=True, inline="always")
def _leaf_update(st, side, k, t):
    cls, win, cert, prm = st[1], st[4], st[5], st[12]
    leaves = prm[P_LEAVES]
    n = leaves + k
    win[side, n] = k if cls[side, k, C_SIZE] > 0 else -1
    cert[side, n] = INF
    n //= 2
    while n >= 1:
        _recompute(st, side, n, t)
        n //= 2


@njit(cache=True, inline="always")
def _advance(st, side, t):
    """Bring the tree of ``side`` to time t: recompute every node whose certificate failed."""
    cert, stack, prm = st[5], st[11], st[12]
    if cert[side, 1] > t:
        return
    leaves = prm[P_LEAVES]
    half = stack.shape[0] // 2
    top = 0
    n_order = 0
    stack[0] = 1
    top = 1
    while top > 0:
        top -= 1
        n = stack[top]
        if n < leaves and cert[side, n] <= t:
            stack[half + n_order] = n
            n_order += 1
            stack[top] = 2 * n
            stack[top + 1] = 2 * n + 1
            top += 2
    for i in range(n_order - 1, -1, -1):
        _recompute(st, side, stack[half + i], t)


@njit(cache=True)
def rebuild_trees(st, t):
    """Recompute both tournament trees from their leaves (after resizing or rescaling)."""
    cls, win, cert, prm = st[1], st[4], st[5], st[12]
    leaves = prm[P_LEAVES]
    n_keys = cls.shape[1]
    for side in range(2):
        for k in range(leaves):
            win[side, leaves + k] = k if (k < n_keys and cls[side, k, C_SIZE] > 0) else -1
            cert[side, leaves + k] = INF
        for n in range(leaves - 1, 0, -1):
            _recompute(st, side, n, t)


@njit(cache=True, inline="always")
def _r_before_s(st, kr, ks, t):
    """Variable split: True if R's candidate (class kr) is dropped before S's (class ks).

    p_S(v) = c_S(v) / N_S against p_R(u) = c_R(u) / N_R, compared by cross-multiplying; equal
    priority and equal time drop the R tuple first (DESIGN.md §1)."""
    node, cls, cnt, fsc, prm = st[0], st[1], st[2], st[3], st[12]
    if kr < 0:
        return False
    if ks < 0:
        return True
    hr = cls[0, kr, C_HEAD]
    hs = cls[1, ks, C_HEAD]
    num_r = _weight(cnt, 0, kr)
    num_s = _weight(cnt, 1, ks)
    if prm[P_KIND] == LIFE:
        w = prm[P_W]
        num_r = num_r * (node[hr, N_TIME] + w - 1 - t)
        num_s = num_s * (node[hs, N_TIME] + w - 1 - t)
    den_r = fsc[F_TOT_S]
    den_s = fsc[F_TOT_R]
    if den_r <= 0.0:
        num_r, den_r = 0.0, 1.0
    if den_s <= 0.0:
        num_s, den_s = 0.0, 1.0
    lhs = num_r * den_s
    rhs = num_s * den_r
    if lhs != rhs:
        return lhs < rhs
    if node[hr, N_TIME] != node[hs, N_TIME]:
        return node[hr, N_TIME] < node[hs, N_TIME]
    return True


# ---------------------------------------------------------------- memory operations


@njit(cache=True, inline="always")
def _insert(st, x_seq, x_time, x_key, x_side, t):
    """Put an arrival into memory as a candidate (it may be evicted in the same step)."""
    node, cls, bag, sc, free, prm = st[0], st[1], st[6], st[7], st[8], st[12]
    top = sc[SC_FREETOP] - 1
    x = free[top]
    sc[SC_FREETOP] = top
    node[x, N_SEQ] = x_seq
    node[x, N_TIME] = x_time
    node[x, N_KEY] = x_key
    node[x, N_SIDE] = x_side
    # global arrival-order list
    tail = sc[SC_GTAIL]
    node[x, N_GPREV] = tail
    node[x, N_GNEXT] = -1
    if tail >= 0:
        node[tail, N_GNEXT] = x
    else:
        sc[SC_GHEAD] = x
    sc[SC_GTAIL] = x
    # class FIFO
    ctail = cls[x_side, x_key, C_TAIL]
    node[x, N_CPREV] = ctail
    node[x, N_CNEXT] = -1
    if ctail >= 0:
        node[ctail, N_CNEXT] = x
    else:
        cls[x_side, x_key, C_HEAD] = x
    cls[x_side, x_key, C_TAIL] = x
    cls[x_side, x_key, C_SIZE] += 1
    sc[SC_NMEM_R + x_side] += 1
    kind = prm[P_KIND]
    if kind == RAND:
        part = 0 if prm[P_VARIABLE] else x_side
        pos = sc[SC_BAGN_0 + part]
        bag[part, pos] = x
        node[x, N_POS] = pos
        sc[SC_BAGN_0 + part] = pos + 1
    elif (kind == PROB or kind == LIFE) and ctail < 0:
        _leaf_update(st, x_side, x_key, t)


@njit(cache=True, inline="always")
def _remove(st, x, t):
    """Take node x out of memory (expiry or eviction) and free it."""
    node, cls, bag, sc, free, prm = st[0], st[1], st[6], st[7], st[8], st[12]
    side = node[x, N_SIDE]
    k = node[x, N_KEY]
    gp, gn = node[x, N_GPREV], node[x, N_GNEXT]
    if gp >= 0:
        node[gp, N_GNEXT] = gn
    else:
        sc[SC_GHEAD] = gn
    if gn >= 0:
        node[gn, N_GPREV] = gp
    else:
        sc[SC_GTAIL] = gp
    cp, cn = node[x, N_CPREV], node[x, N_CNEXT]
    if cp >= 0:
        node[cp, N_CNEXT] = cn
    else:
        cls[side, k, C_HEAD] = cn
    if cn >= 0:
        node[cn, N_CPREV] = cp
    else:
        cls[side, k, C_TAIL] = cp
    cls[side, k, C_SIZE] -= 1
    sc[SC_NMEM_R + side] -= 1
    kind = prm[P_KIND]
    if kind == RAND:
        part = 0 if prm[P_VARIABLE] else side
        last = sc[SC_BAGN_0 + part] - 1
        pos = node[x, N_POS]
        moved = bag[part, last]
        bag[part, pos] = moved
        node[moved, N_POS] = pos
        sc[SC_BAGN_0 + part] = last
    elif (kind == PROB or kind == LIFE) and cp < 0:
        _leaf_update(st, side, k, t)
    free[sc[SC_FREETOP]] = x
    sc[SC_FREETOP] += 1


@njit(cache=True, inline="always")
def _depart(st, x, left, admitted, dep, n_dep, t):
    """Record a departure (seq, left, admitted) and remove the node."""
    if dep.shape[0] > 0:
        dep[n_dep, 0] = st[0][x, N_SEQ]
        dep[n_dep, 1] = left
        dep[n_dep, 2] = admitted
    _remove(st, x, t)
    return n_dep + 1


@njit(cache=True, inline="always")
def _expire(st, limit, dep, n_dep, t):
    """Expire every memory tuple whose window ends at or before ``limit`` (oldest first)."""
    node, sc, prm = st[0], st[7], st[12]
    w = prm[P_W]
    while sc[SC_GHEAD] >= 0:
        x = sc[SC_GHEAD]
        end = node[x, N_TIME] + w - 1
        if end > limit:
            break
        n_dep = _depart(st, x, end, 1, dep, n_dep, t)
    return n_dep


@njit(cache=True, inline="always")
def _count(st, side, k, inc, t):
    """Online estimator: one more arrival of key k on ``side``; its weight moves the other
    side's class (side', k)."""
    cls, cnt, fsc, prm = st[1], st[2], st[3], st[12]
    cnt[side, k] += inc
    fsc[F_TOT_R + side] += inc
    kind = prm[P_KIND]
    if (kind == PROB or kind == LIFE) and cls[1 - side, k, C_SIZE] > 0:
        _leaf_update(st, 1 - side, k, t)


@njit(cache=True, inline="always")
def _decay_increment(st, t):
    """Weight of an arrival at time t under exponential decay, kept as growing increments so
    that old counts need no update; rescaled (and trees rebuilt) before overflow."""
    cnt, fsc = st[2], st[3]
    logg = fsc[F_LOGG]
    if logg == 0.0:
        return 1.0
    inc = math.exp(logg * (t - fsc[F_TREF]))
    if inc > _RESCALE_AT:
        for s in range(2):
            for k in range(cnt.shape[1]):
                cnt[s, k] /= inc
            fsc[F_TOT_R + s] /= inc
        fsc[F_TREF] = t
        rebuild_trees(st, t)
        inc = 1.0
    return inc


@njit(cache=True, inline="always")
def _pick_victim(st, part, t, u):
    """The memory node to drop next from partition ``part`` (a side, or 0 = all when variable)."""
    cls, win, bag, sc, prm = st[1], st[4], st[6], st[7], st[12]
    kind = prm[P_KIND]
    if kind == RAND:
        n = sc[SC_BAGN_0 + part]
        i = min(np.int64(u * n), n - 1)
        return bag[part, i]
    if prm[P_VARIABLE]:
        kr = win[0, 1]
        ks = win[1, 1]
        if _r_before_s(st, kr, ks, t):
            return cls[0, kr, C_HEAD]
        return cls[1, ks, C_HEAD]
    k = win[part, 1]
    return cls[part, k, C_HEAD]


# ---------------------------------------------------------------- the loop


@njit(cache=True)
def process(st, side, time, key, seq, draws, sched_left, sched_base, produced, dep, share, pairs):
    """Run the join over a feed of arrivals sorted by time (whole batches only).

    ``side, time, key, seq``: the arrivals (key already mapped to class ids, seq = global tuple
    number). ``draws``: one uniform number per arrival (RAND; the j-th eviction of a step uses the
    j-th draw of that step's batch). ``sched_left``: for SCHEDULE, the scheduled left time of tuple
    ``seq`` at index ``seq - sched_base`` (-1 = not admitted). Outputs, when the arrays are
    non-empty: ``produced[i]`` join results of arrival i when it arrived; ``dep`` rows
    (seq, left, admitted) per departure; ``share`` rows (t, R tuples, S tuples) after admission;
    ``pairs`` rows (r seq, s seq) of counted outputs (grown as needed).

    Returns (outputs, departures, share rows, pair rows, pairs array, error code).
    """
    node, cls, cnt, fsc, bag, sc, bcnt, bhead, bnext, prm = (
        st[0], st[1], st[2], st[3], st[6], st[7], st[9], st[10], st[13], st[12])
    w = prm[P_W]
    warmup = prm[P_WARMUP]
    kind = prm[P_KIND]
    variable = prm[P_VARIABLE]
    online = prm[P_ONLINE]
    share_every = prm[P_SHARE_EVERY]
    want_pairs = pairs.shape[0] > 0
    record = produced.shape[0] > 0
    n = time.shape[0]
    outputs = np.int64(0)
    n_dep = 0
    n_share = 0
    n_pairs = 0
    i = 0
    while i < n:
        t = time[i]
        j = i
        while j < n and time[j] == t:
            j += 1
        # (0) tuples whose window ended between batches
        n_dep = _expire(st, t - 1, dep, n_dep, t)
        # (1) join: memory of the other side, and the other side's arrivals in this batch
        for x in range(i, j):
            s_, k = side[x], key[x]
            bcnt[s_, k] += 1
            bnext[x - i] = bhead[s_, k]
            bhead[s_, k] = x
        for x in range(i, j):
            s_, k = side[x], key[x]
            o = 1 - s_
            m = cls[o, k, C_SIZE]
            if record:
                produced[x] = m + bcnt[o, k]
            if t >= warmup:
                outputs += m
                if s_ == 1:
                    outputs += bcnt[o, k]
                if want_pairs:
                    need = n_pairs + m + (bcnt[o, k] if s_ == 1 else 0)
                    if need > pairs.shape[0]:
                        grown = np.empty((max(need, 2 * pairs.shape[0]), 2), dtype=np.int64)
                        grown[:n_pairs] = pairs[:n_pairs]
                        pairs = grown
                    y = cls[o, k, C_HEAD]
                    while y >= 0:
                        a_seq = node[y, N_SEQ]
                        if s_ == 1:
                            pairs[n_pairs, 0] = a_seq
                            pairs[n_pairs, 1] = seq[x]
                        else:
                            pairs[n_pairs, 0] = seq[x]
                            pairs[n_pairs, 1] = a_seq
                        n_pairs += 1
                        y = node[y, N_CNEXT]
                    if s_ == 1:
                        y = bhead[o, k]
                        while y >= 0:
                            pairs[n_pairs, 0] = seq[y]
                            pairs[n_pairs, 1] = seq[x]
                            n_pairs += 1
                            y = bnext[y - i]
        for x in range(i, j):
            bcnt[side[x], key[x]] = 0
            bhead[side[x], key[x]] = -1
        # the online estimator learns this batch before deciding what to keep
        if online:
            inc = _decay_increment(st, t)
            for x in range(i, j):
                _count(st, side[x], key[x], inc, t)
        # (2) expire what cannot meet a future arrival
        n_dep = _expire(st, t, dep, n_dep, t)
        # (3) admit the batch, then evict down to the budget
        for x in range(i, j):
            if t + w - 1 <= t:
                if dep.shape[0] > 0:
                    dep[n_dep, 0] = seq[x]
                    dep[n_dep, 1] = t
                    dep[n_dep, 2] = 0
                n_dep += 1
            else:
                _insert(st, seq[x], t, key[x], side[x], t)
        if kind == SCHEDULE:
            y = sc[SC_GHEAD]
            while y >= 0:
                nxt = node[y, N_GNEXT]
                lt = sched_left[node[y, N_SEQ] - sched_base]
                if lt <= t:
                    n_dep = _depart(st, y, t, 1 if node[y, N_TIME] < t else 0, dep, n_dep, t)
                y = nxt
            if variable:
                if sc[SC_NMEM_R] + sc[SC_NMEM_S] > prm[P_M]:
                    return outputs, n_dep, n_share, n_pairs, pairs, ERR_SCHEDULE_OVERFULL
            elif sc[SC_NMEM_R] > prm[P_MR] or sc[SC_NMEM_S] > prm[P_MS]:
                return outputs, n_dep, n_share, n_pairs, pairs, ERR_SCHEDULE_OVERFULL
        else:
            if kind != RAND:
                _advance(st, 0, t)
                _advance(st, 1, t)
            d = i
            if variable:
                while sc[SC_NMEM_R] + sc[SC_NMEM_S] > prm[P_M]:
                    v = _pick_victim(st, 0, t, draws[min(d, n - 1)])
                    d += 1
                    n_dep = _depart(st, v, t, 1 if node[v, N_TIME] < t else 0, dep, n_dep, t)
            else:
                for part in range(2):
                    budget = prm[P_MR + part]
                    while sc[SC_NMEM_R + part] > budget:
                        v = _pick_victim(st, part, t, draws[min(d, n - 1)])
                        d += 1
                        n_dep = _depart(st, v, t, 1 if node[v, N_TIME] < t else 0, dep, n_dep, t)
        if share.shape[0] > 0 and sc[SC_STEP] % share_every == 0:
            share[n_share, 0] = t
            share[n_share, 1] = sc[SC_NMEM_R]
            share[n_share, 2] = sc[SC_NMEM_S]
            n_share += 1
        sc[SC_STEP] += 1
        sc[SC_LAST_T] = t
        i = j
    return outputs, n_dep, n_share, n_pairs, pairs, ERR_NONE


@njit(cache=True)
def flush(st, dep):
    """End of stream: every tuple still in memory is kept until it expires."""
    node, sc, prm = st[0], st[7], st[12]
    w = prm[P_W]
    n_dep = 0
    while sc[SC_GHEAD] >= 0:
        x = sc[SC_GHEAD]
        n_dep = _depart(st, x, node[x, N_TIME] + w - 1, 1, dep, n_dep, sc[SC_LAST_T])
    return n_dep
