"""The checks of a beyond suite's claims (the project's goals for AGE and HAZARD beyond the i.i.d.
streams of Das, Gehrke, Riedewald 2003, §3.2), judged by the one pass criterion of
:mod:`shedding.studies.page.criterion`.

An experiment states its claim (``claim``) and how it is checked (``checks``, a list of tables),
each check one of :data:`KINDS`:

* ``{kind = "closes", share = 0.667, over = "every"}``: the best online policy of the experiment
  (the one that closes the most of its base's gap on average) closes at least ``share`` of PROB's
  (PROBV's) gap to OPT, at every setting (``over = "every"``) or averaged over the x field at each
  other setting (``over = "x"``), per seed;
* ``{kind = "not-below", policy = "hazard", base = "prob", within = 0.005}``: ``policy``'s fraction
  of OPT at least ``base``'s less ``within`` at every setting, per seed.

A suite file whose claim names checks the runs cannot decide says so on the page
("not checked"), never "agrees".
"""

from __future__ import annotations

import pandas as pd

from shedding.studies.page.criterion import Criterion, judge
from shedding.studies.page.verdicts import Check, checked
from shedding.studies.suite import check, number

KINDS = {"closes": ("share", "over"), "not-below": ("policy", "base", "within")}
OVER = ("every", "x")
GAP = 1e-9  # a base this close to OPT leaves no gap to close


def parse_checks(raw: object, policies: tuple[str, ...], here: str) -> tuple[dict, ...]:
    """An experiment's ``checks``, validated (every error names the file, the experiment and the fix)."""
    if raw is None:
        return ()
    check(isinstance(raw, list) and all(isinstance(c, dict) for c in raw), here,
          "checks = [...] is a list of tables, e.g. [{kind = \"closes\", share = 0.667, over = \"every\"}]")
    assert isinstance(raw, list)  # check refused anything else
    out = []
    for c in raw:
        kind = c.get("kind")
        check(kind in KINDS, here, f"unknown check kind {kind!r}; choose from {', '.join(KINDS)}")
        stray = sorted(set(c) - {"kind", *KINDS[kind]})
        check(not stray, here, f"{', '.join(stray)} are no fields of a {kind} check; its fields: "
              f"{', '.join(KINDS[kind])}")
        if kind == "closes":
            share, over = c.get("share"), c.get("over", "every")
            check(number(share) and 0 < share <= 1, here, f"a closes check needs share, a number in (0, 1]; got "
                  f"{share!r}")
            check(over in OVER, here, f"over = {over!r}; choose from {', '.join(OVER)}")
            out.append({"kind": kind, "share": float(share), "over": over})
        else:
            for key in ("policy", "base"):
                check(c.get(key) in policies, here, f"a not-below check's {key} = {c.get(key)!r} is not one of the "
                      f"experiment's policies ({', '.join(policies)})")
            within = c.get("within", 0.0)
            check(number(within) and within >= 0, here, f"within = {within!r} is not a number >= 0")
            out.append({"kind": kind, "policy": c["policy"], "base": c["base"], "within": float(within)})
    return tuple(out)


def _per_seed(rows: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Fraction of OPT per (``keys``, seed), one column per policy."""
    return rows.pivot_table(index=[*keys, "seed"], columns="policy", values="fraction", aggfunc="mean")


def _setting(point: object, keys: list[str]) -> str:
    """A setting's fields ("lag_spread = 5, background = 0"; an empty value, such as no group, as "none")."""
    values = point if isinstance(point, tuple) else (point,)
    return ", ".join(f"{k} = {v if v != '' else 'none'}" for k, v in zip(keys, values)) or "the one setting"


def closes_check(rows: pd.DataFrame, keys: list[str], x: str, share: float, over: str, base_of) -> Check:
    """The best online policy closes at least ``share`` of its base's gap to OPT (see the module
    docstring); ``base_of`` maps a policy to its base (PROB or PROBV)."""
    table = _per_seed(rows, keys)
    closed = {}
    for policy in table.columns:
        base = base_of(policy)
        if base in table and policy != base and policy not in ("bound", "boundv"):
            gap = 1.0 - table[base]
            closed[policy] = ((table[policy] - table[base]) / gap.where(gap > GAP)).dropna()
    closed = {p: s for p, s in closed.items() if len(s)}
    if not closed:
        return Check(None, f"The best online policy closes at least {share:.0%} of PROB's gap to OPT: no gap to "
                           "measure (no PROB, or PROB at OPT, in these runs).")
    best = max(closed, key=lambda p: closed[p].mean())
    values = closed[best]
    others = [k for k in keys if k != x]
    if over == "x" and others:
        values = values.groupby(level=[*others, "seed"]).mean()
    elif over == "x":
        values = values.groupby(level="seed").mean()
    j = judge(values, Criterion(low=share))
    where = [k for k in (others if over == "x" else keys)]
    mean = values.groupby(level=list(range(values.index.nlevels - 1))).mean() if values.index.nlevels > 1 else \
        pd.Series([values.mean()], index=["all"])
    listed = ", ".join(f"{v:.0%} at {_setting(k, where)}" if where else f"{v:.0%}" for k, v in mean.items())
    what = "averaged over " + x if over == "x" else "at every setting"
    text = (f"{best.upper()}, the best online policy here, closes at least {share:.0%} of "
            f"{base_of(best).upper()}'s gap to OPT {what} (mean over seeds): {listed}.")
    if j.ok is False:
        text += " Short at " + "; ".join(f"{_setting(p, where) if where else 'the mean'} ({j.seeds_met(p)})"
                                         for p in j.failing) + "."
    cause = (f"at these settings PROB is already close to what any online policy can expect, or {best.upper()}'s "
             "learner has too few matches to see the age shape within the run; the suite's BOUND column, where "
             "recorded, says which")
    return checked(j, text, cause)


def not_below_check(rows: pd.DataFrame, keys: list[str], policy: str, base: str, within: float) -> Check:
    """``policy`` at least ``base`` less ``within`` (fraction of OPT) at every setting, per seed."""
    table = _per_seed(rows, keys)
    if not {policy, base} <= set(table.columns):
        return Check(None, f"{policy.upper()} against {base.upper()}: the runs hold only "
                           f"{', '.join(p.upper() for p in table.columns)}.")
    lead = (table[policy] - table[base]).dropna()
    j = judge(lead, Criterion(low=-within))
    mean = lead.groupby(level=list(range(lead.index.nlevels - 1))).mean() if lead.index.nlevels > 1 else lead
    worst = mean.idxmin()
    text = (f"{policy.upper()} stays at or above {base.upper()}" + (f" less {within:.1%} of OPT" if within else "") +
            f" at every setting: its lead ranges from {100 * mean.min():+.2f} (at {_setting(worst, keys)}) to "
            f"{100 * mean.max():+.2f} points of OPT, mean over seeds.")
    if j.ok is False:
        text += " Below at " + "; ".join(f"{_setting(p, keys)} ({j.seeds_met(p)})" for p in j.failing) + "."
    cause = (f"{policy.upper()} learns its model from a shadow sample and keeps PROB's order until the model test "
             "sees an age shape; until then, and where the test errs, it ranks a few tuples differently from PROB")
    return checked(j, text, cause)


def claim_checks(rows: pd.DataFrame, exp: dict, keys: list[str], base_of) -> list[Check]:
    """The checks an experiment's suite file names, on its ``rows`` (with BOUND rows and the
    untuned policies spread, :func:`~shedding.studies.beyond.report.gap_closed`'s input)."""
    checks = []
    for c in exp.get("checks", []):
        if c["kind"] == "closes":
            checks.append(closes_check(rows, keys, exp["x"], c["share"], c["over"], base_of))
        else:
            checks.append(not_below_check(rows, keys, c["policy"], c["base"], c["within"]))
    return checks
