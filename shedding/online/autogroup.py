"""HAZARD chooses its own payload group (``group="auto"``): the candidate groupings judged by how
well each predicted the shadow sample's next events, as the fit that forgets is judged.

A payload group helps HAZARD when its tuples' partners come at alike ages (the flights to one
destination), and which column does that is a property of the data the user need not know. With
``group="auto"`` the shadow sample (:mod:`~shedding.online.hazard`) keeps its events and exposure
once per *candidate grouping*: no group, and each payload column of the input with at most
:data:`~shedding.online.groups.MAX_GROUPS` distinct values (at most five, so at most
:data:`~shedding.online.agedlayout.MAX_CANDIDATES` candidates; :func:`shedding.online.groups.auto_columns`
gives the rule). A candidate's statistics are a block of its own groups in the arrays of events and
exposure (from ``H_GOFF0 + a``); pooled over its groups every candidate has the same counts, so the learner's pooled fit
(theta, the pooled curve and the model test, :func:`~shedding.online.hazard.fit`) is one for all of
them, and a candidate is its groups' curves shrunk towards the pooled one
(:func:`~shedding.online.hazard.group_curves`).

At each refit, per side, before the new fit (:func:`score`): each candidate's curves of the last
refit, with the last theta, are scored *prequentially* on the shadow's events and exposure since the
last refit (the Poisson log-likelihood, :func:`~shedding.online.forgetting.add_loglik`, as the fit
that forgets is scored; no score reads the data it was fitted on). Each candidate's running score
halves at each refit before the new one is added, and the side moves from its grouping to the best
one once that one's running score leads by :data:`~shedding.online.forgetting.MARGIN` nats
(hysteresis). After the fit (:func:`curves`) every candidate's curves are fitted anew and the picked
grouping's become the curves HAZARD ranks by; a tuple's group is then that of the picked grouping
(:func:`~shedding.online.hazard.picked_group`). HAZARD's guard (:mod:`~shedding.online.guard`) still
judges the order so fitted against PROB's, as ever. A side starts with no group.

The work is per refit: per arrival only the shadow's events and exposure are counted once per
candidate. Only arrivals up to the present enter a score: the choice is online.
"""

from __future__ import annotations

import numpy as np

from shedding.jit import njit
from shedding.online.agedlayout import (H_GOFF0, H_NB, H_NCAND, H_PICK0, H_PICKN0, HF_ASCORE0, HF_KAPPA,
                                        MAX_CANDIDATES)
from shedding.online.forgetting import DECAY, MARGIN, add_loglik
from shedding.online.hazard import Q_STATS, group_curves, stats_betas


@njit
def score(hsc, hf, ev, ex, evl, exl, ac, th):
    """At a refit, before the new fit: each candidate grouping's prequential score per side on the
    counts since the last refit (``ev - evl``, ``ex - exl``) under its curves ``ac`` and the theta
    ``th`` of the last fit, added to its running score; each side's pick moves to the best
    candidate once that one leads by ``MARGIN`` nats; the snapshot then holds the counts now."""
    ncand = hsc[H_NCAND]
    if ncand <= 1:
        return
    nb = hsc[H_NB]
    betas = stats_betas()
    dv = np.empty(Q_STATS)
    dx = np.empty(Q_STATS)
    for s in range(2):
        for a in range(ncand):
            ll = 0.0
            for g in range(hsc[H_GOFF0 + a], hsc[H_GOFF0 + a + 1]):
                for c in range(2):
                    for j in range(nb):
                        for q in range(Q_STATS):
                            dv[q] = ev[s, g, c, j, q] - evl[s, g, c, j, q]
                            dx[q] = ex[s, g, c, j, q] - exl[s, g, c, j, q]
                        ll = add_loglik(ll, dv, dx, betas, ac[s, g, c, j], th[s, c, j])
            at = HF_ASCORE0 + MAX_CANDIDATES * s + a
            hf[at] = DECAY * hf[at] + ll
        pick = hsc[H_PICK0 + s]
        best = pick
        for a in range(ncand):
            if hf[HF_ASCORE0 + MAX_CANDIDATES * s + a] > hf[HF_ASCORE0 + MAX_CANDIDATES * s + best]:
                best = a
        if hf[HF_ASCORE0 + MAX_CANDIDATES * s + best] > hf[HF_ASCORE0 + MAX_CANDIDATES * s + pick] + MARGIN:
            hsc[H_PICK0 + s] = best
    count_picks(hsc)
    evl[:] = ev
    exl[:] = ex


@njit(_nrt=False)
def count_picks(hsc):
    """Count a refit under each side's grouping (at a refit that only judges: the last fit's)."""
    if hsc[H_NCAND] > 1:
        for s in range(2):
            hsc[H_PICKN0 + MAX_CANDIDATES * s + hsc[H_PICK0 + s]] += 1


@njit
def curves(hsc, hf, ev, ex, ac, eg, th, ep):
    """At a refit, after the new fit (theta ``th`` and the pooled curve ``ep``): every candidate's
    curves into ``ac``, and the picked grouping's per side into ``eg``, the curves HAZARD ranks by."""
    ncand = hsc[H_NCAND]
    if ncand <= 1:
        return
    nb = hsc[H_NB]
    betas = stats_betas()
    for s in range(2):
        for a in range(ncand):
            lo = hsc[H_GOFF0 + a]
            group_curves(ev, ex, s, lo, hsc[H_GOFF0 + a + 1] - lo, nb, betas, th, ep[s], hf[HF_KAPPA], ac)
        lo, hi = hsc[H_GOFF0 + hsc[H_PICK0 + s]], hsc[H_GOFF0 + hsc[H_PICK0 + s] + 1]
        eg[s, :hi - lo] = ac[s, lo:hi]
