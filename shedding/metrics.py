"""Quality measures of an approximate join (Das, Gehrke, Riedewald 2003, §2.2).

MAX-subset is the output count itself; the ratio to EXACT (or to OPT) normalises it. The
Archive-metric (ArM) counts the tuples that would need post-processing from an archive.
"""

from __future__ import annotations

import numpy as np

from shedding.exact import KeyedStreams, PartnerProfile, partner_profile
from shedding.model import Schedule, Workload


def archive_metric(wl: Workload, schedule: Schedule, profile: PartnerProfile | None = None,
                   ks: KeyedStreams | None = None) -> int:
    """ArM (§2.2): tuples arriving at ``t >= warmup`` with at least one window pair not produced.

    A tuple x arriving at ``a`` is complete iff every earlier partner was held through ``a`` (it
    met them all on arrival) and x was held until its last later partner arrived. Partners held
    through ``a`` are counted per key with two sorted searches: ``#{y : b_y <= a} - #{y : end_y < a}``
    where ``end_y`` is ``left_y`` for admitted tuples and ``b_y`` otherwise. Any schedule will do:
    an online policy's, or OPT's.

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
    own_lane = ks.lane(wl.side, ks.rank)
    end_codes = np.sort(own_lane * ks.span + end)  # per lane as many entries as ks.codes
    o = ks.order  # queries ascend in the index's order: much faster searches
    query = ks.partner_lane(wl)[o] * ks.span + wl.time[o]
    met = np.empty(len(wl), dtype=np.int64)
    met[o] = np.searchsorted(ks.codes, query, side="right") - np.searchsorted(end_codes, query, side="left")
    later_ok = (profile.last_later < 0) | (schedule.admitted & (schedule.left >= profile.last_later))
    complete = (met == profile.earlier) & later_ok
    return int(np.count_nonzero(~complete & (wl.time >= wl.warmup)))
