"""The page of a beyond suite (:mod:`.spec`): the split between the data the policies were tuned
on and the data they are evaluated on, a summary per workload and policy, then per experiment
every policy's fraction of OPT (Das, Gehrke, Riedewald 2003, §3.2) against the experiment's x
field, with the share of PROB's gap to OPT each closes: (policy - PROB) / (OPT - PROB), PROBV
for the variable split. On the age-based model the runs also record the online bound
(:mod:`shedding.offline.agebound`), shown as the pseudo-policies BOUND and BOUNDV: the most any
online policy can get in expectation, so its "gap closed" is the most any online policy can close.
An experiment's claim is judged by the checks its suite file names (:mod:`.claims`) under the one
rule of every page (:data:`~shedding.studies.page.verdicts.RULE`)."""

from __future__ import annotations

import math
from html import escape
from pathlib import Path

import pandas as pd

from shedding.atomic import write_text
from shedding.online.kinds import learns
from shedding.online.policies import get_policy
from shedding.studies.beyond.claims import claim_checks
from shedding.studies.page.figures import figure_html, policy_style
from shedding.studies.page.page import banner, data_links, header, page, provenance_facts, seeds_fact
from shedding.studies.page.tables import table_html
from shedding.studies.page.verdicts import CONVENTION, RULE, Check, Verdict, badge, check_item
from shedding.studies.store import runs_in

SPLIT = ("Split: the policies (HAZARD's learner, its buckets, shrinkage and model test; AGE's plan) were developed "
         "and tuned only on the flights of January to June 2013 and on seeds 0 and 1 of the synthetic models. "
         "Rows marked held-out are flights of July to December and synthetic seeds from 2 on, never used for "
         "tuning; rows marked tuning are shown for comparison.")


#: the online bound's pseudo-policy per split (variable or not)
BOUNDS = {False: "bound", True: "boundv"}
BOUND_NOTE = ("BOUND (BOUNDV for the variable split): the most any online policy can get in expectation, an "
              "upper bound computed from the model (shedding.offline.agebound); per seed it is a random number like "
              "the outputs, so only its mean over seeds compares.")


def base_of(policy: str) -> str:
    """PROB, or PROBV for a variable-split policy (or bound)."""
    variable = policy == BOUNDS[True] or (policy != BOUNDS[False] and get_policy(policy).variable)
    return "probv" if variable else "prob"


def with_bounds(rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` plus a BOUND (BOUNDV) row per run that recorded the online bound, as a fraction of
    OPT (OPTV)."""
    if "online_bound" not in rows or rows.online_bound.isna().all():
        return rows
    extra = rows[rows.online_bound.notna()].copy()
    extra["policy"] = [BOUNDS[get_policy(p).variable] for p in extra.policy]
    extra = extra.drop_duplicates(["run_id", "policy"])
    extra["fraction"] = (extra.online_bound / extra.opt).where(extra.opt > 0)  # none where OPT is 0
    return pd.concat([rows, extra], ignore_index=True)


def with_untuned(rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` with each row no tuning changes (a policy that learns nothing, run once with the
    empty tuning: :meth:`~shedding.studies.beyond.spec.BeyondSuite.runs`; or a bound) repeated
    for every tuning its experiment's learning policies ran with, so that PROB pairs with each."""
    if rows.empty or "tuning" not in rows:
        return rows
    fixed = pd.Series([p in BOUNDS.values() or not learns(get_policy(p).kind, known=e == "static")
                       for p, e in zip(rows.policy, rows.estimator)], index=rows.index)
    tunings = rows.loc[~fixed, ["experiment", "tuning"]].drop_duplicates()
    spread = rows[fixed].drop(columns="tuning").merge(tunings, on="experiment")
    alone = rows[fixed & ~rows.experiment.isin(tunings.experiment)]  # no policy of the experiment learns
    return pd.concat([rows[~fixed], alone, spread], ignore_index=True)


def gap_closed(rows: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Per ``keys`` and policy: the mean fraction of OPT over seeds and the mean share of the base's
    gap to OPT closed (NaN where the base reaches OPT, for the base itself, and where the
    experiment does not run the base)."""
    rows = with_untuned(with_bounds(rows))
    runs = rows.pivot_table(index=[*keys, "seed"], columns="policy", values="fraction", aggfunc="mean")
    out = []
    for policy in runs.columns:
        base = base_of(policy)
        part = pd.DataFrame({"fraction": runs[policy], "closed": math.nan})
        if base in runs and policy != base:
            gap = 1.0 - runs[base]
            part["closed"] = ((runs[policy] - runs[base]) / gap).where(gap > 1e-9)
        out.append(part.assign(policy=policy))
    frame = pd.concat(out).groupby([*keys, "policy"]).mean().reset_index()
    return frame[frame.fraction.notna()]


def _names(policies: list[str]) -> str:
    """``policies`` in upper case, joined with "and"."""
    return " and ".join(p.upper() for p in policies)


def missing_gaps(frame: pd.DataFrame, policies: list[str]) -> tuple[list[str], list[str]]:
    """The policies of ``policies`` whose gap closed the table shows (their base ran), and the
    note's sentences on the gap columns it leaves out or leaves empty (``frame``: :func:`gap_closed`)."""
    ran = set(frame.policy)
    measured = [p for p in policies if p != base_of(p) and base_of(p) in ran]
    unmeasured = [p for p in policies if p != base_of(p) and p not in measured]
    why = []
    if unmeasured:
        bases = sorted({base_of(p) for p in unmeasured})
        why.append(f"No gap closed for {_names(unmeasured)}: the experiment runs no {_names(bases)}, whose gap to "
                   "OPT it is measured against; add it to the policies to see it.")
    if not measured and not unmeasured:
        why.append(f"No gap closed: the experiment runs {_names(policies)} only, what the gap to OPT is measured "
                   "from.")
    if frame[frame.policy.isin(measured)].closed.isna().any():
        why.append("A gap closed of - : PROB (PROBV) reaches OPT there, so there is no gap to close.")
    return measured, why


def _table(index: str, frame: pd.DataFrame, keys: list[str], policies: list[str], note: str) -> str:
    measured, why = missing_gaps(frame, policies)
    head = [*keys, *(f"{p.upper()} / OPT" for p in policies), *(f"{p.upper()} gap closed" for p in measured)]
    body = []
    unset = False  # a bound without a fraction of OPT at some point
    for point, part in frame.groupby(keys, sort=True):
        point = point if isinstance(point, tuple) else (point,)
        by = part.set_index("policy")
        cells = [(str(v), True) for v in point]
        unset |= any(p not in by.index for p in policies if p in BOUNDS.values())
        cells += [(f"{by.fraction[p]:.3f}" if p in by.index else "-", False) for p in policies]
        cells += [(f"{100 * by.closed[p]:+.0f}%" if p in by.index and pd.notna(by.closed[p]) else "-", False)
                  for p in measured]
        body.append(cells)
    if unset:
        why.append("A BOUND of - : OPT is 0 there, so the bound is no fraction of it and closes no gap.")
    return table_html(index, head, body, " ".join([note, *why]))


def guard_list(rows: pd.DataFrame, keys: list[str]) -> str:
    """HAZARD's guard's choice per run (:mod:`shedding.online.guard`): the refits at which each side
    ranked by its age shape, of all refits; empty without HAZARD rows."""
    part = rows[rows["guard"].fillna("") != ""] if "guard" in rows else rows.iloc[:0]
    if part.empty:
        return ""
    items = "".join(f"<li>{escape(', '.join(f'{k} = {r[k]}' for k in keys))}, seed {r.seed}, {escape(r.policy.upper())}: "
                    f"{escape(r.guard)}</li>" for _, r in part.iterrows())
    return ("<p>HAZARD's guard: the refits at which each side (R, S) ranked by its age shape, of all refits; at "
            f'the others it ranked as PROB.</p><ul class="guard">{items}</ul>')


def _figure(exp: dict, frame: pd.DataFrame):  # noqa: ANN201 (a plotly Figure)
    import plotly.graph_objects as go

    x = exp["x"]
    mean = frame.groupby([x, "policy"]).fraction.mean().reset_index()
    fig = go.Figure()
    for policy in exp["policies"]:
        part = mean[mean.policy == policy]
        line, marker = policy_style(policy)
        fig.add_trace(go.Scatter(x=part[x].astype(str), y=part.fraction, name=policy.upper(), mode="lines+markers",
                                 line=line, marker=marker))
    fig.update_layout(title=exp["title"], height=420, xaxis_title=x, yaxis_title="fraction of OPT (mean)",
                      xaxis_type="category")
    return fig


def _varied(exp: dict) -> list[str]:
    """The grid fields the experiment varies (the x field first), and the split."""
    varied = [k for k, v in exp["grid"].items() if len(v) > 1 and k not in (exp["x"], "split")]
    return ["split", exp["x"], *sorted(varied)]


def summary(results: pd.DataFrame) -> str:
    """Per split, workload and policy: the mean fraction of OPT and of the base's gap closed."""
    frame = gap_closed(results, [k for k in ("split", "generator", "experiment", "setting", "tuning") if k in results])
    mean = frame.groupby(["split", "generator", "policy"])[["fraction", "closed"]].mean().reset_index()
    lines = []
    for (split, gen), part in mean.groupby(["split", "generator"], sort=False):
        items = ", ".join(f"{r.policy.upper()} {r.fraction:.3f}" + (f" (closes {100 * r.closed:+.0f}%)"
                                                                   if pd.notna(r.closed) else "")
                          for r in part.itertuples())
        lines.append(f"<li><b>{escape(gen)}, {escape(split)}:</b> {escape(items)}</li>")
    return "<section><h2>Summary: fractions of OPT, mean over settings</h2><ul>" + "".join(lines) + "</ul></section>"


def build_report(results: pd.DataFrame, suite: dict, complete: bool, path: Path | str) -> Path:
    """Write the page of a beyond suite's ``results`` to ``path``; returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    sections = [summary(results)] if len(results) else []
    figures = 0
    for i, exp in enumerate(suite.get("experiments", [])):
        rows = results[results["experiment"] == exp["id"]] if len(results) else results
        parts = [f"<section><h2>{i + 1}. {escape(exp['title'])}</h2>"]
        checks = claim_checks(with_untuned(with_bounds(rows)), exp, [k for k in _varied(exp)[1:] if k in rows],
                              base_of) if len(rows) else [Check(None, "No results yet.")]
        if exp.get("claim"):
            verdict = Verdict(exp["claim"], tuple(checks if exp.get("checks") else
                                                  [Check(None, "The suite file names no checks for this claim.")]))
            parts.append(f'<p class="claim"><b>Goal (the project\'s):</b> {escape(verdict.claim)} {badge(verdict)}</p>')
            parts.append(f'<ul class="checks">{"".join(check_item(c) for c in verdict.checks)}</ul>')
        else:
            parts.append("<p>No claim: shown as an observation beside the claims, without a verdict.</p>")
        if exp.get("caption"):
            parts.append(f"<p>{escape(exp['caption'])}</p>")
        if rows.empty:
            parts.append('<p class="empty">No results yet.</p>')
        else:
            keys = [k for k in _varied(exp) if k in rows]
            frame = gap_closed(rows, keys)
            bounds = [b for b in BOUNDS.values() if b in set(with_bounds(rows).policy)]
            note = ("Mean over seeds of each policy's outputs / OPT's (OPTV's for a variable split), and the share of "
                    "PROB's (PROBV's) gap to OPT it closes." + (" " + BOUND_NOTE if bounds else ""))
            parts += [figure_html(figures, _figure(exp, frame)),
                      _table(exp["id"], frame, keys, [*exp["policies"], *bounds], note), guard_list(rows, keys)]
            figures += 1
        sections.append("\n".join(parts) + "\n</section>")
    info = suite.get("provenance", {})
    load = " to ".join(", ".join(f"{v:g}" for v in info[k]) for k in ("load_before", "load_after") if info.get(k))
    total = suite.get("total_runs")
    facts = {"Runs": f"{runs_in(results):,}" + (f" of {total:,}" if isinstance(total, int) else ""),
             "Seeds per point": seeds_fact(suite),
             **provenance_facts(info), "Load average (1, 5, 15 min)": f"{load} (before to after)" if load else "-",
             "Wall time": f"{info['wall_seconds']:,.1f} s" if "wall_seconds" in info else "- (unfinished)"}
    rules = f'<p class="rule">{escape(RULE)}</p>\n<p class="convention">{escape(CONVENTION)}</p>\n'
    body = header(str(suite.get("name", "")), str(suite.get("description", "")),
                  banner(runs_in(results), suite.get("total_runs"), complete), facts,
                  f"<p class=\"split\">{escape(SPLIT)}</p>\n{data_links(per_figure=False)}\n{rules}") + "\n".join(sections)
    write_text(path, page(str(suite.get("name", "suite")), body, figures, complete))
    return path
