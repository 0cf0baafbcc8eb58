"""Multi-way window joins (W-join) of N >= 2 streams, after Hammad, Aref and Elmagarmid,
"Joining Multiple Data Streams with Window Constraints" (Purdue CSD TR 02-010, 2002).

Semantics (stated once, in docs/wjoin.md): streams 0..N-1 of integer ``(time, key)`` tuples, each
stream's times non-decreasing. An N-tuple ``(x_0, ..., x_{N-1})``, one tuple per stream, is a
result iff all keys are equal (and the optional user predicate accepts it) and
``|t_i - t_j| <= w_ij`` for every constrained pair: the bound is **inclusive**. For N = 2 and one
window w this is DGR's EXACT with window ``w + 1`` and warmup 0 (EXACT counts ``|a - b| <= w - 1``).

* :mod:`.windows`: Forms 1-3 and the shortest-path closure (§1, §5);
* :mod:`.brute`: the definition, over all combinations (the tests' reference);
* :mod:`.exact`: the exact count for large inputs;
* :mod:`.nlw`, :mod:`.hw`, :mod:`.mw`: the online NLW, HW and MW operators (§3);
* :mod:`.generator`: N synthetic streams (§4.2);
* :mod:`.shedding` and :mod:`.opt`: memory-bounded W-join with RAND, PROB-N, LIFE-N and the
  CP-SAT optimum.
"""

from __future__ import annotations

from .brute import brute_count, brute_results
from .exact import exact_count
from .hw import HWJoin
from .mw import MWJoin
from .nlw import NLWJoin
from .operator import WJoinOperator, run
from .streams import Streams, read_streams
from .windows import WindowSpec, parse_windows

ALGORITHMS: dict[str, type[WJoinOperator]] = {"nlw": NLWJoin, "hw": HWJoin, "mw": MWJoin}


def make_operator(algorithm: str, windows: WindowSpec, **kwargs) -> WJoinOperator:  # noqa: ANN003
    """The operator named ``nlw``, ``hw`` or ``mw``."""
    from ..errors import ShedError

    try:
        cls = ALGORITHMS[algorithm.strip().lower()]
    except KeyError:
        raise ShedError(f"unknown algorithm {algorithm!r}; choose from {', '.join(ALGORITHMS)}") from None
    return cls(windows, **kwargs)


def wjoin(streams: Streams, windows: WindowSpec, algorithm: str = "hw", **kwargs):  # noqa: ANN003, ANN201
    """All N-tuples of the W-join as sorted rows, computed by ``algorithm`` over the arrival order."""
    return run(make_operator(algorithm, windows, **kwargs), streams)


__all__ = [
    "ALGORITHMS", "HWJoin", "MWJoin", "NLWJoin", "Streams", "WJoinOperator", "WindowSpec",
    "brute_count", "brute_results", "exact_count", "make_operator", "parse_windows", "read_streams",
    "run", "wjoin",
]
