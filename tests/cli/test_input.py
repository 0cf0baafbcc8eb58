"""The `shed` command in-process: bad input is one line and exit 2 (never a traceback), silently
wrong requests are refused, messages name flags, and the JSON output follows its schema."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from shedding import simulate, zipf_workload
from shedding.cli.rows import ROW_FIELDS
from shedding.run import POLICY_NAMES

from helpers import SCHEMA, assert_error_line, write_stream_files



def write_csv(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


# ------------------------------------------------------------------ no traceback, ever


@pytest.mark.parametrize("args, needle", [
    (["simulate", "--memory", "99999999999999999999"], "--memory 99999999999999999999 does not fit in 64-bit"),
    (["opt", "--memory", "99999999999999999999"], "--memory 99999999999999999999 does not fit in 64-bit"),
    (["simulate", "--window", "4611686018427387904"], "overflows 64-bit integers"),
    (["simulate", "--window", "1000000000000000000", "--length", "100", "--warmup", "0"],
     "overflow the 64-bit index"),
    (["simulate", "--length", "100000000000"], "not enough memory"),
    (["simulate", "--domain", "100000000000"], "not enough memory"),
    (["simulate", "--policy-seed", "-1", "--length", "50", "--window", "5", "--policy", "rand"], "--policy-seed"),
    (["opt", "--max-graph-gib", "nan"], "--max-graph-gib must be a finite number"),
    (["opt", "--max-graph-gib", "inf"], "--max-graph-gib must be a finite number"),
    (["static", "--components", "99999999999999999999x2", "--keep", "1"], "does not fit in 64-bit integers"),
])
def test_no_traceback(shed, args, needle):
    assert_error_line(shed(*args), needle)


def test_times_near_2_63_are_refused(shed, tmp_path):
    path = write_csv(tmp_path / "w.csv", "stream,time,key\nR,9223372036854775800,1\nS,9223372036854775800,1\n")
    assert_error_line(shed("simulate", "--workload", str(path), "--window", "10"), "overflows 64-bit")


def test_memory_beyond_the_data_is_cheap_and_exact(shed):
    """M far beyond 2w - 2 allocates for the data, not for M, and keeps everything."""
    code, stdout, err = shed("simulate", "--memory", "1000000000", "--length", "500", "--window", "20",
                             "--policy", "prob,lifev,rand,opt,optv", "--json")
    assert code == 0, err
    rows = [json.loads(line) for line in stdout.splitlines()]
    assert all(r["outputs"] == r["exact"] and r["memory"] == 1000000000 for r in rows)
    code, stdout, err = shed("simulate", "--window", "1000000000000", "--length", "100", "--warmup", "0",
                             "--policy", "exact,prob,life", "--json")
    assert code == 0, err
    assert len({json.loads(line)["outputs"] for line in stdout.splitlines()}) == 1


def test_paths_with_brackets_are_printed_as_given(shed, tmp_path):
    target = tmp_path / "[bold]x[/bold]" / "[/]rows.json"
    code, stdout, err = shed("simulate", "--length", "300", "--window", "10", "--out", str(target))
    assert code == 0, err
    assert target.is_file() and str(target) in stdout.replace("\n", "")


# ------------------------------------------------------------------ refuse what is silently wrong


def test_unknown_estimator_with_exact_only(shed):
    assert_error_line(shed("simulate", "--policy", "exact", "--estimator", "magic"), "unknown --estimator")


def test_compare_refuses_files_a_suite_does_not_read(shed, tmp_path):
    r = write_csv(tmp_path / "r.csv", "time,key\n0,1\n")
    out = tmp_path / "out"
    assert_error_line(shed("compare", "--suite", "quick", "--r", str(r), "--s", str(r), "--out", str(out)),
                          "reads no report files")
    assert not out.exists()


def test_compare_weather_checks_its_files_before_spark(shed, tmp_path):
    out = tmp_path / "out"
    assert_error_line(shed("compare", "--suite", "weather", "--r", str(tmp_path / "SEP85L.Z"), "--s",
                               str(tmp_path / "SEP86L.Z"), "--out", str(out)), "file not found")
    assert not out.exists()


def test_per_stream_files_with_a_stream_column_are_refused(shed, tmp_path):
    both = write_csv(tmp_path / "both.csv", "stream,time,key\nR,0,1\nS,0,1\n")
    assert_error_line(shed("simulate", "--r", str(both), "--s", str(both), "--window", "3"),
                          "'stream' column", "--workload")


def test_drop_a_needs_drop_b(shed):
    assert_error_line(shed("static", "--components", "3x2", "--drop-a", "1"), "--drop-a and --drop-b together")
    code, stdout, err = shed("static", "--components", "3x2", "--drop-a", "1", "--drop-b", "0", "--json")
    assert code == 0 and json.loads(stdout)["kept_a"] == 2, err


def test_warmup_past_the_stream_warns(shed):
    code, stdout, err = shed("simulate", "--length", "100", "--window", "60", "--policy", "prob", "--json")
    assert code == 0
    assert err.startswith("warning: the warmup 120") and "nothing is counted" in err
    code, _, err = shed("simulate", "--length", "100", "--window", "40", "--policy", "prob", "--json")
    assert code == 0 and err == ""


def test_a_stream_without_tuples_warns(shed, tmp_path):
    # a file of a header alone joins nothing: every ratio 1.000, which must not pass unnoticed
    (tmp_path / "r.csv").write_text("time,key\n")
    (tmp_path / "s.csv").write_text("time,key\n0,1\n1,2\n")
    code, stdout, err = shed("simulate", "--r", str(tmp_path / "r.csv"), "--s", str(tmp_path / "s.csv"), "--window",
                             "3", "--policy", "prob", "--json")
    assert code == 0 and json.loads(stdout)["outputs"] == 0
    assert err.strip() == "warning: stream R has no tuples, so nothing is joined and every ratio is 1.000; give it rows"
    code, _, err = shed("simulate", "--r", str(tmp_path / "r.csv"), "--s", str(tmp_path / "r.csv"), "--window", "3",
                        "--policy", "prob", "--json")
    assert code == 0 and err.startswith("warning: streams R and S have no tuples") and "give them rows" in err


def test_resume_on_another_suites_folder(shed, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "suite.json").write_text(json.dumps({"name": "paper"}))
    assert_error_line(shed("compare", "--suite", "quick", "--resume", "--out", str(out)),
                          "holds the results of suite 'paper', not 'quick'")
    assert json.loads((out / "suite.json").read_text()) == {"name": "paper"}


# ------------------------------------------------------------------ messages name flags


@pytest.mark.parametrize("args, needle", [
    (["static", "--components", "3x2", "--keep", "1000"], "--keep 1000 exceeds the 5 tuples"),
    (["opt", "--allocation", "variable", "--memory", "4", "--memory-split", "2,2"], "--allocation fixed"),
    (["opt", "--graph", "nope"], "unknown --graph 'nope'"),
    (["simulate", "--decay", "0.5"], "--decay applies to the online estimator"),
])
def test_messages_name_flags(shed, args, needle):
    assert "=" not in assert_error_line(shed(*args), needle).split(";")[0]


def test_overflow_and_float_keys_say_what_they_are(shed, tmp_path):
    big = write_csv(tmp_path / "big.csv", "stream,time,key\nR,0,99999999999999999999\n")
    assert_error_line(shed("simulate", "--workload", str(big), "--window", "3"), "does not fit in 64-bit")
    path = tmp_path / "float.parquet"
    pd.DataFrame({"stream": ["R", "S"], "time": [0, 0], "key": [1.5, 1.0]}).to_parquet(path)
    line = assert_error_line(shed("simulate", "--workload", str(path), "--window", "3"), "has 1.5;")
    assert "np.float64" not in line


def test_suite_folder_and_out_file_say_what_is_wrong(shed, tmp_path):
    assert_error_line(shed("compare", "--suite", str(tmp_path), "--out", str(tmp_path / "o")),
                          "is a folder; give a suite TOML file")
    blocker = write_csv(tmp_path / "file.txt", "x")
    assert_error_line(shed("compare", "--suite", "quick", "--out", str(blocker)), f"--out {blocker} is a file")
    assert_error_line(shed("simulate", "--length", "50", "--window", "5", "--out", str(tmp_path)),
                          "is a folder; give the path of a file")


def test_choice_flags_ignore_case(shed):
    wl = zipf_workload(1.0, 50, 300, seed=0, correlation="same", window=10)
    code, stdout, err = shed("simulate", "--policy", "PROB", "--correlation", "SAME", "--estimator", "ONLINE",
                             "--length", "300", "--window", "10", "--json")
    assert code == 0, err
    assert json.loads(stdout)["outputs"] == simulate(wl, "prob", 10, estimator="online").outputs
    code, stdout, err = shed("opt", "--graph", "KEYED", "--allocation", "Variable", "--solver", "SSP",
                             "--length", "300", "--window", "10", "--json")
    assert code == 0, err
    assert json.loads(stdout)["graph"] == "keyed"
    code, _, err = shed("static", "--components", "3x2", "--keep", "2", "--method", "DP")
    assert code == 0, err


def test_stations_flag(shed, tmp_path):
    jan = write_csv(tmp_path / "jan.csv", "numer_sta;date\n7005;20130101000000\n")
    missing = tmp_path / "nowhere" / "postesSynop.csv"
    assert_error_line(shed("simulate", "--r", str(jan), "--s", str(jan), "--format", "synop", "--stations",
                               str(missing)), "--stations", "not found")
    assert_error_line(shed("simulate", "--stations", str(missing)), "--stations applies to SYNOP")


# ------------------------------------------------------------------ ergonomics


def test_version(shed):
    from shedding import __version__

    assert shed("--version") == (0, f"{__version__}\n", "")


def test_tables_never_cut_a_number(shed, monkeypatch):
    monkeypatch.setenv("COLUMNS", "44")
    code, stdout, err = shed("simulate", "--length", "20000", "--window", "400", "--policy", "exact,prob")
    assert code == 0, err
    wl = zipf_workload(1.0, 50, 20000, seed=0, window=400)
    assert "…" not in stdout
    assert f"{simulate(wl, 'prob', 400).outputs:,}" in stdout
    assert "left out to fit 44 columns" in " ".join(stdout.split())
    assert max(len(line) for line in stdout.splitlines()) <= 44


@pytest.mark.parametrize("value, text", [(11242 / 11247, ">0.999"), (1.0, "1.000"), (0.0, "0.000"), (0.0004, "<0.001"),
                                         (0.88889, "0.889"), (0.9994, "0.999")])
def test_a_fraction_never_reads_a_bound_it_does_not_reach(value, text):
    # 11,242 of 11,247 W-join outputs read 1.000: as if none were lost
    from shedding.cli.output import fraction

    assert fraction(value) == text


def test_a_pipe_gets_the_header_whole(shed, monkeypatch):
    # a pipe or a log has no width: the header line was cut mid-phrase at 80 columns ("warmup = / 800")
    monkeypatch.delenv("COLUMNS", raising=False)
    code, stdout, err = shed("simulate", "--zipf-skew", "0.75,1.25", "--domain", "1000", "--length", "3000",
                             "--window", "300", "--memory", "250", "--policy", "prob")
    assert code == 0, err
    assert stdout.splitlines()[0] == ("zipf(0.75/1.25, D=1000, independent, seed=0): 3,000 R + 3,000 S tuples, w = 300, "
                                      "warmup = 600, M = 250")


def test_two_skews_give_each_stream_its_own(shed):
    # --zipf-skew R,S is the suites' skew and skew_s: a variable-split or share row runs again by hand
    code, stdout, _ = shed("simulate", "--zipf-skew", "0.5,1.5", "--length", "600", "--window", "50", "--memory", "30",
                           "--policy", "exact,prob,probv", "--json")
    rows = {r["policy"]: r for r in map(json.loads, stdout.splitlines())}
    assert code == 0 and {(r["skew"], r["skew_s"]) for r in rows.values()} == {(0.5, 1.5)}
    wl = zipf_workload(0.5, 50, 600, seed=0, window=50, skew_s=1.5)
    assert wl.key[wl.side == 1].tolist() != zipf_workload(0.5, 50, 600, seed=0, window=50).key[wl.side == 1].tolist()
    for policy in ("exact", "prob", "probv"):
        assert rows[policy]["outputs"] == simulate(wl, policy, memory=30).outputs
    code, stdout, _ = shed("simulate", "--zipf-skew", "1.5", "--length", "300", "--window", "20", "--policy", "prob",
                           "--json")
    assert (json.loads(stdout)["skew"], json.loads(stdout)["skew_s"]) == (1.5, 1.5)


@pytest.mark.parametrize("value, needle", [("1,2,3", "takes one skew for both streams or two"),
                                           ("1,-1", "--zipf-skew value 2 of 2 (S's skew) must be a finite number >= 0, got -1"),
                                           ("1,", "value 2 of 2 (S's skew): '' is not a number"),
                                           ("x", "--zipf-skew: 'x' is not a number")])
def test_bad_skews_are_refused_in_one_line(shed, value, needle):
    assert_error_line(shed("simulate", "--zipf-skew", value), needle)


# ------------------------------------------------------------------ one JSON schema


def test_row_fields_are_the_schemas():
    assert tuple(SCHEMA["$defs"]["row"]["required"]) == ROW_FIELDS


def test_every_json_output_follows_the_schema(shed, tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft202012Validator(SCHEMA)
    rows = []
    code, stdout, _ = shed("simulate", "--policy", ",".join(POLICY_NAMES), "--length", "400", "--window", "20",
                           "--json")
    rows += [json.loads(line) for line in stdout.splitlines()]
    code, stdout, _ = shed("simulate", "--policy", "rand,probv", "--estimator", "online", "--decay", "0.99",
                           "--length", "400", "--window", "20", "--json")
    rows += [json.loads(line) for line in stdout.splitlines()]
    wl = zipf_workload(1.0, 20, 300, seed=3, window=30)
    paths = write_stream_files(wl, tmp_path)
    code, stdout, _ = shed("simulate", "--r", str(paths[0]), "--s", str(paths[1]), "--window", "30", "--json")
    rows += [json.loads(line) for line in stdout.splitlines()]
    for generator in ("age", "drift", "bursts"):
        code, stdout, _ = shed("simulate", "--generator", generator, "--length", "600", "--policy", "hazard",
                               "--window", "150", "--warmup", "0", "--json")
        rows += [json.loads(line) for line in stdout.splitlines()]
    code, stdout, _ = shed("opt", "--allocation", "variable", "--length", "400", "--window", "20", "--json")
    rows.append(json.loads(stdout))
    assert len(rows) == len(POLICY_NAMES) + 2 + 4 + 3 + 1
    for row in rows:
        validator.validate(row)
        assert list(row) == list(ROW_FIELDS)
    assert {r["policy"] for r in rows} == set(POLICY_NAMES)
    by = {(r["policy"], r["dataset"]): r for r in rows}
    assert by[("optv", "zipf")]["memory_r"] is None and by[("optv", "zipf")]["nodes"] > 0
    assert {by[("hazard", g)]["seed"] for g in ("age", "drift", "bursts")} == {0}
    assert by[("exact", "zipf")]["estimator"] is None and by[("prob", "zipf")]["estimator"] == "static"
    assert by[("rand", "zipf")]["policy_seed"] == 0 and by[("prob", "zipf")]["policy_seed"] is None
    assert by[("prob", "csv+parquet")]["skew"] is None and by[("prob", "csv+parquet")]["length"] == 300
    assert [r["decay"] for r in rows if r["estimator"] == "online" and r["dataset"] == "zipf"] == [0.99, 0.99]
    # files and the beyond-i.i.d. generators run the online estimator by default (the static one was)
    assert {(r["estimator"], r["decay"]) for r in rows if r["dataset"] != "zipf" and r["policy"] != "exact"} == {
        ("online", 1.0)}
    assert all(r["window"] == 20 and r["domain"] == 50 and r["length"] == 400 and r["seed"] == 0
               and r["correlation"] == "independent" and r["skew"] == 1.0 for r in rows if r["dataset"] == "zipf")
    assert np.isfinite([r["seconds"] for r in rows]).all()


def test_group_auto_shows_its_choice_in_the_table_and_the_json_row(shed, tmp_path):
    """``--group auto`` on a file's own columns: the row carries ``group_choice`` (per side the
    refits at which HAZARD ranked by each candidate: none and the file's columns), valid under
    the schema, and the table is followed by the choice in one line."""
    jsonschema = pytest.importorskip("jsonschema")
    rng = np.random.default_rng(0)
    n = 600
    t_r = np.sort(rng.integers(0, n, n))
    cat = rng.integers(0, 3, n)
    frame = pd.DataFrame({"stream": ["R"] * n + ["S"] * n, "time": np.r_[t_r, t_r + 5 + 30 * cat],
                          "key": np.r_[np.arange(n), np.arange(n)], "cat": np.r_[cat, cat],
                          "shop": np.r_[np.arange(n) % 4, np.arange(n) % 4]}).sort_values("time", kind="stable")
    frame.to_csv(tmp_path / "w.csv", index=False)
    args = ("simulate", "--workload", str(tmp_path / "w.csv"), "--window", "100", "--memory", "20", "--policy",
            "hazard", "--estimator", "online", "--group", "auto")
    code, stdout, _ = shed(*args, "--json")
    row = json.loads(stdout)
    assert code == 0 and row["group"] == "auto" and set(row["group_choice"]["R"]) == {"none", "cat", "shop"}
    jsonschema.Draft202012Validator(SCHEMA).validate(row)
    code, stdout, _ = shed(*args)
    assert code == 0 and "HAZARD --group auto, the grouping each side ranked by at its " in " ".join(stdout.split())
