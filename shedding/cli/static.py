"""``shed static``: static k-truncation of a two-relation join (paper §3.1)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from shedding.cli.checks import choice, integer, parsed
from shedding.cli.output import out, print_fitted
from shedding.cli.rules import Exists, OneOf, Together

METHODS = ("fast", "dp")


def _components(text: str) -> object:
    from shedding.offline.static import parse_components

    return parse_components(text)


RULES = (
    OneOf((("--components",), ("--relation-a", "--relation-b"))),
    Together(("--relation-a", "--relation-b")),
    Together(("--drop-a", "--drop-b"), " (--drop-b 0 drops from A only)"),
    OneOf((("--keep",), ("--drop",), ("--drop-a", "--drop-b"))),
    Exists(("--relation-a", "--relation-b")),
)


def static(
    components: Optional[str] = typer.Option(None, "--components", "-c", callback=parsed(_components),
                                             help='Kuratowski components as "MxN,...", e.g. "3x2,4x4".',
                                             show_default=False),
    relation_a: Optional[Path] = typer.Option(None, "--relation-a", help="CSV or Parquet file of relation A "
                                              "with its join keys in column key.", show_default=False),
    relation_b: Optional[Path] = typer.Option(None, "--relation-b", help="The same for relation B.",
                                              show_default=False),
    keep: Optional[int] = typer.Option(None, "--keep", callback=integer(0), help="Keep k tuples in all.",
                                       show_default=False),
    drop: Optional[int] = typer.Option(None, "--drop", callback=integer(0), help="Drop k tuples in all.",
                                       show_default=False),
    drop_a: Optional[int] = typer.Option(None, "--drop-a", callback=integer(0), show_default=False,
                                         help="Drop k_A tuples of A (with --drop-b)."),
    drop_b: Optional[int] = typer.Option(None, "--drop-b", callback=integer(0), show_default=False,
                                         help="Drop k_B tuples of B (with --drop-a)."),
    method: str = typer.Option("fast", "--method", callback=choice(METHODS), help="fast (convexity + shape "
                               "knapsack) or dp (the paper's O(c k^2) dynamic program); both are exact."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as one JSON object."),
) -> None:
    """Static k-truncation (paper section 3.1): the tuples to drop before a two-relation join.

    Chosen so that the most join output survives.

    Example: shed static --components "3x2,4x4,1x5" --drop 3
    """
    from shedding.datasets.files import read_keys
    from shedding.offline.static import components_from_keys, parse_components, static_truncation

    if components is not None:
        comps = parse_components(components)
    else:
        assert relation_a is not None and relation_b is not None  # RULES: --components or both relations
        comps = components_from_keys(*read_keys(relation_a, relation_b))
    res = static_truncation(comps, keep=keep, drop=drop, drop_a=drop_a, drop_b=drop_b, method=method)
    if as_json:
        print(json.dumps(res.as_dict()))
        return
    head = res.summary()
    out.print(f"{head['components']} components, A = {head['tuples_a']:,}, B = {head['tuples_b']:,} tuples; "
              f"kept A = {head['kept_a']:,}, B = {head['kept_b']:,} ({head['method']})")
    out.print(f"output kept: {head['output']:,} of {head['total_output']:,} "
              f"({100 * head['retained_fraction']:.1f}%)")
    rows = res.rows()
    print_fitted([(col, "right") for col in ("key", "m", "n", "kept A", "kept B", "output")],
                 [[str(r["key"]), str(r["m"]), str(r["n"]), str(r["kept_a"]), str(r["kept_b"]), f"{r['output']:,}"]
                  for r in sorted(rows, key=lambda r: -r["m"] * r["n"])[:20]])
    if len(rows) > 20:
        out.print(f"(largest 20 of {len(rows)} components shown; --json gives all)")
