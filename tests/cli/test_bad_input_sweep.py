"""The cases of the bad-input sweep, each held to the promise of ``shed``: one line naming the flag,
exit code 2, no traceback, and every input file as it was; or, where the input is fine, the right
answer.

The kinds: numbers that overflowed into a traceback, outputs that would overwrite an input, runs
larger than the up-front size check counted, flags silently accepted (a contradicting --format, a
repeated single-valued flag, an empty path, a stray comma in a path list, --schedule-out CSV), rich
markup and emoji in values and paths, Java's text for a bad Spark master, and messages over two
lines. The checks behind them are general (every single-valued flag of every command, every
output against every input), so the cases test the rule and an example of each kind.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from helpers import assert_error_line, with_paths

BIG = str(2**63)  # one more than a 64-bit integer holds


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("sweep")
    (root / "w.csv").write_text("stream,time,key\nR,0,1\nS,0,1\nR,1,2\nS,2,2\n")
    (root / "a.csv").write_text("time,key\n0,1\n1,2\n")
    (root / "b.csv").write_text("time,key\n0,1\n2,2\n")
    (root / "est.parquet").write_bytes(b"\x00\x01binary, not Parquet\xff\xfe")
    (root / "est.csv").write_bytes(b"\x00\x01\xff\xfe\x80binary")
    (root / "est.bin").write_bytes(b"\x00\x01\xff\xfe")
    (root / "src").mkdir()
    (root / "src" / "part-0.csv").write_text("time,key\n0,1\n1,2\n")
    # payload columns beside stream, time and key: a category (text), a row id (one value per row,
    # more than the groups HAZARD learns)
    rows = [f"{'RS'[i % 2]},{i // 2},{i % 7},{'abc'[i % 3]},{i}" for i in range(1002)]
    (root / "g.csv").write_text("stream,time,key,category,rowid\n" + "\n".join(rows) + "\n")
    (root / "gr.csv").write_text("time,key,category,endpoint\n0,1,a,1\n1,2,b,2\n")
    (root / "gs.csv").write_text("time,key,Category\n0,1,a\n2,2,b\n")
    # a DGR suite (the paper's window join, on Spark) asking for a time range it does not take
    (root / "dgr-range.toml").write_text('name = "r"\n[defaults]\ndataset = "zipf"\nwindow = 10\nrange = "0,5"\n'
                                         '[[experiment]]\nid = "a"\nfigure = "memory"\ny = "outputs"\n'
                                         'memory = [4]\npolicies = ["prob"]\n')
    return {p.name: p for p in root.iterdir()} | {"root": root}



# (command line, the text the one error line must hold: the flag, often more)
CASES = [
    # tracebacks: numbers beyond 64 bits
    (["simulate", "--policy", "opt", "--length", "100", "--max-graph-gib", "1e308"], "--max-graph-gib"),
    (["opt", "--length", "100", "--max-graph-gib", "1e308"], "--max-graph-gib"),
    (["explain", "--policy", "prob", "--length", "100", "--max-graph-gib", "1e308"], "--max-graph-gib"),
    (["compare", "--suite", "quick", "--out", "{root}/c1", "--max-graph-gib", "1e308"], "--max-graph-gib"),
    (["simulate", "--generator", "age", "--param", f"domain={BIG}"], "--param domain"),
    (["simulate", "--generator", "drift", "--param", f"period={BIG}"], "--param period"),
    (["simulate", "--generator", "drift", "--param", f"shift={BIG}"], "--param shift"),
    (["simulate", "--generator", "age", "--param", f"lag={BIG}"], "--param lag"),
    (["wjoin", "--windows", f"A-B:{BIG},B-C:3"], "--windows"),
    (["wjoin", "--windows", f"A-B:{2**62},B-C:{2**62}"], "--windows"),  # the closure's sum would overflow
    # runaways: the size check counts the generator's rates, background and domain, not --length alone
    (["simulate", "--generator", "age", "--param", "rate=1e6"], "--param rate=1e6"),
    (["simulate", "--generator", "bursts", "--param", "rate_high=1e6"], "--param rate_high=1e6"),
    (["simulate", "--generator", "age", "--param", f"domain={2**62}"], "--param domain"),
    (["simulate", "--generator", "age", "--param", "background=0.999999999", "--length", "1000000"], "--param"),
    # silent acceptances
    (["simulate", "--r", "{a.csv}", "--s", "{b.csv}", "--format", "parquet"], "--format parquet contradicts --r"),
    (["simulate", "--window", "10", "--window", "20"], "--window is given twice"),
    (["simulate", "-w", "10", "--window=20"], "--window is given twice"),
    (["simulate", "--policy", "prob", "--policy", "rand"], "--policy is given twice"),
    (["opt", "--memory", "5", "--memory", "6"], "--memory is given twice"),
    (["wjoin", "--policy", "prob", "--memory", "5", "--policy", "rand"], "--policy is given twice"),
    (["stream-join", "--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/sj", "--out", "{root}/sj2"],
     "--out is given twice"),
    (["simulate", "--out", ""], "--out is empty"),
    (["simulate", "--out", "  "], "--out is empty"),
    (["opt", "--schedule-out", ""], "--schedule-out is empty"),
    (["report", ""], "DIR is empty"),
    (["compare", "--out", ""], "--out is empty"),
    (["opt", "--length", "100", "--schedule-out", "{root}/schedule.txt"], "--schedule-out"),
    (["wjoin", "--streams", "{a.csv},,{b.csv}"], "--streams"),
    (["wjoin", "--streams", "{a.csv},{b.csv},"], "--streams"),
    (["wjoin", "--length", "0"], "--length"),
    # time ranges: empty, beyond 64 bits, not integers, or beside --window
    (["simulate", "--range", "5,2", "--length", "100"], "--range 5,2 is empty"),
    (["opt", "--range", f"0,{BIG}", "--length", "100"], "--range"),
    (["explain", "--policy", "prob", "--range", f"-{2**62 + 1},0", "--length", "100"], "--range"),
    (["simulate", "--range", "0.5,2", "--length", "100"], "--range '0.5' is neither an integer"),
    (["simulate", "--range", "3", "--length", "100"], "--range"),
    (["simulate", "--range", "0,719", "--window", "720"], "give either --range or --window"),
    (["opt", "--range=-3,3", "-w", "4"], "give either --range or --window"),
    (["simulate", "--range", "0,5", "--predicate", "band", "--eps", "1"], "--range applies to equi-joins only"),
    (["simulate", "--range", "0,5", "--memory", "10", "--memory-split", "5,5"],
     "--memory-split 5,5 gives 5 tuples to S, which the range 0,5 never stores"),
    (["opt", "--range=-5,0", "--memory", "10", "--memory-split", "5,5"], "gives 5 tuples to R"),
    (["explain", "--policy", "prob", "--range", "2,9", "--memory", "4", "--memory-split", "1,3"], "--memory-split"),
    (["compare", "--suite", "{dgr-range.toml}", "--out", "{root}/c2"], "unknown field(s) range"),
    # --group on a file's own columns: a column not in the input names it and lists the input's; more
    # distinct values than the bound; a policy that ranks by no group; an empty column name
    (["simulate", "--workload", "{g.csv}", "--policy", "hazard", "--group", "gate"],
     "unknown --group column 'gate'; the payload columns of --workload {g.csv} are: category, rowid"),
    (["simulate", "--r", "{gr.csv}", "--s", "{gs.csv}", "--policy", "hazard", "--group", "endpoint"],
     "unknown --group column 'endpoint'; the payload columns of --r {gr.csv} and --s {gs.csv} (the columns both "
     "have) are: category"),
    (["simulate", "--workload", "{g.csv}", "--window", "5", "--policy", "hazard", "--group", "rowid"],
     "--group rowid has 1,002 distinct values, more than the 1,000 HAZARD learns age curves for"),
    (["explain", "--workload", "{g.csv}", "--window", "5", "--policy", "hazard", "--group", "category,rowid"],
     "--group category,rowid has 1,002 distinct values"),
    (["simulate", "--workload", "{g.csv}", "--policy", "prob", "--group", "category"],
     "--group applies to the policies that rank by a payload group only (hazard or hazardv); drop it, or add "
     "--policy hazard"),
    (["explain", "--workload", "{g.csv}", "--policy", "age", "--group", "category"], "add --policy hazard"),
    (["simulate", "--workload", "{g.csv}", "--policy", "hazard", "--group", "category,"],
     "--group 'category,' has an empty column name"),
    (["simulate", "--workload", "{g.csv}", "--policy", "hazard", "--group", "category,category"],
     "--group names category twice"),
    (["simulate", "--policy", "hazard", "--group", "category"], "--group needs payload columns per tuple, and "
     "--generator zipf has none"),
    (["stream-join", "--r", "{src}", "--s", "{src}", "--out", "{root}/sj3", "--shedding", "hazard", "--group",
      "endpoint"], "unknown --group column 'endpoint'; stream R has the columns time, key"),
    (["stream-join", "--r", "{src}", "--s", "{src}", "--out", "{root}/sj3", "--group", "endpoint"],
     "--group applies to the policies that rank by a payload group only (hazard or hazardv); drop it, or add "
     "--shedding hazard"),
    (["stream-join", "--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/sj", "--shedding", "hazard",
      "--group", "endpoint"], "--group needs payload columns, and zipf:SKEW:DOMAIN sources have only time and key"),
    (["stream-join", "--r", "{src}", "--s", "{src}", "--out", "{root}/sj3", "--shedding", "hazard", "--group",
      "key,"], "--group 'key,' has an empty column name"),
    # inputs never overwritten: an output equal to an input is refused
    (["simulate", "--workload", "{w.csv}", "--out", "{w.csv}"], "--out"),
    (["simulate", "--r", "{a.csv}", "--s", "{b.csv}", "--out", "{b.csv}"], "--out"),
    (["opt", "--workload", "{w.csv}", "--schedule-out", "{w.csv}"], "--schedule-out"),
    (["wjoin", "--streams", "{a.csv},{b.csv}", "--out", "{a.csv}"], "--out"),
    (["wjoin", "--streams", "{a.csv},{b.csv}", "--out", "{root}/./src/../b.csv"], "--out"),  # one file, two names
    # Java's text for a bad master: refused before the JVM sees it
    (["compare", "--suite", "quick", "--out", "{root}/c2", "--master", "local[0]"], "--master"),
    (["compare", "--suite", "quick", "--out", "{root}/c2", "--master", "local[-1]"], "--master"),
    (["compare", "--suite", "quick", "--out", "{root}/c2", "--master", "local[x]"], "--master"),
    (["stream-join", "--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/sj", "--master", "local[-1]"],
     "--master"),
    # a binary frequency table
    (["stream-join", "--r", "{src}", "--s", "{src}", "--out", "{root}/sj3", "--estimator", "{est.parquet}"],
     "--estimator"),
    (["stream-join", "--r", "{src}", "--s", "{src}", "--out", "{root}/sj3", "--estimator", "{est.csv}"],
     "--estimator"),
    (["stream-join", "--r", "{src}", "--s", "{src}", "--out", "{root}/sj3", "--estimator", "{est.bin}"],
     "--estimator"),
]


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("args, needle", CASES, ids=[" ".join(a)[:60] for a, _ in CASES])
def test_a_sweep_case_is_one_line_naming_the_flag(shed, files, args, needle):
    before = _snapshot(files["root"])
    line = assert_error_line(shed(*with_paths(args, files)), with_paths([needle], files)[0])
    assert "Traceback" not in line and "Exception" not in line and "<Buffer>" not in line
    assert _snapshot(files["root"]) == before  # no input changed, no output begun
    for name in ("sj", "sj2", "sj3", "c1", "c2"):
        assert not (files["root"] / name).exists()


def test_schedule_out_writes_the_format_its_extension_names(shed, tmp_path):
    for name in ("schedule.csv", "schedule.parquet"):
        code, _, err = shed("opt", "--length", "200", "--window", "20", "--memory", "10", "--schedule-out",
                            str(tmp_path / name))
        assert code == 0, err
    csv, parquet = pd.read_csv(tmp_path / "schedule.csv"), pd.read_parquet(tmp_path / "schedule.parquet")
    assert csv.columns.tolist() == ["seq", "stream", "time", "key", "admitted", "left"]
    assert csv["admitted"].tolist() == parquet["admitted"].tolist() and len(csv) == 400


def test_format_that_agrees_with_the_extension_is_fine(shed, files):
    code, _, err = shed(*with_paths(["simulate", "--r", "{a.csv}", "--s", "{b.csv}", "--format", "csv", "--warmup", "0",
                                "--window", "2", "--json"], files))
    assert code == 0, err


def test_a_multiple_flag_may_repeat(shed):
    code, _, err = shed("simulate", "--generator", "drift", "--param", "period=50", "--param", "shift=2",
                        "--length", "300", "--window", "20", "--json")
    assert code == 0, err


@pytest.mark.parametrize("value", [":a:", ":-1:", ":+1:", ":smile:", "[bold]x[/bold]", "[x]"])
def test_values_and_paths_print_as_they_are(shed, tmp_path, value):
    """rich neither turns emoji codes into emoji nor reads [x] as markup, in a value or a path."""
    line = assert_error_line(shed("simulate", "--policy", value), "--policy")
    assert value in line
    path = tmp_path / f"in{value.replace('/', '')}.csv"
    line = assert_error_line(shed("simulate", "--workload", str(path)), "--workload")
    assert str(path) in line


def test_a_newline_in_a_path_stays_on_one_line(shed, tmp_path):
    line = assert_error_line(shed("simulate", "--workload", str(tmp_path / "a\nb.csv")), "--workload")
    assert "a\\nb.csv" in line


def test_a_python_warning_is_one_line(shed, monkeypatch):
    """A warning raised while a command runs (numpy's RuntimeWarning) prints as one ``warning:`` line."""
    import warnings

    from shedding.cli import group

    def noisy(*args, **kwargs):
        warnings.warn("divide by zero encountered\nin log", RuntimeWarning, stacklevel=2)
        return 0

    monkeypatch.setattr(group, "app", noisy)
    code, out, err = shed("simulate")
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 0 and len(lines) == 1 and lines[0].startswith("warning: divide by zero encountered in log")


@pytest.mark.parametrize("doc, fix", [
    ({"experiments": {"a": 1}}, "experiments is not a list of objects"),
    ({"experiments": [1, 2]}, "experiments is not a list of objects"),
    ({"run_ids": [1, 2]}, "run_ids is not a list of texts"),
    ({"provenance": []}, "provenance is not a JSON object"),
])
def test_report_on_a_suite_json_out_of_shape(shed, tmp_path, doc, fix):
    (tmp_path / "suite.json").write_text(json.dumps({"name": "quick", "run_ids": [], "total_runs": 0, "seeds": 1,
                                                     **doc}))
    assert_error_line(shed("report", str(tmp_path)), "suite.json", fix)


def test_a_folder_where_report_html_goes(shed, tmp_path):
    (tmp_path / "suite.json").write_text(json.dumps({"name": "quick", "run_ids": [], "total_runs": 0, "seeds": 1}))
    (tmp_path / "report.html").mkdir()
    assert_error_line(shed("report", str(tmp_path)), "report.html is a folder")
    assert_error_line(shed("compare", "--suite", "beyond-iid-quick", "--out", str(tmp_path), "--resume"), "--out",
                      "report.html is a folder")
