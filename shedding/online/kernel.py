"""The compiled core of the join engine: one loop over arrival batches.

This implements the fast-CPU integrated window join of Das, Gehrke, Riedewald (SIGMOD 2003),
§2.1, with the shedding policies of §3.3 (PROB §3.3.1, LIFE §3.3.2, RAND §4) and a replay of a
given schedule (for OPT, §3.2), under the exact semantics of docs/semantics.md. At every time t:
join the batch with memory and with itself, expire, then admit the batch and evict the
lowest-priority candidates until each memory partition fits.

State is O(M + batch + domain) and lives in plain numpy arrays (a
:class:`~shedding.online.layout.JoinState`), so the same code serves the batch simulator, the OPT
schedule replay and the Spark streaming job, and the state can be pickled between micro-batches.

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

from shedding.jit import njit
from shedding.online import agehooks as A, ageing as AG, hazardmemory as HM
from shedding.online.agedlayout import H_WHEEL_NEXT, HF_FAC0, HN_GROUP
from shedding.online.hazard import key_bins
from shedding.online.order import ties_before
from shedding.online.partners import first_partner, last_partner, partner_ages
# the policy kinds (SURV and DUAL rank like PROB and LIFE, with float values; AGE and HAZARD by age)
from shedding.online.kinds import (  # noqa: F401 (K.PROB, ...)
    AGE, DUAL, HAZARD, LIFE, PROB, RAND, SCHEDULE, SURV, is_age_aware, is_keyed, is_valued)

from shedding.online.layout import (  # noqa: F401 (the layout, for K.N_SEQ, ...)
    C_HEAD, C_HSEQ, C_HTIME, C_SIZE, C_TAIL, CLS_FIELDS, F_ALPHA, F_H0, F_LOGG, F_N0, F_TH0, F_TOT_R, F_TOT_S,
    F_TREF, FSC_FIELDS, INF, N_CNEXT, N_CPREV, N_GNEXT, N_GPREV, N_KEY, N_POS, N_SEQ, N_SIDE, N_TIME,
    NODE_FIELDS, P_HI, P_KIND, P_LEAVES, P_LO, P_M, P_MR, P_MS, P_ONLINE, P_SHARE_EVERY, P_VARIABLE, P_W,
    P_WARMUP, SC_ARR_R, SC_ARR_S, SC_BAGN_0, SC_FIELDS, SC_FREETOP, SC_GHEAD, SC_GTAIL, SC_LAST_T, SC_NMEM_R,
    SC_NMEM_S, SC_RANK, SC_RTAIL, SC_STEP, SC_T0)
# SURV and DUAL re-derive their horizon / price (and rebuild the trees if it moved) at steps 0, 1,
# 2, 4, ..., 2^k, and then every PARAM_EVERY steps (see ``param_step``)
PARAM_EVERY = 256
# tree planes
T_WIN, T_CERT = 0, 1

_RESCALE_AT = 1e100

# what ``process`` returns: done, an error, or a pause for work that allocates (see ``process``)
ERR_NONE, ERR_SCHEDULE_OVERFULL, PAUSE_PAIRS, PAUSE_REFIT, PAUSE_PARAMS = 0, 1, 2, 3, 4
# ``process``'s position: batch start, phase (1: the batch's admission), outputs, departures,
# share rows, pair rows so far, and the pair rows it needs (PAUSE_PAIRS)
POS_I, POS_PHASE, POS_OUT, POS_DEP, POS_SHARE, POS_PAIRS, POS_NEED = range(7)
POS_FIELDS = 7

# The state: ``st`` is a :class:`~shedding.online.layout.JoinState` (its fields, shapes and columns
# are defined there, once) and ``hz`` an :class:`~shedding.online.aged.AgedArrays` (the age-aware
# kinds'). The entry points read both by name; the helpers take the arrays they need, never the
# tuples: a call passes each array as 7 + 2 x ndim words, and a tuple passes all of them
# (tests/online/test_call_names.py checks that every call passes each array to the parameter of its
# name, so that a swap cannot go unnoticed). ``process`` is compiled without reference counting (it
# pauses for the work that allocates).


# ---------------------------------------------------------------- priorities and order


#: the kinds' predicates (:mod:`~shedding.online.kinds`), compiled: which kinds rank the classes in
#: the tournament trees (PROB, LIFE, SURV, DUAL), by float values (SURV, DUAL), by age (AGE, HAZARD)
keyed = njit(_nrt=False)(is_keyed)
valued = njit(_nrt=False)(is_valued)
age_aware = njit(_nrt=False)(is_age_aware)


@njit(_nrt=False)
def batch_end(time, i):
    """End (exclusive) of the arrival batch that starts at index ``i``: the arrivals of one time
    step, which every join here processes together."""
    j = i
    while j < time.shape[0] and time[j] == time[i]:
        j += 1
    return j


@njit(_nrt=False)
def life_end(sc, side, time, split):
    """:func:`last_partner`, read as an R tuple's on the window (``split`` None, as for
    :func:`process`: both sides' tuples live as long), so that the window's code does not look at
    the side."""
    return last_partner(sc, 0 if split is None else side, time)


@njit(_nrt=False)
def remaining(sc, side, time, t, split):
    """The steps after t at which a partner of the tuple (side, time) may still arrive: LIFE's
    remaining lifetime (DGR §3.3.2) over the tuple's remaining range (``time + w - 1 - t`` for the
    window; constant while the range has not begun, then falling by one per step)."""
    if split is None:  # on the window every tuple's range begins before it arrives
        return life_end(sc, side, time, split) - t
    return last_partner(sc, side, time) - max(t, first_partner(sc, side, time) - 1)


@njit(_nrt=False)
def _before(cls, cnt, fsc, sc, side, ci, cj, t, split):
    """True if the head of class ci is dropped before the head of class cj (same side).

    Order: priority (the other side's count of the key, times the remaining lifetime for
    LIFE), then arrival time, then sequence number; -1 is an empty class."""
    if ci < 0:
        return False
    if cj < 0:
        return True
    if valued(sc[P_KIND]):
        vi = _value(cnt, fsc, sc, side, ci, cls[side, ci, C_HTIME], t, split)
        vj = _value(cnt, fsc, sc, side, cj, cls[side, cj, C_HTIME], t, split)
    else:
        vi = cnt[1 - side, ci]
        vj = cnt[1 - side, cj]
    if sc[P_KIND] == LIFE:
        vi = vi * remaining(sc, side, cls[side, ci, C_HTIME], t, split)
        vj = vj * remaining(sc, side, cls[side, cj, C_HTIME], t, split)
    if vi != vj:
        return vi < vj
    if cls[side, ci, C_HTIME] != cls[side, cj, C_HTIME]:
        return cls[side, ci, C_HTIME] < cls[side, cj, C_HTIME]
    return cls[side, ci, C_HSEQ] < cls[side, cj, C_HSEQ]


@njit(_nrt=False)
def _value(cnt, fsc, sc, side, k, htime, t, split):
    """SURV and DUAL: the value of keeping a tuple of class (side, k) that arrived at ``htime``.

    p = the partner probability c_other(k) / N_other (§3.3.1), N_other as of the last parameter
    update (so that the trees stay valid between updates under the online estimator), and rem =
    its remaining lifetime.
    SURV: p * min(rem, H), the results it will still produce while it realistically survives, H
    being the mean residence time in a full partition (Little's law: M_part / arrivals per step).
    DUAL: (p - theta) * rem when p > theta, else p - theta: the surplus over the price theta of a
    memory slot per step (a slot freed now is refilled by a tuple worth theta per step)."""
    n = fsc[F_N0 + 1 - side]
    p = cnt[1 - side, k] / n if n > 0.0 else 0.0
    rem = remaining(sc, side, htime, t, split)
    if sc[P_KIND] == SURV:
        return p * min(float(rem), fsc[F_H0 + (0 if sc[P_VARIABLE] else side)])
    a = p - fsc[F_TH0 + side]
    return a * rem if a > 0.0 else a


@njit(_nrt=False)
def _slope(cnt, fsc, sc, side, k, htime, t, split):
    """(value lost per step from t on, first time > t the slope may change; INF if never)."""
    n = fsc[F_N0 + 1 - side]
    p = cnt[1 - side, k] / n if n > 0.0 else 0.0
    rem = remaining(sc, side, htime, t, split)
    last = life_end(sc, side, htime, split)
    if split is not None and last - t > rem:  # the range has not begun: the value is constant until it does
        return 0.0, first_partner(sc, side, htime) - 1
    if sc[P_KIND] == SURV:
        h = fsc[F_H0 + (0 if sc[P_VARIABLE] else side)]
        if rem > h:  # flat at p * H until rem reaches H
            return 0.0, last - np.int64(math.ceil(h))
        return p, INF
    a = p - fsc[F_TH0 + side]
    return (a, INF) if a > 0.0 else (0.0, INF)


@njit(_nrt=False)
def _value_crossing(cls, cnt, fsc, sc, side, win_c, lose_c, t, split):
    """SURV, DUAL: an early bound on the first time > t at which ``lose_c`` may overtake ``win_c``.

    Values are piecewise linear and non-increasing in t. While both keep their slopes, the loser
    (higher value) reaches the winner only if it falls faster; a change of the loser's slope ends
    the bound (the winner starting to fall only delays a crossing). A relative margin of 1e-9
    absorbs rounding; early is safe (the node is just recomputed)."""
    hw, hl = cls[side, win_c, C_HTIME], cls[side, lose_c, C_HTIME]
    vw = _value(cnt, fsc, sc, side, win_c, hw, t, split)
    vl = _value(cnt, fsc, sc, side, lose_c, hl, t, split)
    aw, _ = _slope(cnt, fsc, sc, side, win_c, hw, t, split)
    al, change = _slope(cnt, fsc, sc, side, lose_c, hl, t, split)
    c = change
    if al > aw:
        tau = (vl - vw) / (al - aw)
        if tau < 4e18:
            c = min(c, t + np.int64(math.floor(tau * (1.0 - 1e-9))))
    return max(c, t + 1)


@njit
def _fluid_price(cnt, fsc, sc, part, t):
    """The fluid price of a memory slot per step for partition ``part`` (a side, or both when
    variable): rank the classes by partner probability p; each class needs c_own(k) / N_own *
    (arrivals per step) * w slots to keep all its tuples to expiry; the price is the p of the
    class at which the partition runs full (0 if everything fits)."""
    steps = max(t - sc[SC_T0] + 1, 1)
    n_keys = cnt.shape[1]
    sides = 2 if sc[P_VARIABLE] else 1
    ps = np.empty(sides * n_keys)
    need = np.empty(sides * n_keys)
    for q in range(sides):
        s = q if sc[P_VARIABLE] else part
        n_own, n_other = fsc[F_TOT_R + s], fsc[F_TOT_R + 1 - s]
        rate = sc[SC_ARR_R + s] / steps
        held = last_partner(sc, s, 0)  # the steps a tuple of side s waits for partners
        w = held + 1 if held > 0 else 0  # (w for the window)
        for k in range(n_keys):
            ps[q * n_keys + k] = cnt[1 - s, k] / n_other if n_other > 0.0 else 0.0
            need[q * n_keys + k] = cnt[s, k] / n_own * rate * w if n_own > 0.0 else 0.0
    cap = sc[P_M] if sc[P_VARIABLE] else sc[P_MR + part]
    order = np.argsort(-ps)
    used = 0.0
    for i in order:
        used += need[i]
        if used > cap:
            return ps[i]
    return 0.0


@njit(_nrt=False)
def param_step(step):
    """Whether SURV and DUAL update their parameters at this step (0, 1, 2, 4, ..., then every
    PARAM_EVERY): often while the rates settle, rarely after."""
    return (step & (step - 1)) == 0 or step % PARAM_EVERY == 0


@njit
def _update_params(node, cls, cnt, fsc, tree, sc, t, split):
    """SURV's horizons and DUAL's prices from the arrival rates seen so far, and the totals both
    divide by, at the steps of :func:`param_step`; the trees are rebuilt when any of them moved."""
    if not param_step(sc[SC_STEP]):
        return
    changed = False
    for s in range(2):
        if fsc[F_N0 + s] != fsc[F_TOT_R + s]:
            fsc[F_N0 + s] = fsc[F_TOT_R + s]
            changed = True
    steps = max(t - sc[SC_T0] + 1, 1)
    for part in range(1 if sc[P_VARIABLE] else 2):
        if sc[P_KIND] == SURV:
            arrivals = sc[SC_ARR_R] + sc[SC_ARR_S] if sc[P_VARIABLE] else sc[SC_ARR_R + part]
            cap = sc[P_M] if sc[P_VARIABLE] else sc[P_MR + part]
            h = math.floor(cap * steps / max(arrivals, 1))
            if h != fsc[F_H0 + part]:
                fsc[F_H0 + part] = h
                changed = True
        else:
            price = fsc[F_ALPHA] * _fluid_price(cnt, fsc, sc, part, t)
            for s in range(2):
                if (sc[P_VARIABLE] or s == part) and price != fsc[F_TH0 + s]:
                    fsc[F_TH0 + s] = price
                    changed = True
    if changed:
        _rebuild(node, cls, cnt, fsc, tree, sc, t, split)


@njit(_nrt=False)
def _crossing(cls, cnt, fsc, sc, side, win_c, lose_c, t, split):
    """LIFE: an early bound on the first time > t at which ``lose_c`` may overtake ``win_c``.

    Priorities are ``c * (L - t)``; the loser can only catch up if its count is larger. An early
    time is safe (the node is just recomputed then); a late one would not be.
    """
    cw = cnt[1 - side, win_c]
    cl = cnt[1 - side, lose_c]
    hw, hl = cls[side, win_c, C_HTIME], cls[side, lose_c, C_HTIME]
    lw, ll = life_end(sc, side, hw, split), life_end(sc, side, hl, split)
    if split is not None:  # a range may not have begun (on the window every one has)
        fl = first_partner(sc, side, hl) - 1  # the loser's value falls from here on
        if fl > t:  # it is constant until then, and the winner's cannot rise
            return fl
        fw = first_partner(sc, side, hw) - 1
        if fw > t:  # the winner is constant at cw * span until fw, the loser falls to it
            if cl <= 0.0:
                return fw
            span = lw - fw
            t0 = ll - cw * span / cl
            return min(fw, max(np.int64(math.floor(t0)), t + 1)) if t0 < 4e18 else fw
    if cl <= cw:
        return INF
    t0 = (cl * ll - cw * lw) / (cl - cw)
    if not (t0 < 4e18):
        return INF
    tc = np.int64(math.floor(t0))
    if tc <= t:
        return t + 1
    return tc


@njit(_nrt=False)
def _recompute(cls, cnt, fsc, tree, sc, side, n, t, split):
    a = tree[T_WIN, side, 2 * n]
    b = tree[T_WIN, side, 2 * n + 1]
    if _before(cls, cnt, fsc, sc, side, b, a, t, split):
        w_, l_ = b, a
    else:
        w_, l_ = a, b
    tree[T_WIN, side, n] = w_
    c = min(tree[T_CERT, side, 2 * n], tree[T_CERT, side, 2 * n + 1])
    if sc[P_KIND] == LIFE and l_ >= 0:
        c = min(c, _crossing(cls, cnt, fsc, sc, side, w_, l_, t, split))
    elif valued(sc[P_KIND]) and l_ >= 0:
        c = min(c, _value_crossing(cls, cnt, fsc, sc, side, w_, l_, t, split))
    tree[T_CERT, side, n] = c


@njit(_nrt=False)
def _leaf_update(node, cls, cnt, fsc, tree, sc, side, k, t, split):
    """Class (side, k) changed its head or its weight: refresh its leaf and the path up."""
    h = cls[side, k, C_HEAD]
    n = sc[P_LEAVES] + k
    if h >= 0:
        cls[side, k, C_HTIME] = node[h, N_TIME]
        cls[side, k, C_HSEQ] = node[h, N_SEQ]
        tree[T_WIN, side, n] = k
    else:
        tree[T_WIN, side, n] = -1
    n //= 2
    while n >= 1:
        _recompute(cls, cnt, fsc, tree, sc, side, n, t, split)
        n //= 2


@njit(_nrt=False)
def _advance(cls, cnt, fsc, tree, stack, sc, side, t, split):
    """Bring the tree of ``side`` to time t: recompute every node whose certificate failed,
    children before parents."""
    if tree[T_CERT, side, 1] > t:
        return
    leaves = sc[P_LEAVES]
    half = stack.shape[0] // 2
    n_order = 0
    stack[0] = 1
    top = 1
    while top > 0:
        top -= 1
        n = stack[top]
        if n < leaves and tree[T_CERT, side, n] <= t:
            stack[half + n_order] = n
            n_order += 1
            stack[top] = 2 * n
            stack[top + 1] = 2 * n + 1
            top += 2
    for i in range(n_order - 1, -1, -1):
        _recompute(cls, cnt, fsc, tree, sc, side, stack[half + i], t, split)


@njit(_nrt=False)
def _rebuild(node, cls, cnt, fsc, tree, sc, t, split):
    leaves = sc[P_LEAVES]
    n_keys = cls.shape[1]
    for side in range(2):
        for k in range(leaves):
            h = cls[side, k, C_HEAD] if k < n_keys else -1
            if h >= 0:
                cls[side, k, C_HTIME] = node[h, N_TIME]
                cls[side, k, C_HSEQ] = node[h, N_SEQ]
            tree[T_WIN, side, leaves + k] = k if h >= 0 else -1
            tree[T_CERT, side, leaves + k] = INF
        for n in range(leaves - 1, 0, -1):
            _recompute(cls, cnt, fsc, tree, sc, side, n, t, split)


@njit
def rebuild_trees(split, st, t):
    """Recompute both tournament trees from their leaves (after resizing or rescaling; ``split``: as
    for :func:`process`)."""
    _rebuild(st.node, st.cls, st.cnt, st.fsc, st.tree, st.sc, t, split)


@njit(_nrt=False)
def tuple_before(cnt, fsc, sc, side_a, key_a, time_a, seq_a, side_b, key_b, time_b, seq_b, t, split):
    """True if tuple a is dropped before tuple b, on any sides (the drop order of the join
    semantics, docs/semantics.md).

    p_S(v) = c_S(v) / N_S for an R tuple, p_R(u) = c_R(u) / N_R for an S tuple (times the
    remaining lifetime for LIFE), compared by cross-multiplying instead of dividing; SURV and DUAL
    compare their float values (:func:`_value`). Then the older tuple first; at equal time the R
    tuple first; then the sequence number."""
    if valued(sc[P_KIND]):
        lhs = _value(cnt, fsc, sc, side_a, key_a, time_a, t, split)
        rhs = _value(cnt, fsc, sc, side_b, key_b, time_b, t, split)
    else:
        num_a = cnt[1 - side_a, key_a]
        num_b = cnt[1 - side_b, key_b]
        if sc[P_KIND] == LIFE:
            num_a = num_a * remaining(sc, side_a, time_a, t, split)
            num_b = num_b * remaining(sc, side_b, time_b, t, split)
        den_a = fsc[F_TOT_R + 1 - side_a]
        den_b = fsc[F_TOT_R + 1 - side_b]
        if den_a <= 0.0:
            num_a, den_a = 0.0, 1.0
        if den_b <= 0.0:
            num_b, den_b = 0.0, 1.0
        lhs = num_a * den_b
        rhs = num_b * den_a
    if lhs != rhs:
        return lhs < rhs
    return ties_before(time_a, side_a, seq_a, time_b, side_b, seq_b)


@njit(_nrt=False)
def _min_candidate(cls, cnt, fsc, tree, sc, part, t, split):
    """(side, class) of the memory tuple to drop next from partition ``part`` (PROB, LIFE);
    side -1 when the partition is empty."""
    if not sc[P_VARIABLE]:
        k = tree[T_WIN, part, 1]
        return (part if k >= 0 else -1), k
    kr = tree[T_WIN, 0, 1]
    ks = tree[T_WIN, 1, 1]
    if kr < 0:
        return (1 if ks >= 0 else -1), ks
    if ks < 0:
        return 0, kr
    if tuple_before(cnt, fsc, sc, 0, kr, cls[0, kr, C_HTIME], cls[0, kr, C_HSEQ],
                     1, ks, cls[1, ks, C_HTIME], cls[1, ks, C_HSEQ], t, split):
        return 0, kr
    return 1, ks


@njit(_nrt=False)
def _displaces(cls, cnt, fsc, tree, sc, part, s, k, t, seq, split):
    """PROB, LIFE, SURV, DUAL: the memory tuple an arrival (side s, key k, sequence number ``seq``)
    displaces from its full partition ``part`` (the head of the lowest class, which the arrival
    ranks above), or -1 when the arrival is dropped itself."""
    ms, mk = _min_candidate(cls, cnt, fsc, tree, sc, part, t, split)
    if ms < 0 or tuple_before(cnt, fsc, sc, s, k, t, seq, ms, mk, cls[ms, mk, C_HTIME], cls[ms, mk, C_HSEQ], t, split):
        return -1
    return cls[ms, mk, C_HEAD]


# ---------------------------------------------------------------- memory operations


@njit(_nrt=False)
def _insert(node, cls, cnt, fsc, tree, bag, free, sc, x_seq, x_time, x_key, x_side, t, split):
    """Put an arrival into memory as a candidate (it may be evicted in the same step); returns its
    node. The age-aware kinds add it to their own structures after (``agehooks.insert``): passing
    their arrays through here would cost every kind a copy of them per call. ``split``: as for
    :func:`process`."""
    top = sc[SC_FREETOP] - 1
    x = free[top]
    sc[SC_FREETOP] = top
    node[x, N_SEQ] = x_seq
    node[x, N_TIME] = x_time
    node[x, N_KEY] = x_key
    node[x, N_SIDE] = x_side
    # the memory list, in arrival order (R tuples first when the sides live for different times)
    if split is not None and x_side == 0:
        prev = sc[SC_RTAIL]
        sc[SC_RTAIL] = x
        nxt = node[prev, N_GNEXT] if prev >= 0 else sc[SC_GHEAD]
    else:  # at the tail
        prev = sc[SC_GTAIL]
        nxt = -1
    node[x, N_GPREV] = prev
    node[x, N_GNEXT] = nxt
    if prev >= 0:
        node[prev, N_GNEXT] = x
    else:
        sc[SC_GHEAD] = x
    if nxt >= 0:
        node[nxt, N_GPREV] = x
    else:
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
    rank = sc[SC_RANK]
    if rank == RAND:
        part = 0 if sc[P_VARIABLE] else x_side
        pos = sc[SC_BAGN_0 + part]
        bag[part, pos] = x
        node[x, N_POS] = pos
        sc[SC_BAGN_0 + part] = pos + 1
    elif keyed(rank):
        if ctail < 0:
            _leaf_update(node, cls, cnt, fsc, tree, sc, x_side, x_key, t, split)
    return x


@njit(_nrt=False)
def _remove(node, cls, cnt, fsc, tree, bag, free, sc, x, t, hn, hprio, htree, sg, hsc, aged, split, walk=True):
    """Take node x out of memory (expiry or eviction) and free it (``aged``, ``split``: as for
    :func:`process`; ``walk`` False: HAZARD's tree keeps x's leaf for the arrival that takes its
    node next, :func:`process`)."""
    side = node[x, N_SIDE]
    k = node[x, N_KEY]
    gp, gn = node[x, N_GPREV], node[x, N_GNEXT]
    if split is not None and x == sc[SC_RTAIL]:
        sc[SC_RTAIL] = gp  # the R tuples come first: gp is an R tuple or none
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
    rank = sc[SC_RANK]
    if rank == RAND:
        part = 0 if sc[P_VARIABLE] else side
        last = sc[SC_BAGN_0 + part] - 1
        pos = node[x, N_POS]
        moved = bag[part, last]
        bag[part, pos] = moved
        node[moved, N_POS] = pos
        sc[SC_BAGN_0 + part] = last
    elif keyed(rank):
        if cp < 0:
            _leaf_update(node, cls, cnt, fsc, tree, sc, side, k, t, split)
    elif aged is not None and age_aware(rank):
        A.remove(node, hn, hprio, htree, sg, hsc, x, rank, walk)
    free[sc[SC_FREETOP]] = x
    sc[SC_FREETOP] += 1


@njit(_nrt=False)
def _depart(node, cls, cnt, fsc, tree, bag, free, sc, x, left, admitted, dep, n_dep, t, hn, hprio, htree, sg,
            hsc, aged, split, walk=True):
    """Record a departure (seq, left, admitted) and remove the node (``walk``: as for :func:`_remove`)."""
    if dep.shape[0] > 0:
        dep[n_dep, 0] = node[x, N_SEQ]
        dep[n_dep, 1] = left
        dep[n_dep, 2] = admitted
    _remove(node, cls, cnt, fsc, tree, bag, free, sc, x, t, hn, hprio, htree, sg, hsc, aged, split, walk)
    return n_dep + 1


@njit(_nrt=False)
def next_expiry(node, sc, split):
    """The memory tuple whose range ends first (then the lower sequence number), -1 if none: the
    head of the memory list, or of its R or S part when the sides live for different times
    (``split``: as for :func:`process`)."""
    x = sc[SC_GHEAD]
    if x < 0 or split is None:
        return x
    r_tail = sc[SC_RTAIL]
    if r_tail < 0:
        return x  # no R tuple: the list is the S part
    y = node[r_tail, N_GNEXT]  # the first S tuple
    if y < 0:
        return x
    ex, ey = last_partner(sc, 0, node[x, N_TIME]), last_partner(sc, 1, node[y, N_TIME])
    if ey < ex or (ey == ex and node[y, N_SEQ] < node[x, N_SEQ]):
        return y
    return x


@njit(_nrt=False)
def _expire(node, cls, cnt, fsc, tree, bag, free, sc, limit, dep, n_dep, t, hn, hprio, htree, sg, hsc, aged,
            split):
    """Expire every memory tuple whose range ends at or before ``limit`` (the earliest end first)."""
    while True:
        x = next_expiry(node, sc, split)
        if x < 0:
            break
        end = life_end(sc, node[x, N_SIDE], node[x, N_TIME], split)
        if end > limit:
            break
        n_dep = _depart(node, cls, cnt, fsc, tree, bag, free, sc, x, end, 1, dep, n_dep, t, hn, hprio, htree, sg, hsc,
                        aged, split)
    return n_dep


@njit(_nrt=False)
def _count(node, cls, cnt, tree, fsc, sc, side, k, inc, t, split):
    """Online estimator: one more arrival of key k on ``side``; its weight moves the other
    side's class (side', k)."""
    cnt[side, k] += inc
    fsc[F_TOT_R + side] += inc
    if keyed(sc[SC_RANK]) and cls[1 - side, k, C_SIZE] > 0:
        _leaf_update(node, cls, cnt, fsc, tree, sc, 1 - side, k, t, split)


@njit(_nrt=False)
def _decay_increment(node, cls, cnt, tree, fsc, sc, t, split):
    """Weight of an arrival at time t under exponential decay, kept as growing increments so
    that old counts need no update; rescaled (and trees rebuilt) before overflow."""
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
        _rebuild(node, cls, cnt, fsc, tree, sc, t, split)
        inc = 1.0
    return inc


@njit(_nrt=False)
def _pick_victim(cls, cnt, fsc, tree, bag, sc, part, t, u, split):
    """The memory node to drop next from partition ``part`` (a side, or 0 = all when variable)."""
    if sc[P_KIND] == RAND:
        n = sc[SC_BAGN_0 + part]
        i = min(np.int64(u * n), n - 1)
        return bag[part, i]
    vs, vk = _min_candidate(cls, cnt, fsc, tree, sc, part, t, split)
    return cls[vs, vk, C_HEAD]


@njit(_nrt=False)
def _over_budget(sc, part, extra):
    """Whether partition ``part`` (0 under the variable split) would hold more than its budget
    with ``extra`` more tuples."""
    if sc[P_VARIABLE]:
        return sc[SC_NMEM_R] + sc[SC_NMEM_S] + extra > sc[P_M]
    return sc[SC_NMEM_R + part] + extra > sc[P_MR + part]


# ---------------------------------------------------------------- the loop


@njit(_nrt=False)
def process(aged, split, st, hz, side, time, key, group, seq, draws, sched_left, dep, share, pairs, pos):
    """Run the join over a feed of arrivals sorted by time (whole batches only).

    ``aged``: True for the age-aware kinds (AGE, HAZARD), None for the others. Its type makes
    numba compile the loop twice, and the one for None without the age-aware work (numba prunes
    the branches on ``aged is not None`` before it types them): compiled together, the other kinds
    ran 6% slower on the flights and the Zipf point (the loop kept the age-aware arrays at hand).
    ``split``: True when the two sides' tuples live for different times (a time range other than
    the symmetric window: :func:`shedding.timerange.lives_apart`), None on the window, whose loop
    numba compiles apart without the range's work: the memory list then holds the R tuples first
    and the S tuples after (each part in arrival order, so in expiry order), and tuples may be too
    young for their range. Compiled together, PROB on the window ran about 4% slower.

    ``hz``: the state of the age-aware kinds (:mod:`~shedding.online.aged`; tiny and unused
    for the others). ``side, time, key, group, seq``: the arrivals (key already mapped to class
    ids, group to payload group ids for HAZARD, seq = global tuple number). ``draws``: one uniform number per arrival (RAND; the j-th eviction of a step uses the
    j-th draw of that step's batch). ``sched_left``: for SCHEDULE, the scheduled left time of
    tuple ``seq``. Outputs, when the arrays are non-empty: ``dep`` rows (seq, left, admitted) per departure; ``share`` rows
    (t, R tuples, S tuples) after admission; ``pairs`` rows (r seq, s seq) of counted outputs.

    Compiled without reference counting, so it allocates nothing: it *pauses* (returns a PAUSE_
    code) when ``pairs`` must grow (to at least ``pos[POS_NEED]`` rows), when the age-aware kinds
    refit and when SURV and DUAL update their parameters; the caller does that and calls again
    with the same ``pos``, which holds where to go on (batch start, phase) and the counts so far
    (outputs, departures, share rows, pair rows). Returns ERR_NONE at the end of the feed.
    """
    node, cls, cnt, tree, bag, free = st.node, st.cls, st.cnt, st.tree, st.bag, st.free
    sc, fsc, bcnt, bhead, bnext, stack = st.sc, st.fsc, st.bcnt, st.bhead, st.bnext, st.stack
    hsc, hf, hn, hprio, htree, hk = hz.hsc, hz.hf, hz.hn, hz.hprio, hz.htree, hz.hk
    sg, segedge, sh, ev, ex, eg = hz.sg, hz.segedge, hz.sh, hz.ev, hz.ex, hz.eg
    th, memo, edges, lens, vm, xc, ab = hz.th, hz.memo, hz.edges, hz.lens, hz.vm, hz.xc, hz.ab
    w = sc[P_W]
    warmup = sc[P_WARMUP]
    kind = sc[P_KIND]
    variable = sc[P_VARIABLE]
    online = sc[P_ONLINE]
    share_every = sc[P_SHARE_EVERY]
    want_pairs = pairs.shape[0] > 0
    same_ok = split is None or sc[P_LO] <= 0 <= sc[P_HI]  # arrivals of one step pair up
    # a memory tuple of side o meets an arrival at t iff its age is young[o] .. end[o]: with
    # young 1 all of memory does (the window); else the last steps' tuples wait for their range
    (young0, end0), (young1, end1) = partner_ages(sc, 0), partner_ages(sc, 1)
    # an arrival that meets no later arrival is never stored (R when hi <= 0, S when lo >= 0)
    lone0, lone1 = end0 <= 0, end1 <= 0
    n = time.shape[0]
    i, phase = pos[POS_I], pos[POS_PHASE]
    outputs, n_dep, n_share, n_pairs = pos[POS_OUT], pos[POS_DEP], pos[POS_SHARE], pos[POS_PAIRS]
    due0 = due1 = 0  # AGE's next segment crossings per side (0: look at the next step)
    while i < n:
        t = time[i]
        j = batch_end(time, i)
        if phase == 0:
            # (0) tuples whose window ended between batches
            n_dep = _expire(node, cls, cnt, fsc, tree, bag, free, sc, t - 1, dep, n_dep, t, hn, hprio, htree, sg, hsc,
                            aged, split)
            # (1) join: memory of the other side, and the other side's arrivals in this batch
            for x in range(i, j):
                s_, k = side[x], key[x]
                bcnt[s_, k] += 1
                bnext[x - i] = bhead[s_, k]
                bhead[s_, k] = x
            if want_pairs and t >= warmup:
                need = n_pairs
                for x in range(i, j):
                    o = 1 - side[x]
                    need += cls[o, key[x], C_SIZE] + (bcnt[o, key[x]] if side[x] == 1 and same_ok else 0)
                if need > pairs.shape[0]:
                    for x in range(i, j):
                        bcnt[side[x], key[x]] = 0
                        bhead[side[x], key[x]] = -1
                    _save(pos, i, 0, outputs, n_dep, n_share, n_pairs)
                    pos[POS_NEED] = need
                    return PAUSE_PAIRS
            for x in range(i, j):
                s_, k = side[x], key[x]
                o = 1 - s_
                m = cls[o, k, C_SIZE]
                if t >= warmup:
                    young = young0 if o == 0 else young1
                    if split is not None and young > 1:  # the newest tuples of the class are too young to meet x
                        y = cls[o, k, C_TAIL]
                        while y >= 0 and node[y, N_TIME] > t - young:
                            m -= 1
                            y = node[y, N_CPREV]
                    same = bcnt[o, k] if s_ == 1 and same_ok else 0  # same-batch pairs count once, from S
                    outputs += m + same
                    if want_pairs:
                        y = cls[o, k, C_HEAD]
                        for _ in range(m):
                            pairs[n_pairs, s_] = seq[x]
                            pairs[n_pairs, o] = node[y, N_SEQ]
                            n_pairs += 1
                            y = node[y, N_CNEXT]
                        if s_ == 1 and same_ok:
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
                tref = fsc[F_TREF]
                inc = _decay_increment(node, cls, cnt, tree, fsc, sc, t, split)
                if aged is not None and fsc[F_TREF] != tref:  # counts rescaled: so is beta's factor
                    for s_ in range(2):
                        hf[HF_FAC0 + s_] *= math.exp(fsc[F_LOGG] * (t - tref))
                    if sc[SC_RANK] == HAZARD:
                        key_bins(cnt, hf, hk)
                for x in range(i, j):
                    _count(node, cls, cnt, tree, fsc, sc, side[x], key[x], inc, t, split)
            # the age-aware kinds: what the arrivals teach the sample and whom they match
            if aged is not None:
                A.begin_step(sh, hk, hsc, edges, ab, ex, xc, vm, t, w)
                for x in range(i, j):  # it partners the other side's tuples of ages young .. their range's end
                    o = 1 - side[x]
                    A.arrival(node, cls, cnt, hn, hprio, htree, hk, sg, sh, hsc, hf, edges, ab, ev, eg, th, memo,
                              lens, side[x], key[x], t, sc[SC_LAST_T], w, young0 if o == 0 else young1,
                              end0 if o == 0 else end1, sc[SC_RANK])
            # (2) expire what cannot meet a future arrival
            n_dep = _expire(node, cls, cnt, fsc, tree, bag, free, sc, t, dep, n_dep, t, hn, hprio, htree, sg, hsc, aged,
                            split)
            if aged is not None:
                A.take_sample(cnt, sh, hk, hsc, hf, vm, edges, ab, eg, th, memo, lens, side, key, group, i, j, t)
                if A.refit_due(hsc):
                    _save(pos, i, 1, outputs, n_dep, n_share, n_pairs)
                    return PAUSE_REFIT
            elif valued(kind):
                for x in range(i, j):
                    sc[SC_ARR_R + side[x]] += 1
                if sc[SC_T0] < 0:
                    sc[SC_T0] = t
                if param_step(sc[SC_STEP]):
                    _save(pos, i, 1, outputs, n_dep, n_share, n_pairs)
                    return PAUSE_PARAMS
        phase = 0
        # (3) admit the batch, then evict down to the budget. For PROB and LIFE the order is
        # fixed during the step, so inserting the arrivals one by one and dropping the minimum
        # each time keeps exactly the top of memory + batch; an arrival that would be the
        # minimum of a full partition is dropped without touching the trees.
        rank = sc[SC_RANK]
        if aged is not None and rank == AGE:
            due0, due1 = AG.cross(node, hn, sg, segedge, hsc, t, due0, due1)
        elif aged is not None and rank == HAZARD and hsc[H_WHEEL_NEXT] <= t:
            HM.turn(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, lens, edges, ab, t)
        ranked = rank != RAND and rank != SCHEDULE
        if keyed(rank):
            _advance(cls, cnt, fsc, tree, stack, sc, 0, t, split)
            _advance(cls, cnt, fsc, tree, stack, sc, 1, t, split)
        for x in range(i, j):
            s_ = side[x]
            part = 0 if variable else s_
            loses = lone0 if split is None or s_ == 0 else lone1
            v = -1  # the partition's minimum, when it is full
            if not loses and ranked and _over_budget(sc, part, 1):
                if aged is not None and age_aware(rank):
                    v = A.victim(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, lens, edges, ab, sc,
                                 part, t, rank)
                    loses = v < 0 or A.loses(node, cnt, hn, hprio, hk, hsc, hf, eg, th, memo, lens, sc, v, s_,
                                             key[x], group[x], t, seq[x], rank)
                else:
                    v = _displaces(cls, cnt, fsc, tree, sc, part, s_, key[x], t, seq[x], split)
                    loses = v < 0
            if loses:
                if dep.shape[0] > 0:
                    dep[n_dep, 0] = seq[x]
                    dep[n_dep, 1] = t
                    dep[n_dep, 2] = 0
                n_dep += 1
                continue
            # HAZARD: a victim of the arrival's own tree leaves first and the arrival takes its node
            # (the free list is a stack) and its leaf, so one walk up the tree places the one and
            # drops the other (the victim won every node on its path). The same memory, departures
            # and order: the trees compare priorities and then the tie order, never node ids
            handover = aged is not None and rank == HAZARD and v >= 0 and node[v, N_SIDE] == s_
            if handover:
                adm = 1 if node[v, N_TIME] < t else 0
                n_dep = _depart(node, cls, cnt, fsc, tree, bag, free, sc, v, t, adm, dep, n_dep, t, hn, hprio, htree,
                                sg, hsc, aged, split, False)
                v = -1
            y = _insert(node, cls, cnt, fsc, tree, bag, free, sc, seq[x], t, key[x], s_, t, split)
            if aged is not None and kind == HAZARD:  # also while it ranks as PROB: a later refit ranks by it
                hn[y, HN_GROUP] = group[x]
            if aged is not None and age_aware(rank):
                A.insert(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, lens, edges, y, rank)
            if aged is not None and rank == AGE:
                if s_ == 0:
                    due0 = AG.due_after_insert(segedge, hsc, 0, t, due0)
                else:
                    due1 = AG.due_after_insert(segedge, hsc, 1, t, due1)
            if v >= 0:  # the arrival ranks above v, the minimum before it came: v is still the minimum
                adm = 1 if node[v, N_TIME] < t else 0
                n_dep = _depart(node, cls, cnt, fsc, tree, bag, free, sc, v, t, adm, dep, n_dep, t, hn, hprio, htree,
                                sg, hsc, aged, split)
        if rank == SCHEDULE:
            y = sc[SC_GHEAD]
            while y >= 0:
                nxt = node[y, N_GNEXT]
                if sched_left[node[y, N_SEQ]] <= t:
                    adm = 1 if node[y, N_TIME] < t else 0
                    n_dep = _depart(node, cls, cnt, fsc, tree, bag, free, sc, y, t, adm, dep, n_dep, t, hn, hprio,
                                    htree, sg, hsc, aged, split)
                y = nxt
            for part in range(1 if variable else 2):
                if _over_budget(sc, part, 0):
                    return ERR_SCHEDULE_OVERFULL
        elif rank == RAND:
            # uniformly among all candidates: the whole batch is in before the first draw
            d = i
            for part in range(1 if variable else 2):
                while _over_budget(sc, part, 0):
                    v = _pick_victim(cls, cnt, fsc, tree, bag, sc, part, t, draws[min(d, n - 1)], split)
                    d += 1
                    adm = 1 if node[v, N_TIME] < t else 0
                    n_dep = _depart(node, cls, cnt, fsc, tree, bag, free, sc, v, t, adm, dep, n_dep, t, hn, hprio,
                                    htree, sg, hsc, aged, split)
        if share.shape[0] > 0 and sc[SC_STEP] % share_every == 0:
            share[n_share, 0] = t
            share[n_share, 1] = sc[SC_NMEM_R]
            share[n_share, 2] = sc[SC_NMEM_S]
            n_share += 1
        sc[SC_STEP] += 1
        sc[SC_LAST_T] = t
        i = j
    _save(pos, i, 0, outputs, n_dep, n_share, n_pairs)
    return ERR_NONE


@njit(_nrt=False)
def _save(pos, i, phase, outputs, n_dep, n_share, n_pairs):
    """Where :func:`process` goes on (batch start, phase) and its counts so far."""
    pos[POS_I], pos[POS_PHASE] = i, phase
    pos[POS_OUT], pos[POS_DEP], pos[POS_SHARE], pos[POS_PAIRS] = outputs, n_dep, n_share, n_pairs


@njit
def refit_step(split, st, hz, t):
    """:func:`process` paused for a refit of the age-aware kinds at time t (it allocates)."""
    node, cls, cnt, tree, sc, fsc = st.node, st.cls, st.cnt, st.tree, st.sc, st.fsc
    if A.refit(node, cnt, fsc, sc, hz, t, sc[P_KIND]):
        _rebuild(node, cls, cnt, fsc, tree, sc, t, split)  # HAZARD ranks as PROB again


@njit
def params_step(split, st, t):
    """:func:`process` paused for SURV's and DUAL's parameters at time t (they allocate)."""
    node, cls, cnt, tree, sc, fsc = st.node, st.cls, st.cnt, st.tree, st.sc, st.fsc
    _update_params(node, cls, cnt, fsc, tree, sc, t, split)


@njit
def shrink(aged, split, st, hz, draws, dep):
    """Evict down to the budgets, lowered between feeds, at the last processed time t: lowest
    priority first (RAND uniformly, its j-th eviction drawing ``draws[j]``; the age-aware kinds by
    their own victim), so memory holds what the admission at t would have kept under the new
    budgets. ``aged``, ``split``: as for :func:`process`."""
    node, cls, cnt, tree, bag, free = st.node, st.cls, st.cnt, st.tree, st.bag, st.free
    sc, fsc = st.sc, st.fsc
    hsc, hf, hn, hprio, htree, hk = hz.hsc, hz.hf, hz.hn, hz.hprio, hz.htree, hz.hk
    sg, eg, th, memo, edges = hz.sg, hz.eg, hz.th, hz.memo, hz.edges
    lens, ab = hz.lens, hz.ab
    t = sc[SC_LAST_T]
    rank = sc[SC_RANK]
    n_dep = 0
    for part in range(1 if sc[P_VARIABLE] else 2):
        while _over_budget(sc, part, 0):
            if aged is not None and age_aware(rank):
                v = A.victim(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, lens, edges, ab, sc, part,
                             t, rank)
            else:
                v = _pick_victim(cls, cnt, fsc, tree, bag, sc, part, t, draws[n_dep], split)
            adm = 1 if node[v, N_TIME] < t else 0
            n_dep = _depart(node, cls, cnt, fsc, tree, bag, free, sc, v, t, adm, dep, n_dep, t, hn, hprio, htree,
                                sg, hsc, aged, split)
    return n_dep


@njit
def flush(aged, split, st, hz, dep):
    """End of stream: every tuple still in memory is kept until it expires. ``aged``, ``split``: as
    for :func:`process` (so that the other kinds' flush needs none of the age-aware code)."""
    node, cls, cnt, tree, bag, free = st.node, st.cls, st.cnt, st.tree, st.bag, st.free
    sc, fsc = st.sc, st.fsc
    hsc, hn, hprio, htree, sg = hz.hsc, hz.hn, hz.hprio, hz.htree, hz.sg
    n_dep = 0
    while sc[SC_GHEAD] >= 0:
        x = next_expiry(node, sc, split)
        end = life_end(sc, node[x, N_SIDE], node[x, N_TIME], split)
        n_dep = _depart(node, cls, cnt, fsc, tree, bag, free, sc, x, end, 1, dep, n_dep, sc[SC_LAST_T], hn, hprio,
                        htree, sg, hsc, aged, split)
    return n_dep
