"""Text keys in stream files (airports, user ids): numbered together over both streams by their
sorted text, so that the join, OPT and the policies see the same equalities as the text does,
whatever the files' order; a column of mostly whole numbers stays integer (a stray word is an
error naming its row), as ``shed stream-join`` reads a key column."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import assert_one_line_error
from shedding.datasets import load_two_streams, load_workload
from shedding.datasets.files import read_keys, read_stream
from shedding.errors import ShedError
from shedding.exact import exact_count
from shedding.offline.opt import solve_opt
from shedding.run import run_policy

AIRPORTS = np.array(["JFK", "LGA", "EWR", "BOS", "ORD", "ATL", "SFO", "1"])


def streams(seed: int, n: int = 300, horizon: int = 200) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    return tuple(pd.DataFrame({"time": np.sort(rng.integers(0, horizon, n)), "key": AIRPORTS[rng.integers(0, 7, n)]})
                 for _ in range(2))


def window_pairs(r: pd.DataFrame, s: pd.DataFrame, window: int) -> int:
    """The window join by pandas on the text itself (every pair counts: warmup 0)."""
    m = r.merge(s, on="key")
    return int(((m["time_x"] - m["time_y"]).abs() < window).sum())


def test_text_keys_in_two_files_join_as_their_text(tmp_path: Path) -> None:
    r, s = streams(1)
    r.to_csv(tmp_path / "r.csv", index=False)
    s.to_parquet(tmp_path / "s.parquet")
    wl = load_two_streams(tmp_path / "r.csv", tmp_path / "s.parquet", window=15, warmup=0)
    assert list(wl.meta["key_labels"]) == sorted(set(r["key"]) | set(s["key"]))
    assert exact_count(wl) == window_pairs(r, s, 15)
    labels = wl.meta["key_labels"][wl.key]
    assert sorted(zip(wl.time[wl.side == 0], labels[wl.side == 0])) == sorted(zip(r["time"], r["key"]))
    swapped = load_two_streams(tmp_path / "s.parquet", tmp_path / "r.csv", window=15, warmup=0)
    assert list(swapped.meta["key_labels"]) == list(wl.meta["key_labels"])  # numbers independent of the order


def test_text_keys_in_one_file_with_spaces_trimmed(tmp_path: Path) -> None:
    (tmp_path / "w.csv").write_text("stream,time,key\nR,0, JFK\nS,1,JFK \nS,1,LGA\nR,2,lga\n")
    wl = load_workload(tmp_path / "w.csv", window=3, warmup=0)
    assert list(wl.meta["key_labels"]) == ["JFK", "LGA", "lga"] and exact_count(wl) == 1  # case matters


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), memory=st.integers(1, 12))
def test_text_keys_give_the_outputs_of_their_integer_numbers(tmp_path: Path, seed: int, memory: int) -> None:
    """The same streams with keys as numbers and as words (which sort otherwise: k10 < k2): EXACT,
    OPT and the policies agree, since ties never go by key number."""
    rng = np.random.default_rng(seed)
    frames = [pd.DataFrame({"time": np.sort(rng.integers(0, 60, 40)), "key": rng.integers(0, 12, 40)}) for _ in "rs"]
    for name, frame in zip("rs", frames):
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
        frame.assign(key="k" + frame["key"].astype(str)).to_csv(tmp_path / f"{name}-text.csv", index=False)
    numbers = load_two_streams(tmp_path / "r.csv", tmp_path / "s.csv", window=8, warmup=0)
    words = load_two_streams(tmp_path / "r-text.csv", tmp_path / "s-text.csv", window=8, warmup=0)
    assert "key_labels" not in numbers.meta and [f"k{k}" for k in numbers.key] == list(words.meta["key_labels"][words.key])
    assert exact_count(words) == exact_count(numbers)
    assert solve_opt(words, memory).outputs == solve_opt(numbers, memory).outputs
    for policy in ("prob", "life", "rand", "probv", "hazard"):
        assert run_policy(words, policy, memory).outputs == run_policy(numbers, policy, memory).outputs, policy


def test_whole_numbers_stay_integers_and_a_stray_word_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "r.csv").write_text("time,key\n0,1\n1,02\n2,3\n")
    (tmp_path / "s.csv").write_text("time,key\n0,2\n1,JFK\n")
    with pytest.raises(ShedError) as exc:
        load_two_streams(tmp_path / "r.csv", tmp_path / "s.csv", window=3)
    assert_one_line_error(exc, "s.csv", "'key'", "row 2", "'JFK'", "are whole numbers, so all are read as integers", "fix or drop")
    (tmp_path / "s.csv").write_text("time,key\n0,2\n1,3.0\n")
    wl = load_two_streams(tmp_path / "r.csv", tmp_path / "s.csv", window=3, warmup=0)
    assert "key_labels" not in wl.meta and sorted(wl.key.tolist()) == [1, 2, 2, 3, 3]  # 02 is 2, as integers


def test_a_missing_text_key_names_its_row(tmp_path: Path) -> None:
    (tmp_path / "w.csv").write_text("stream,time,key\nR,0,JFK\nS,1,\nS,2,LGA\n")
    with pytest.raises(ShedError) as exc:
        load_workload(tmp_path / "w.csv", window=3)
    assert_one_line_error(exc, "w.csv", "'key'", "missing value at row 2")


def test_static_relations_number_text_keys_together_and_the_w_join_refuses_them(tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text("key\nJFK\nLGA\nJFK\n")
    (tmp_path / "b.csv").write_text("key\nLGA\nBOS\n")
    a, b = read_keys(tmp_path / "a.csv", tmp_path / "b.csv")
    assert a.tolist() == [1, 2, 1] and b.tolist() == [2, 0]  # BOS 0, JFK 1, LGA 2: by their sorted text
    (tmp_path / "w.csv").write_text("time,key\n0,JFK\n")
    with pytest.raises(ShedError) as exc:
        read_stream(tmp_path / "w.csv")
    assert_one_line_error(exc, "holds text ('JFK', ...)", "W-join takes integer keys")


def test_a_band_join_on_text_keys_is_refused(tmp_path: Path) -> None:
    from shedding.cli.band import attribute_columns

    (tmp_path / "w.csv").write_text("stream,time,key,price\nR,0,JFK,1.5\nS,1,LGA,2\n")
    wl = load_workload(tmp_path / "w.csv", window=3)
    with pytest.raises(ShedError) as exc:
        attribute_columns(wl, ("price", "key"))
    assert_one_line_error(exc, "--attrs key", "keys are text ('JFK', ...)", "no distance", "--predicate equi")
    assert attribute_columns(wl, ("price",))[0].tolist() == [1.5, 2.0]
