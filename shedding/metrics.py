"""Quality measures of an approximate join (Das, Gehrke, Riedewald 2003, §2.2).

MAX-subset is the output count itself; the ratio to EXACT (or to OPT) normalises it. The
Archive-metric (ArM) counts the tuples that would need post-processing from an archive.
"""

from __future__ import annotations

import numpy as np

from shedding.exact import KeyedStreams, PartnerProfile, partner_profile
from shedding.model import R, Schedule, Workload


def archive_metric(wl: Workload, schedule: Schedule, profile: PartnerProfile | None = None,
                   ks: KeyedStreams | None = None) -> int:
    """ArM (§2.2): tuples arriving at ``t >= warmup`` with at least one window pair not produced.

    A tuple x arriving at ``a`` is complete iff every earlier partner was held through ``a`` (it
    met them all on arrival) and x was held until its last later partner arrived. Partners held
    through ``a`` are counted per key with two sorted searches: ``#{y : b_y <= L} - #{y : max(b_y + g,
    end_y + 1) <= a}`` where ``end_y`` is ``left_y`` for admitted tuples and ``b_y`` otherwise, ``L``
    the latest partner time up to ``a`` and ``g = a - L`` (0 for the window; under a time range the
    partners of the last ``g`` steps are too young, and every partner older than x's range has left
    before ``a``, unless the range begins after ``a``: then x has no earlier partner). Any schedule
    will do:
    an online policy's, or OPT's. ``profile`` and ``ks`` save their recomputation when the
    caller already has them for ``wl``.

    Args:
        wl: The workload (:class:`~shedding.model.Workload`).
        schedule: The :class:`~shedding.model.Schedule` the run followed: per tuple, whether it
            was admitted and the step during which it left memory.
        profile: ``wl``'s :class:`~shedding.exact.PartnerProfile` (each tuple's earlier partners
            and its last later one); computed here when None.
        ks: ``wl``'s keyed index (:class:`~shedding.exact.KeyedStreams`); built here when None.

    Returns:
        The number of tuples arriving at ``t >= warmup`` that miss at least one window pair.
    """
    if len(wl) == 0:
        return 0
    ks = ks or KeyedStreams.of(wl)
    profile = profile or partner_profile(wl, ks)
    end = np.where(schedule.admitted, schedule.left, wl.time)
    lo, hi = wl.bounds
    young = np.where(wl.side == R, max(lo, 0), max(-hi, 0))  # g of the tuples whose partners are R, S
    gone = np.minimum(np.maximum(wl.time + young, end + 1), ks.span - 1)
    own_lane = ks.lane(wl.side, ks.rank)
    gone_codes = np.sort(own_lane * ks.span + gone)  # per lane as many entries as ks.codes
    o = ks.order  # queries ascend in the index's order: much faster searches
    lane = ks.partner_lane(wl)[o] * ks.span
    latest = np.maximum(wl.time - np.where(wl.side == R, max(-hi, 0), max(lo, 0)), -1)
    met = np.empty(len(wl), dtype=np.int64)
    met[o] = (np.searchsorted(ks.codes, lane + latest[o], side="right")
              - np.searchsorted(gone_codes, lane + wl.time[o], side="right"))
    met[wl.time + np.where(wl.side == R, lo, -hi) > latest] = 0  # a range wholly after a: no earlier partner
    later_ok = (profile.last_later < 0) | (schedule.admitted & (schedule.left >= profile.last_later))
    complete = (met == profile.earlier) & later_ok
    return int(np.count_nonzero(~complete & (wl.time >= wl.warmup)))
