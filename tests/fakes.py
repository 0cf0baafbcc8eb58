"""Synthetic results of an experiment suite, shaped like the paper's curves, for report tests that
run without Spark."""

from __future__ import annotations

import json
import math
from dataclasses import asdict

import pandas as pd

from shedding.studies.dgr.spec import RunSpec, Suite
from shedding.studies.registry import load_suite

EVIL = "<script>alert('x')</script>"


def fake_outputs(s: RunSpec) -> tuple[int, int]:
    """(outputs, exact) shaped like the paper's curves: RAND linear in M, PROB near OPT on skewed
    data and equal to RAND on uniform data (OPT about 5% above), OPT nearer EXACT for larger domains,
    the variable splits gaining more as the skews grow apart."""
    length, domain = s.length or 13264, s.domain or 100  # weather specs leave both to the data
    exact = int(30 * length * (1 + s.skew) / math.sqrt(domain))
    m = s.memory / (2 * s.window)
    rand = m
    skewed = min(1.0, (1.2 + 0.002 * domain) * (1 + 0.5 * min(s.skew, s.skew_s)) * math.sqrt(m))
    opt = 1.1 * rand + min(s.skew, 1.0) * (skewed - 1.1 * rand)  # 10% above RAND on uniform data ...
    opt *= 1 - 0.05 / (1 + s.skew)  # ... less a little, less as the skew grows (RAND falls behind OPT)
    prob = rand + min(s.skew, 1.0) * ((0.985 - 0.0001 * domain) * opt - rand)
    apart = abs(s.skew - s.skew_s)  # the variable split gains more as the skews grow apart
    frac = {"exact": 1.0, "opt": opt, "optv": opt * (1 + 0.04 * apart), "prob": prob, "probv": prob * (1 + 0.03 * apart),
            "life": rand * 1.01, "lifev": rand * 1.02, "rand": rand, "randv": rand * (1 + 0.01 * apart),
            "life-own": rand * 0.9, "life-flat": rand}[s.policy]
    noise = 1.0 if s.policy in ("exact", "opt", "optv") else 1 + 0.004 * s.seed
    return int(round(exact * frac * noise)), exact


def fake_share(s: RunSpec) -> tuple[str, str]:
    """R tuples in memory over time: PROBV near 60% of M, OPTV near 70%."""
    if not s.share:
        return "", ""
    times = list(range(0, s.length, 40))
    level = {"probv": 0.6, "optv": 0.7}.get(s.policy, 0.5)
    r = [int(s.memory * (level + 0.05 * math.sin(t / 97) + 0.01 * s.seed)) for t in times]
    return json.dumps(times), json.dumps(r)


def fake_row(s: RunSpec) -> dict:
    outputs, exact = fake_outputs(s)
    share_t, share_r = fake_share(s)
    return {**asdict(s), "run_id": s.run_id, "outputs": outputs, "exact": exact, "ratio": outputs / exact,
            "arm": 0, "seconds": 0.01, "share_t": share_t, "share_r": share_r}


def with_ratio_opt(results: pd.DataFrame) -> pd.DataFrame:
    point = ["experiment", "dataset", "skew", "skew_s", "domain", "length", "correlation", "seed", "window",
             "warmup", "memory", "estimator"]
    opt = results[results.policy == "opt"][point + ["outputs"]].rename(columns={"outputs": "opt_outputs"})
    merged = results.merge(opt, on=point, how="left")
    merged["ratio_opt"] = merged.outputs / merged.opt_outputs
    return merged.drop(columns=["opt_outputs"])


def suite_dict(suite: Suite, seeds: int) -> dict:
    return {"kind": "dgr", "name": suite.name, "description": suite.description, "shipped": suite.shipped, "seeds": seeds,
            "total_runs": len(suite.runs(seeds)), "master": "local[*]",
            "experiments": [{"id": e.id, "title": e.title, "figure": e.figure, "y": e.y, "policies": list(e.policies),
                             "grid": e.grid, "claim": e.claim, "caption": e.caption, "like": e.like}
                            for e in suite.experiments]}


def synthetic(suite: Suite | str = "quick", seeds: int = 2) -> tuple[pd.DataFrame, dict]:
    """Results of every run of ``suite`` and its suite.json, as `shed compare` would write them."""
    suite = load_suite(suite)[1] if isinstance(suite, str) else suite
    results = with_ratio_opt(pd.DataFrame([fake_row(s) for s in suite.runs(seeds)]))
    return results, suite_dict(suite, seeds)
