"""The tables of a page: numbers right-aligned, keys left-aligned, a note above each."""

from __future__ import annotations

from html import escape

#: a body cell: (text not yet escaped, whether it is a key column)
Cell = tuple[str, bool]


def table_html(index: int | str, head: list[str], body: list[list[Cell]], note: str) -> str:
    """A table with id ``table-<index>``; every body cell is (text, is_key), text not yet escaped."""
    ths = "".join(f"<th>{escape(h)}</th>" for h in head)
    trs = "".join("<tr>" + "".join(f'<td class="key">{escape(t)}</td>' if key else f"<td>{escape(t)}</td>"
                                   for t, key in row) + "</tr>" for row in body)
    return (f'<div class="table-wrap"><p class="table-note">{escape(note)}</p><table class="numbers" '
            f'id="table-{index}"><thead><tr>{ths}</tr></thead><tbody>{trs}</tbody></table></div>')


def runs_section(head: list[str], body: list[list[Cell]]) -> str:
    """Every run of a suite in a collapsed table (``<section id="runs">``)."""
    return (f'<section id="runs"><details><summary>All {len(body):,} runs</summary>'
            f'{table_html("runs", head, body, "One row per run, as in results.csv.")}</details></section>')
