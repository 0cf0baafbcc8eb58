"""Bestmatch joins (Kemper/Stegmaier 2002, "Evaluating Bestmatch-Joins on Streaming Data"): the BMJ,
left-outer and constrained left-outer BMJ by nested loops, MatWin and MatWin with the eps-grid,
the fixed time-window re-evaluation, and the constrained left-outer BMJ under load shedding."""

from .join import ALGORITHMS, VARIANTS, BestmatchResult, bestmatch
from .shed import POLICIES, quality, shed_bestmatch, shedding_study
from .timewindow import time_window_bestmatch
from .values import BestmatchInput, from_arrays, from_frames

__all__ = ["ALGORITHMS", "VARIANTS", "POLICIES", "BestmatchInput", "BestmatchResult", "bestmatch", "from_arrays",
           "from_frames", "quality", "shed_bestmatch", "shedding_study", "time_window_bestmatch"]
