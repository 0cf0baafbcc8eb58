"""Quality measures of an approximate join (Das, Gehrke, Riedewald 2003, §2.2).

MAX-subset is the output count itself; the ratio to EXACT (or to OPT) normalises it. The
Archive-metric (ArM) counts the tuples that would need post-processing from an archive.
"""

from __future__ import annotations

import numpy as np

from .exact import PartnerProfile
from .model import Workload


def archive_metric(wl: Workload, produced: np.ndarray, left: np.ndarray, profile: PartnerProfile) -> int:
    """ArM (§2.2): tuples arriving at ``t >= warmup`` with at least one window pair not produced.

    A tuple is complete iff it met every earlier partner on arrival (``produced == earlier``) and
    stayed in memory until its last later partner arrived (``left >= last_later``).
    """
    incomplete = (produced < profile.earlier) | ((profile.last_later >= 0) & (left < profile.last_later))
    return int(np.count_nonzero(incomplete & (wl.time >= wl.warmup)))


def ratio(outputs: int, reference: int) -> float:
    """outputs / reference, 1.0 for an empty reference (nothing to lose)."""
    return outputs / reference if reference else 1.0
