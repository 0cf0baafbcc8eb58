"""`shed bmj`: output against the library, and one-line errors with exit code 2."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from helpers import assert_error_line

from shedding.bestmatch import bestmatch, from_frames


@pytest.fixture()
def bmj(shed):
    """`shed bmj ARGS` in this process."""
    return lambda *args: shed("bmj", *args)


@pytest.fixture()
def files(tmp_path: Path) -> tuple[Path, Path]:
    """Figure 1 of the paper (see test_bestmatch), sorted by y1."""
    r = tmp_path / "r.csv"
    s = tmp_path / "s.csv"
    r.write_text("name,y1,y2\nA,0,0\nB,1.0,1.0\n")
    s.write_text("name,y1,y2\nc,0.1,0.2\na,0.2,0.1\nb,0.5,0\nd,1.2,1.3\n")
    return r, s


def test_left_outer_json_is_figure_1(bmj, files):
    r, s = files
    code, stdout, err = bmj("--r", r, "--s", s, "--attrs", "y1,y2", "--variant", "left-outer", "--json")
    assert code == 0, err
    report = json.loads(stdout)
    assert sorted(map(tuple, report["pairs"])) == [(1, 1), (1, 2), (1, 3), (2, 4)]  # rows from 1: Ac, Aa, Ab, Bd


@pytest.mark.parametrize("algorithm", ["nested", "matwin", "matwin-ego"])
def test_constrained_matches_the_library(bmj, files, algorithm):
    import pandas as pd

    r, s = files
    code, stdout, err = bmj("--r", r, "--s", s, "--attrs", "y1,y2", "--eps", "0.3,0.3", "--algorithm", algorithm,
                            "--json")
    want = bestmatch(from_frames(pd.read_csv(r, dtype=str), pd.read_csv(s, dtype=str), ["y1", "y2"], "0.3,0.3"))
    assert code == 0, err
    assert json.loads(stdout)["pairs"] == (want.pairs + 1).tolist() == [[1, 1], [1, 2], [2, 4]]


def test_table_and_shedding_table(bmj, files):
    r, s = files
    code, stdout, err = bmj("--r", r, "--s", s, "--attrs", "y1,y2", "--eps", "0.3,0.3")
    assert code == 0 and "3 pairs" in stdout, err
    code, stdout, err = bmj("--r", r, "--s", s, "--attrs", "y1,y2", "--eps", "0.3,0.3", "--memory", "2", "--policy",
                            "rand,prob,ahead", "--json")
    report = json.loads(stdout)
    assert [run["policy"] for run in report["runs"]] == ["rand", "prob", "ahead"] and report["count"] == 3
    code, stdout, err = bmj("--r", r, "--s", s, "--attrs", "y1,y2", "--eps", "0.3,0.3", "--memory", "100")
    assert "PROB" in stdout and "1.000" in stdout


def test_a_narrow_shedding_table_leaves_columns_out_and_cuts_no_header(bmj, files, monkeypatch):
    # the table cut its headers ("precis…") where simulate's leaves columns out
    monkeypatch.setenv("COLUMNS", "60")
    r, s = files
    code, stdout, err = bmj("--r", r, "--s", s, "--attrs", "y1,y2", "--eps", "0.3,0.3", "--memory", "2")
    assert code == 0, err
    assert "…" not in stdout and "precision" in stdout and "left out to fit 60 columns" in " ".join(stdout.split())
    assert max(len(line) for line in stdout.splitlines()) <= 60


def test_time_window(bmj, tmp_path):
    r, s = tmp_path / "r.csv", tmp_path / "s.csv"
    r.write_text("t,y\n0,0\n3,0\n")
    s.write_text("t,y\n0,0\n3,1\n")
    code, stdout, err = bmj("--r", r, "--s", s, "--attrs", "y", "--eps", "5", "--time", "t", "--horizon", "2",
                            "--json")
    assert json.loads(stdout)["triples"] == [[0, 1, 1], [3, 2, 2]]
    for horizon, words in (("-1", "--horizon is -1, a negative distance"), ("x", "--horizon: 'x' is not a number")):
        assert_error_line(bmj("--r", r, "--s", s, "--attrs", "y", "--eps", "5", "--time", "t", "--horizon", horizon),
                          words)


@pytest.mark.parametrize("algorithm", ["nested", "matwin", "matwin-ego"])
def test_right_and_full_outer_variants(bmj, tmp_path, algorithm):
    """A = 0 and B = 3 in R, a = 1 and b = 10 in S (the library's hand example): right-outer gives
    each s its best r, full-outer both sides; the JSON keeps its keys."""
    r, s = tmp_path / "r.csv", tmp_path / "s.csv"
    r.write_text("y\n0\n3\n")
    s.write_text("y\n1\n10\n")
    for variant, pairs in (("right-outer", [[1, 1], [2, 2]]), ("full-outer", [[1, 1], [2, 1], [2, 2]])):
        code, stdout, err = bmj("--r", r, "--s", s, "--attrs", "y", "--eps", "20", "--variant", variant,
                                "--algorithm", algorithm, "--json")
        report = json.loads(stdout)
        assert code == 0 and report["pairs"] == pairs and report["variant"] == variant, err
        assert list(report) == ["variant", "algorithm", "attrs", "eps", "r_rows", "s_rows", "count", "seconds",
                                "tested", "peak_memory", "pairs"]


def test_literal_dominance_drops_ties(bmj, tmp_path):
    """r = (0, 0); s = (-1, 0) and (1, 0) tie at distance (1, 0), (3, 0) is worse: Pareto keeps the
    two, the literal reading of section 2.1 drops all three; only --dominance adds its key."""
    r, s = tmp_path / "r.csv", tmp_path / "s.csv"
    r.write_text("y1,y2\n0,0\n")
    s.write_text("y1,y2\n-1,0\n1,0\n3,0\n")
    args = ("--r", r, "--s", s, "--attrs", "y1,y2", "--eps", "5,5", "--json")
    default = json.loads(bmj(*args)[1])
    assert default["pairs"] == [[1, 1], [1, 2]] and "dominance" not in default
    assert json.loads(bmj(*args, "--dominance", "pareto")[1])["dominance"] == "pareto"
    literal = json.loads(bmj(*args, "--dominance", "LITERAL", "--algorithm", "matwin")[1])
    assert literal["pairs"] == [] and literal["dominance"] == "literal"
    shed = json.loads(bmj(*args, "--dominance", "literal", "--memory", "10")[1])
    assert shed["count"] == 0 and shed["runs"][0]["pairs_found"] == []
    code, stdout, err = bmj(*args[:-1], "--dominance", "literal")
    assert code == 0 and "literal dominance" in stdout and "0 pairs" in stdout, err


@pytest.mark.parametrize("args, words", [
    (["--attrs", "y1,y2", "--eps", "0.1,0.1", "--dominance", "strict"],
     "unknown --dominance 'strict'; choose from pareto, literal"),
    (["--attrs", "y1,y9", "--eps", "0.1,0.1"], "--attrs names 'y9', which R lacks"),
    (["--attrs", "y1,y2", "--eps", "-0.1,0.1"], "negative distance"),
    (["--attrs", "y1,y2", "--eps", "0.1,x"], "--eps value 2 of 2: 'x' is not a number"),
    (["--attrs", "y1,y2", "--eps", "0.1"], "--eps has 1 value(s) but --attrs names 2"),
    (["--attrs", "y2,y1", "--eps", "0.1,0.1", "--algorithm", "matwin"], "S row 2: y2 = 0.1 comes after 0.2"),
    (["--attrs", "y1,y2", "--variant", "constrained"], "needs --eps"),
    (["--attrs", "y1,y2", "--eps", "0.1,0.1", "--variant", "outer"], "unknown --variant 'outer'"),
    (["--attrs", "y1,y2", "--eps", "0.1,0.1", "--memory", "3", "--policy", "life"], "--policy: unknown policy 'life'"),
    (["--attrs", "y1,y2", "--eps", "0.1,0.1", "--memory", "3", "--algorithm", "nested"], "use --algorithm matwin"),
])
def test_bad_input_is_one_line_exit_2(bmj, files, args, words):
    r, s = files
    assert_error_line(bmj("--r", r, "--s", s, *args), words)


def test_nan_value_is_one_line_exit_2(bmj, tmp_path, files):
    r, _ = files
    huge = tmp_path / "huge.csv"
    huge.write_text("y1,y2\n1e30,0.1\n")  # the value itself is past 2^61: no rounding helps
    assert_error_line(bmj("--r", r, "--s", huge, "--attrs", "y1,y2", "--eps", "0.1,0.1"),
                      "S row 1, attribute 'y1': 1E+30 is beyond +-2^61")
    s = tmp_path / "nan.csv"
    s.write_text("y1,y2\n0.1,0.2\n0.3,\n")
    assert_error_line(bmj("--r", r, "--s", s, "--attrs", "y1,y2", "--eps", "0.1,0.1"),
                      "S row 2, attribute 'y2' is NaN")
    assert_error_line(bmj("--r", r, "--s", tmp_path / "missing.csv", "--attrs", "y1,y2", "--eps", "0.1,0.1"),
                      "file not found")


def test_help_imports_nothing_heavy():
    """`shed bmj --help` (and `shed` itself) load neither numba nor pandas."""
    import sys

    code = ("import sys\nfrom shedding.cli import main\nsys.argv = ['shed', 'bmj', '--help']\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print('HEAVY', [m for m in ('pandas', 'numba', 'pyspark') if m in sys.modules])")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "HEAVY []" in proc.stdout and "--attrs" in proc.stdout
