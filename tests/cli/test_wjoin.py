"""`shed wjoin`: output against the library, and one-line errors with exit code 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest

from helpers import assert_error_line

from shedding.wjoin import WindowSpec, exact_count, make_operator, read_streams, run, synthetic_streams
from shedding.wjoin.fastshed import shed_count
from shedding.wjoin.loadshed import shed_wjoin


@pytest.fixture()
def wjoin(shed):
    """`shed wjoin ARGS` in this process (the entry point's error handling included)."""
    return lambda *args: shed("wjoin", *args)


def test_the_installed_command_exits_2_with_one_line():
    proc = subprocess.run([sys.executable, "-m", "shedding.cli", "wjoin", "--windows", "A-B:1"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1


@pytest.fixture()
def files(tmp_path):
    s = synthetic_streams(3, 300, rates=[1, 0.5, 2], domain=4, seed=3)
    paths = []
    for name, t, k in zip(("a", "b", "c"), s.times, s.keys):
        path = tmp_path / f"{name}.csv"
        path.write_text("time,key\n" + "".join(f"{x},{y}\n" for x, y in zip(t.tolist(), k.tolist())))
        paths.append(str(path))
    return paths


def test_files_with_per_pair_windows_match_the_library(wjoin, files):
    code, stdout, err = wjoin("--streams", ",".join(files), "--windows", "a-b:5,b-c:3", "--json")
    assert code == 0, err
    rows = [json.loads(line) for line in stdout.splitlines()]
    streams = read_streams(files)
    expected = exact_count(streams, WindowSpec.from_pairs("abc", {("a", "b"): 5, ("b", "c"): 3}))
    assert [r["algorithm"] for r in rows] == ["nlw", "hw", "mw"]
    assert all(r["results"] == r["exact"] == expected for r in rows) and expected > 0


def test_shedding_rows_match_the_library_and_the_table_prints(wjoin, files):
    code, stdout, err = wjoin("--streams", ",".join(files), "--window", "4", "--memory", "9", "--policy", "prob,randv",
                              "--json")
    assert code == 0, err
    rows = [json.loads(line) for line in stdout.splitlines()]
    streams = read_streams(files)
    spec = WindowSpec.uniform("abc", 4)
    for row in rows:
        assert (row["outputs"], row["dropped"]) == shed_count(streams, spec, 9, row["policy"])
        assert row["exact"] == exact_count(streams, spec)
    assert rows[0]["outputs"] == shed_wjoin(streams, spec, 9, "prob").outputs
    code, stdout, err = wjoin("--streams", ",".join(files), "--window", "4", "--memory", "9", "--memory-split", "2,3,4",
                              "--policy", "prob", "--json")  # one part per stream, three here
    assert code == 0, err
    assert json.loads(stdout)["outputs"] == shed_wjoin(streams, spec, 9, "prob", memory_split=[2, 3, 4]).outputs
    code, stdout, err = wjoin("--streams", ",".join(files), "--windows", "a-b:4,b-c:2", "--memory", "9", "--policy",
                              "life", "--json")
    row = json.loads(stdout)
    lib = shed_wjoin(streams, WindowSpec.from_pairs("abc", {("a", "b"): 4, ("b", "c"): 2}), 9, "life")
    assert (row["outputs"], row["exact"], row["dropped"]) == (lib.outputs, lib.exact, lib.dropped)
    code, stdout, err = wjoin("--n-streams", "4", "--length", "200", "--rates", "1,1,1,0.01/1", "--algorithm", "mw")
    assert code == 0, err
    assert "mw" in stdout and "Form 1" in stdout


def test_the_optimum_is_reported_with_its_proof(wjoin):
    code, stdout, err = wjoin("--length", "8", "--domain", "2", "--window", "3", "--memory", "3", "--policy",
                              "prob,opt", "--json")
    assert code == 0, err
    prob, opt = (json.loads(line) for line in stdout.splitlines())
    assert opt["proven"] is True and opt["outputs"] >= prob["outputs"]


def test_a_key_band_and_the_papers_mw_match_the_library(wjoin, files):
    code, stdout, err = wjoin("--streams", ",".join(files), "--window", "3", "--predicate", "band:1", "--json")
    assert code == 0, err
    rows = [json.loads(line) for line in stdout.splitlines()]
    streams = read_streams(files)
    expected = exact_count(streams, WindowSpec.uniform("abc", 3), key_band=1)
    assert [r["algorithm"] for r in rows] == ["nlw", "mw"]  # HW hashes the key: equality only
    assert all(r["results"] == r["exact"] == expected for r in rows) and expected > exact_count(
        streams, WindowSpec.uniform("abc", 3))
    for approach in ("local", "global"):
        code, stdout, err = wjoin("--streams", ",".join(files), "--windows", "a-b:4,b-c:2", "--algorithm", "mw-paper",
                                  "--approach", approach, "--json")
        row = json.loads(stdout)
        assert row["algorithm"] == "mw-paper" and row["results"] == row["exact"] > 0


@pytest.mark.parametrize("name", ["n.csv", "n.parquet"])
def test_out_writes_the_n_tuples(wjoin, files, tmp_path, name):
    target = tmp_path / "sub" / name
    code, stdout, err = wjoin("--streams", ",".join(files), "--windows", "a-b:4,b-c:2", "--predicate", "band:1",
                              "--algorithm", "nlw", "--out", str(target))
    assert code == 0, err
    assert "wrote " in stdout and target.is_file()
    table = pd.read_csv(target) if name.endswith(".csv") else pd.read_parquet(target)
    streams = read_streams(files)
    spec = WindowSpec.from_pairs("abc", {("a", "b"): 4, ("b", "c"): 2})
    rows = run(make_operator("nlw", spec, key_band=1), streams)
    assert list(table.columns) == [f"{s}_{c}" for s in "abc" for c in ("time", "key", "row")]
    assert table[["a_row", "b_row", "c_row"]].to_numpy().tolist() == rows.tolist()
    assert (table.a_time - table.b_time).abs().le(4).all() and (table.b_time - table.c_time).abs().le(2).all()
    keys = table[["a_key", "b_key", "c_key"]]
    assert (keys.max(axis=1) - keys.min(axis=1)).le(1).all()
    assert table.a_time.tolist() == streams.times[0][table.a_row.to_numpy()].tolist()
    code, stdout, err = wjoin("--streams", ",".join(files), "--window", "3", "--out", str(tmp_path / "j.csv"), "--json")
    assert code == 0 and len(pd.read_csv(tmp_path / "j.csv")) == json.loads(stdout.splitlines()[0])["results"]


@pytest.mark.parametrize("args,words", [
    (("--predicate", "band:2", "--algorithm", "hw"), ("hash join", "--algorithm nlw, mw or mw-paper")),
    (("--predicate", "lt"), ("--predicate 'lt'", "eq or band:EPS")),
    (("--predicate", "band:1", "--memory", "4"), ("--predicate", "exact join")),
    (("--memory", "4", "--out", "x.csv"), ("--out", "drop --memory or --out")),
    (("--out", "x.txt"), ("--out", ".csv or .parquet")),
    (("--algorithm", "mw-papers"), ("unknown --algorithm 'mw-papers'", "mw-paper")),
    (("--n-streams", "1"), ("streams", ">= 2")),
    (("--streams", "only.csv"), ("at least 2 streams",)),
    (("--windows", "A-B:1,A-X:2"), ("unknown stream 'X'",)),
    (("--windows", "A-B:1,B-A:2,B-C:1"), ("twice",)),
    (("--windows", "A-B:-1,B-C:1"), (">= 0",)),
    (("--window", "-2"), (">= 0",)),
    (("--windows", "A-B:1"), ("disconnected",)),
    (("--window", "2", "--windows", "A-B:1"), ("not both",)),
    (("--algorithm", "zw"), ("unknown --algorithm 'zw'",)),
    (("--memory", "4", "--policy", "best"), ("unknown policy",)),
    (("--memory", "4", "--memory-split", "1,1"), ("--memory-split has 2 parts for 3 streams",)),
    (("--rates", "1,x,1"), ("--rates",)),
])
def test_bad_input_is_one_line_and_exit_2(wjoin, args, words):
    line = assert_error_line(wjoin(*args))
    for word in words:
        assert word.lower() in line.lower(), (word, line)


def test_bad_files(wjoin, tmp_path):
    good = tmp_path / "a.csv"
    good.write_text("time,key\n1,1\n2,1\n")
    back = tmp_path / "b.csv"
    back.write_text("time,key\n3,1\n2,1\n")
    text = tmp_path / "c.csv"
    text.write_text("time,key\n1,x\n")
    for other, word in ((back, "backwards"), (text, "integers"), (tmp_path / "nope.csv", "not found"),
                        (tmp_path / "sub" / "e.csv", "not found")):
        assert_error_line(wjoin("--streams", f"{good},{other}"), word)
    dup = tmp_path / "d"
    dup.mkdir()
    (dup / "a.csv").write_text("time,key\n1,1\n")
    assert_error_line(wjoin("--streams", f"{good},{dup / 'a.csv'}"), "both named 'a'")
