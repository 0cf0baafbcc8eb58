"""The W-join operators by name, and a one-call W-join.

``ALGORITHMS`` are the paper's three as optimised here (what ``shed wjoin --algorithm all`` runs);
``OPERATORS`` adds ``mw-paper``, MW with Mode 1 and Mode 2 as the paper's Figure 6 describes
(:mod:`.mw_paper`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from shedding.errors import ShedError
from shedding.wjoin.hw import HWJoin
from shedding.wjoin.mw import MWJoin
from shedding.wjoin.mw_paper import PaperMWJoin
from shedding.wjoin.nlw import NLWJoin
from shedding.wjoin.operator import WJoinOperator, run
from shedding.wjoin.streams import Streams
from shedding.wjoin.windows import WindowSpec

ALGORITHMS: dict[str, type[WJoinOperator]] = {"nlw": NLWJoin, "hw": HWJoin, "mw": MWJoin}
OPERATORS: dict[str, type[WJoinOperator]] = {**ALGORITHMS, "mw-paper": PaperMWJoin}


def make_operator(algorithm: str, windows: WindowSpec, **kwargs: Any) -> WJoinOperator:
    """A W-join operator by name: the paper's NLW, HW or MW (§3), or MW as its Figure 6 describes.

    Args:
        algorithm: ``nlw``, ``hw``, ``mw`` or ``mw-paper`` (any case).
        windows: The window constraints (:class:`~shedding.wjoin.windows.WindowSpec`).
        **kwargs: The operator's options (:class:`~shedding.wjoin.operator.WJoinOperator`):
            ``approach``, ``predicate``, ``key_band``, ``refine``.

    Returns:
        A new :class:`~shedding.wjoin.operator.WJoinOperator`.

    Raises:
        ShedError: An unknown ``algorithm`` (naming it in ``param``) or a bad option.
    """
    try:
        cls = OPERATORS[algorithm.strip().lower()]
    except KeyError:
        raise ShedError(f"unknown {{param}} {algorithm!r}; choose from {', '.join(OPERATORS)}",
                        param="algorithm") from None
    return cls(windows, **kwargs)


def wjoin(streams: Streams, windows: WindowSpec, algorithm: str = "hw", **kwargs: Any) -> np.ndarray:
    """All N-tuples of the W-join, computed by ``algorithm`` over the arrival order.

    Args:
        streams: The N streams (:class:`~shedding.wjoin.streams.Streams`).
        windows: The window constraints among them (:class:`~shedding.wjoin.windows.WindowSpec`).
        algorithm: ``nlw``, ``hw``, ``mw`` or ``mw-paper`` (see :func:`make_operator`).
        **kwargs: The operator's options: ``approach``, ``predicate``, ``key_band``, ``refine``.

    Returns:
        A ``(k, N)`` int64 array, one row per result (each stream's tuple index), sorted
        lexicographically.

    Raises:
        ShedError: An unknown ``algorithm``, a bad option, or streams that do not match the
            windows.
    """
    return run(make_operator(algorithm, windows, **kwargs), streams)
