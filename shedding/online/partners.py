"""When a tuple meets partners under the time range ``P_LO <= s.time - r.time <= P_HI``
(docs/semantics.md, "Time range"; the symmetric window of Das, Gehrke, Riedewald, SIGMOD 2003,
§2.1, is ``-(w - 1), w - 1``): the first and last arrival times of a partner of a tuple, and the
ages at which a held tuple of a side meets an arrival.

The compiled join (:mod:`~shedding.online.kernel`) and the hooks of the age-aware kinds
(:mod:`~shedding.online.agehooks`) read them from here, so the range is turned into times and ages
in one place. :func:`shedding.online.bound.ages_within` is :func:`partner_ages` for Python callers
that hold the range as a pair (lo, hi); a test holds the two equal.
"""

from shedding.jit import njit
from shedding.online.layout import P_HI, P_LO


@njit(_nrt=False)
def first_partner(sc, side, time):
    """The earliest arrival time of a partner of a tuple (side, time)."""
    return time + sc[P_LO] if side == 0 else time - sc[P_HI]


@njit(_nrt=False)
def last_partner(sc, side, time):
    """The latest arrival time of a partner of a tuple (side, time): the tuple expires after the
    join at that step (``time + w - 1`` for the symmetric window)."""
    return time + sc[P_HI] if side == 0 else time - sc[P_LO]


@njit(_nrt=False)
def partner_ages(sc, side):
    """The ages (young, end) at which a held tuple of ``side`` meets an arrival: from its first
    partner's, but at least 1 (a held tuple arrived at an earlier step than any arrival it meets),
    to its last partner's. ``end`` below 1 means the side's tuples meet no later arrival, so they
    are never stored (R when hi <= 0, S when lo >= 0); ``young`` above 1 means a held tuple's
    newest partners wait for its range to begin (R when lo > 1, S when hi < -1)."""
    return max(first_partner(sc, side, 0), 1), last_partner(sc, side, 0)
