"""HAZARD's forgetting, chosen by its guard: a second fit that forgets, judged against the fit of
all arrivals by how well each predicted the shadow sample's next events.

A static table lies when the stream drifts or bursts (Das, Gehrke, Riedewald 2003, §3.3.1 assume
a stationary stream). Beside the learner's statistics of every arrival (events and exposure,
:mod:`~shedding.online.hazard`), the learner keeps *decayed* ones: at each refit the counts since
the last refit are added to them after the older ones were multiplied by 1 - ``forget``
(``--tuning forget``). At each refit, per side, both candidates' pooled fits (age curve and key
factor per matched state and bucket, as :func:`~shedding.online.hazard.fit` pools them) are scored
*prequentially*: the Poisson log-likelihood of the shadow's events and exposure since the last
refit under the rates each candidate fitted *before* them, so no score reads the data it was fitted
on. The gain of the decayed fit over the full one is added to a running sum whose weight halves at
each refit (as the guard's, :mod:`~shedding.online.guard`); the learner fits its model to the
decayed statistics once that sum exceeds :data:`MARGIN` nats, and back to all of them once it falls
below 0. The guard then judges the fit so chosen against PROB's order by the outputs it keeps, as
ever. Without the guard (``guard=false``) the learner always fits the decayed statistics; with
``forget=0`` there is no second fit.

Only arrivals up to the present enter either score: the choice is online.
"""

from __future__ import annotations

import math

import numpy as np

from shedding.jit import njit
from shedding.online.agedlayout import H_FCHOSE, H_FORGOT, H_GUARD, H_ITERS, H_NB, H_NG, HF_FGAIN, HF_FORGET
from shedding.online.hazard import Q_STATS, THETA_PRIOR, em_cell, pool_groups, stats_betas

#: the decayed fit is taken once its running prequential gain exceeds this many nats (a likelihood
#: ratio of e^4), and left once the gain falls below 0
MARGIN = 4.0
#: the weight of the past gains at each new one (and of the candidate groupings' past scores,
#: :mod:`~shedding.online.autogroup`)
DECAY = 0.5


@njit(_nrt=False)
def _fold(ev, ex, evd, exd, evl, exl, s, ng, nb, keep, pev, pex):
    """Side s's counts since the last refit (``ev - evl``, ``ex - exl``): summed over the groups
    into ``pev``, ``pex``, added to the decayed statistics after the older ones were multiplied
    by ``keep``; the snapshot ``evl``, ``exl`` then holds the counts now."""
    pev[:] = 0.0
    pex[:] = 0.0
    for g in range(ng):
        for c in range(2):
            for j in range(nb):
                for q in range(Q_STATS):
                    dv = ev[s, g, c, j, q] - evl[s, g, c, j, q]
                    dx = ex[s, g, c, j, q] - exl[s, g, c, j, q]
                    pev[c, j, q] += dv
                    pex[c, j, q] += dx
                    evd[s, g, c, j, q] = keep * evd[s, g, c, j, q] + dv
                    exd[s, g, c, j, q] = keep * exd[s, g, c, j, q] + dx
                    evl[s, g, c, j, q] = ev[s, g, c, j, q]
                    exl[s, g, c, j, q] = ex[s, g, c, j, q]


@njit(_nrt=False)
def add_loglik(ll, evq, exq, betas, e, th):
    """``ll`` plus the Poisson log-likelihood of one cell's events ``evq`` and exposure ``exq`` per
    beta bin under the rates e + th * beta (the terms that do not depend on the rates left out):
    the prequential score of the fit that forgets (:func:`choose`) and of the candidate
    groupings (:mod:`~shedding.online.autogroup`)."""
    for q in range(evq.shape[0]):
        if exq[q] <= 0.0 and evq[q] <= 0.0:
            continue
        lam = e + th * betas[q]
        if evq[q] > 0.0:
            ll += evq[q] * math.log(max(lam, 1e-300))
        ll -= exq[q] * lam
    return ll



@njit(_nrt=False)
def _score(pev, pex, betas, cf, cand, s, nb):
    """The Poisson log-likelihood of the counts ``pev``, ``pex`` (per (c, j, q)) under candidate
    ``cand``'s rates e + theta * beta of side s (:func:`add_loglik`)."""
    ll = 0.0
    for c in range(2):
        for j in range(nb):
            ll = add_loglik(ll, pev[c, j], pex[c, j], betas, cf[cand, 0, s, c, j], cf[cand, 1, s, c, j])
    return ll


@njit(_nrt=False)
def _fit(pev, pex, betas, cf, cand, s, nb, iters):
    """Candidate ``cand``'s pooled fit of side s (EM from its last one, theta shrunk towards 1 as
    :func:`~shedding.online.hazard.fit` shrinks it)."""
    wsum = 0.0
    for c in range(2):
        for j in range(nb):
            for q in range(Q_STATS):
                wsum += pex[c, j, q] * betas[q]
    prior = THETA_PRIOR * wsum / max(2 * nb, 1)
    for c in range(2):
        for j in range(nb):
            cf[cand, 0, s, c, j], cf[cand, 1, s, c, j] = em_cell(pev[c, j], pex[c, j], betas, cf[cand, 0, s, c, j],
                                                               cf[cand, 1, s, c, j], iters, prior)


@njit
def choose(hsc, hf, ev, ex, evd, exd, evl, exl, cf):
    """At a refit (after the shadow's exposure is counted, before the model's fit): score both
    candidates on the counts since the last refit, fold those counts into the decayed statistics,
    refit both candidates, and decide which statistics the model is fitted to. Returns True for
    the decayed ones (``evd``, ``exd``)."""
    keep = 1.0 - hf[HF_FORGET]
    if keep >= 1.0:
        return False
    nb, ng, iters = hsc[H_NB], hsc[H_NG], hsc[H_ITERS]
    betas = stats_betas()
    pev = np.zeros((2, nb, Q_STATS))
    pex = np.zeros((2, nb, Q_STATS))
    fev = np.zeros(Q_STATS)  # the flat counts pool_groups also sums; the candidates' fits do not use them
    fex = np.zeros(Q_STATS)
    gain = 0.0
    for s in range(2):
        _fold(ev, ex, evd, exd, evl, exl, s, ng, nb, keep, pev, pex)
        gain += _score(pev, pex, betas, cf, 1, s, nb) - _score(pev, pex, betas, cf, 0, s, nb)
        pool_groups(ev, ex, s, ng, nb, pev, pex, fev, fex, True)
        _fit(pev, pex, betas, cf, 0, s, nb, iters)
        pool_groups(evd, exd, s, ng, nb, pev, pex, fev, fex, False)
        _fit(pev, pex, betas, cf, 1, s, nb, iters)
    hf[HF_FGAIN] = DECAY * hf[HF_FGAIN] + gain
    if hsc[H_GUARD] == 0 or hf[HF_FGAIN] > MARGIN:
        hsc[H_FORGOT] = 1
    elif hf[HF_FGAIN] < 0.0:
        hsc[H_FORGOT] = 0
    count_choice(hsc)
    return hsc[H_FORGOT] == 1


@njit(_nrt=False)
def count_choice(hsc):
    """Count a refit at which the model is fitted to the decayed statistics (at a refit that only
    judges: was, at the last fit)."""
    hsc[H_FCHOSE] += hsc[H_FORGOT]
