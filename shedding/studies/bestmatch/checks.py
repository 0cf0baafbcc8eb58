"""The bestmatch paper's claims against a run (Kemper/Stegmaier 2002, §4: Figures 11-14), and the
project's own hypothesis on shedding, as checks (:class:`~shedding.studies.page.verdicts.Check`)
judged by the one pass criterion (:mod:`shedding.studies.page.criterion`).

Figures 11 and 12 are not checked (:data:`NOT_MEASURED`): the paper's claims there are about
windows materialised on disk (their I/O, the eps-grid-order's page accesses) and Algorithm 1's
comparisons as written, none of which the suite builds; their times are shown as what this
implementation does, without a verdict. Each figure's checks take its rows as :mod:`.execute`
writes them.
"""

from __future__ import annotations

from typing import Any, Callable

import pandas as pd

from shedding.studies.page.criterion import Criterion, Judgement, judge
from shedding.studies.page.format import pct
from shedding.studies.page.verdicts import Check, checked

STEP = 0.05  # a step: at least 5% of the result output at one moment while input remains
MOVES = 1e-12  # precision or recall "falls" with a step down in M when it moves down at all
NOT_MEASURED = ("Not checked: the paper's Figures 11 and 12 time MatWin with its windows materialised on disk (the "
                "standard and the grid materialisation, their I/O scheduled by the eps-grid-order, section 3.3) "
                "against Algorithm 1 as written, which compares every pair with every pair of its r (|R| x |S|^2). "
                "The suite builds neither: its MatWin keeps the windows in memory and its nested loops keeps r's best "
                "pairs (|R| x |S|), so its times, shown in the figure, measure other algorithms than the claim's, and "
                "a verdict on them would judge the paper by what it did not run.")
SEED_CAUSE = ("at most half of the seeds miss the criterion at each failing point, so these seeds cannot tell; "
              "more would")


def size_checks(rows: pd.DataFrame, exp: dict) -> list[Check]:
    """Figure 11 (time against input size): not checked (:data:`NOT_MEASURED`)."""
    return [Check(None, NOT_MEASURED)]


def dims_checks(rows: pd.DataFrame, exp: dict) -> list[Check]:
    """Figure 12 (time against dimensions): not checked (:data:`NOT_MEASURED`)."""
    return [Check(None, NOT_MEASURED)]


def _step_table(rows: pd.DataFrame) -> pd.DataFrame | None:
    """Per series: output moments, largest step, granularity of y_1; None for rows from before
    the steps were measured."""
    if not {"moments", "largest_step"} <= set(rows.columns):
        return None
    return rows.groupby("series", sort=False)[["moments", "largest_step", "first_decimals"]].first()


def _steps_text(table: pd.DataFrame) -> str:
    return "; ".join(f"{name}: {int(r.moments):,} moments, at most {pct(r.largest_step)} at once"
                     for name, r in table.iterrows())


def propagation_checks(rows: pd.DataFrame, exp: dict) -> list[Check]:
    """Figures 13 and 14: results leave continuously (no step of :data:`STEP` or more while input
    remains) for every distribution (Figure 13) or every granularity of y_1 finer than eps_1
    (Figure 14), and in steps when y_1 is as coarse as eps_1 (Figure 14's exception)."""
    table = _step_table(rows)
    if table is None:
        return [Check(None, "These rows predate the step measure; rerun the experiment.")]
    by_grain = table["first_decimals"].notna().all()
    coarse = table["first_decimals"].map(lambda k: 10.0 ** -k >= exp["eps"] * (1 - 1e-9)) if by_grain else \
        pd.Series(False, index=table.index)
    fine, steps = table[~coarse], table[coarse]
    checks = []
    if len(fine):
        ok = bool((fine["largest_step"] < STEP).all())
        what = "granularity of y_1 finer than eps_1" if by_grain else "distribution"
        checks.append(Check(ok, f"Every {what} propagates its result continuously: less than {STEP:.0%} of it leaves at "
                            f"one moment while input remains ({_steps_text(fine)}).",
                            "" if ok else "MatWin outputs r's pairs once the window's lower bound passes r; where many "
                                          "r share a y_1 value they leave together"))
    if by_grain and len(steps):
        ok = bool((steps["largest_step"] >= STEP).all())
        checks.append(Check(ok, f"The exception: with y_1 as coarse as eps_1 the result leaves in steps of "
                            f"{STEP:.0%} or more ({_steps_text(steps)}).",
                            "" if ok else "the window moves by eps_1, but the r on its lower bound are few"))
    elif by_grain:
        checks.append(Check(None, "The exception needs a run with y_1 as coarse as eps_1."))
    return checks


def _per_seed(rows: pd.DataFrame, col: str) -> pd.Series:
    """``col`` per (policy, memory fraction, seed)."""
    return rows.groupby(["policy", "fraction", "seed"])[col].mean()


def _listed(j: Judgement, what: Callable[[Any], str]) -> str:
    """The failing points of a judgement ("RAND at M = 0.5 x peak (1 of 2 seeds meet it)")."""
    return ", ".join(f"{what(p)} ({j.seeds_met(p)})" for p in j.failing)


def shedding_checks(rows: pd.DataFrame, exp: dict) -> list[Check]:
    """The project's hypothesis: exact at the peak; below it false pairs (precision < 1), precision
    and recall falling as M shrinks; AHEAD keeps the most of the exact result."""
    peak, below = rows[rows["fraction"] >= 1], rows[rows["fraction"] < 1]
    checks = []
    if len(peak):
        worst = int(peak["symdiff"].max())
        ok = worst == 0
        checks.append(Check(ok, f"With M at the exact run's peak window memory every policy is exact: largest "
                            f"symmetric difference {worst:,}.", "" if ok else "the windows shed although they fit"))
    if below.empty:
        return checks + [Check(None, "Needs runs with M below the peak.")]
    precision, recall = _per_seed(below, "precision"), _per_seed(below, "recall")
    j = judge(precision, Criterion(high=1 - MOVES))
    text = ("False pairs appear below the peak: precision < 1 for every policy at every M below it "
            f"(highest {precision.max():.4f})")
    if j.ok is False:
        text += "; exact: " + _listed(j, lambda p: f"{p[0].upper()} at M = {p[1]:g} x peak")
    checks.append(checked(j, text + ".", SEED_CAUSE if j.inside else
                          "the policy shed only tuples that had met all their partners, so no best partner was lost"))
    checks.append(_falls_check(precision, recall))
    checks += _ahead_checks(recall)
    return checks


def _falls_check(precision: pd.Series, recall: pd.Series) -> Check:
    """Precision and recall of every policy fall with every step down in M, seed by seed."""
    steps, lines = [], []
    for col, values in (("precision", precision), ("recall", recall)):
        for policy, part in values.groupby(level="policy", sort=False):
            table = part.droplevel("policy").unstack("seed").sort_index()  # fraction x seed
            mean = table.mean(axis=1)
            lines.append(f"{policy.upper()} {col} " + ", ".join(f"{v:.4f}" for v in mean) +
                         f" at M = {', '.join(f'{f:g}' for f in table.index)} x peak")
            for small, large in zip(table.index, table.index[1:]):
                drop = (table.loc[large] - table.loc[small]).dropna()
                steps.append(pd.Series(drop.to_numpy(), index=pd.MultiIndex.from_tuples(
                    [(f"{policy.upper()} {col} from {large:g} to {small:g} x peak", s) for s in drop.index])))
    if not steps:
        return Check(None, "Precision and recall falling with M needs runs at two memories below the peak.")
    j = judge(pd.concat(steps), Criterion(low=MOVES))
    text = "Precision falls as well as recall with every step down in M: " + "; ".join(lines) + "."
    if j.ok is False:
        text += f" Does not fall: {_listed(j, str)}."
    return checked(j, text, SEED_CAUSE if j.inside else
                   "a policy's victims change with M, so a smaller M can shed fewer best partners")


def _ahead_checks(recall: pd.Series) -> list[Check]:
    """AHEAD's recall above every other policy's at every M below the peak, seed by seed."""
    table = recall.unstack("policy")
    if "ahead" not in table or len(table.columns) < 2:
        return []
    leads = [(table["ahead"] - table[other]).dropna().rename(other) for other in table.columns if other != "ahead"]
    if not any(len(s) for s in leads):
        return [Check(None, "AHEAD against the other policies needs runs of both on the same seeds.")]
    lead = pd.concat([pd.Series(s.to_numpy(), index=pd.MultiIndex.from_tuples(
        [(s.name, f, seed) for f, seed in s.index])) for s in leads])
    j = judge(lead, Criterion(low=MOVES))
    kept = table["ahead"].groupby(level="fraction").mean()
    text = ("AHEAD keeps more of the exact result than every other policy at every M below the peak, seed by seed "
            f"(AHEAD's recall {', '.join(f'{v:.3f} at {f:g} x peak' for f, v in kept.items())}).")
    if j.ok is False:
        text += " Not above: " + _listed(j, lambda p: f"{p[0].upper()} at M = {p[1]:g} x peak") + "."
    return [checked(j, text, SEED_CAUSE if j.inside else
                    "the tuples on the window's lower bound were too few to shed, so AHEAD shed fresh tuples by "
                    "density, as PROB does")]

CHECKS = {"time-size": size_checks, "time-dims": dims_checks, "propagated": propagation_checks,
          "shedding": shedding_checks}
