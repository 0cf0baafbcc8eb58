"""The drop order of the join semantics among tuples of equal priority (Das, Gehrke, Riedewald,
SIGMOD 2003, §2.1 leaves it open; docs/semantics.md fixes it): the older tuple first, then the R
tuple, then the lower sequence number. The compiled join (:mod:`~shedding.online.kernel`) and
HAZARD's per-tuple priorities (:mod:`~shedding.online.hazardmemory`) both break their ties here."""

from shedding.jit import njit


@njit(_nrt=False)
def ties_before(time_a, side_a, seq_a, time_b, side_b, seq_b):
    """Whether tuple a is dropped before tuple b when their priorities are equal."""
    if time_a != time_b:
        return time_a < time_b
    if side_a != side_b:
        return side_a < side_b
    return seq_a < seq_b
