"""Quality measures of an approximate join (Das, Gehrke, Riedewald 2003, §2.2).

MAX-subset is the output count itself; the ratio to EXACT (or to OPT) normalises it. The
Archive-metric (ArM) counts the tuples that would need post-processing from an archive.
"""

from __future__ import annotations

import numpy as np

from .exact import PartnerProfile, keyed_sides, partner_profile
from .model import R, S, Schedule, Workload


def archive_metric(wl: Workload, schedule: Schedule, profile: PartnerProfile | None = None) -> int:
    """ArM (§2.2): tuples arriving at ``t >= warmup`` with at least one window pair not produced.

    A tuple x arriving at ``a`` is complete iff every earlier partner was held through ``a`` (it
    met them all on arrival) and x was held until its last later partner arrived. Partners held
    through ``a`` are counted per key with two sorted searches: ``#{y : b_y <= a} - #{y : end_y < a}``
    where ``end_y`` is ``left_y`` for admitted tuples and ``b_y`` otherwise. Any schedule will do:
    an online policy's, or OPT's.
    """
    if len(wl) == 0:
        return 0
    profile = profile or partner_profile(wl)
    codes, _, sides = keyed_sides(wl)
    base = codes - wl.time  # key_rank * span
    end = np.where(schedule.admitted, schedule.left, wl.time)
    met = np.zeros(len(wl), dtype=np.int64)
    for which in (R, S):
        own, other = wl.side == which, wl.side != which
        end_codes = np.sort(base[other] + end[other])
        met[own] = (np.searchsorted(sides[1 - which].codes, codes[own], side="right")
                    - np.searchsorted(end_codes, codes[own], side="left"))
    later_ok = (profile.last_later < 0) | (schedule.admitted & (schedule.left >= profile.last_later))
    complete = (met == profile.earlier) & later_ok
    return int(np.count_nonzero(~complete & (wl.time >= wl.warmup)))


def ratio(outputs: int, reference: int) -> float:
    """outputs / reference, 1.0 for an empty reference (nothing to lose)."""
    return outputs / reference if reference else 1.0
