"""One feed of the join operator: the arrivals it accepts (whole time steps, in time order) and
what it returns (:class:`FeedResult`), shared by the equi-join's operator and the band join's
(Das, Gehrke, Riedewald, SIGMOD 2003, §2.1: tuples arrive in time order, a step at a time).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from shedding.errors import ShedError
from shedding.model import check_arrivals


@dataclass
class FeedResult:
    """What one ``feed`` call produced.

    ``outputs``: join results counted (time >= warmup). ``departures``: rows (seq, left, admitted) for every tuple that
    left memory during this feed. ``share``: rows (t, R tuples, S tuples) in memory after
    admission, every ``share_every`` steps. ``pairs``: rows (r seq, s seq) of counted results.
    """

    outputs: int
    departures: np.ndarray
    share: np.ndarray
    pairs: np.ndarray



def check_feed(side: np.ndarray, time: np.ndarray, last_time: int | None) -> np.ndarray:
    """Refuse a feed that is not whole time steps in time order after ``last_time``, has a negative
    time or a side other than 0/1 (:func:`~shedding.model.check_arrivals`); returns the start index
    of every arrival batch (``time`` is not empty)."""
    check_arrivals(side, time)
    if last_time is not None and time[0] <= last_time:
        raise ShedError(f"time {time[0]} is not after the last processed time {last_time}; "
                        "feed whole time steps in order")
    return np.flatnonzero(np.r_[True, time[1:] != time[:-1]])
