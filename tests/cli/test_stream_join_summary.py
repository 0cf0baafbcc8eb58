"""The summary of ``shed stream-join``: its title says M only where M bounds the join."""

from __future__ import annotations

from shedding.cli.stream_output import title
from shedding.streaming.shard import JoinSpec


def test_the_title_of_none_says_it_has_no_memory_bound():
    assert title(JoinSpec(300, 300, "none")) == "NONE: w = 300, no memory bound (the exact join), 1 shard(s)"
    assert title(JoinSpec(300, 200, "prob", shards=2)) == "PROB: w = 300, M = 200, 2 shard(s)"
