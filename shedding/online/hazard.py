"""HAZARD's learner: how a tuple's chance of meeting future partners depends on its age, whether
it has met one yet, its key's frequency and (optionally) a payload group, learned online from a
sample of the stream that the policy cannot bias.

The model. A tuple of side s and payload group g that has (c = 1) or has not (c = 0) met a partner
yet meets partners, while it is held in age bucket j, at the rate

    lambda = e[s, g, c, j] + theta[s, c, j] * beta(key)

per step. beta(key) is the other side's arrivals of the key per step (PROB's partner probability
of Das, Gehrke, Riedewald 2003, §3.3.1, times the other side's arrival rate); e is a
key-independent age curve, the age-based model of Srivastava and Widom (VLDB 2004), in which a
tuple's partners come at a typical age (a bid after its auction, an arrival after its departure).
On i.i.d. streams e = 0 and theta = 1: the rate is beta, PROB's order.

The shadow sample. Every ``sample``-th arrival of a side (up to ``capacity`` at once) is followed
through its whole window as if it were kept: each partner it meets is an *event* in the cell
(s, g, c, j, q) of its state just before (q: the bin of beta when the tuple arrived), and each
step it lives is a unit of *exposure* in its cell. Only the window censors the sample, never the
policy, so the estimates do not depend on what the policy kept (learning from memory alone never
sees the ages it stops keeping). Events and exposure are whole numbers.

The fit, at every refit. Per side and (c, j), EM splits the events between the two components of
the Poisson rate (pooled over groups), theta shrunk towards 1; a group's curve is then its own
events attributed to e, shrunk towards the pooled curve by ``kappa`` steps of pseudo-exposure.
The model test: the shaped model is used for a side only if its deviance against the flat model
lambda = e0 + theta0 * beta (which ranks exactly as PROB; fitted to its maximum, so that EM's
unfinished steps are not taken for a shape) beats a BIC penalty, both measured in
distinct other-side arrivals (one arrival can be an event for many sampled tuples of its key, so
raw event counts overstate the evidence). Otherwise the side ranks as PROB does.

The index. From its state, a tuple's expected partners per future bucket follow from the rates
(an unmatched tuple meets its first partner at the c = 0 rate and, within the bucket of that first
partner, continues at the c = 1 rate; the partners it would meet matched in later buckets are left
out, as its priority is recomputed at c = 1 once it matches: counting them cost output on drifting
and bursty streams in the beyond-i.i.d. study);
its priority is the best mean rate over a horizon, max over bucket ends n of (expected partners
in buckets j..n) / (their steps): the rate itself when rates are flat, and AGE's preference for
tuples nearing the age of their partner when they are not (a Gittins-like index of a memory slot
rented per step). It is computed a row at a time, every age bucket of a state and beta bin at once,
when the row is first asked for after a refit, and kept until the next
(:mod:`~shedding.online.hazardindex`).
"""

from __future__ import annotations

import math

import numpy as np

from shedding.errors import ShedError
from shedding.jit import njit
from shedding.online.agedlayout import (GROUP_BITS, HF_DEV0, HF_EVIDENCE, HF_FAC0, HF_KAPPA, HF_KEPT0, HF_PEN0,
                                        H_DISTINCT0, H_EVENTS0, H_GOFF0, H_GROUPS, H_ITERS, H_NB, H_NCAND, H_NG, H_PICK0, H_REFITS,
                                        H_RHEAD0, H_RN0, H_SAMPLE0, H_SEEN0, H_SHAPED0, H_TEST, K_Q, K_SHEAD, K_STAIL,
                                        SH_ACC, SH_FIRST, SH_GROUP, SH_KEY, SH_NEXT, SH_Q, SH_TIME, SH_VM0, SH_VM1)
from shedding.online.agebuckets import bucket_at
from shedding.online.exposure import close_whole

#: beta bins: 0 for beta = 0, then one per octave (statistics) or a quarter octave (priorities)
#: from 2^-16 arrivals per step up, the last one open-ended
LOG2_LO = -16.0
Q_STATS, Q_STATS_OCTAVE = 20, 1.0
Q_PRIO, Q_PRIO_OCTAVE = 74, 4.0
#: floors that keep both EM components alive (EM cannot leave 0), and theta's prior weight as a
#: share of a cell's beta-weighted exposure
_ALIVE, THETA_PRIOR = 0.05, 0.05
#: the flat model's EM runs to its maximum (relative steps below ``_FLAT_TOL``, at most
#: ``_FLAT_ITERS`` steps): one cell of beta bins, cheap at every refit
_FLAT_ITERS, _FLAT_TOL = 1000, 1e-9
#: the most age buckets over a window: HAZARD's statistics grow with them (a million buckets, as
#: first=1, ratio=1 make over a window of a million steps, took 3 GB for a stream of 6,000 tuples)
MAX_BUCKETS = 4096


def age_buckets(window: int, first: int = 8, ratio: float = 1.3) -> np.ndarray:
    """Bucket edges 0 = e_0 < e_1 < ... < e_B = max(w - 1, 1) over a tuple's ages in memory
    (bucket j holds the ages e_j .. e_(j+1) - 1): ``first`` ages wide, each next ``ratio`` times
    wider. More than :data:`MAX_BUCKETS` are refused, naming ``tuning``."""
    end = max(window - 1, 1)
    edges, width = [0], float(first)
    while edges[-1] < end:
        if len(edges) > MAX_BUCKETS:
            raise ShedError(f"{{param}} first={first}, ratio={ratio:g} cut the window of {window} steps into more than "
                            f"{MAX_BUCKETS:,} age buckets; raise first or ratio", param="tuning")
        edges.append(min(end, edges[-1] + max(1, round(width))))
        width *= ratio
    return np.array(edges, dtype=np.int64)


#: the quarter-octave steps within an octave: 2^(1/4), 2^(1/2), 2^(3/4)
_QUARTERS = (2.0 ** 0.25, 2.0 ** 0.5, 2.0 ** 0.75)


@njit(_nrt=False)
def beta_bin(beta, per_octave, bins):
    """The bin of beta: 0 for beta = 0, else 1 + its octave (times ``per_octave``, 1 or 4) above
    2^-16, that is 1 + floor((log2(beta) + 16) * per_octave). From beta's binary exponent and, for
    quarter octaves, three comparisons of its mantissa: a log2 per call was 3-5% of HAZARD's time
    (one per arrival)."""
    if not beta > 0.0:
        return 0
    m, e = math.frexp(beta)  # beta = 2m * 2^(e - 1) with 1 <= 2m < 2
    q = 1 + int(per_octave) * (e - 1 - int(LOG2_LO))
    if per_octave == Q_PRIO_OCTAVE:
        x = 2.0 * m
        q += (1 if x >= _QUARTERS[0] else 0) + (1 if x >= _QUARTERS[1] else 0) + (1 if x >= _QUARTERS[2] else 0)
    return min(max(q, 1), bins - 1)


@njit(_nrt=False)
def bin_beta(q, per_octave):
    """The beta a bin stands for: its geometric centre (0 for bin 0)."""
    if q == 0:
        return 0.0
    return 2.0 ** (LOG2_LO + (q - 0.5) / per_octave)


@njit
def stats_betas():
    """The beta each statistics bin stands for (:func:`bin_beta`), as the fits and the scores of
    their candidates take them."""
    betas = np.empty(Q_STATS)
    for q in range(Q_STATS):
        betas[q] = bin_beta(q, Q_STATS_OCTAVE)
    return betas


@njit(_nrt=False)
def key_bin(cnt, hf, hk, s, k):
    """Keep the priority bin of key k's beta for side s (after its count or the factor moved)."""
    hk[s, k, K_Q] = beta_bin(cnt[1 - s, k] * hf[HF_FAC0 + 1 - s], Q_PRIO_OCTAVE, Q_PRIO)


@njit(_nrt=False)
def key_bins(cnt, hf, hk):
    """Every key's priority bins (after a refit or a rescale of the counts)."""
    for s in range(2):
        for k in range(hk.shape[1]):
            key_bin(cnt, hf, hk, s, k)


@njit(_nrt=False)
def candidate_group(code, a):
    """Candidate grouping a's group in a tuple's packed ``code`` (``GROUP_BITS`` bits each; with one
    grouping, the code is its group)."""
    return (code >> (GROUP_BITS * a)) & ((1 << GROUP_BITS) - 1)


@njit(_nrt=False)
def picked_group(hsc, s, code):
    """The group side s ranks a tuple by: that of the grouping it picked
    (:mod:`~shedding.online.autogroup`; the one grouping unless ``group="auto"``), 0 without groups."""
    return candidate_group(code, hsc[H_PICK0 + s]) if hsc[H_GROUPS] else 0


# ---------------------------------------------------------------- the shadow sample


@njit(_nrt=False)
def shadow_events(sh, hk, hsc, hf, edges, ev, o, k, t, w, young, end):
    """An arrival of key k on side ``o`` at time t: for every shadow entry of the other side with
    that key that it partners, an event in the cell of the entry's state before it, and a partner
    kept by each of HAZARD's guard's virtual memories that holds it; the entry is matched from then
    on. It partners the entries aged ``young`` to ``end`` (their range, docs/semantics.md "Time
    range": 1 to w - 1 on the window; under a range with lo > 0 an R tuple meets nothing before the
    age lo, and an arrival then is no partner: counted as one, HAZARD learned partners that never
    pair). The entries come oldest first, so the bucket of their ages only goes down along the
    list."""
    s = 1 - o
    e = hk[s, k, K_SHEAD]
    hit = False
    j = edges.shape[0] - 2
    while e >= 0:
        age = t - sh[s, e, SH_TIME]
        if 1 <= age <= w - 1:
            first = sh[s, e, SH_FIRST]
            if young <= age <= end:
                while j > 0 and edges[j] > age - 1:
                    j -= 1
                c = 1 if 1 <= first <= age - 1 else 0
                for a in range(hsc[H_NCAND]):  # one count per candidate grouping, in its block of groups
                    ev[s, hsc[H_GOFF0 + a] + candidate_group(sh[s, e, SH_GROUP], a), c, j, sh[s, e, SH_Q]] += 1
                hsc[H_EVENTS0 + s] += 1
                for order in range(2):
                    if sh[s, e, SH_VM0 + order] >= 0:
                        hf[HF_KEPT0 + 2 * s + order] += 1.0
                hit = True
                if first < 0:
                    sh[s, e, SH_FIRST] = age
        e = sh[s, e, SH_NEXT]
    if hit:
        hsc[H_DISTINCT0 + s] += 1


@njit(_nrt=False)
def _account(sh, hsc, edges, ab, ex, s, e, upto):
    """Add the steps ``SH_ACC .. upto - 1`` of entry e (ages a, each the step to a + 1) to the
    exposure: unmatched before its first partner's age, matched from it on (in each candidate
    grouping's block)."""
    lo = sh[s, e, SH_ACC]
    if upto <= lo:
        return
    first = sh[s, e, SH_FIRST]
    g, q = sh[s, e, SH_GROUP], sh[s, e, SH_Q]
    a = lo
    j = bucket_at(ab, edges, a)
    while a < upto:
        end = min(upto, edges[j + 1])
        c = 1 if 1 <= first <= a else 0
        if c == 0 and 1 <= first < end:
            end = first
        for b in range(hsc[H_NCAND]):
            ex[s, hsc[H_GOFF0 + b] + candidate_group(g, b), c, j, q] += end - a
        a = end
        if a >= edges[j + 1] and j + 2 < edges.shape[0]:
            j += 1
    sh[s, e, SH_ACC] = upto


@njit(_nrt=False)
def shadow_ended(sh, hsc, s, t, w):
    """Whether the oldest open entry of side s has a window that ended before t."""
    return hsc[H_RN0 + s] > 0 and sh[s, hsc[H_RHEAD0 + s], SH_TIME] + w - 1 < t


@njit(_nrt=False)
def shadow_close(sh, hk, hsc, edges, ab, ex, xc, s, w):
    """Close the oldest open entry of side s, whose window ended (its whole exposure is counted: at
    once, :func:`~shedding.online.exposure.close_whole`, when none of it was counted yet)."""
    cap = sh.shape[1]
    e = hsc[H_RHEAD0 + s]
    first = sh[s, e, SH_FIRST]
    if sh[s, e, SH_ACC] == 0 and w - 1 == edges[-1]:
        b = bucket_at(ab, edges, first) if first >= 1 else edges.shape[0] - 1
        for a in range(hsc[H_NCAND]):
            close_whole(edges, ex, xc, s, hsc[H_GOFF0 + a] + candidate_group(sh[s, e, SH_GROUP], a), sh[s, e, SH_Q],
                        first, b)
    else:
        _account(sh, hsc, edges, ab, ex, s, e, w - 1)
    k = sh[s, e, SH_KEY]
    hk[s, k, K_SHEAD] = sh[s, e, SH_NEXT]
    if hk[s, k, K_SHEAD] < 0:
        hk[s, k, K_STAIL] = -1
    hsc[H_RHEAD0 + s] = (e + 1) % cap
    hsc[H_RN0 + s] -= 1


@njit(_nrt=False)
def shadow_add(sh, hk, hsc, s, k, g, beta, t):
    """An arrival of side s, its key's rate ``beta``: every ``sample``-th one joins the sample
    while there is room (in the statistics' bin of beta, binned only then: a log per arrival
    costs HAZARD 3% of its time). Returns the entry it took, -1 for none."""
    seen = hsc[H_SEEN0 + s]
    hsc[H_SEEN0 + s] = seen + 1
    cap = sh.shape[1]
    if seen % hsc[H_SAMPLE0 + s] != 0 or hsc[H_RN0 + s] >= cap:
        return -1
    e = (hsc[H_RHEAD0 + s] + hsc[H_RN0 + s]) % cap
    hsc[H_RN0 + s] += 1
    sh[s, e, SH_TIME], sh[s, e, SH_KEY], sh[s, e, SH_GROUP] = t, k, g
    sh[s, e, SH_Q] = beta_bin(beta, Q_STATS_OCTAVE, Q_STATS)
    sh[s, e, SH_FIRST], sh[s, e, SH_ACC], sh[s, e, SH_NEXT] = -1, 0, -1
    sh[s, e, SH_VM0], sh[s, e, SH_VM1] = -1, -1
    tail = hk[s, k, K_STAIL]
    if tail >= 0:
        sh[s, tail, SH_NEXT] = e
    else:
        hk[s, k, K_SHEAD] = e
    hk[s, k, K_STAIL] = e
    return e


@njit(_nrt=False)
def shadow_account_all(sh, hsc, edges, ab, ex, t, w):
    """Count the exposure the open entries have lived so far (at a refit)."""
    cap = sh.shape[1]
    for s in range(2):
        for i in range(hsc[H_RN0 + s]):
            e = (hsc[H_RHEAD0 + s] + i) % cap
            _account(sh, hsc, edges, ab, ex, s, e, min(t - sh[s, e, SH_TIME], w - 1))


# ---------------------------------------------------------------- the fit


@njit(_nrt=False)
def em_cell(evq, exq, betas, e, th, iters, prior, tol=0.0):
    """EM for lambda_q = e + th * beta_q on one cell's events ``evq`` and exposure ``exq`` per
    beta bin; returns (e, th) with th shrunk towards 1 by ``prior`` of beta-weighted exposure.
    ``iters`` steps, fewer when both move by less than ``tol`` (relative) in a step."""
    n = 0.0
    wsum = 0.0
    events = 0.0
    for q in range(evq.shape[0]):
        n += exq[q]
        wsum += exq[q] * betas[q]
        events += evq[q]
    if n <= 0.0:
        return 0.0, 1.0
    rate = events / n
    e = max(e, _ALIVE * rate)
    th = max(th, _ALIVE)
    for _ in range(iters):
        to_e = 0.0
        to_th = 0.0
        for q in range(evq.shape[0]):
            if evq[q] > 0:
                lam_t = th * betas[q]
                share = e / (e + lam_t) if e + lam_t > 0.0 else 1.0
                to_e += evq[q] * share
                to_th += evq[q] * (1.0 - share)
        e_new = to_e / n
        th_new = (to_th + prior) / (wsum + prior) if wsum + prior > 0.0 else 1.0
        done = abs(e_new - e) <= tol * e and abs(th_new - th) <= tol * th
        e, th = e_new, th_new
        if done:
            break
    return e, th


@njit(_nrt=False)
def _deviance(evq, exq, betas, e1, th1, e0, th0):
    """2 * (log-likelihood of the rates e1 + th1 * beta over e0 + th0 * beta) on one cell."""
    d = 0.0
    for q in range(evq.shape[0]):
        if exq[q] <= 0:
            continue
        l1 = e1 + th1 * betas[q]
        l0 = e0 + th0 * betas[q]
        if evq[q] > 0:
            d += evq[q] * (math.log(max(l1, 1e-300)) - math.log(max(l0, 1e-300)))
        d -= exq[q] * (l1 - l0)
    return 2.0 * d


@njit(_nrt=False)
def pool_groups(ev, ex, s, ng, nb, pev, pex, fev, fex, whole):
    """Side s's events and exposure summed over the payload groups: per (c, j, q) into ``pev``,
    ``pex``, and per beta bin q alone into ``fev``, ``fex`` (the flat model's counts). ``whole``:
    the statistics are whole numbers (the ones that never forget), whose sums are exact in any
    order, so the flat counts are summed from the pooled ones (half the work over the groups); the
    decayed ones are summed group by group, in the order they always were, to the same bits."""
    pev[:] = 0.0
    pex[:] = 0.0
    fev[:] = 0.0
    fex[:] = 0.0
    for g in range(ng):
        for c in range(2):
            for j in range(nb):
                for q in range(Q_STATS):
                    pev[c, j, q] += ev[s, g, c, j, q]
                    pex[c, j, q] += ex[s, g, c, j, q]
                    if not whole:
                        fev[q] += ev[s, g, c, j, q]
                        fex[q] += ex[s, g, c, j, q]
    if whole:
        for c in range(2):
            for j in range(nb):
                for q in range(Q_STATS):
                    fev[q] += pev[c, j, q]
                    fex[q] += pex[c, j, q]


@njit
def fit(hsc, hf, ev, ex, eg, th, ep, whole):
    """Refit the model of both sides from the shadow's counts (see the module docstring): theta
    ``th[s, c, j]``, the pooled curve ``ep[s, c, j]`` (EM starts from the last fit), the groups'
    curves ``eg[s, g, c, j]`` of the first candidate grouping's groups, and whether each side is shaped.
    ``whole``: the counts are whole numbers (:func:`pool_groups`)."""
    nb, ng = hsc[H_NB], hsc[H_GOFF0 + 1]
    iters, kappa = hsc[H_ITERS], hf[HF_KAPPA]
    betas = stats_betas()
    pooled_ev = np.zeros((2, nb, Q_STATS))
    pooled_ex = np.zeros((2, nb, Q_STATS))
    flat_ev = np.zeros(Q_STATS)
    flat_ex = np.zeros(Q_STATS)
    for s in range(2):
        e1 = ep[s]
        pool_groups(ev, ex, s, ng, nb, pooled_ev, pooled_ex, flat_ev, flat_ex, whole)
        wsum = 0.0
        for q in range(Q_STATS):
            wsum += flat_ex[q] * betas[q]
        prior = THETA_PRIOR * wsum / max(2 * nb, 1)
        # the flat model at its maximum: the shaped cells continue from the last fit, and a flat
        # fit stopped after ``iters`` steps would credit the shaped model with EM's unfinished steps
        e0, th0 = em_cell(flat_ev, flat_ex, betas, 0.0, 1.0, _FLAT_ITERS, prior * 2 * nb, _FLAT_TOL)
        dev = 0.0
        for c in range(2):
            for j in range(nb):
                e1[c, j], th[s, c, j] = em_cell(pooled_ev[c, j], pooled_ex[c, j], betas, e1[c, j], th[s, c, j],
                                                 iters, prior)
                dev += _deviance(pooled_ev[c, j], pooled_ex[c, j], betas, e1[c, j], th[s, c, j], e0, th0)
        # the evidence in distinct other-side arrivals (BIC with the effective number of events)
        events, distinct = hsc[H_EVENTS0 + s], max(hsc[H_DISTINCT0 + s], 1)
        design = max(events / distinct, 1.0)
        effective = events / design
        penalty = (4 * nb - 2) * math.log(max(effective, 2.0)) * hf[HF_EVIDENCE]
        hf[HF_DEV0 + s] = dev / design
        hf[HF_PEN0 + s] = penalty
        hsc[H_SHAPED0 + s] = 1 if (hsc[H_TEST] == 0 and events > 0) or dev / design > penalty else 0
        group_curves(ev, ex, s, 0, ng, nb, betas, th, e1, kappa, eg)
    hsc[H_REFITS] += 1


@njit(_nrt=False)
def group_curves(ev, ex, s, base, ng, nb, betas, th, e1, kappa, out):
    """Side s's curve of each group g < ng of the block from ``base`` of the statistics (a
    candidate grouping's, :mod:`~shedding.online.autogroup`) into ``out[s, base + g]``: its events
    attributed to e, shrunk towards the pooled curve ``e1`` by ``kappa`` steps of pseudo-exposure."""
    for g in range(base, base + ng):
        for c in range(2):
            for j in range(nb):
                to_e = 0.0
                n = 0.0
                for q in range(Q_STATS):
                    n += ex[s, g, c, j, q]
                    if ev[s, g, c, j, q] > 0:
                        lam_t = th[s, c, j] * betas[q]
                        total = e1[c, j] + lam_t
                        to_e += ev[s, g, c, j, q] * (e1[c, j] / total if total > 0.0 else 1.0)
                out[s, g, c, j] = (to_e + kappa * e1[c, j]) / (n + kappa) if n + kappa > 0.0 else e1[c, j]


@njit(_nrt=False)
def pooled_rates(ev, ex, hsc, s, out):
    """Partners per step of side s per bucket, pooled over groups, states and keys: the age
    curve AGE estimates online (``out[j]``)."""
    for j in range(hsc[H_NB]):
        events = 0.0
        steps = 0.0
        for g in range(hsc[H_NG]):
            for c in range(2):
                for q in range(Q_STATS):
                    events += ev[s, g, c, j, q]
                    steps += ex[s, g, c, j, q]
        out[j] = events / steps if steps > 0 else 0.0
