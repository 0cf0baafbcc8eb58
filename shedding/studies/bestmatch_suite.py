"""The ``bestmatch`` suite of ``shed compare``: the shapes of Kemper/Stegmaier 2002, §4, and the
bestmatch join under load shedding.

Figures 11 and 12 (total time vs input size and vs dimensions), Figures 13 and 14 (propagated
results over time, by distribution and by the granularity of y_1) and the shedding study
(precision, recall and symmetric difference against the exact constrained left-outer BMJ as memory
shrinks). The runs are short and run here, one after another, without Spark. Propagation is
plotted against the fraction of the input read when a pair is output (deterministic; the paper
plots wall time, which a CPU-bound scan makes proportional). The report reuses the page of
:mod:`shedding.studies.html`.
"""

from __future__ import annotations

import html
import itertools
import json
import statistics
import sys
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from shedding.errors import ShedError
from shedding.bestmatch.generator import DISTRIBUTIONS, synthetic_input
from shedding.bestmatch.join import ALGORITHMS, bestmatch
from shedding.bestmatch.shed import POLICIES, shedding_study

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

FIGURES = ("time-size", "time-dims", "propagated", "shedding")
CURVE_POINTS = 101


def load_bestmatch_suite(name_or_path: str) -> dict:
    """The shipped ``bestmatch`` suite or a TOML file with ``kind = "bestmatch"``, checked."""
    if name_or_path == "bestmatch":
        text, where = resources.files("shedding.studies.suite_files").joinpath("bestmatch.toml").read_text(), \
            "suite bestmatch"
    else:
        try:
            text, where = Path(name_or_path).read_text(), name_or_path
        except OSError as exc:
            raise ShedError(f"cannot read suite file {name_or_path}: {exc.strerror}") from None
    try:
        suite = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ShedError(f"{where} is not valid TOML ({exc}); fix the syntax") from None
    for i, exp in enumerate(suite.get("experiment", [])):
        here = f"{where}, experiment {exp.get('id', i + 1)!r}"
        if exp.get("figure") not in FIGURES:
            raise ShedError(f"{here}: figure must be one of {', '.join(FIGURES)}")
        for key, known in (("algorithms", ALGORITHMS), ("distributions", DISTRIBUTIONS), ("policies", POLICIES)):
            for value in exp.get(key, []):
                if value not in known:
                    raise ShedError(f"{here}: unknown {key[:-1]} {value!r}; choose from {', '.join(known)}")
    if not suite.get("experiment"):
        raise ShedError(f"{where}: no [[experiment]] tables; add at least one")
    return suite


def _inputs(exp: dict, seed: int = 0):  # noqa: ANN202
    """(parameters, input) for every point of the experiment's grid."""
    grid = itertools.product(exp["sizes"], exp["dims"], exp["distributions"], exp.get("first_decimals", [None]))
    for n, d, dist, first in grid:
        yield {"n": n, "dims": d, "distribution": dist, "first_decimals": first}, \
            synthetic_input(n, n, d, dist, exp["eps"], 6, seed, first_decimals=first)


def run_time(exp: dict) -> pd.DataFrame:
    """Figures 11-12: seconds of every algorithm (median of ``repeats``), with pairs and tests."""
    rows = []
    for params, data in _inputs(exp):
        pairs = None
        for algorithm in exp["algorithms"]:
            bestmatch(synthetic_input(20, 20, params["dims"], "uniform", exp["eps"]), "constrained", algorithm)
            runs = [bestmatch(data, "constrained", algorithm) for _ in range(exp.get("repeats", 1))]
            if pairs is not None and not np.array_equal(pairs, runs[-1].pairs):
                raise ShedError(f"internal check failed: {algorithm} differs from {exp['algorithms'][0]}")
            pairs = runs[-1].pairs
            rows.append({**params, "algorithm": algorithm, "seconds": statistics.median(r.seconds for r in runs),
                         "pairs": len(pairs), "tested": runs[-1].tested})
    return pd.DataFrame(rows)


def run_propagated(exp: dict) -> pd.DataFrame:
    """Figures 13-14: the fraction of MatWin's result output once a fraction of the input is read."""
    rows = []
    for params, data in _inputs(exp):
        res = bestmatch(data, "constrained", "matwin")
        total_in = len(data.r) + len(data.s)
        stamps = np.sort(res.stamps) / total_in
        series = params["distribution"] if params["first_decimals"] is None else \
            f"{params['first_decimals']} decimal place(s)"
        for x in np.linspace(0, 1, CURVE_POINTS):
            share = np.searchsorted(stamps, x, side="right") / max(len(stamps), 1)
            rows.append({**params, "series": series, "input_read": round(float(x), 4), "output": float(share)})
    return pd.DataFrame(rows)


def run_shedding(exp: dict) -> pd.DataFrame:
    """Precision, recall and symmetric difference vs memory (fraction of the exact peak)."""
    frames = []
    for params, data in _inputs(exp):
        df = shedding_study(data, exp["fractions"], exp["policies"], seeds=exp.get("seeds", 1))
        frames.append(df.assign(**{k: v for k, v in params.items() if k != "first_decimals"}))
    return pd.concat(frames, ignore_index=True)


RUNNERS = {"time-size": run_time, "time-dims": run_time, "propagated": run_propagated, "shedding": run_shedding}


def figure(exp: dict, rows: pd.DataFrame):  # noqa: ANN201 (a plotly Figure)
    """The experiment's plotly figure."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    kind = exp["figure"]
    if kind in ("time-size", "time-dims"):
        x = "n" if kind == "time-size" else "dims"
        fig = go.Figure([go.Scatter(x=part[x], y=part.seconds, name=alg, mode="lines+markers")
                         for alg, part in rows.groupby("algorithm", sort=False)])
        fig.update_layout(xaxis_title="tuples per input" if x == "n" else "dimensions", yaxis_title="seconds",
                          yaxis_type="log" if kind == "time-size" else "linear")
    elif kind == "propagated":
        fig = go.Figure([go.Scatter(x=part.input_read, y=part.output, name=name, mode="lines")
                         for name, part in rows.groupby("series", sort=False)])
        fig.update_layout(xaxis_title="fraction of the input read", yaxis_title="fraction of the result output")
    else:
        mean = rows.groupby(["policy", "fraction"], sort=False)[["precision", "recall", "symdiff"]].mean().reset_index()
        fig = make_subplots(1, 3, subplot_titles=("precision", "recall", "symmetric difference"))
        for i, col in enumerate(("precision", "recall", "symdiff")):
            for policy, part in mean.groupby("policy", sort=False):
                fig.add_trace(go.Scatter(x=part.fraction, y=part[col], name=policy.upper(), legendgroup=policy,
                                         showlegend=i == 0, mode="lines+markers"), 1, i + 1)
        fig.update_xaxes(title_text="memory / exact peak window memory")
    fig.update_layout(title=exp["title"], height=420)
    return fig


def measured(exp: dict, rows: pd.DataFrame) -> str:
    """One sentence with the numbers that bear on the paper's claim."""
    kind = exp["figure"]
    if kind in ("time-size", "time-dims"):
        x = "n" if kind == "time-size" else "dims"
        parts = []
        for value, part in rows.groupby(x):
            secs = dict(zip(part.algorithm, part.seconds))
            text = ", ".join(f"{a} {s:.4f} s" for a, s in secs.items())
            if "nested" in secs and "matwin" in secs:
                text += f" (nested/matwin {secs['nested'] / secs['matwin']:.2f}x)"
            parts.append(f"{x} = {value}: {text}")
        return "; ".join(parts)
    if kind == "propagated":
        half = rows[rows.output >= 0.5].groupby("series", sort=False).input_read.min()
        return "half of the result was output after " + ", ".join(f"{v:.0%} of the input ({k})" for k, v in half.items())
    mean = rows.groupby(["fraction", "policy"], sort=False)[["precision", "recall", "symdiff"]].mean()
    return "; ".join(f"M = {f:g} x peak: " + ", ".join(
        f"{p.upper()} precision {mean.loc[(f, p), 'precision']:.3f} recall {mean.loc[(f, p), 'recall']:.3f}"
        for p in exp["policies"]) for f in exp["fractions"] if f < 1)


def run_bestmatch_suite(suite: dict, out: Path, command: str = "") -> dict:
    """Run every experiment, write ``results-<id>.csv`` per experiment, ``suite.json`` and
    ``report.html`` into ``out``; returns a summary."""
    from shedding.studies.figures import figure_json
    from shedding.studies.html import page
    from shedding.studies.runner import provenance

    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ShedError(f"--out {out} is a file; give a folder (it will hold report.html and the results)")
    if (out / "suite.json").exists():
        raise ShedError(f"{out} already holds results; choose another --out (the bestmatch suite has no --resume: "
                        f"it runs in minutes)")
    out.mkdir(parents=True, exist_ok=True)
    sections, files = [], {}
    for i, exp in enumerate(suite["experiment"]):
        rows = RUNNERS[exp["figure"]](exp)
        path = out / f"results-{exp['id']}.csv"
        rows.to_csv(path, index=False)
        files[exp["id"]] = str(path)
        fig = figure(exp, rows)
        sections.append(f"<section><h2>{html.escape(exp['title'])}</h2>\n"
                        f"<p><b>Paper:</b> {html.escape(exp.get('claim', ''))}</p>\n"
                        f"<p><b>Measured:</b> {html.escape(measured(exp, rows))}</p>\n"
                        f'<div class="plot" id="fig-{i}"></div>\n<script type="application/json" class="figure-data" '
                        f'data-target="fig-{i}">{figure_json(fig)}</script>\n</section>')
    info = {"name": suite["name"], "description": suite.get("description", ""), "kind": "bestmatch",
            "provenance": provenance(command), "experiments": suite["experiment"], "results": files}
    (out / "suite.json").write_text(json.dumps(info, indent=1))
    body = (f"<h1>{html.escape(suite['name'])}</h1>\n<p>{html.escape(suite.get('description', ''))}</p>\n"
            f"<p>Command: <code>{html.escape(command)}</code></p>\n" + "\n".join(sections))
    report = out / "report.html"
    report.write_text(page({"name": suite["name"]}, body, len(sections), True))
    return {"suite": suite["name"], "experiments": len(sections), "report": str(report), **files}
