"""The default estimator, one rule everywhere: static (the whole stream's key counts, which read
the future) only on the paper's Zipf streams and weather data; online on files, the flights and
the beyond-i.i.d. generators. The library (simulate, run_policy, explain), shed simulate, shed
explain and the suites agree on it, and each says which estimator ran."""

from __future__ import annotations

import json

import pytest

from shedding.datasets import zipf_workload
from shedding.datasets.age import age_workload
from shedding.datasets.bursts import burst_workload
from shedding.datasets.drift import drift_workload
from shedding.datasets.files import write_workload
from shedding.datasets.generators import GENERATORS
from shedding.online import simulate
from shedding.online.estimators import default_estimator
from shedding.run import run_policy
from shedding.studies.dgr.spec import parse_suite
from shedding.studies.explain import explain


def test_the_rule():
    assert {n: s.estimator for n, s in GENERATORS.items()} == {
        "zipf": "static", "age": "online", "drift": "online", "bursts": "online", "flights": "online"}
    zipf = zipf_workload(1.0, 20, 200, seed=1, window=20)
    assert default_estimator(zipf) == "static"
    assert default_estimator(age_workload(window=40, lag_mean=10, length=200)) == "online"
    assert default_estimator(drift_workload(window=40, length=200)) == "online"
    assert default_estimator(burst_workload(window=40, length=200)) == "online"
    by_hand = zipf_workload(1.0, 20, 200, seed=1, window=20)
    by_hand.meta.clear()  # a workload built by hand: the paper's table, as before
    assert default_estimator(by_hand) == "static"
    weather = zipf_workload(1.0, 20, 200, seed=1, window=20)
    weather.meta.clear()
    weather.meta["format"] = "synop"
    assert default_estimator(weather) == "static"
    for fmt in ("csv", "parquet", ("csv", "parquet")):
        zipf.meta.clear()
        zipf.meta["format"] = fmt
        assert default_estimator(zipf) == "online"


@pytest.fixture(scope="module")
def file_workload(tmp_path_factory):
    from shedding.datasets import load_workload

    path = tmp_path_factory.mktemp("est") / "w.csv"
    write_workload(zipf_workload(1.0, 20, 400, seed=2, window=30), path)
    return path, load_workload(path, 30)


def test_the_library_runs_the_default_and_says_so(file_workload):
    _, wl = file_workload
    for policy in ("prob", "life", "hazard"):
        res = simulate(wl, policy, 20)
        assert res.params["estimator"] == "online"
        assert res.outputs == simulate(wl, policy, 20, estimator="online").outputs
        assert run_policy(wl, policy, 20).outputs == res.outputs
    assert simulate(wl, "prob", 20, estimator="static").params["estimator"] == "static"
    ex = explain(wl, "prob", 20)
    assert ex.summary["estimator"] == "online" and ex.summary["decay"] == 1.0
    assert explain(zipf_workload(1.0, 20, 200, seed=1, window=20), "prob", 10).summary["estimator"] == "static"


def test_the_commands_agree_with_the_library(shed, file_workload, tmp_path):
    path, wl = file_workload
    code, out, err = shed("simulate", "--workload", str(path), "--window", "30", "--memory", "20", "--policy",
                          "prob,hazard", "--json")
    assert code == 0 and not err, err
    for row in map(json.loads, out.splitlines()):
        lib = simulate(wl, row["policy"], 20)
        assert (row["estimator"], row["outputs"]) == (lib.params["estimator"], lib.outputs) == ("online", lib.outputs)
    code, out, err = shed("explain", "--workload", str(path), "--window", "30", "--memory", "20", "--policy", "prob",
                          "--json", "--out", str(tmp_path / "ex"))
    assert code == 0 and not err, err
    doc = json.loads(out)
    assert doc["summary"]["estimator"] == "online"
    assert doc["summary"]["policy_outputs"] == simulate(wl, "prob", 20).outputs
    page = (tmp_path / "ex" / "explain.html").read_text()
    assert "online (the key counts so far)" in page
    # the paper's Zipf streams keep the static table, in the command as in the library
    code, out, err = shed("simulate", "--length", "200", "--window", "20", "--memory", "10", "--policy", "prob",
                          "--json")
    assert code == 0 and json.loads(out)["estimator"] == "static"


def test_the_suites_take_each_datasets_default():
    suite = parse_suite({"defaults": {"skew": 1.0, "domain": 20}, "experiment": [
        {"id": "a", "title": "zipf", "figure": "memory", "policies": ["prob"], "window": 20, "memory": 10,
         "length": 100},
        {"id": "b", "title": "drift", "figure": "memory", "policies": ["prob"], "window": 20, "memory": 10,
         "length": 100, "dataset": "drift"},
        {"id": "c", "title": "both", "figure": "memory", "policies": ["prob"], "window": 20, "memory": 10,
         "length": 100, "dataset": ["zipf", "bursts"]},
        {"id": "d", "title": "asked", "figure": "memory", "policies": ["prob"], "window": 20, "memory": 10,
         "length": 100, "dataset": "drift", "estimator": "static"}]}, "t.toml")
    got = {(r.experiment, r.dataset): r.estimator for r in suite.runs(1)}
    assert got == {("a", "zipf"): "static", ("b", "drift"): "online", ("c", "zipf"): "static",
                   ("c", "bursts"): "online", ("d", "drift"): "static"}
