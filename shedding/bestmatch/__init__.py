"""Bestmatch joins (Kemper/Stegmaier 2002, "Evaluating Bestmatch-Joins on Streaming Data"): the BMJ,
the left-, right- and full-outer BMJ and their constrained forms by nested loops, MatWin and MatWin
with the eps-grid, under the Pareto or the literal reading of §2.1's dominance; the fixed
time-window re-evaluation, and the constrained left-outer BMJ under load shedding.

Names load on first use (PEP 562), so ``shed`` and ``shed --help`` start without numba or pandas.
"""

from shedding import lazy_exports

#: public name -> the module that defines it
_EXPORTS = {
    "ALGORITHMS": "join", "VARIANTS": "join", "DOMINANCE": "skyline", "BestmatchResult": "join", "bestmatch": "join",
    "POLICIES": "shed", "quality": "shed", "shed_bestmatch": "shed", "shedding_study": "shed",
    "time_window_bestmatch": "timewindow",
    "BestmatchInput": "values", "from_arrays": "values", "from_frames": "values",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
