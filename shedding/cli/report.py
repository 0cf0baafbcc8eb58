"""``shed report``: rebuild report.html from the results ``shed compare`` stored in a folder."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.markup import escape

from shedding.cli.output import out
from shedding.cli.rules import Holds, Values
from shedding.errors import ShedError


def check_stored(v: Values) -> None:
    """The folder holds results that can be read: suite.json is a JSON object, the results
    (parts/ or results.parquet) load, and results.csv, which the report links, can be read."""
    from shedding.studies.registry import load_results

    folder = v.out_dir
    fix = f"run shed compare --out {folder} again (with --resume to keep the finished runs)"
    if not folder.exists():
        raise ShedError(f"DIR {folder} does not exist; give the --out folder of a shed compare run")
    if not folder.is_dir():
        raise ShedError(f"DIR {folder} is a file, not a folder written by shed compare; give the --out folder of a "
                        "shed compare run")
    if (folder / "report.html").is_dir():
        raise ShedError(f"DIR {folder}: report.html is a folder where the report goes; move it away")
    suite = folder / "suite.json"
    if suite.exists():
        try:
            doc = json.loads(suite.read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            raise ShedError(f"DIR {folder}: suite.json is damaged (not JSON); {fix}") from None
        if not isinstance(doc, dict) or not {"run_ids", "total_runs"} <= set(doc):
            raise ShedError(f"DIR {folder}: suite.json is damaged (no run_ids or total_runs); {fix}")
    table = folder / "results.csv"
    if table.exists():
        try:
            with open(table, encoding="utf-8") as f:
                f.read()
        except (OSError, UnicodeDecodeError):
            raise ShedError(f"DIR {folder}: results.csv cannot be read; {fix}") from None
    try:
        load_results(folder)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        if isinstance(exc, ShedError):
            raise
        raise ShedError(f"DIR {folder}: the stored results (results.parquet or parts/) cannot be read; {fix}") from None


RULES = (Holds(check_stored),)


def report(out_dir: Path = typer.Argument(..., metavar="DIR", help="A folder written by shed compare.")) -> None:
    """Rebuild report.html from the results stored by shed compare."""
    from shedding.studies.registry import build_report, load_results

    results, suite_dict, complete = load_results(out_dir)
    try:
        path = build_report(results, suite_dict, complete, out_dir / "report.html")
    except (AttributeError, KeyError, TypeError, ValueError) as exc:  # a suite.json edited out of shape
        if isinstance(exc, ShedError):
            raise
        raise ShedError(f"DIR {out_dir}: suite.json does not describe its results as shed compare writes it "
                        f"({type(exc).__name__}); run shed compare --out {out_dir} again") from None
    out.print(f"report: {escape(str(path))}" + ("" if complete else " (INCOMPLETE results)"))
