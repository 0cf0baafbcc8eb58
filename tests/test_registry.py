"""The policy registry is the one place a policy's name, uses and join families are written: help
texts, figure styles and flag rules read it, and no module reads a trait from a policy's name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from shedding.online.policies import POLICIES, STREAM, names_for, uses

ROOT = Path(__file__).resolve().parents[1]
NAMED = [name for name, p in POLICIES.items() if not p.replay]
#: a trait read from a policy's name: ``name.startswith("rand")``, ``kind == "rand"``, ``.endswith("v")``
#: (selecting one policy's rows for a finding about that policy is no trait)
NAME_TRAIT = re.compile(r"""(startswith|endswith)\(\s*["'](rand|prob|life|surv|dual|fluid|age|hazard|v)["']"""
                        r"""|\b(kind|name)\s*(==|!=)\s*["'](rand|randv|hazard|hazardv|age|agev)["']""")


@pytest.mark.parametrize("name", NAMED)
def test_every_policy_has_a_style_of_its_own(name):
    from shedding.studies.page.figures import STYLES

    assert name in STYLES
    others = {k: v for k, v in STYLES.items() if k != name}
    assert STYLES[name] not in others.values()


def test_styles_are_distinct_and_families_have_distinct_colours():
    from shedding.studies.page.figures import STYLES

    assert len(set(STYLES.values())) == len(STYLES)
    # markers and dashes apart on their own, so that any lines of one figure differ in each (grey print)
    assert len({v[1] for v in STYLES.values()}) == len({v[2] for v in STYLES.values()}) == len(STYLES)
    colour = {POLICIES[n].family: STYLES[n][0] for n in NAMED}
    assert len(set(colour.values())) == len(colour)
    assert not set(colour.values()) & {STYLES["exact"][0], STYLES["opt"][0]}


def test_the_help_texts_list_every_policy(shed):
    code, simulate, _ = shed("simulate", "--help")
    assert code == 0
    code, stream, _ = shed("stream-join", "--help")
    assert code == 0
    flat = lambda text: re.sub(r"[\s│]+", " ", text)  # noqa: E731 - rich wraps the help in a box
    simulate, stream = flat(simulate), flat(stream)
    for name in NAMED:
        assert re.search(rf"\b{name}\b", simulate), name
    for name in names_for(STREAM):
        assert re.search(rf"\b{name}\b", stream), name


def test_the_command_line_streaming_choices_are_the_library_s():
    from shedding.cli.stream_join import SHEDDING as CLI
    from shedding.streaming.shard import SHEDDING

    assert CLI == SHEDDING


def test_uses_come_from_the_registry():
    assert uses("seed") == ("rand", "randv")
    assert uses("group") == ("hazard", "hazardv")
    assert uses("tuning") == ("age", "agev", "hazard", "hazardv")


def test_no_trait_is_read_from_a_policy_name():
    found = []
    for path in sorted((ROOT / "shedding").rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if NAME_TRAIT.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "read the registry's capabilities (shedding.online.policies) instead:\n" + "\n".join(found)
