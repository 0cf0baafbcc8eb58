"""The `shed` command: output formats, and one-line errors with exit code 2 for bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from shedding import simulate, zipf_workload


def shed(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "shedding.cli", *args], capture_output=True, text=True, timeout=300)


def test_simulate_json_matches_the_library():
    proc = shed("simulate", "--policy", "exact,prob,randv", "--length", "2000", "--window", "100",
                "--memory", "60", "--json")
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["policy"] for r in rows] == ["exact", "prob", "randv"]
    wl = zipf_workload(1.0, 50, 2000, seed=0, window=100)
    for row in rows:
        lib = simulate(wl, row["policy"], 60)
        assert (row["outputs"], row["exact"], row["arm"]) == (lib.outputs, lib.exact, lib.arm)
        assert row["window"] == 100 and row["warmup"] == 200
        assert row["memory"] == (2 * 100 - 2 if row["policy"] == "exact" else 60)


def test_simulate_table_and_out_file(tmp_path):
    target = tmp_path / "rows.json"
    proc = shed("simulate", "--length", "1000", "--window", "50", "--out", str(target))
    assert proc.returncode == 0, proc.stderr
    assert "PROB" in proc.stdout and "EXACT" in proc.stdout and str(target) in proc.stdout.replace("\n", "")
    assert len(target.read_text().splitlines()) == 4


def test_simulate_reads_a_workload_file(tmp_path):
    path = tmp_path / "w.csv"
    path.write_text("stream,time,key\nR,0,1\nS,0,1\nR,1,2\nS,2,2\n")
    proc = shed("simulate", "--workload", str(path), "--window", "3", "--warmup", "0", "--memory", "2",
                "--policy", "exact,prob", "--json")
    assert proc.returncode == 0, proc.stderr
    assert [json.loads(x)["outputs"] for x in proc.stdout.splitlines()] == [2, 2]


def test_static_components():
    proc = shed("static", "--components", "3x2,4x4,1x5", "--drop", "3", "--json")
    assert proc.returncode == 0, proc.stderr
    res = json.loads(proc.stdout)
    assert res["total_output"] == 6 + 16 + 5 and res["output"] <= res["total_output"]


@pytest.mark.parametrize("args, needle", [
    (["simulate", "--window", "0"], "window"),
    (["simulate", "--window", "-4"], "window"),
    (["simulate", "--memory", "-1"], "memory"),
    (["simulate", "--memory", "6", "--memory-split", "3,4"], "sums to 7"),
    (["simulate", "--memory-split", "a,b"], "memory-split"),
    (["simulate", "--policy", "prob,nope"], "unknown policy"),
    (["simulate", "--estimator", "magic"], "estimator"),
    (["simulate", "--workload", "/no/such/file.csv"], "not found"),
    (["simulate", "--zipf-skew", "-1"], "skew"),
    (["static", "--components", "3y2", "--drop", "1"], "component"),
    (["static", "--drop", "1"], "--components"),
])
def test_bad_input_is_one_line_exit_2(args, needle):
    proc = shed(*args)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0]


@pytest.mark.parametrize("content, needle", [
    ("stream,time\nR,0\n", "key"),
    ("stream,time,key\nR,0,x\n", "integers"),
    ("stream,time,key\nR,3,1\nR,1,1\n", "backwards"),
    ("stream,time,key\nQ,0,1\n", "R"),
    ("stream,time,key\nR,0,\n", "missing"),
])
def test_bad_workload_files(tmp_path, content, needle):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    proc = shed("simulate", "--workload", str(path), "--window", "3")
    assert proc.returncode == 2, proc.stdout
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and needle in lines[0], proc.stderr


def test_empty_workload_file(tmp_path):
    path = tmp_path / "empty.csv"
    path.write_text("stream,time,key\n")
    proc = shed("simulate", "--workload", str(path), "--window", "3", "--json")
    assert proc.returncode == 0, proc.stderr
    assert all(json.loads(x)["outputs"] == 0 for x in proc.stdout.splitlines())


def test_help_answers_the_question():
    proc = shed("simulate", "--help")
    assert proc.returncode == 0
    for flag in ("--policy", "--memory-split", "--estimator", "--workload", "--json"):
        assert flag in proc.stdout
