"""Payload groups from any input (shedding.online.groups): a file's own columns, text or integers,
one or several, numbered by the sorted distinct values whatever the row order, and bounded."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from shedding.datasets import load_two_streams, load_workload
from shedding.datasets.age import age_workload
from shedding.errors import ShedError
from shedding.online import simulate
from shedding.online.groups import MAX_GROUPS, default_group, group_columns, group_ids, payload_groups
from shedding.online.params import RunParams


def test_the_ids_are_the_ranks_of_the_sorted_distinct_values():
    table = pd.DataFrame({"c": ["b", "a", "c", "a", None], "n": [10, 9, 10, 2, 9]})
    assert group_ids(table, ["c"]).tolist() == [1, 0, 2, 0, 3]  # missing: a group of its own, last
    assert group_ids(table, ["n"]).tolist() == [2, 1, 2, 0, 1]  # integers by value, not as text (10 after 9)
    # combinations ranked column by column: (a, 2) (a, 9) (b, 10) (c, 10) (missing, 9)
    assert group_ids(table, ["c", "n"]).tolist() == [2, 1, 3, 0, 4]


def test_combinations_of_many_columns_are_ranked_as_sorted_tuples():
    """Three or four columns, many values each (their product past 2^64 with the last): each row's
    id is the rank of its value tuple among the sorted distinct tuples, as a brute force says."""
    rng = np.random.default_rng(11)
    n = 400
    table = pd.DataFrame({"a": rng.integers(0, 3, n), "b": rng.integers(-5, 5, n), "c": rng.choice(["x", "y"], n),
                          "d": rng.integers(0, 2**40, n) % 7 * 2**37})
    for columns in (["a", "b", "c"], ["c", "a", "b", "d"]):
        rows = list(zip(*(table[c].tolist() for c in columns)))
        rank = {t: i for i, t in enumerate(sorted(set(rows)))}
        assert group_ids(table, columns).tolist() == [rank[t] for t in rows]


def test_the_ids_do_not_depend_on_the_row_order():
    rng = np.random.default_rng(3)
    table = pd.DataFrame({"endpoint": rng.choice(["/a", "/b", "/c/d", "/e"], 300), "code": rng.integers(0, 5, 300)})
    ids = group_ids(table, ["endpoint", "code"])
    for _ in range(5):
        perm = rng.permutation(300)
        assert np.array_equal(group_ids(table.iloc[perm].reset_index(drop=True), ["endpoint", "code"]), ids[perm])


def test_group_columns_reads_names_lists_and_refuses_empty_or_repeated_ones():
    assert group_columns(None) is None and group_columns(()) is None and group_columns([]) is None
    assert group_columns("dest") == ("dest",)
    assert group_columns(" dest , carrier ") == ("dest", "carrier")
    assert group_columns(["dest", "carrier"]) == ("dest", "carrier")
    for bad, text in (("", "empty column name"), ("a,", "empty column name"), ("a,a", "names a twice"),
                      (3, "must be a column name"), (["a", 3], "must be a column name")):
        with pytest.raises(ShedError, match=text) as info:
            group_columns(bad)
        assert info.value.param == "group"


def test_the_groupings_of_their_own_stand_alone_and_none_is_no_group():
    assert group_columns("none") is None and group_columns(["None"]) is None
    assert group_columns("Auto-History") == ("auto-history",) and group_columns("AUTO") == ("auto",)
    for bad in ("auto-history,dest", "history,auto-history", "none,dest", "dest,auto"):
        with pytest.raises(ShedError, match="is a grouping of its own; give .* alone or the columns") as info:
            group_columns(bad)
        assert info.value.param == "group"


def test_hazard_weighs_the_history_by_default_only_where_the_sides_live_apart():
    """HAZARD's default grouping: auto-history under a range whose sides live for different times
    (one-sided, or any range but the symmetric window), none on the window, and none for a policy
    without groups, a band join, or group none."""
    assert default_group(None) is None and default_group((-9, 9)) is None
    for bounds in ((0, 719), (100, 399), (-100, 399), (-5, -1)):
        assert default_group(bounds) == ("auto-history",)
    assert RunParams.of("hazard", 10, bounds=(0, 9)).group == ("auto-history",)
    assert RunParams.of("hazardv", 10, bounds=(0, 9)).group == ("auto-history",)
    assert RunParams.of("hazard", 10, bounds=(-9, 9)).group is None
    assert RunParams.of("hazard", 10, bounds=(0, 9), group="none").group is None
    assert RunParams.of("hazard", 10, bounds=(0, 9), group="history").group == ("history",)
    assert RunParams.of("prob", 10, bounds=(0, 9)).group is None
    assert RunParams.of("hazard", 10, bounds=(0, 9), band=True).group is None
    with pytest.raises(ShedError, match="auto-history, HAZARD's grouping by default under this time range, does "
                       "not combine with tuning forget > 0 yet .* give group none") as info:
        RunParams.of("hazard", 10, bounds=(0, 9), tuning="forget=0.1")
    assert info.value.param == "group"
    assert RunParams.of("hazard", 10, bounds=(-9, 9), tuning="forget=0.1").group is None


def test_more_distinct_values_than_the_bound_are_refused():
    table = pd.DataFrame({"row": np.arange(MAX_GROUPS + 1)})
    assert group_ids(table.iloc[:MAX_GROUPS], ["row"]).max() == MAX_GROUPS - 1
    with pytest.raises(ShedError, match=f"^group row has {MAX_GROUPS + 1:,} distinct values, more than the "
                       f"{MAX_GROUPS:,}") as info:
        group_ids(table, ["row"])
    assert info.value.param == "group"


def _bids(tmp_path):
    """An auction-like file: bids (S) follow their auction (R) at an age that depends on the
    auction's category, a text column, with an integer column beside it."""
    wl = age_workload(window=60, lag_mean=20, lag_spread=5, length=1500, seed=4, background=0.2, skew=0.0,
                      domain=10**6)
    category = np.array(["art", "books", "cars", "toys"])[wl.key % 4]
    frame = pd.DataFrame({"stream": np.where(wl.side == 0, "R", "S"), "time": wl.time, "key": wl.key,
                          "category": category, "seller": wl.key % 3})
    return wl, frame


def test_a_files_own_columns_are_groups_in_csv_and_parquet_alike(tmp_path):
    wl, frame = _bids(tmp_path)
    frame.to_csv(tmp_path / "bids.csv", index=False)
    frame.to_parquet(tmp_path / "bids.parquet", index=False)
    from_csv, from_parquet = load_workload(tmp_path / "bids.csv", 60), load_workload(tmp_path / "bids.parquet", 60)
    assert list(from_csv.meta["payload"].columns) == ["category", "seller"]
    codes = pd.factorize(frame["category"], sort=True)[0] * 3 + frame["seller"].to_numpy()
    wl.meta["payload"] = pd.DataFrame({"g": codes})
    expected = simulate(wl, "hazard", 30, estimator="online", group="g")
    for loaded in (from_csv, from_parquet):
        res = simulate(loaded, "hazard", 30, estimator="online", group="category,seller")
        assert res.outputs == expected.outputs and res.params["group"] == "category,seller"
        assert np.array_equal(res.schedule.left, expected.schedule.left)
    # a column is matched case-insensitively when no column has the name as given
    assert simulate(from_csv, "hazard", 30, estimator="online", group="Category").params["group"] == "Category"


def test_a_parquet_files_named_index_is_one_of_its_columns(tmp_path):
    """pandas writes a named index (``set_index``) as a column of the file: it is read as one, the
    time or a payload column alike; an unnamed index (``index=True``) is pandas' row labels and no
    column, as pandas reads it."""
    wl, frame = _bids(tmp_path)
    frame.to_csv(tmp_path / "bids.csv", index=False)
    frame.set_index("time").to_parquet(tmp_path / "by_time.parquet")
    frame.set_index("category").to_parquet(tmp_path / "by_category.parquet")
    frame.iloc[::-1].iloc[::-1].set_axis(np.arange(len(frame)) * 3).to_parquet(tmp_path / "labels.parquet", index=True)
    expected = simulate(load_workload(tmp_path / "bids.csv", 60), "hazard", 30, estimator="online", group="category")
    for name in ("by_time", "by_category", "labels"):
        loaded = load_workload(tmp_path / f"{name}.parquet", 60)
        assert sorted(loaded.meta["payload"].columns) == ["category", "seller"], name
        res = simulate(loaded, "hazard", 30, estimator="online", group="category")
        assert res.outputs == expected.outputs and np.array_equal(res.schedule.left, expected.schedule.left), name
    frame.set_index(frame["category"].rename("seller")).to_parquet(tmp_path / "twice.parquet")
    with pytest.raises(ShedError, match="names the column 'seller' twice .its pandas index and a column.; rename one"):
        load_workload(tmp_path / "twice.parquet", 60)  # a valid file, named so, not "cannot read"


def test_rows_reordered_within_a_time_keep_their_groups(tmp_path):
    """The file's order among equal times is the tuples' order; each tuple keeps its group's id."""
    _, frame = _bids(tmp_path)
    frame.to_csv(tmp_path / "a.csv", index=False)
    rng = np.random.default_rng(0)
    shuffled = frame.assign(r=rng.random(len(frame))).sort_values(["time", "r"], kind="stable").drop(columns="r")
    shuffled.to_csv(tmp_path / "b.csv", index=False)
    a, b = load_workload(tmp_path / "a.csv", 60), load_workload(tmp_path / "b.csv", 60)
    ga, gb = payload_groups(a, "category"), payload_groups(b, "category")
    label = {v: i for i, v in enumerate(sorted(frame["category"].unique()))}
    assert np.array_equal(ga, a.meta["payload"]["category"].map(label).to_numpy())
    assert np.array_equal(gb, b.meta["payload"]["category"].map(label).to_numpy())


def test_two_files_give_the_columns_both_have(tmp_path):
    (tmp_path / "r.csv").write_text("time,key,Category,endpoint\n0,1,a,1\n1,2,b,2\n")
    (tmp_path / "s.csv").write_text("time,key,category\n0,1,a\n2,2,b\n")
    wl = load_two_streams(tmp_path / "r.csv", tmp_path / "s.csv", 5)
    assert list(wl.meta["payload"].columns) == ["Category"]
    assert wl.meta["payload"]["Category"].tolist() == ["a", "a", "b", "b"]  # workload order: R, S at 0; R at 1; S at 2
    with pytest.raises(ShedError, match="^unknown group column 'endpoint'; the workload's payload columns are "
                       "Category$"):
        payload_groups(wl, "endpoint")


def test_a_file_without_payload_columns_carries_none(tmp_path):
    (tmp_path / "w.csv").write_text("stream,time,key\nR,0,1\nS,0,1\n")
    wl = load_workload(tmp_path / "w.csv", 5)
    assert "payload" not in wl.meta
    with pytest.raises(ShedError, match="^group needs payload columns per tuple"):
        simulate(wl, "hazard", 2, group="category")
