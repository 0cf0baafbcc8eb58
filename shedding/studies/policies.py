"""The new online policies' goal, measured: how much of PROB's gap to OPT a new policy closes.

The findings of the DGR study for an experiment that runs the new policies (SURV, DUAL, FLUID and
their variable splits, the ``policies`` suite): they replace the paper's claims there.

Per setting (a point of the suite: workload, window, memory) and seed, every policy's output is a
fraction of OPT's (Das, Gehrke, Riedewald 2003, §3.2); the fractions are averaged over seeds. Where
PROB (PROBV for the variable split) is below 95% of OPT, the share of its gap a policy closes is
(policy - PROB) / (1 - PROB); everywhere, its margin over PROB in fractions of OPT. The ``policies``
suite's report and ``benchmarks/bench_policies.py`` both use :func:`gap_table`.
"""

from __future__ import annotations

import pandas as pd

from shedding.online.policies import family, get_policy
from shedding.studies.page.verdicts import Check

NEW = ("surv", "dual", "fluid")
#: the policy names of the new families, fixed and variable split
NEW_POLICIES = ("surv", "survv", "dual", "dualv", "fluid", "fluidv")
GOAL_SHARE = 1 / 3       # close at least a third of PROB's gap ...
GOAL_WORST = -0.005      # ... and never fall more than 0.5% of OPT below PROB
GOAL_BELOW = 0.95        # settings where PROB is below 95% of OPT
POINT = ("dataset", "skew", "skew_s", "domain", "correlation", "cell_size", "length", "window", "memory")


def base_of(policy: str) -> str:
    """PROB, or PROBV for a variable-split policy."""
    return "probv" if get_policy(policy).variable else "prob"


def gap_table(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per (setting, policy) of the new policies present: the policy's and its base's fraction
    of OPT (mean over seeds), the margin and, where the base is below 95% of OPT, the gap share closed;
    settings without OPT's output are left out."""
    keys = [k for k in POINT if k in rows]
    opt = rows[rows.policy == "opt"].groupby([*keys, "seed"]).outputs.mean()
    frame = rows[rows.policy != "opt"].groupby([*keys, "seed", "policy"]).outputs.mean().unstack("policy")
    # settings where OPT's output is unknown (only bounded) have no fractions: left out
    frac = frame.div(opt.reindex(frame.index), axis=0).groupby(level=keys).mean().dropna(how="all")
    out = []
    for policy in [p for p in frac.columns if p not in ("exact", "optv") and family(p) in NEW]:
        base = base_of(policy)
        if base not in frac:
            continue
        part = pd.DataFrame({"policy": policy, "base": base, "fraction": frac[policy], "base_fraction": frac[base]})
        part["margin"] = part.fraction - part.base_fraction
        below = part.base_fraction < GOAL_BELOW
        part["closed"] = (part.margin / (1 - part.base_fraction)).where(below)
        out.append(part.reset_index())
    return pd.concat(out, ignore_index=True) if out else pd.DataFrame()


def summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per policy: settings, mean fraction of OPT, settings with the base below 95%, mean gap share
    closed there, and the worst margin over the base."""
    if table.empty:
        return table
    return table.groupby("policy").agg(settings=("fraction", "size"), fraction=("fraction", "mean"),
                                        base_fraction=("base_fraction", "mean"), below=("closed", "count"),
                                        closed=("closed", "mean"), worst=("margin", "min")).reset_index()


def _closed_per_seed(rows: pd.DataFrame, policy: str) -> list[float]:
    """The mean gap share ``policy`` closes in each seed alone."""
    found = []
    for _, part in rows.groupby("seed"):
        s = summary(gap_table(part))
        if not s.empty and policy in set(s.policy):
            closed = s.set_index("policy").closed[policy]
            if pd.notna(closed):
                found.append(float(closed))
    return found


def policies_notes(rows: pd.DataFrame, lay: object) -> list[str]:
    """One line per new policy: its mean fraction of OPT, the gap share it closes, its worst margin."""
    s = summary(gap_table(rows))
    return [f"{r.policy.upper()}: {100 * r.fraction:.2f}% of OPT on average over {r.settings} settings "
            f"({base_of(r.policy).upper()} {100 * r.base_fraction:.2f}%); where {base_of(r.policy).upper()} is below "
            f"95% of OPT ({r.below} settings) it closes {100 * r.closed:+.1f}% of the gap on average; worst margin "
            f"{100 * r.worst:+.2f}% of OPT." for r in s.itertuples()]


def policies_checks(rows: pd.DataFrame, lay: object, results: pd.DataFrame | None = None) -> list[Check]:
    """The goal: the best new policy closes a third of the gap and is never 0.5% of OPT below PROB."""
    s = summary(gap_table(rows))
    if s.empty:
        return []
    if s.closed.isna().all():  # the base is at or above 95% of OPT everywhere: only the margin to check
        best = s.loc[s.worst.idxmax()]
        return [Check(None, f"{base_of(best.policy).upper()} is at or above {100 * GOAL_BELOW:.0f}% of OPT at every "
                            "setting here: no gap to close"),
                Check(bool(best.worst >= GOAL_WORST),
                      f"best new policy {best.policy.upper()}'s worst margin over {base_of(best.policy).upper()} "
                      f"is {100 * best.worst:+.2f}% of OPT (goal: at least {100 * GOAL_WORST:+.1f}%)")]
    best = s.loc[s.closed.idxmax()]
    seeds = _closed_per_seed(rows, best.policy)
    ok = bool(best.closed >= GOAL_SHARE)
    return [Check(ok, f"best new policy {best.policy.upper()} closes {100 * best.closed:.1f}% of the gap on average "
                  + (f"(seeds {100 * min(seeds):.1f}% to {100 * max(seeds):.1f}%) " if len(seeds) > 1 else "")
                  + f"(goal: at least {100 * GOAL_SHARE:.1f}%)",
                  "" if ok else "on i.i.d. streams no online policy can close much more: the online bound caps "
                  "what any online policy can expect (docs/policies.md, benchmarks/bench_policies.py)",
                  not ok and any(c >= GOAL_SHARE for c in seeds)),
            Check(bool(best.worst >= GOAL_WORST),
                  f"{best.policy.upper()}'s worst margin over {base_of(best.policy).upper()} is "
                  f"{100 * best.worst:+.2f}% of OPT (goal: at least {100 * GOAL_WORST:+.1f}%)")]
