"""The verdict on a paper's claim: the checks a study makes of it against its runs, and the one
rule that turns them into a word.

A :class:`Check` is one testable part of a claim with its criterion and numbers in its text:
passed (True), failed (False) or not checkable (None), with the likely cause of a failure, and
whether the failure lies inside the seed range (the mean over seeds misses the criterion while
some seed meets it). A :class:`Verdict` holds a claim and its checks; :func:`verdict_word` is
the rule every study's page uses (:data:`RULE` states it on the page), and :func:`badge` and
:func:`check_item` draw them.
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
#: the rule of :func:`verdict_word`, as every page states it
RULE = ("Verdicts: a claim is split into checks, each with its criterion; checks that cannot be decided are "
        "left out. 'agrees': every decided check passes. 'partly agrees': some check passes, and either more "
        "than half of the decided checks pass or every failed check fails inside the seed range (the mean "
        "over seeds misses the criterion while some seed meets it). 'disagrees': otherwise, so a claim with "
        "half or fewer of its checks passing and a failure outside the seed range disagrees. "
        "'not checked': no check could be decided.")


@dataclass(frozen=True)
class Check:
    """One part of a claim: passed (True), failed (False) or not checkable (None), and why.

    ``within_seeds``: the check failed on the mean over seeds, but at every point where it failed
    some seed meets the criterion (the failure lies inside the seed range)."""

    ok: bool | None
    text: str
    cause: str = ""  # the likely cause of a disagreement
    within_seeds: bool = False

    @property
    def state(self) -> str:
        """pass, fail or unknown."""
        return "unknown" if self.ok is None else "pass" if self.ok else "fail"

    @property
    def borderline(self) -> bool:
        """A failure inside the seed range."""
        return self.ok is False and self.within_seeds


def verdict_word(checks: Sequence[Check]) -> str:
    """The rule (:data:`RULE`): "not checked" when no check could be decided; "agrees" when every
    decided check passed; "partly agrees" when some passed and either more than half of the
    decided ones did or every failure lies inside the seed range; "disagrees" otherwise."""
    known = [c for c in checks if c.ok is not None]
    if not known:
        return NOT_CHECKED
    passed = sum(bool(c.ok) for c in known)
    if passed == len(known):
        return AGREES
    if passed and (2 * passed > len(known) or all(c.borderline for c in known if not c.ok)):
        return PARTLY
    return DISAGREES


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
    ("Disagrees; likely cause: ...", or "Disagrees inside the seed range; ..." when the failure
    lies inside the seed range)."""
    where = " inside the seed range (some seed meets the criterion)" if check.borderline else ""
    cause = f"; likely cause: {escape(check.cause)}" if check.cause else ""
    note = f' <span class="cause">Disagrees{where}{cause}.</span>' if check.ok is False and (cause or where) else ""
    return f'<li class="check {check.state}">{escape(check.text)}{note}</li>'
