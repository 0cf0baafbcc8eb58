"""Bestmatch joins (Kemper/Stegmaier 2002, "Evaluating Bestmatch-Joins on Streaming Data"): the BMJ,
left-outer and constrained left-outer BMJ by nested loops, MatWin and MatWin with the eps-grid,
the fixed time-window re-evaluation, and the constrained left-outer BMJ under load shedding.

Names load on first use (PEP 562), so ``shed`` and ``shed --help`` start without numba or pandas.
"""

from __future__ import annotations

import importlib
from typing import Any

_MODULE_OF = {
    "ALGORITHMS": "join", "VARIANTS": "join", "BestmatchResult": "join", "bestmatch": "join",
    "POLICIES": "shed", "quality": "shed", "shed_bestmatch": "shed", "shedding_study": "shed",
    "time_window_bestmatch": "timewindow",
    "BestmatchInput": "values", "from_arrays": "values", "from_frames": "values",
}
__all__ = sorted(_MODULE_OF)


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
