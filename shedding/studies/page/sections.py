"""The sections of a study page: one per experiment (its claim and verdict first), the contents
linking them, and the findings with every check."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from shedding.studies.page.verdicts import CONVENTION, RULE, TALLY, Verdict, badge, check_item


@dataclass(frozen=True)
class Section:
    """One experiment's part of a page."""

    index: int
    title: str
    html: str
    notes: list[str]
    verdict: Verdict
    has_figure: bool


def section_head(index: int, exp_id: str, title: str, verdict: Verdict, meta: str = "") -> list[str]:
    """The opening of an experiment's section: its number and title, ``meta`` (HTML, optional),
    and the claim (the paper's, or the project's hypothesis) with the verdict badge and a link to the checks."""
    return [f'<section class="experiment" id="exp-{index}" data-experiment="{escape(exp_id)}">',
            f"<h2>{index + 1}. {escape(title)}</h2>", *([meta] if meta else []),
            f'<p class="claim">{escape(verdict.source)}: {escape(verdict.claim)} {badge(verdict)} <a href="#findings-{index}">checks</a></p>']


def data_link(name: str) -> str:
    """The link to the CSV of a figure's numbers, written beside the page."""
    return f'<p class="data-link">Data of this figure: <a href="{escape(name)}">{escape(name)}</a></p>'


def contents(sections: list[Section]) -> str:
    """Links to each experiment with its verdict."""
    items = "".join(f'<li><a href="#exp-{s.index}">{escape(s.title)}</a> {badge(s.verdict)}</li>' for s in sections)
    return (f'<nav><h2>Experiments</h2><ol>{items}</ol><p><a href="#findings">Findings</a> (with the rule '
            'behind the verdicts)</p></nav>\n')


def findings_section(sections: list[Section]) -> str:
    """All findings: the verdict rule and the conventions, then per experiment the paper's claim,
    the verdict and its checks."""
    words = [s.verdict.word for s in sections]
    tally = ", ".join(f"{words.count(w)} {TALLY[w]}" for w in TALLY if words.count(w))
    parts = ['<section id="findings">', "<h2>Findings</h2>",
             f"<p>Computed from the runs above; every check states its criterion. Claims: {escape(tally)}.</p>",
             f'<p class="rule">{escape(RULE)}</p>', f'<p class="convention">{escape(CONVENTION)}</p>']
    for s in sections:
        checks = "".join(check_item(c) for c in s.verdict.checks)
        notes = "".join(f'<li class="finding">{escape(n)}</li>' for n in s.notes)
        parts += [f'<div class="finding-group" id="findings-{s.index}"><h3>{s.index + 1}. {escape(s.title)}</h3>',
                  f'<p class="verdict-line">{badge(s.verdict)} {escape(s.verdict.source)}: {escape(s.verdict.claim)}</p>',
                  f'<ul class="checks">{checks}</ul>', f'<ul class="notes">{notes}</ul></div>' if notes else "</div>"]
    parts.append("</section>")
    return "\n".join(parts)
