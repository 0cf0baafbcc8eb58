"""Which of the paper's claims an experiment reproduces, and the findings and verdict of its runs."""

from __future__ import annotations

import pandas as pd

from shedding.studies.dgr.findings.domain import domain_checks, domain_notes
from shedding.studies.dgr.findings.memory import like_checks, memory_checks, memory_notes
from shedding.studies.dgr.findings.share import share_checks, share_notes
from shedding.studies.dgr.findings.skew import skew_checks, skew_notes
from shedding.studies.dgr.findings.thresholds import VARIABLE
from shedding.studies.dgr.findings.uniform import uniform_checks, uniform_notes
from shedding.studies.dgr.findings.variable import variable_checks, variable_notes
from shedding.studies.dgr.findings.weather import weather_checks, weather_notes
from shedding.studies.dgr.opt_bounds import CHECK_TEXT, any_bounded, bounds_notes
from shedding.studies.dgr.summary import layout_of
from shedding.studies.page.verdicts import Check, Verdict
from shedding.studies.policies import NEW_POLICIES, policies_checks, policies_notes


def claim_kind(rows: pd.DataFrame, exp: dict) -> str:
    """Which of the paper's claims an experiment reproduces."""
    figure = exp.get("figure", "memory")
    if any(str(p) in NEW_POLICIES for p in exp.get("policies", [])):
        return "policies"  # the new policies' goal, whatever the figure (shedding.studies.policies)
    if figure != "memory":
        return figure
    if "dataset" in rows and (rows["dataset"] != "zipf").all():
        return "weather"
    if any(p in VARIABLE for p in exp.get("policies", [])):
        return "variable"
    if ((rows["skew"] == 0) & (rows["skew_s"] == 0)).all():
        return "uniform"
    return "memory"


NOTES = {"policies": policies_notes, "weather": weather_notes, "memory": memory_notes, "uniform": uniform_notes,
         "variable": variable_notes, "skew": skew_notes, "domain": domain_notes, "share": share_notes}
CHECKS = {"policies": policies_checks, "weather": weather_checks, "memory": memory_checks, "uniform": uniform_checks,
          "variable": variable_checks, "skew": skew_checks, "domain": domain_checks, "share": share_checks}


#: how a user's own suite names the paper's claim whose checks judge its experiment, by claim kind
OWN_KINDS = {"policies": "the new policies' goal", "weather": "the paper's weather experiment (4.5)",
             "memory": "the paper's memory experiments (Figures 3, 4)",
             "uniform": "the paper's uniform-memory experiment (Figure 5)",
             "variable": "the paper's variable split (4.3)", "skew": "the paper's skew experiment (Figure 6)",
             "domain": "the paper's domain experiments (Figures 9-11)", "share": "the paper's memory share (4.3, 4.5)"}


def source_of(kind: str | None, own: bool) -> str:
    """Whose claim a verdict judges: the paper's, or on a user's own suite (``own``) the user's,
    judged by the checks of the paper's claim of that ``kind`` and not by its text."""
    if not own:
        return "Paper"
    return f"Your claim (judged by the checks of {OWN_KINDS[kind]}, not by its text)" if kind else "Your claim"


def findings(rows: pd.DataFrame, exp: dict, results: pd.DataFrame | None = None, own: bool = False
             ) -> tuple[list[str], Verdict]:
    """The findings of one experiment's runs and the verdict on its claim; ``results`` (the whole
    suite's runs) holds the evidence for the likely causes of failed checks and the experiment a
    figure should resemble (``like``). On a user's own suite (``own``) the claim is the user's
    text, which no check reads: the verdict says whose checks judged the runs instead."""
    claim = str(exp.get("claim", ""))
    if rows.empty:
        return [], Verdict(claim, (Check(None, "No results yet."),), source_of(None, own))
    if "exact" in rows and not rows["exact"].astype(float).any():  # every ratio would read 1.000: nothing to judge
        return [], Verdict(claim, (Check(None, "The runs count no output (EXACT is 0 in every run: the warmup is at "
                                               "or after the last arrival); shorten the warmup or lengthen the "
                                               "stream."),), source_of(None, own))
    results = rows if results is None else results
    kind = claim_kind(rows, exp)
    lay = layout_of(rows, exp)
    checks = CHECKS[kind](rows, lay, results) + like_checks(rows, lay, results, str(exp.get("like", "")))
    checks = checks or [Check(None, "No check of this claim could be made: its checks compare policies (such as "
                                    "PROB, RAND and OPT) whose runs this experiment does not have, or has not "
                                    "finished yet.")]
    if any_bounded(rows):  # where OPT is too large to solve, its bounds stand in for it
        checks.append(Check(None, CHECK_TEXT))
    return NOTES[kind](rows, lay) + bounds_notes(rows), Verdict(claim, tuple(checks), source_of(kind, own))
