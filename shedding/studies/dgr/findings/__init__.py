"""The DGR findings: notes computed from a suite's results, and a check of each experiment's claim against the
statements of Das, Gehrke, Riedewald (SIGMOD 2003), section 4.

Each check states its criterion and the numbers, and says "disagrees" when the data does, with the
likely cause where the reference implementation agrees with the project:

* memory (Figures 3, 4): PROB is the best online policy at every M in every seed and within 10% of
  OPT (4.1); LIFE is only marginally better than RAND (4.2); PROB gives over 90% of EXACT at M = w
  (4.5, 4.6).
* uniform memory (Figure 5): the online policies are within 5% of each other, and OPT gains at most
  25% over the best of them, at every M (4.2).
* variable split (4.3, text): PROBV and OPTV are at least as good as PROB and OPT, and gain at most 10%.
* skew (Figure 6, uncorrelated streams as the paper plots): PROB >= 96% of OPT for skew >= 1; RAND
  falls behind PROB as skew grows (4.3). Correlated streams are findings, not part of the verdict.
* domain (Figures 9-11): the EXACT/OPT gap shrinks and the OPT/PROB gap grows with the domain,
  monotonically (4.4).
* share (4.3 text on synthetic data; Figure 8 on weather data, 4.5): the more skewed stream gets more
  memory, up to 75%; with equal distributions the share stays at 50% +- 10 points throughout.

One convention for comparisons (:data:`shedding.studies.page.verdicts.CONVENTION`): "A is x% above/below B" is (A - B) / B, and a
difference of two fractions is given in percentage points.
"""
