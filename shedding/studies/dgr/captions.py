"""The caption under a DGR figure: the exact setup of an experiment, built from its runs (or from
its grid before any run), in the terms of Das, Gehrke, Riedewald (SIGMOD 2003), section 4."""

from __future__ import annotations

from html import escape

import pandas as pd

from shedding.studies.dgr.summary import field_text, memory_label

SETUP_FIELDS = ("dataset", "skew", "skew_s", "correlation", "domain", "length", "window", "warmup", "memory",
                "estimator")


def values(exp: dict, rows: pd.DataFrame, name: str) -> list:
    """The values of a setup field: from the runs, or from the grid when there are none."""
    if not rows.empty:
        return sorted(rows[name].dropna().unique().tolist())
    return list(exp.get("grid", {}).get(name, []))


def joined(name: str, items: list) -> str:
    """Values of a setup field as text, "-" for none."""
    return ", ".join(field_text(name, v) for v in items) or "-"


def caption(exp: dict, rows: pd.DataFrame, seeds: object) -> str:
    """The exact setup of an experiment, built from its runs (or its grid before any run)."""
    v = {name: values(exp, rows, name) for name in SETUP_FIELDS}
    lengths = ", ".join(f"{int(n):,}" for n in v["length"]) or "-"
    warmup = f"{joined('warmup', v['warmup'])} time steps" if v["warmup"] else "2w"
    if set(v["dataset"]) <= {"zipf"}:
        data = (f"{skew_text(v, rows)}; {joined('correlation', v['correlation'])} streams; "
                f"domain {joined('domain', v['domain'])}; {lengths} tuples per stream")
    else:  # real reports: the grid cell is the key; cells and lengths come from the files
        shapes = rows.groupby("cell_size")[["domain", "length"]].max() if "cell_size" in rows else pd.DataFrame()
        cells = "; ".join(f"{c:g}-degree cells, {int(s.domain):,} distinct" for c, s in shapes.iterrows()) or "-"
        data = f"key: grid cell ({cells}); {lengths} reports per stream"
    text = (f"Setup: data {joined('dataset', v['dataset'])}; {data}; "
            f"window w = {joined('window', v['window'])}; warmup {warmup}; "
            f"{memory_text(exp, rows)}; {seed_text(rows, seeds)}; estimator {joined('estimator', v['estimator'])}; "
            f"policies {', '.join(str(p).upper() for p in exp.get('policies', []))}.")
    extra = str(exp.get("caption", ""))
    return escape(text) + (f" {escape(extra)}" if extra else "")


def skew_text(v: dict, rows: pd.DataFrame) -> str:
    """The Zipf skews of R and S ("on both streams" when S's follows R's)."""
    if (rows.empty and not v["skew_s"]) or (not rows.empty and bool((rows["skew"] == rows["skew_s"]).all())):
        return f"Zipf skew {joined('skew', v['skew'])} on both streams"
    return f"Zipf skew of R {joined('skew', v['skew'])}, of S {joined('skew_s', v['skew_s'])}"


def seed_text(rows: pd.DataFrame, seeds: object) -> str:
    """The seeds behind each point."""
    found = sorted(rows["seed"].unique().tolist()) if not rows.empty else []
    if len(found) > 1:
        return f"seeds {', '.join(map(str, found))} (mean over seeds, spread of the seeds' fractions)"
    return f"seed {found[0]}" if found else f"{seeds} seed(s) per point"


def memory_text(exp: dict, rows: pd.DataFrame) -> str:
    """The memories with their multiples of the window, "M = 40 (0.1w), 100 (0.25w)"; from the
    grid's memory or memory_factor before any run."""
    if rows.empty:
        grid = exp.get("grid", {})
        return "M = " + (joined("memory", grid["memory"]) if grid.get("memory") else
                         ", ".join(f"{f:g}w" for f in grid.get("memory_factor", [1.0])))
    pairs = sorted({(int(m), int(w)) for m, w in zip(rows["memory"], rows["window"])})
    return "M = " + ", ".join(memory_label(m, w) for m, w in pairs)
