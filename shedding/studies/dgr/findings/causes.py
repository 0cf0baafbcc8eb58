"""The likely causes of the DGR findings' failed checks, each tested on runs of the suite rather
than guessed: the online bound recorded with OPT's runs (what any online policy can expect on the
paper's i.i.d. streams, :func:`shedding.online.bound.online_bound`), and other experiments' runs
on the same workloads (correlated streams, the online estimator, LIFE's readings).
"""

from __future__ import annotations

import pandas as pd

from shedding.studies.dgr.findings.stats import paired, same_shape, seed_mean
from shedding.studies.dgr.findings.thresholds import REFERENCE
from shedding.studies.page.format import pct

#: how far below the online bound PROB may be and still count as at it (seed noise)
AT_BOUND = 0.01


def bound_fraction(rows: pd.DataFrame, keys: list[str], of: str = "outputs") -> pd.Series:
    """Per ``keys``: the online bound recorded with OPT's runs as a fraction of OPT's output
    (``of`` "outputs") or of EXACT's (``of`` "exact"), mean over seeds; empty without it."""
    if "online_bound" not in rows:
        return pd.Series(dtype=float)
    opt = rows[(rows["policy"] == "opt") & rows["online_bound"].notna()]
    if opt.empty:
        return pd.Series(dtype=float)
    fraction = opt["online_bound"] / opt[of].where(opt[of] > 0)
    return fraction.groupby([opt[k] for k in keys]).mean().dropna()


def bound_cause(rows: pd.DataFrame, keys: list[str], at: object, prob: float, mark: float,
                of: str = "outputs") -> str:
    """Why PROB (``prob``, its fraction of OPT, or of EXACT with ``of`` "exact", at key ``at``)
    misses the paper's ``mark`` there: whether the online bound itself reaches the mark, and where
    PROB stands against the bound; "" without the bound."""
    bound = bound_fraction(rows, keys, of)
    if at not in bound.index:
        return ""
    b, whom = float(bound[at]), "OPT" if of == "outputs" else "EXACT"
    if prob > b + AT_BOUND:
        return foresight_text(b, prob, whom)
    where = ("PROB is at the bound" if prob >= b - AT_BOUND else
             f"PROB stays {100 * (b - prob):.1f} points below it, which its ranking loses")
    if b < mark:
        return (f"the online bound, the most any online policy can expect on these i.i.d. streams, is only {pct(b)} of "
                f"{whom} there, below the {pct(mark)} the check asks for: no policy that does not know the future "
                f"can expect to reach it ({where})")
    return (f"the online bound is {pct(b)} of {whom} there, so an online policy could reach {pct(mark)}, but {where}"
            if prob < b - AT_BOUND else f"PROB is at the online bound ({pct(b)} of {whom}) and misses by seed noise")


def foresight_text(bound: float, value: float, whom: str = "OPT") -> str:
    """PROB above the online bound: only the static table's knowledge of the future explains it."""
    return (f"PROB reaches {pct(value)} of {whom}, {100 * (value - bound):.1f} points above the online bound "
            f"({pct(bound)}), which no policy without foresight can expect to pass: the static table counts each "
            "key over the whole stream, future included, so PROB knows which keys are still to come")


def correlated_text(results: pd.DataFrame | None, part: pd.DataFrame, keys: list[str], at: object,
                    of: str = "opt") -> str:
    """PROB's fraction of OPT (``of`` "opt") or of EXACT ("exact") on correlated streams of the same
    shape elsewhere in the suite, at key ``at``; "" when the suite has none."""
    if (part["correlation"] == "same").all():
        return ""
    same = same_shape(results, part, correlation="same")
    ratio = paired(same, "prob", of, keys) if of == "opt" else _of_exact(same, keys)
    if at not in ratio.index:
        return ""
    where = ", ".join(sorted(set(same["experiment"].astype(str))))
    return (f"on correlated streams of the same shape (the same keys frequent on both sides; experiment {where}) "
            f"PROB reaches {pct(ratio[at])} of {of.upper()} there")


def _of_exact(rows: pd.DataFrame, keys: list[str]) -> pd.Series:
    """PROB's fraction of EXACT per ``keys``, mean over seeds (every run records EXACT)."""
    prob = rows[rows["policy"] == "prob"]
    if prob.empty or "ratio" not in prob:
        return pd.Series(dtype=float)
    return prob.groupby([prob[k] for k in keys])["ratio"].mean()


def joined(*causes: str) -> str:
    """The non-empty causes as one sentence, or the generic one when none is known."""
    found = [c for c in causes if c]
    return "; ".join(found) if found else REFERENCE


def life_readings(results: pd.DataFrame | None, part: pd.DataFrame) -> dict[str, pd.Series]:
    """Per LIFE reading (:data:`shedding.studies.dgr.spec.LIFE_READINGS`) run in the suite on the
    workloads of ``part``: its position from RAND (0) to PROB (1) per memory, mean over seeds;
    RAND and PROB are ``part``'s own runs of the same memory and seed."""
    from shedding.studies.dgr.spec import LIFE_READINGS

    found: dict[str, pd.Series] = {}
    base = part[part["policy"].isin(["rand", "prob"])]
    runs = same_shape(results, part)
    for reading in LIFE_READINGS:
        position = life_position(pd.concat([base, runs[runs["policy"] == reading].assign(policy="life")]))
        if not position.empty:
            found[reading] = seed_mean(position)
    return found


def life_position(rows: pd.DataFrame) -> pd.Series:
    """Per memory and seed, how far LIFE is from RAND towards PROB: 0 at RAND, 1 at PROB (4.2)."""
    if not {"rand", "prob", "life"} <= set(rows["policy"]):
        return pd.Series(dtype=float)
    out = rows.pivot_table(index=["memory", "seed"], columns="policy", values="outputs", aggfunc="mean")
    span = (out["prob"] - out["rand"]).where(lambda v: v > 0)
    return ((out["life"] - out["rand"]) / span).dropna()

