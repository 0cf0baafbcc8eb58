"""The verdict on a paper's claim: the checks a study makes of it against its runs, and the one
rule that turns them into a word.

A :class:`Check` is one testable part of a claim with its criterion and numbers in its text:
passed (True), failed (False) or not checkable (None), with the likely cause of a failure. A
:class:`Verdict` holds a claim and its checks; :func:`verdict_word` is the rule every study's
page uses, and :func:`badge` and :func:`check_item` draw them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

AGREES = "agrees"
PARTLY = "partly agrees"
DISAGREES = "disagrees"
NOT_CHECKED = "not checked"
#: the verdict words, in the order the findings count them, each with its plural
TALLY = {AGREES: "agree", PARTLY: "partly agree", DISAGREES: "disagree", NOT_CHECKED: "not checked"}
#: how the checks compare numbers
CONVENTION = ('"A is x% above (below) B" means (A - B) / B; a difference of two fractions (of OPT, of EXACT, '
              "of memory) is given in percentage points. Ranges over seeds are the lowest and highest seed.")


@dataclass(frozen=True)
class Check:
    """One part of a claim: passed (True), failed (False) or not checkable (None), and why."""

    ok: bool | None
    text: str
    cause: str = ""  # the likely cause of a disagreement

    @property
    def state(self) -> str:
        """pass, fail or unknown."""
        return "unknown" if self.ok is None else "pass" if self.ok else "fail"


def verdict_word(checks: Sequence[Check]) -> str:
    """The rule: "not checked" when no check could be decided, "agrees" when every decided check
    passed, "disagrees" when none did, and "partly agrees" otherwise."""
    known = [c.ok for c in checks if c.ok is not None]
    if not known:
        return NOT_CHECKED
    return AGREES if all(known) else DISAGREES if not any(known) else PARTLY


@dataclass(frozen=True)
class Verdict:
    """Whether a study's runs agree with a claim, from its checks (:func:`verdict_word`)."""

    claim: str
    checks: tuple[Check, ...]

    @property
    def word(self) -> str:
        """agrees, partly agrees, disagrees, or not checked."""
        return verdict_word(self.checks)


def badge(verdict: Verdict) -> str:
    """The verdict word as a coloured badge."""
    word = verdict.word
    return f'<span class="verdict {word.replace(" ", "-")}">{word}</span>'


def check_item(check: Check) -> str:
    """A check as a list item marked pass, fail or unknown; a failed one with its likely cause
    ("Disagrees; likely cause: ...")."""
    cause = f' <span class="cause">Disagrees; likely cause: {escape(check.cause)}.</span>' if check.cause else ""
    return f'<li class="check {check.state}">{escape(check.text)}{cause}</li>'
