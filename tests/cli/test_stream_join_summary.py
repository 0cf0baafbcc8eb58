"""The summary of ``shed stream-join``: its title says M only where M bounds the join."""

from __future__ import annotations

from shedding.cli.stream_output import print_summary, summary_rows, title
from shedding.streaming.shard import JoinSpec


def test_the_title_of_none_says_it_has_no_memory_bound():
    assert title(JoinSpec(300, 300, "none")) == "NONE: w = 300, no memory bound (the exact join), 1 shard"
    assert title(JoinSpec(300, 200, "prob", shards=2)) == "PROB: w = 300, M = 200, 2 shards"


def test_the_summary_counts_an_outer_joins_unpaired_rows_and_only_for_an_outer_join():
    totals = {"batches": 3, "arrivals": 100, "outputs": 40, "unpaired": 25, "unpaired_shed": 7}
    rows = dict(summary_rows(totals, outer=True))
    assert rows["unpaired rows out"] == "25" and rows["  of them shed (a partner may be lost)"] == "7"
    assert not any("unpaired" in label for label, _ in summary_rows(totals, outer=False))


def test_the_summary_words_the_skipped_files_as_the_progress_line_does(capsys):
    base = {"pairs": "out/pairs", "metrics": "out/metrics", "seconds": 1.0}
    for n, words in ((1, "1 file skipped: it arrived"), (3, "3 files skipped: they arrived")):
        print_summary(base | {"skipped_files": n}, "PROB")
        printed = " ".join(capsys.readouterr().out.split())
        assert f"{words} named before files already read; name new files" in printed
    print_summary(base, "PROB")
    assert "arrived named before" not in capsys.readouterr().out
