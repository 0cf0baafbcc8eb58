"""The Spark runner: results equal the library's, resume skips finished runs, errors are clear."""

from __future__ import annotations

import json
import platform
import subprocess
import sys

import numpy as np
import pandas as pd
import pyspark
import pytest

from shedding import ShedError, simulate, zipf_workload
from shedding.offline import solve_opt
from shedding.studies.dgr.study import DGR
from shedding.studies.registry import load_results, load_suite
from shedding.studies.runner import run_study
from shedding.studies.store import ResultsStore

SMALL = """
name = "small"
description = "a tiny suite for tests"
[defaults]
skew = 1.0
domain = 20
length = 600
window = 40

[[experiment]]
id = "mem"
figure = "memory"
memory_factor = [0.25, 1.0]
policies = ["exact", "rand", "prob", "life", "probv", "opt", "optv"]

[[experiment]]
id = "share"
figure = "share"
skew = 1.5
skew_s = 0.5
memory_factor = [1.0]
policies = ["probv", "optv"]
"""


def suite_of(path) -> object:
    """The DGR suite of a suite file."""
    study, suite = load_suite(str(path))
    assert study is DGR
    return suite


def run_suite(suite, out, **options) -> tuple[pd.DataFrame, bool]:
    """Run a DGR suite into ``out``: (results, complete)."""
    outcome = run_study(DGR, suite, out, **options)
    return outcome.results, outcome.complete


def read_parts(out) -> pd.DataFrame:
    return ResultsStore(out).read_parts()


@pytest.fixture()
def small_suite(tmp_path):
    path = tmp_path / "small.toml"
    path.write_text(SMALL)
    return suite_of(path)


def test_suite_results_equal_library_runs(spark, small_suite, tmp_path):
    results, complete = run_suite(small_suite, tmp_path / "out", seeds=2, spark=spark)
    assert complete and len(results) == len(small_suite.runs(2))
    for row in results.itertuples():
        wl = zipf_workload(row.skew, row.domain, row.length, row.seed, row.correlation, row.window, row.warmup,
                           skew_s=row.skew_s)
        if row.policy in ("opt", "optv"):
            lib = solve_opt(wl, row.memory, allocation="variable" if row.policy == "optv" else "fixed")
        else:
            lib = simulate(wl, row.policy, row.memory, seed=row.seed)
        assert (row.outputs, row.exact, row.arm) == (lib.outputs, lib.exact, lib.arm), row
    opt = results[results.policy == "opt"].set_index(["experiment", "seed", "memory"]).outputs
    for row in results[results.experiment == "mem"].itertuples():
        assert row.ratio_opt == pytest.approx(row.outputs / opt[(row.experiment, row.seed, row.memory)])
    assert (results[results.share].share_t.str.len() > 2).all()
    for name in ("results.parquet", "results.csv", "suite.json"):
        assert (tmp_path / "out" / name).is_file()
    csv = pd.read_csv(tmp_path / "out" / "results.csv")
    assert len(csv) == len(results)
    info = json.loads((tmp_path / "out" / "suite.json").read_text())["provenance"]
    assert info["wall_seconds"] > 0 and info["cores"] >= 1 and info["spark"] == pyspark.__version__
    assert info["python"] == platform.python_version() and info["commit"]


def test_resume_skips_finished_runs(spark, small_suite, tmp_path):
    out = tmp_path / "out"
    run_suite(small_suite, out, seeds=3, spark=spark)  # 48 runs: several waves
    first = read_parts(out)
    parts = sorted((out / "parts").glob("part-*.parquet"))
    parts[-1].unlink()  # as if interrupted before the last wave
    missing = len(first) - len(read_parts(out))
    assert missing > 0
    results, suite, complete = load_results(out)
    assert not complete
    with pytest.raises(ShedError, match=r"already holds results; go on with them \(resume=True\)"):
        run_suite(small_suite, out, seeds=3, spark=spark)
    outcome = run_study(DGR, small_suite, out, resume=True, seeds=3, spark=spark)
    again, complete = outcome.results, outcome.complete
    assert complete and outcome.ran == missing  # only the runs it ran, not the ones kept
    assert len(list((out / "parts").glob("part-*.parquet"))) == len(parts)
    key = ["run_id", "outputs", "exact", "arm"]
    assert again.sort_values("run_id")[key].values.tolist() == first.sort_values("run_id")[key].values.tolist()


def test_ctrl_c_keeps_the_finished_waves(spark, small_suite, tmp_path, monkeypatch):
    """Ctrl-C while a wave runs: the job is cancelled, one line says how many runs are kept, and
    --resume finishes the rest."""
    from shedding.studies import runner

    real, calls = runner._collect, []

    def collect(*args):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(runner, "_collect", collect)
    out = tmp_path / "out"
    with pytest.raises(ShedError, match=r"^interrupted; 16 runs kept, continue them with resume$"):
        run_suite(small_suite, out, seeds=3, spark=spark)  # 48 runs in waves of 16
    monkeypatch.setattr(runner, "_collect", real)
    _, complete = run_suite(small_suite, out, seeds=3, spark=spark, resume=True)
    assert complete


def test_a_failed_run_leaves_no_half_made_folder(spark, tmp_path):
    """Report files that exist but hold no record fail on Spark: the folder made for the run goes again."""
    path = tmp_path / "w.toml"
    path.write_text(WEATHER.format(dataset="files"))
    empty = tmp_path / "SEP85L"
    empty.write_text("")
    out = tmp_path / "out"
    with pytest.raises(ShedError):
        run_suite(suite_of(path), out, spark=spark, files=(empty, empty, "ndp"))
    assert not out.exists()


def test_compare_json_follows_the_schema(spark, tmp_path, monkeypatch, capsys):
    import contextlib
    import json
    from pathlib import Path

    jsonschema = pytest.importorskip("jsonschema")
    import shedding.cli.group as cli
    from shedding.studies import runner

    schema = json.loads((Path(__file__).parents[2] / "docs" / "shed-output.schema.json").read_text())
    suite = tmp_path / "small.toml"
    suite.write_text(SMALL)
    out = tmp_path / "[out]"
    monkeypatch.setattr(runner, "spark_session", lambda master: contextlib.nullcontext(spark))
    monkeypatch.setattr(sys, "argv", ["shed", "compare", "--suite", str(suite), "--out", str(out), "--json"])
    with pytest.raises(SystemExit) as done:
        cli.main()
    assert done.value.code == 0
    summary = json.loads(capsys.readouterr().out)
    jsonschema.validate(summary, schema)
    assert summary["complete"] and summary["runs"] == summary["total_runs"] == len(suite_of(suite).runs())
    assert Path(summary["report"]) == out / "report.html" and Path(summary["results_csv"]).is_file()


def test_ctrl_c_while_the_page_is_written_says_how_to_write_it(spark, tmp_path, monkeypatch, capsys):
    """Every run is on disk before the page is written: Ctrl-C then says so in one line, and the
    command it names writes the page."""
    import contextlib

    import shedding.cli.group as cli
    from shedding.studies import registry, runner

    suite = tmp_path / "small.toml"
    suite.write_text(SMALL)
    out = tmp_path / "o u t"

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "spark_session", lambda master: contextlib.nullcontext(spark))
    monkeypatch.setattr(registry, "build_report", interrupted)
    monkeypatch.setattr(sys, "argv", ["shed", "compare", "--suite", str(suite), "--out", str(out)])
    with pytest.raises(SystemExit) as done:
        cli.main()
    assert done.value.code == 2
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]
    runs = len(suite_of(suite).runs())
    assert lines == [f"error: interrupted while writing the report; all {runs:,} runs are kept in {out}, write the "
                     f"page with: shed report '{out}'"]
    assert not (out / "report.html").exists()
    monkeypatch.undo()
    proc = subprocess.run([sys.executable, "-m", "shedding.cli", "report", str(out)], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert (out / "report.html").is_file()


def test_unwritable_output_folder(small_suite, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ShedError, match="writable"):
        run_suite(small_suite, blocker / "out")


def test_unreachable_master(small_suite, tmp_path):
    with pytest.raises(ShedError, match="cannot reach the Spark master"):
        run_suite(small_suite, tmp_path / "out", master="spark://127.0.0.1:9")


@pytest.mark.spark
def test_compare_cli_errors(tmp_path):
    def shed(*args):
        return subprocess.run([sys.executable, "-m", "shedding.cli", *args], capture_output=True, text=True,
                              timeout=300)

    bad = tmp_path / "bad.toml"
    bad.write_text("[[experiment]]\nid = 'x'\npolicies = ['nope']\n")
    for args, needle in ((["--suite", str(bad)], "unknown policy"),
                         (["--suite", "nosuch"], "unknown suite"),
                         (["--master", "spark://127.0.0.1:9"], "cannot reach")):
        proc = shed("compare", "--out", str(tmp_path / "o"), *args)
        assert proc.returncode == 2, proc.stderr
        lines = [x for x in proc.stderr.splitlines() if x.strip()]
        assert len(lines) == 1 and needle in lines[0], proc.stderr
    proc = shed("report", str(tmp_path / "nothing"))
    assert proc.returncode == 2 and "shed compare" in proc.stderr


WEATHER = """
name = "weather-small"
[defaults]
dataset = "{dataset}"
window = 40
cell_size = 10.0

[[experiment]]
id = "fig7"
figure = "memory"
memory_factor = [0.5]
policies = ["rand", "prob", "probv", "opt", "exact"]

[[experiment]]
id = "fig8"
figure = "share"
memory_factor = [1.0]
policies = ["probv"]
"""


def _check_against_library(results, workload):
    for row in results.itertuples():
        wl = workload.with_params(window=row.window, warmup=row.warmup)
        if row.policy == "opt":
            lib = solve_opt(wl, row.memory)
        else:
            lib = simulate(wl, row.policy, row.memory, seed=row.seed)
        assert (row.outputs, row.exact, row.arm) == (lib.outputs, lib.exact, lib.arm), row


def test_weather_sample_suite(spark, tmp_path):
    from shedding.datasets.weather import synop_sample_workload

    path = tmp_path / "w.toml"
    path.write_text(WEATHER.format(dataset="synop-sample"))
    results, complete = run_suite(suite_of(path), tmp_path / "out", spark=spark)
    assert complete and len(results) == 6
    wl = synop_sample_workload(10.0, 40)
    _check_against_library(results, wl)
    # the real shape of the data, not the grid's 0: distinct cells and reports per stream
    assert set(results.domain) == {len(np.unique(wl.key))} and set(results.length) == {int((wl.side == 0).sum())}


def test_files_suite_reads_the_reports_once_on_spark(spark, tmp_path):
    from shedding.datasets.ndp import write_ndp
    from shedding.datasets.weather import weather_workload

    rng = np.random.default_rng(0)
    n = 400
    table = pd.DataFrame({"day": 1 + np.arange(n) // 16 % 28, "hour": (np.arange(n) % 8) * 3,
                          "lat": rng.choice([-45.0, 5.0, 15.0, 48.5], n), "lon": rng.choice([2.0, 12.0, 200.0], n),
                          "land": True, "year": 1985, "month": 9, "station": 1000 + np.arange(n)})
    r_path = write_ndp(table, tmp_path / "SEP85L")
    s_path = write_ndp(table.sample(frac=1.0, random_state=1).assign(year=1986), tmp_path / "SEP86L.gz")
    path = tmp_path / "w.toml"
    path.write_text(WEATHER.format(dataset="files"))
    suite = suite_of(path)
    with pytest.raises(ShedError, match="reads two report files; give them"):
        run_suite(suite, tmp_path / "none", spark=spark)
    results, complete = run_suite(suite, tmp_path / "out", spark=spark, files=(r_path, s_path, "ndp"))
    assert complete and len(results) == 6
    _check_against_library(results, weather_workload(r_path, s_path, "ndp", 40, spark=spark))
