"""The `shed` command: output formats, and one-line errors with exit code 2 for bad input."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from shedding import simulate, zipf_workload
from shedding.datasets.ndp import write_ndp
from shedding.datasets.weather import weather_workload
from shedding.offline import solve_opt

from helpers import assert_error_line, write_stream_files


def shed_process(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """`shed ARGS` in a new process: for what only a real process shows (start-up, the JVM's own output)."""
    return subprocess.run([sys.executable, "-m", "shedding.cli", *args], capture_output=True, text=True, timeout=300,
                          env=None if env is None else os.environ | env)


def test_simulate_json_matches_the_library(shed):
    code, stdout, err = shed("simulate", "--policy", "exact,prob,randv", "--length", "2000", "--window", "100",
                             "--memory", "60", "--json")
    assert code == 0, err
    rows = [json.loads(line) for line in stdout.splitlines()]
    assert [r["policy"] for r in rows] == ["exact", "prob", "randv"]
    wl = zipf_workload(1.0, 50, 2000, seed=0, window=100)
    for row in rows:
        lib = simulate(wl, row["policy"], 60)
        assert (row["outputs"], row["exact"], row["arm"]) == (lib.outputs, lib.exact, lib.arm)
        assert row["window"] == 100 and row["warmup"] == 200
        assert row["memory"] == 60  # the M given, for EXACT too


def test_simulate_table_and_out_file(shed, tmp_path):
    target = tmp_path / "rows.json"
    code, stdout, err = shed("simulate", "--length", "1000", "--window", "50", "--out", str(target))
    assert code == 0, err
    assert "PROB" in stdout and "EXACT" in stdout and str(target) in stdout.replace("\n", "")
    assert len(target.read_text().splitlines()) == 4


def exact_cells(table: str) -> list[str]:
    """The cells of the table's EXACT row."""
    return [cell.strip() for cell in next(line for line in table.splitlines() if "EXACT  " in line).split("│")]


def test_simulate_shows_the_memory_exact_needs(shed, tmp_path):
    """2w - 2 with one tuple per stream per step; the peak of the live tuples with batches."""
    code, stdout, err = shed("simulate", "--length", "500", "--window", "50", "--policy", "exact,prob")
    assert code == 0, err
    assert ">= 98" in exact_cells(stdout) and "holds up to" not in stdout
    path = tmp_path / "w.csv"
    path.write_text("stream,time,key\nR,0,1\nR,0,2\nR,0,3\nR,1,1\nS,2,1\n")
    code, stdout, err = shed("simulate", "--workload", str(path), "--window", "3", "--warmup", "0",
                             "--policy", "exact,prob")
    assert code == 0, err
    assert ">= 5" in exact_cells(stdout)
    assert ("EXACT holds up to 4 R and 1 S tuples at once: a fixed split keeps every tuple with M_R >= 4 and "
            "M_S >= 1 (--memory-split 4,1), a variable split with M >= 4") in " ".join(stdout.split())


def test_simulate_notes_the_payload_columns_hazard_could_rank_by(shed, tmp_path):
    """HAZARD without --group on a file with payload columns: one note naming the columns --group
    auto would pick among; none with a group, without HAZARD, or on a file without such columns."""
    path = tmp_path / "w.csv"
    rows = [f"{side},{t},{t % 5},{'abc'[t % 3]},x" for t in range(60) for side in "RS"]
    path.write_text("stream,time,key,route,site\n" + "\n".join(rows) + "\n")
    common = ("simulate", "--workload", str(path), "--window", "4", "--memory", "3", "--json")
    code, _, err = shed(*common, "--policy", "prob,hazard")
    assert code == 0 and err.startswith("note: HAZARD ranks every tuple by one age curve; this input's route may set")
    assert "--group auto" in err and len(err.strip().splitlines()) == 1  # site: one value, no group
    for extra in (("--policy", "prob,hazard", "--group", "route"), ("--policy", "prob,life")):
        code, _, err = shed(*common, *extra)
        assert code == 0 and not err, extra
    path.write_text("stream,time,key\n" + "\n".join(r.rsplit(",", 2)[0] for r in rows) + "\n")
    code, _, err = shed(*common, "--policy", "hazard")
    assert code == 0 and not err


def test_simulate_groups_by_the_keys_history_without_payload(shed, tmp_path):
    """--group history needs no payload column: the same outputs as the library, and the group in
    the JSON row; with a payload column it combines like one."""
    from shedding.datasets import load_workload

    path = tmp_path / "w.csv"
    arrivals = sorted((t + (7 * (t % 3) if side == "S" else 0), side, t % 7, "ab"[t % 2]) for t in range(200)
                      for side in "RS")
    rows = [f"{side},{t},{key},{site}" for t, side, key, site in arrivals]
    path.write_text("stream,time,key,site\n" + "\n".join(rows) + "\n")
    bare = tmp_path / "bare.csv"
    bare.write_text("stream,time,key\n" + "\n".join(r.rsplit(",", 1)[0] for r in rows) + "\n")
    for file, group in ((bare, "history"), (path, "site,history")):
        code, stdout, err = shed("simulate", "--workload", str(file), "--range", "0,30", "--memory", "5", "--policy",
                                 "hazard", "--group", group, "--json")
        assert code == 0, err
        row = json.loads(stdout)
        wl = load_workload(file, row["window"], row["warmup"]).with_params(range=(0, 30))
        lib = simulate(wl, "hazard", 5, estimator="online", group=group)
        assert row["outputs"] == lib.outputs and row["group"] == group
    # without --group, HAZARD's default under the one-sided range: auto-history, named in the row with its
    # choice; --group none is no group; on the window the default is no group
    for given, ran in ((None, "auto-history"), ("none", None)):
        code, stdout, err = shed("simulate", "--workload", str(bare), "--range", "0,30", "--memory", "5", "--policy",
                                 "hazard", "--json", *(["--group", given] if given else []))
        assert code == 0, err
        row = json.loads(stdout)
        wl = load_workload(bare, row["window"], row["warmup"]).with_params(range=(0, 30))
        assert row["outputs"] == simulate(wl, "hazard", 5, estimator="online", group=ran or "none").outputs
        assert row["group"] == ran and ("group_choice" in row) == (ran is not None)
    code, stdout, err = shed("simulate", "--workload", str(bare), "--window", "31", "--memory", "5", "--policy",
                             "hazard", "--json")
    assert code == 0 and json.loads(stdout)["group"] is None, err


def test_simulate_reads_a_workload_file(shed, tmp_path):
    path = tmp_path / "w.csv"
    path.write_text("stream,time,key\nR,0,1\nS,0,1\nR,1,2\nS,2,2\n")
    code, stdout, err = shed("simulate", "--workload", str(path), "--window", "3", "--warmup", "0", "--memory", "2",
                             "--policy", "exact,prob", "--json")
    assert code == 0, err
    rows = [json.loads(x) for x in stdout.splitlines()]
    # a file's default is the online estimator: PROB cannot know that key 2's partner is still to come
    assert [r["outputs"] for r in rows] == [2, 1] and rows[1]["estimator"] == "online" and not err
    # the static one (the default before) reads it from the whole file's counts, and says so in one line
    code, stdout, err = shed("simulate", "--workload", str(path), "--window", "3", "--warmup", "0", "--memory", "2",
                             "--policy", "exact,prob", "--json", "--estimator", "static")
    assert code == 0 and [json.loads(x)["outputs"] for x in stdout.splitlines()] == [2, 2]
    assert err.startswith("warning: with --estimator static, PROB ranks by the whole stream's key counts, which on "
                          "this file's workload read the future") and len(err.strip().splitlines()) == 1


def test_opt_json_and_schedule_match_the_library(shed, tmp_path):
    target = tmp_path / "schedule.parquet"
    code, stdout, err = shed("opt", "--length", "800", "--window", "40", "--memory", "30", "--allocation",
                             "variable", "--schedule-out", str(target), "--json")
    assert code == 0, err
    row = json.loads(stdout)
    lib = solve_opt(zipf_workload(1.0, 50, 800, seed=0, window=40), 30, allocation="variable")
    assert (row["outputs"], row["exact"], row["arm"], row["allocation"]) == (lib.outputs, lib.exact, lib.arm,
                                                                            "variable")
    schedule = pd.read_parquet(target)
    assert (schedule.admitted.to_numpy() == lib.schedule.admitted).all()
    assert (schedule.left.to_numpy() == lib.schedule.left).all()
    assert "label" not in schedule  # integer keys name themselves


def test_opt_schedule_names_text_keys(shed, tmp_path):
    """Text keys: the schedule's label column gives each tuple's key as the file writes it."""
    rng = np.random.default_rng(2)
    for name in ("r", "s"):
        pd.DataFrame({"time": np.sort(rng.integers(0, 200, 150)), "key": [f"k-{k}" for k in rng.integers(0, 9, 150)]}) \
            .to_csv(tmp_path / f"{name}.csv", index=False)
    code, _, err = shed("opt", "--r", str(tmp_path / "r.csv"), "--s", str(tmp_path / "s.csv"), "--window", "20",
                        "--memory", "8", "--schedule-out", str(tmp_path / "schedule.csv"))
    assert code == 0, err
    schedule = pd.read_csv(tmp_path / "schedule.csv")
    written = pd.concat([pd.read_csv(tmp_path / f"{name}.csv").assign(stream=name.upper()) for name in ("r", "s")])
    assert sorted(zip(schedule.stream, schedule.time, schedule.label)) == \
        sorted(zip(written.stream, written.time, written.key))
    assert schedule.groupby("label").key.nunique().eq(1).all() and schedule.key.nunique() == written.key.nunique()
    for name in ("r", "s"):  # row: the tuple's data row in its stream's file
        part = schedule[schedule.stream == name.upper()]
        data = pd.read_csv(tmp_path / f"{name}.csv")
        assert sorted(part.row) == list(range(len(data)))
        assert part.time.tolist() == data.time.iloc[part.row].tolist()
        assert part.label.tolist() == data.key.iloc[part.row].tolist()


def test_simulate_and_opt_read_two_stream_files(shed, tmp_path):
    wl = zipf_workload(1.0, 20, 300, seed=3, window=30)
    paths = write_stream_files(wl, tmp_path)
    files = ("--r", str(paths[0]), "--s", str(paths[1]), "--window", "30", "--memory", "20", "--json")
    sim = shed("simulate", "--policy", "prob,life", *files)
    opt = shed("opt", *files)
    assert sim[0] == 0 and opt[0] == 0, sim[2] + opt[2]
    # the library on the same files takes the same default (online) as the command; on the generated
    # workload it takes the paper's static table
    from shedding.datasets import load_two_streams

    read = load_two_streams(paths[0], paths[1], 30)
    for row in map(json.loads, sim[1].splitlines()):
        lib = simulate(read, row["policy"], 20)
        assert row["outputs"] == lib.outputs and row["estimator"] == lib.params["estimator"] == "online"
        assert row["outputs"] == simulate(wl, row["policy"], 20, estimator="online").outputs
    assert simulate(wl, "prob", 20).params["estimator"] == "static"
    assert json.loads(opt[1])["outputs"] == solve_opt(wl, 20).outputs


@pytest.mark.spark
def test_simulate_reads_ndp_files_and_states_the_drops(tmp_path):
    """The weather path end to end through the CLI (Spark in the subprocess, its own cache)."""
    rng = np.random.default_rng(5)
    def month(year: int, n: int) -> pd.DataFrame:
        return pd.DataFrame({"year": year, "month": 9, "day": 1 + np.arange(n) // 8, "hour": 3 * (np.arange(n) % 8),
                             "lat": rng.choice([-35.0, 5.0, 45.0], n), "lon": rng.choice([10.0, 120.0, 250.0], n),
                             "station": 1000 + np.arange(n), "land": True})
    r_path = write_ndp(month(1985, 120), tmp_path / "SEP85L.gz")
    s_path = write_ndp(month(1986, 100), tmp_path / "SEP86L")
    with open(s_path, "a") as f:
        f.write("garbage line\n")
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    proc = shed_process("simulate", "--r", str(r_path), "--s", str(s_path), "--format", "ndp", "--window", "10",
                "--memory", "6", "--policy", "exact,prob,opt", env=env)
    assert proc.returncode == 0, proc.stderr
    # nothing of Spark's reaches the terminal: log4j is quiet and the JVM's own stderr goes to a log file
    assert not any(word in proc.stderr for word in ("log4j", "Setting default log level", "WARN", "ERROR"))
    assert "incubator" in (tmp_path / "cache" / "shedding" / "spark-jvm.log").read_text()
    text = " ".join(proc.stdout.split())
    assert "101 lines read, 100 valid, 1 dropped" in text and "its last 20 were dropped" in text
    wl = weather_workload(r_path, s_path, "ndp", window=10, cache_dir=tmp_path / "cache" / "shedding" / "weather")
    assert wl.meta["cache"]["hit"]
    table = {cells[0]: cells[1] for cells in (line.replace("│", " ").split() for line in proc.stdout.splitlines())
             if len(cells) > 1}
    assert table["PROB"] == f"{simulate(wl, 'prob', 6).outputs:,}"
    assert table["OPT"] == f"{solve_opt(wl, 6).outputs:,}"
    assert table["EXACT"] == f"{simulate(wl, 'exact', 6).outputs:,}"


def test_static_components(shed):
    code, stdout, err = shed("static", "--components", "3x2,4x4,1x5", "--drop", "3", "--json")
    assert code == 0, err
    res = json.loads(stdout)
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
    (["opt", "--r", "/no/SEP85L.Z", "--s", "/no/SEP86L.Z", "--format", "ndp"], "not found"),
    (["opt", "--r", "r.csv"], "both --r and --s"),
    (["simulate", "--r", "a.txt", "--s", "b.txt"], "--format"),
    (["simulate", "--r", "a.nc", "--s", "b.nc", "--format", "netcdf"], "unknown --format"),
    (["opt", "--max-graph-gib", "0"], "max-graph-gib"),
    (["opt", "--allocation", "both"], "allocation"),
    (["opt", "--r", "/no/SEP85L.Z", "--s", "/no/SEP86L.Z", "--format", "ndp", "--graph", "x"], "unknown --graph"),
    (["static", "--components", "3y2", "--drop", "1"], "component"),
    (["static", "--drop", "1"], "--components"),
])
def test_bad_input_is_one_line_exit_2(shed, args, needle):
    assert_error_line(shed(*args), needle)


@pytest.mark.parametrize("content, needle", [
    ("stream,time\nR,0\n", "key"),
    ("stream,time,key\nR,0,1\nS,1,2\nR,2,x\n", "are whole numbers, so all are read as integers"),  # a stray word (words alone are text keys)
    ("stream,time,key\nR,3,1\nR,1,1\n", "backwards"),
    ("stream,time,key\nQ,0,1\n", "R"),
    ("stream,time,key\nR,0,\n", "missing"),
])
def test_bad_workload_files(shed, tmp_path, content, needle):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    assert_error_line(shed("simulate", "--workload", str(path), "--window", "3"), needle)


def test_empty_workload_file(shed, tmp_path):
    path = tmp_path / "empty.csv"
    path.write_text("stream,time,key\n")
    code, stdout, err = shed("simulate", "--workload", str(path), "--window", "3", "--json")
    assert code == 0, err
    assert all(json.loads(x)["outputs"] == 0 for x in stdout.splitlines())


def test_help_answers_the_question(shed):
    code, stdout, _ = shed("simulate", "--help")
    assert code == 0
    for flag in ("--policy", "--memory-split", "--estimator", "--workload", "--json"):
        assert flag in stdout
    assert "pip install 'shedding[data]'" in " ".join(stdout.replace("│", " ").split())  # rich dropped "[data]"


#: a bare typer app answering --help: the floor every typer command line pays (typer, rich and the
#: value checks typer runs through pydantic)
TYPER_FLOOR = """
import sys
import typer
app = typer.Typer(add_completion=False)
@app.command()
def run(n: int = typer.Option(1, "--n", help="A number.")) -> None:
    pass
@app.command()
def other() -> None:
    pass
sys.argv = ["floor", "run", "--help"]
try:
    app()
except SystemExit:
    pass
"""


def _cpu_seconds(code: str, *args: str) -> tuple[float, subprocess.CompletedProcess]:
    """The CPU time of one ``python -c code ARGS``."""
    started = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=60)
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime - started.ru_utime - started.ru_stime, proc


def _cpu_against_floor(code: str, *args: str, rounds: int = 3) -> tuple[float, float, subprocess.CompletedProcess]:
    """The least CPU time of ``code`` and of the bare typer app, over rounds that alternate them:
    load on the machine only adds to either, and alternating lets a busy moment slow both."""
    floor, cpu, proc = float("inf"), float("inf"), None
    for _ in range(rounds):
        floor = min(floor, _cpu_seconds(TYPER_FLOOR)[0])
        used, proc = _cpu_seconds(code, *args)
        cpu = min(cpu, used)
    return cpu, floor, proc


@pytest.mark.slow  # a new interpreter per case
@pytest.mark.parametrize("args", [["--help"], ["simulate", "--help"], ["opt", "--help"], ["static", "--help"],
                                  ["compare", "--help"], ["report", "--help"], ["explain", "--help"],
                                  ["stream-join", "--help"], ["wjoin", "--help"], ["bmj", "--help"]])
def test_help_is_quick_and_imports_nothing_heavy(args):
    """--help loads neither pandas, numba nor Spark (1.6-2.2 s before), and flags show no <bool>.
    Its CPU time is measured against a bare typer app's --help in alternating rounds of the same
    test, so that a loaded machine does not fail it: shed's --help may take at most twice the bare
    app's (1.4-1.6 times on a quiet machine, where rendering the larger commands' options adds
    0.13-0.18 s; pandas alone would add 0.4 s, more than the bare app's 0.3 s)."""
    code = ("import sys\nfrom shedding.cli import main\nsys.argv = ['shed', *sys.argv[1:]]\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "heavy = [m for m in ('pandas', 'numpy', 'numba', 'pyspark', 'ortools', 'plotly') if m in sys.modules]\n"
            "print('HEAVY', heavy)")
    cpu, floor, proc = _cpu_against_floor(code, *args)
    assert proc.returncode == 0, proc.stderr
    assert "HEAVY []" in proc.stdout and "<bool>" not in proc.stdout
    assert cpu < 2 * floor, (cpu, floor)


def test_first_policy_is_timed_without_loading_the_engine():
    """The engine's compiled code is loaded before any policy is timed (about 0.4 s in a fresh process)."""
    # online policies only: each takes about a millisecond here, so the 0.4 s of loading would show,
    # while OPT's own solve time swings with the machine's load
    proc = shed_process("simulate", "--policy", "prob,life", "--length", "2000", "--window", "100", "--json")
    assert proc.returncode == 0, proc.stderr
    assert all(json.loads(line)["seconds"] < 0.2 for line in proc.stdout.splitlines()), proc.stdout


@pytest.mark.parametrize("args, warned", [
    # the static estimator is no longer the default here (it was, with this warning): only when asked for
    (["simulate", "--policy", "prob,hazard,age,opt", "--estimator", "static"],
     "PROB and HAZARD rank by the whole stream's key counts"),
    (["simulate", "--policy", "prob,hazard"], None),
    (["simulate", "--policy", "prob", "--estimator", "online"], None),
    (["simulate", "--policy", "age,rand,opt", "--estimator", "static"], None),  # AGE's static plan: the age curve
    (["explain", "--policy", "life", "--estimator", "static"],
     "LIFE ranks by the whole stream's key counts, which on the age workload"),
])
def test_static_key_counts_on_the_age_model_are_named_as_not_online(shed, args, warned):
    code, out, err = shed(*args, "--generator", "age", "--length", "300", "--window", "40", "--param", "lag_mean=10",
                          "--memory", "10")
    assert code == 0, err
    if warned:
        assert f"warning: with --estimator static, {warned}" in err and "drop --estimator static" in err
        assert len(err.strip().splitlines()) == 1
    else:
        assert "not online" not in err


def test_simulate_bound_gives_the_online_bound_per_split(shed):
    import jsonschema

    from helpers import SCHEMA
    from shedding.datasets.age import age_workload
    from shedding.offline.agebound import age_bound

    args = ("--generator", "age", "--length", "600", "--window", "60", "--param", "lag_mean=20", "--param",
            "lag_spread=5", "--param", "skew=0.5", "--param", "domain=50", "--memory", "20", "--estimator", "online")
    code, out, err = shed("simulate", *args, "--policy", "prob,probv,opt", "--bound", "--json")
    assert code == 0, err
    rows = {r["policy"]: r for r in map(json.loads, out.splitlines())}
    for r in rows.values():
        jsonschema.Draft202012Validator(SCHEMA).validate(r)
    wl = age_workload(length=600, window=60, lag_mean=20, lag_spread=5, skew=0.5, domain=50)
    assert rows["bound"]["expected_outputs"] == pytest.approx(age_bound(wl, 20), abs=1e-3)
    assert rows["boundv"]["expected_outputs"] == pytest.approx(age_bound(wl, 20, variable=True), abs=1e-3)
    assert (rows["bound"]["memory_r"], rows["boundv"]["memory_r"]) == (10, None)
    assert rows["bound"]["exact"] == rows["opt"]["exact"] and rows["bound"]["relaxation"] == "lags"
    code, out, err = shed("simulate", *args, "--policy", "prob", "--bound")
    assert code == 0, err
    assert "BOUND " in out and "BOUNDV" not in out and "the most any online policy can get in expectation" in out


def test_simulate_tuning_sets_the_learner_and_the_rows_record_it(shed):
    import jsonschema

    from helpers import SCHEMA
    from shedding.datasets.age import age_workload
    from shedding.online.tuning import HazardTuning
    from shedding.run import run_policy

    args = ("--generator", "age", "--length", "1500", "--window", "100", "--param", "lag_mean=30", "--param",
            "lag_spread=5", "--memory", "20", "--estimator", "online", "--policy", "prob,hazard,hazardv,age", "--json")
    code, out, err = shed("simulate", *args, "--tuning", "ratio=1.5, first=4")
    assert code == 0, err
    tuned = {r["policy"]: r for r in map(json.loads, out.splitlines())}
    code, out, err = shed("simulate", *args)
    assert code == 0, err
    default = {r["policy"]: r for r in map(json.loads, out.splitlines())}
    wl = age_workload(length=1500, window=100, lag_mean=30, lag_spread=5)
    tuning = HazardTuning(first=4, ratio=1.5)
    for name, r in tuned.items():
        jsonschema.Draft202012Validator(SCHEMA).validate(r)
        learns = name != "prob"
        assert r["tuning"] == ("first=4,ratio=1.5" if learns else None) and default[name]["tuning"] is None
        lib = run_policy(wl, name, 20, estimator="online", tuning=tuning if learns else None)
        assert r["outputs"] == lib.outputs
    assert tuned["prob"]["outputs"] == default["prob"]["outputs"]
    assert tuned["hazard"]["outputs"] != default["hazard"]["outputs"]  # the setting took effect


def test_simulate_records_the_tuning_only_where_a_learner_ran(shed):
    """With the static estimator AGE is told its age curve and learns nothing: beside HAZARD, which
    learns, its row records no tuning (it recorded the setting it ignored)."""
    code, out, err = shed("simulate", "--generator", "age", "--length", "600", "--window", "100", "--param",
                          "lag_mean=30", "--memory", "20", "--policy", "age,hazard", "--tuning", "ratio=2", "--json",
                          "--estimator", "static")  # the age model's default is online since the static one reads ahead
    assert code == 0, err
    rows = {r["policy"]: r for r in map(json.loads, out.splitlines())}
    assert rows["age"]["tuning"] is None and rows["hazard"]["tuning"] == "ratio=2.0"


def test_range_runs_the_time_range_join_in_simulate_opt_and_explain(shed):
    """--range LO,HI is the library's range=(lo, hi) on the same workload (window: the horizon)."""
    from shedding import Workload, simulate, zipf_workload
    from shedding.offline import solve_opt

    wl: Workload = zipf_workload(1.0, 20, 300, 0, window=7, warmup=14).with_params(range=(2, 6))
    code, stdout, _ = shed("simulate", "--range", "2,6", "--length", "300", "--domain", "20", "--memory", "6",
                           "--policy", "exact,prob,lifev,opt,optv", "--json")
    assert code == 0
    rows = {r["policy"]: r for r in map(json.loads, stdout.splitlines())}
    assert rows["exact"]["outputs"] == simulate(wl, "exact", 6).outputs
    assert rows["prob"]["outputs"] == simulate(wl, "prob", 6).outputs
    assert rows["lifev"]["outputs"] == simulate(wl, "lifev", 6).outputs
    assert rows["opt"]["outputs"] == solve_opt(wl, 6).outputs
    assert rows["prob"]["range"] == [2, 6]
    code, stdout, _ = shed("opt", "--range=2,6", "--length", "300", "--domain", "20", "--memory", "6",
                           "--allocation", "variable", "--json")
    assert code == 0 and json.loads(stdout)["outputs"] == rows["optv"]["outputs"]
    code, stdout, _ = shed("explain", "--range", "2,6", "--length", "300", "--domain", "20", "--memory", "6",
                           "--policy", "prob", "--json")
    assert code == 0 and json.loads(stdout)["summary"]["policy_outputs"] == rows["prob"]["outputs"]


def test_timestamps_run_in_simulate_opt_and_explain(shed, tmp_path):
    """--time-step with the range as lengths of time: the steps of floor(instant / step), counted
    from the first, so EXACT is the pandas join on those steps; OPT and explain read the same."""
    rng = np.random.default_rng(5)
    start = pd.Timestamp("2024-05-01 23:58:30")
    departed = start + pd.to_timedelta(np.sort(rng.integers(0, 3 * 86400, 600)), unit="s")
    tail = np.array([f"N{i}" for i in rng.integers(0, 40, 600)])
    landed = departed + pd.to_timedelta(rng.integers(30 * 60, 9 * 3600, 600), unit="s")
    order = np.argsort(landed, kind="stable")
    pd.DataFrame({"time": departed, "key": tail}).to_csv(tmp_path / "dep.csv", index=False)
    pd.DataFrame({"time": landed[order], "key": tail[order]}).to_parquet(tmp_path / "arr.parquet")
    files = ("--r", str(tmp_path / "dep.csv"), "--s", str(tmp_path / "arr.parquet"), "--range", "0 seconds,6 hours",
             "--time-step", "5 minutes", "--memory", "30", "--warmup", "0", "--json")
    code, stdout, err = shed("simulate", "--policy", "exact,prob,opt", *files)
    assert code == 0, err
    rows = {r["policy"]: r for r in map(json.loads, stdout.splitlines())}
    pairs = pd.DataFrame({"key": tail, "r": departed}).merge(pd.DataFrame({"key": tail[order], "s": landed[order]}))
    steps = [(pairs[c] - pd.Timestamp(0)) // pd.Timedelta(minutes=5) for c in "rs"]
    assert rows["exact"]["outputs"] == int(((steps[1] - steps[0] >= 0) & (steps[1] - steps[0] <= 72)).sum()) > 0
    assert rows["prob"]["range"] == [0, 72] and rows["prob"]["time_step"] == "5 minutes"
    assert rows["prob"]["time_origin"] == "2024-05-01T23:55:00+00:00"
    code, stdout, err = shed("opt", *files)
    assert code == 0 and json.loads(stdout)["outputs"] == rows["opt"]["outputs"], err
    code, stdout, err = shed("explain", "--policy", "prob", *files)
    assert code == 0 and json.loads(stdout)["summary"]["policy_outputs"] == rows["prob"]["outputs"], err


def test_simulate_and_opt_read_a_folder_per_stream(shed, tmp_path):
    """A stream in parts (a Spark job's output, with its _SUCCESS file) runs as the whole file."""
    wl = zipf_workload(1.0, 20, 300, seed=4, window=30)
    paths = write_stream_files(wl, tmp_path)
    folder = tmp_path / "r-parts"
    folder.mkdir()
    r = pd.read_csv(paths[0])
    r.iloc[:120].to_csv(folder / "part-00000.csv", index=False)
    r.iloc[120:].to_csv(folder / "part-00001.csv", index=False)
    (folder / "_SUCCESS").write_text("")
    for command, policies in (("simulate", ("--policy", "exact,prob,hazard")), ("opt", ())):
        runs = [shed(command, "--r", str(r_path), "--s", str(paths[1]), "--window", "30", "--memory", "20", "--json",
                     *policies) for r_path in (folder, paths[0])]
        assert runs[0][0] == runs[1][0] == 0, runs[0][2]
        outputs = [[(row["policy"], row["outputs"]) for row in map(json.loads, run[1].splitlines())] for run in runs]
        assert outputs[0] == outputs[1]


def test_simulate_out_writes_a_table_by_its_extension(shed, tmp_path):
    """--out rows.csv or rows.parquet is a table of the --json rows; any other name JSON lines."""
    args = ("simulate", "--policy", "exact,prob,hazard", "--length", "600", "--window", "40", "--memory", "20")
    code, out, err = shed(*args, "--json", "--out", str(tmp_path / "rows.json"))
    assert code == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    assert [json.loads(line) for line in (tmp_path / "rows.json").read_text().splitlines()] == rows
    for name, read in (("rows.csv", pd.read_csv), ("rows.parquet", pd.read_parquet)):
        assert shed(*args, "--out", str(tmp_path / name))[0] == 0
        table = read(tmp_path / name)
        assert table.policy.tolist() == ["exact", "prob", "hazard"]
        assert table.outputs.tolist() == [r["outputs"] for r in rows] and list(table.columns) == list(rows[0])
