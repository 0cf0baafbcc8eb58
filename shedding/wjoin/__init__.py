"""Multi-way window joins (W-join) of N >= 2 streams, after Hammad, Aref and Elmagarmid,
"Joining Multiple Data Streams with Window Constraints" (Purdue CSD TR 02-010, 2002).

Semantics (stated once, in docs/wjoin.md): streams 0..N-1 of integer ``(time, key)`` tuples, each
stream's times non-decreasing. An N-tuple ``(x_0, ..., x_{N-1})``, one tuple per stream, is a
result iff all keys are equal (or within a key band; and the optional user predicate accepts it) and
``|t_i - t_j| <= w_ij`` for every constrained pair: the bound is **inclusive**. For N = 2 and one
window w this is DGR's EXACT with window ``w + 1`` and warmup 0 (EXACT counts ``|a - b| <= w - 1``).

* :mod:`.windows`: Forms 1-3 and the shortest-path closure (§1, §5);
* :mod:`.brute`: the definition, over all combinations (the tests' reference);
* :mod:`.exact`: the exact count for large inputs;
* :mod:`.nlw`, :mod:`.hw`, :mod:`.mw`: the online NLW, HW and MW operators (§3), and
  :mod:`.mw_paper`, MW with Mode 1 and Mode 2 as the paper's Figure 6 describes, by name in
  :mod:`.algorithms`; :mod:`.predicates`: equality or a key band (non-equi, NLW and MW);
* :mod:`.path`: the path W-join with directed windows (DWINDOW, §5.2.1);
* :mod:`.generator`: N synthetic streams (§4.2);
* :mod:`.loadshed` and :mod:`.opt`: memory-bounded W-join with RAND, PROB-N, LIFE-N and the
  CP-SAT optimum (:func:`solve_opt`); :mod:`.fastshed`: their compiled count for one window, and
  :func:`shed_outputs`, which picks the compiled count or the operator.

Names are imported on first use (PEP 562), so that ``shed`` starts without numba or OR-Tools.
"""

from shedding import lazy_exports

#: public name -> the module that defines it
_EXPORTS = {
    "ALGORITHMS": "algorithms", "OPERATORS": "algorithms", "make_operator": "algorithms", "wjoin": "algorithms",
    "brute_count": "brute", "brute_results": "brute", "exact_count": "exact", "count_between": "exact",
    "HWJoin": "hw", "MWJoin": "mw", "PaperMWJoin": "mw_paper", "NLWJoin": "nlw", "WJoinOperator": "operator",
    "run": "operator", "parse_key_predicate": "predicates",
    "PathSpec": "path", "PathPipelineJoin": "path", "parse_path": "path", "path_brute_results": "path",
    "path_exact_count": "path", "path_operator": "path",
    "Streams": "streams", "read_streams": "streams", "results_frame": "streams", "write_results": "streams",
    "WindowSpec": "windows", "parse_windows": "windows",
    "synthetic_streams": "generator", "shed_wjoin": "loadshed", "ShedWJoin": "loadshed",
    "shed_count": "fastshed", "shed_outputs": "fastshed",
    "OptResult": "opt", "solve_opt": "opt",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
