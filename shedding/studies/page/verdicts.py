"""The verdict on a paper's claim: the checks a study makes of it against its runs, and the one
rule that turns them into a word.

A :class:`Check` is one testable part of a claim with its criterion and numbers in its text:
passed (True), failed (False), not checkable (None) or not decidable at this scale (None, with
``undecided``: its numbers lie inside their timing spread), with the likely cause of a failure,
and whether the failure lies inside the seed range. Whether a check passes is decided by the one
criterion of :mod:`.criterion` (:func:`checked` makes a check from its judgement). A
:class:`Verdict` holds a claim and its checks; :func:`verdict_word` is the rule every study's page
uses (:data:`RULE` states it, with the criterion, on the page), and :func:`badge` and
:func:`check_item` draw them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from shedding.studies.page.criterion import CRITERION, Judgement

AGREES = "agrees"
PARTLY = "partly agrees"
DISAGREES = "disagrees"
NOT_DECIDABLE = "not decidable at this scale"
NOT_CHECKED = "not checked"
#: the verdict words, in the order the findings count them, each with its plural
TALLY = {AGREES: "agree", PARTLY: "partly agree", DISAGREES: "disagree", NOT_DECIDABLE: "not decidable at this scale",
         NOT_CHECKED: "not checked"}
#: how the checks compare numbers
CONVENTION = ('"A is x% above (below) B" means (A - B) / B; a difference of two fractions (of OPT, of EXACT, '
              "of memory) is given in percentage points. Ranges over seeds are the lowest and highest seed.")
#: the rule of :func:`verdict_word`, as every page states it
RULE = (CRITERION + " Verdicts: a claim is split into checks, each with its criterion; checks that cannot be "
        "checked are left out. 'agrees': every check passes. 'partly agrees': some check passes, and either more "
        "than half of the checks pass or every failed check fails inside the seed range. 'disagrees': otherwise. "
        "'not decidable at this scale': some check is not decidable, and the word would differ were it to pass "
        "or to fail outside the seed range. 'not checked': no check could be checked.")


@dataclass(frozen=True)
class Check:
    """One part of a claim: passed (True), failed (False) or not checkable (None), and why.

    ``within_seeds``: the check failed, but at every point where it failed at most half of the
    seeds miss the criterion (:mod:`.criterion`); ``undecided`` (with ``ok`` None): its numbers
    lie inside their timing spread, so it is not decidable at this scale."""

    ok: bool | None
    text: str
    cause: str = ""  # the likely cause of a disagreement
    within_seeds: bool = False
    undecided: bool = False

    @property
    def state(self) -> str:
        """pass, fail, undecided or unknown."""
        if self.ok is None:
            return "undecided" if self.undecided else "unknown"
        return "pass" if self.ok else "fail"

    @property
    def borderline(self) -> bool:
        """A failure inside the seed range."""
        return self.ok is False and self.within_seeds


def checked(judgement: Judgement, text: str, cause: str = "") -> Check:
    """The check a judgement (:func:`~shedding.studies.page.criterion.judge`) decides, with its
    ``text`` and, should it fail, its likely ``cause``."""
    return Check(judgement.ok, text, "" if judgement.ok is not False else cause, judgement.inside,
                 judgement.ok is None)


def _word(checks: Sequence[Check]) -> str:
    """The rule on decided checks only (pass or fail)."""
    passed = sum(bool(c.ok) for c in checks)
    if passed == len(checks):
        return AGREES
    if passed and (2 * passed > len(checks) or all(c.borderline for c in checks if not c.ok)):
        return PARTLY
    return DISAGREES


def verdict_word(checks: Sequence[Check]) -> str:
    """The rule (:data:`RULE`): "not checked" when no check could be checked; else the word of
    the decided checks ("agrees" when every one passed; "partly agrees" when some passed and
    either more than half did or every failure lies inside the seed range; "disagrees"
    otherwise), the same whether each undecided check passed or failed outside the seed range,
    else "not decidable at this scale"."""
    known = [c for c in checks if c.ok is not None]
    undecided = [c for c in checks if c.ok is None and c.undecided]
    if not known and not undecided:
        return NOT_CHECKED
    if_pass = _word(known + [Check(True, c.text) for c in undecided])
    if_fail = _word(known + [Check(False, c.text) for c in undecided])
    return if_pass if if_pass == if_fail else NOT_DECIDABLE


@dataclass(frozen=True)
class Verdict:
    """Whether a study's runs agree with a claim, from its checks (:func:`verdict_word`);
    ``source`` says whose claim it is (the paper's, or the project's own hypothesis)."""

    claim: str
    checks: tuple[Check, ...]
    source: str = "Paper"

    @property
    def word(self) -> str:
        """agrees, partly agrees, disagrees, not decidable at this scale, or not checked."""
        return verdict_word(self.checks)


def badge(verdict: Verdict) -> str:
    """The verdict word as a coloured badge."""
    word = verdict.word
    return f'<span class="verdict {word.replace(" ", "-")}">{word}</span>'


def check_item(check: Check) -> str:
    """A check as a list item marked pass, fail, undecided or unknown; a failed one with its
    likely cause ("Disagrees; likely cause: ...", or "Disagrees inside the seed range; ..." when
    the failure lies inside the seed range), an undecided one saying so."""
    where = " inside the seed range (at most half of the seeds miss the criterion)" if check.borderline else ""
    cause = f"; likely cause: {escape(check.cause)}" if check.cause else ""
    note = f' <span class="cause">Disagrees{where}{cause}.</span>' if check.ok is False and (cause or where) else ""
    if check.undecided:
        note = (' <span class="undecided">Not decidable at this scale: the difference lies inside the spread of the '
                'repeated timings.</span>')
    return f'<li class="check {check.state}">{escape(check.text)}{note}</li>'
