"""The study beyond i.i.d. streams (kind ``beyond``): its suites parse, the quick one runs through
``shed compare`` and its page states the split between tuning and evaluation data."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from shedding.errors import ShedError
from shedding.studies.registry import load_suite

from helpers import assert_error_line


def test_the_full_suite_plans_held_out_evaluation():
    study, suite = load_suite("beyond-iid")
    runs = suite.runs()
    assert study.kind == "beyond" and not study.spark
    months = {json.loads(r.params)["months"]: r.split for r in runs if r.generator == "flights"}
    assert all(split == ("tuning" if m <= 6 else "held-out") for m, split in months.items())
    assert all(r.seed >= 2 for r in runs if r.generator != "flights")  # seeds 0-1 were for tuning
    assert {r.generator for r in runs} == {"age", "drift", "bursts", "flights", "zipf"}
    keys = {json.loads(r.params).get("key", "tailnum") for r in runs if r.generator == "flights"}
    assert keys == {"tailnum", "carrier", "dest"}  # the flights' other keys, where the guard keeps PROB


def test_compare_runs_the_quick_suite(shed, tmp_path):
    code, out, err = shed("compare", "--suite", "beyond-iid-quick", "--out", str(tmp_path / "q"), "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["complete"] and summary["runs"] == summary["total_runs"] == 5
    rows = pd.read_parquet(tmp_path / "q" / "results.parquet")
    assert (rows.outputs <= rows.opt).all() and (rows.fraction <= 1).all()
    age = rows[rows.experiment == "age"].pivot_table(index="lag_spread", columns="policy", values="fraction")
    assert (age.hazard > age.prob + 0.3).all()  # the age curve is worth most of OPT; key frequency nothing
    iid = rows[rows.experiment == "iid"].set_index("policy").fraction
    assert abs(iid["hazard"] - iid["prob"]) <= 0.005
    page = (tmp_path / "q" / "report.html").read_text()
    assert "tuned only on the flights of January to June 2013" in page and "gap closed" in page
    guard = rows[rows.policy.str.startswith("hazard")].guard
    assert guard.str.fullmatch(r"R \d+/\d+ S \d+/\d+").all() and (rows[rows.policy == "prob"].guard == "").all()
    assert "HAZARD's guard: the refits at which each side" in page
    # the age-based model's runs carry the online bound, shown as BOUND (BOUNDV): above every
    # policy of its split there in expectation, and at least PROB here; no bound elsewhere
    assert rows[rows.experiment == "age"].online_bound.notna().all()
    assert rows[rows.experiment != "age"].online_bound.isna().all()
    age_rows = rows[rows.experiment == "age"]
    assert (age_rows.online_bound >= age_rows[age_rows.policy.isin(["prob", "probv"])].outputs.min()).all()
    assert "BOUND / OPT" in page and "BOUNDV / OPT" in page and "the most any online policy can get" in page
    # the goals are claims with verdicts under the one rule, and the header has the full provenance
    assert page.count("Goal (the project") == 2 and page.count('<span class="verdict ') == 2
    assert "at most a third of the seeds" in page and "No claim: shown as an observation" in page
    for fact in ("Working folder", "Machine", "Started", "Finished", "Seeds per point", "shedding"):
        assert f"<dt>{fact}</dt>" in page


@pytest.mark.parametrize("extra, match", [
    ("claim = 'x'\nchecks = [{kind = 'beats'}]\n", "unknown check kind 'beats'"),
    ("claim = 'x'\nchecks = [{kind = 'closes', share = 2}]\n", "share, a number in"),
    ("claim = 'x'\nchecks = [{kind = 'closes', share = 0.5, over = 'all'}]\n", "over = 'all'"),
    ("claim = 'x'\nchecks = [{kind = 'not-below', policy = 'hazard', base = 'prob'}]\n", "policy = 'hazard' is not"),
    ("claim = 'x'\nchecks = [{kind = 'not-below', policy = 'prob', base = 'prob', by = 1}]\n", "by are no fields"),
    ("checks = [{kind = 'closes', share = 0.5}]\n", "checks need the claim"),
    ("lag_spread = 3.0\n", "lag_spread are no parameters of the drift generator"),
    ("x = 'months'\n", "x = 'months' is no grid field"),
    ("split = 'train'\n", "split = 'train' is not one of tuning, held-out"),
    ("tuning = 'ratio=0.5'\n", "tuning = 'ratio=0.5': ratio must be a number >= 1"),
    ("range = '5,2'\n", "range = '5,2' is not a time range"),
    ("range = 'x'\n", "range = 'x' is not a time range"),
])
def test_bad_suites(tmp_path, extra, match):
    path = tmp_path / "s.toml"
    path.write_text("kind = 'beyond'\n[[experiment]]\nid = 'a'\ngenerator = 'drift'\nwindow = 10\nmemory = 5\n"
                    "policies = ['prob']\n" + ("split = 'held-out'\n" if "split" not in extra else "") + extra)
    with pytest.raises(ShedError, match=match):
        load_suite(str(path))


def one_experiment(generator: str, fields: str) -> str:
    """A beyond suite of one experiment 'e' on ``generator`` (w = 40, M = 10) with ``fields``."""
    return (f"kind = 'beyond'\n[[experiment]]\nid = 'e'\ngenerator = '{generator}'\nlength = 300\nwindow = 40\n"
            f"memory = 10\nsplit = 'held-out'\nx = 'memory'\npolicies = ['prob', 'hazard']\n{fields}")


@pytest.mark.parametrize("given, pmfs", [
    ("[0.0, 0.5, 0.5]", [[0.0, 0.5, 0.5]]),  # one lag distribution, not a grid of three numbers
    ("[[0.0, 0.5, 0.5]]", [[0.0, 0.5, 0.5]]),
    ("[[0.0, 0.5, 0.5], [0, 0, 1]]", [[0.0, 0.5, 0.5], [0, 0, 1]]),
])
def test_a_list_of_numbers_is_one_lag_pmf(tmp_path, given, pmfs):
    path = tmp_path / "s.toml"
    path.write_text(one_experiment("age", f"lag_pmf = {given}\n"))
    _, suite = load_suite(str(path))
    assert [json.loads(r.params)["lag_pmf"] for r in suite.runs(seeds=1)] == pmfs


@pytest.mark.parametrize("generator, fields, needle", [
    ("age", "lag_pmf = '0,0.5,0.5'", "lag_pmf = '0,0.5,0.5' is not a list of probabilities"),
    ("age", "lag_pmf = [0.0, 0.5, 'x']", "lag_pmf = [0.0, 0.5, 'x'] is not a list of probabilities"),
    ("age", "lag_pmf = [[0.0, 0.5], 0.5]", "lag_pmf = [[0.0, 0.5], 0.5] is not a list of probabilities"),
    ("age", "lag_pmf = [0.0, 0.5, 0.4]", "lag_pmf must sum to 1"),
    ("age", "lag_pmf = [[0.0, 1.0], [0.0, 0.5, 0.4]]", "lag_pmf must sum to 1"),
    ("age", "lag_mean = 100.0", "lag_mean is 100 steps (its default unless set), beyond the window of 40"),
    ("age", "lag_mean = 50.0", "lag_mean must be a number in [1, 39], got 50.0"),
    ("flights", "months = 13", "months must be a month or a range"),
    ("flights", "group = 'foo'", "group = 'foo' is not one of dest, carrier, origin"),
    ("flights", "group = 'dest,gate'", "group = 'dest,gate' is not one of dest, carrier, origin (the flights payload "
     "columns) or a comma list of them ('gate' is none of them)"),
    ("flights", "group = 'dest,dest'", "group names dest twice"),
    ("flights", "group = 'auto,dest'", "group auto is a grouping of its own; give auto alone or the columns"),
    ("flights", "group = 3", "group = 3 must be text"),
    ("drift", "group = 'dest'", "group = 'dest' needs the flights' payload, not the drift generator"),
    ("bursts", "rotate = 3", "rotate must be true or false, got 3"),
])
def test_bad_generator_fields_are_one_line_naming_file_experiment_and_field(shed, tmp_path, generator, fields,
                                                                            needle):
    """Refused when the suite is read, before any run, with --suite, the file and the experiment."""
    path = tmp_path / "s.toml"
    path.write_text(one_experiment(generator, fields + "\n"))
    line = assert_error_line(shed("compare", "--suite", str(path), "--out", str(tmp_path / "out")), needle)
    assert line.startswith(f"error: --suite: {path}, experiment 'e': ")
    assert not (tmp_path / "out").exists()


def test_the_page_shows_an_experiments_caption(tmp_path):
    from shedding.studies.beyond.report import build_report

    suite = {"name": "s", "experiments": [{"id": "a", "title": "T", "caption": "PROB static is not online here.",
                                           "policies": ["prob"], "x": "memory", "grid": {}}]}
    page = build_report(pd.DataFrame(), suite, False, tmp_path / "r.html").read_text()
    assert "PROB static is not online here." in page


def test_a_suite_sets_the_learner_per_run(tmp_path):
    """``tuning`` is a grid field: HAZARD runs with the learner it names, PROB once with none."""
    from shedding.datasets.generators import generate
    from shedding.online.tuning import HazardTuning
    from shedding.run import run_policy
    from shedding.studies.beyond.execute import execute

    path = tmp_path / "s.toml"
    path.write_text("kind = 'beyond'\n[[experiment]]\nid = 'a'\ngenerator = 'age'\nlength = 1500\nwindow = 100\n"
                    "memory = 20\nlag_mean = 30.0\nlag_spread = 5.0\nsplit = 'held-out'\npolicies = ['prob', 'hazard']\n"
                    "tuning = ['', 'ratio=1.5,first=4']\nx = 'tuning'\n")
    _, suite = load_suite(str(path))
    runs = suite.runs(seeds=1)
    assert [(r.tuning, r.policies) for r in runs] == [("", ("prob",)), ("", ("hazard",)),
                                                      ("first=4,ratio=1.5", ("hazard",))]
    rows = {(r.tuning, row["policy"]): row for r in runs for row in execute(r)}
    rows = {tuning: {p: rows[tuning, p] for p in ("prob", "hazard") if (tuning, p) in rows}
            for tuning in ("", "first=4,ratio=1.5")}
    wl = generate("age", {"lag_mean": 30.0, "lag_spread": 5.0}, window=100, warmup=None, length=1500, seed=0)
    tuned = run_policy(wl, "hazard", 20, estimator="online", tuning=HazardTuning(first=4, ratio=1.5)).outputs
    assert rows["first=4,ratio=1.5"]["hazard"]["outputs"] == tuned != rows[""]["hazard"]["outputs"]


#: a tiny beyond suite with two tunings: PROB learns nothing, HAZARD learns with either; AGE learns
#: with the online estimator and is told its curve with the static one
TUNED = """kind = 'beyond'
name = 'tuned'
[defaults]
generator = 'age'
length = 1500
window = 100
memory = 20
lag_mean = 30.0
lag_spread = 5.0
split = 'held-out'
tuning = ['ratio=1.5', 'ratio=1.5,first=4']
[[experiment]]
id = 'online'
x = 'tuning'
policies = ['prob', 'age', 'hazard']
[[experiment]]
id = 'static'
estimator = 'static'
x = 'tuning'
policies = ['prob', 'age', 'hazard']
"""


def test_a_policy_that_learns_nothing_runs_once_for_all_tunings(shed, tmp_path):
    """PROB (and AGE told its curve) ran once per tuning, each time the same, and its rows carried a
    tuning that did not apply; it runs once now, and the page pairs it with each HAZARD row."""
    path, out = tmp_path / "s.toml", tmp_path / "out"
    path.write_text(TUNED)
    _, suite = load_suite(str(path))
    runs = suite.runs(seeds=1)
    assert [(r.experiment, r.tuning, r.policies) for r in runs] == [
        ("online", "", ("prob",)), ("online", "ratio=1.5", ("age", "hazard")),
        ("online", "first=4,ratio=1.5", ("age", "hazard")),
        ("static", "", ("prob", "age")), ("static", "ratio=1.5", ("hazard",)),
        ("static", "first=4,ratio=1.5", ("hazard",))]
    code, _, err = shed("compare", "--suite", str(path), "--out", str(out), "--seeds", "1")
    assert code == 0, err
    rows = pd.read_parquet(out / "results.parquet")
    assert rows.groupby("policy").size().to_dict() == {"prob": 2, "age": 3, "hazard": 4}
    assert set(rows[rows.policy == "prob"].tuning) == {""}
    page = (out / "report.html").read_text()
    table = page[page.index("1. online"):page.index("2. static")]
    prob = rows[(rows.experiment == "online") & (rows.policy == "prob")].fraction.item()
    for tuning in ("ratio=1.5", "first=4,ratio=1.5"):
        hazard = rows[(rows.experiment == "online") & (rows.policy == "hazard") & (rows.tuning == tuning)]
        closed = (hazard.fraction.item() - prob) / (1 - prob)
        assert f"<td class=\"key\">{tuning}</td><td>{prob:.3f}</td>" in table and f"{100 * closed:+.0f}%" in table


#: a tiny beyond suite whose experiments give no gap to OPT to measure: PROB alone, HAZARD without
#: PROB, and PROB at M = 0 on the age-based model, where OPT is 0 and the online bound no fraction of it
NO_GAP = """kind = 'beyond'
name = 'no-gap'
[defaults]
window = 40
length = 600
split = 'held-out'
[[experiment]]
id = 'prob-only'
generator = 'drift'
memory = 20
period = 100
x = 'period'
policies = ['prob']
[[experiment]]
id = 'no-prob'
generator = 'drift'
memory = 20
period = 100
x = 'period'
policies = ['hazard']
[[experiment]]
id = 'no-opt'
generator = 'age'
length = 300
memory = 0
lag_mean = 30.0
lag_spread = 2.0
background = 0.0
skew = 0.0
domain = 1000000
x = 'lag_spread'
policies = ['prob']
"""


def test_the_page_says_why_no_gap_closed_is_shown(shed, tmp_path):
    path, out = tmp_path / "s.toml", tmp_path / "out"
    path.write_text(NO_GAP)
    code, _, err = shed("compare", "--suite", str(path), "--out", str(out))
    assert code == 0, err
    rows = pd.read_parquet(out / "results.parquet")
    assert (rows[rows.experiment == "no-opt"].opt == 0).all()
    page = (out / "report.html").read_text()
    assert "No gap closed: the experiment runs PROB only" in page
    assert "No gap closed for HAZARD: the experiment runs no PROB" in page and "HAZARD gap closed" not in page
    assert "A BOUND of - : OPT is 0 there" in page and "BOUND / OPT" in page
    assert "<b>drift, held-out:</b> HAZARD 0." in page  # the summary shows what there is
    (out / "report.html").unlink()
    code, _, err = shed("report", str(out))
    assert code == 0, err
    assert "No gap closed for HAZARD" in (out / "report.html").read_text()


def test_the_page_says_why_a_gap_closed_is_empty_where_prob_reaches_opt(tmp_path):
    from shedding.studies.beyond.report import build_report

    rows = pd.DataFrame({"experiment": "a", "run_id": ["r", "r"], "split": "held-out", "generator": "drift",
                         "setting": "s", "memory": 20, "seed": 0, "policy": ["prob", "hazard"], "outputs": 7,
                         "opt": 7, "fraction": 1.0, "online_bound": float("nan")})
    suite = {"name": "s", "experiments": [{"id": "a", "title": "T", "policies": ["prob", "hazard"], "x": "memory",
                                           "grid": {"memory": [20]}}]}
    page = build_report(rows, suite, True, tmp_path / "r.html").read_text()
    assert "HAZARD gap closed" in page and "<td>-</td>" in page
    assert "A gap closed of - : PROB (PROBV) reaches OPT there" in page


def test_the_runs_of_a_point_share_one_opt_solve(tmp_path, monkeypatch):
    """With a tuning grid a point is one run per setting and one for PROB: OPT (and the online
    bound) is solved once per workload, memory and split, and every row gets the same optimum."""
    from shedding.studies.beyond import execute

    path = tmp_path / "s.toml"
    path.write_text(TUNED)
    _, suite = load_suite(str(path))
    runs = suite.runs(seeds=1)
    solved = []
    real = execute.solve_opt
    monkeypatch.setattr(execute, "solve_opt", lambda wl, m, allocation: solved.append(allocation) or real(
        wl, m, allocation=allocation))
    monkeypatch.setattr(execute, "_OPTIMA", {})
    rows = [row for run in runs for row in execute.execute(run)]
    points = {(r.params, r.seed, r.memory) for r in runs}  # OPT depends on the workload, not the estimator
    assert len(runs) == 6 and len(solved) == len(points) == 1
    assert {row["opt"] for row in rows} == {real(_workload(runs[0]), runs[0].memory, allocation="fixed").outputs}


def _workload(run):
    from shedding.datasets.generators import generate

    return generate(run.generator, json.loads(run.params), window=run.window, warmup=None, length=run.length,
                    seed=run.seed)


def claim_rows(fractions: dict[str, dict[int, list[float]]]) -> pd.DataFrame:
    """fractions[policy][lag_spread] = fraction of OPT per seed."""
    return pd.DataFrame([{"experiment": "e", "policy": p, "lag_spread": x, "seed": s, "fraction": f}
                         for p, by_x in fractions.items() for x, fs in by_x.items() for s, f in enumerate(fs)])


@pytest.mark.parametrize("hazard, ok, inside", [
    ({5: [0.9, 0.9, 0.9], 20: [0.85, 0.8, 0.9]}, True, False),  # closes 80%, 60-80%
    ({5: [0.9, 0.9, 0.9], 20: [0.9, 0.9, 0.7]}, True, False),   # one seed of three short: mean 73%
    ({5: [0.9, 0.9, 0.9], 20: [0.8, 0.8, 0.55]}, False, True),   # mean 48%, one seed of three short
    ({5: [0.9, 0.9, 0.9], 20: [0.6, 0.6, 0.9]}, False, False),   # two seeds of three short
])
def test_a_closes_check_on_both_sides_of_its_share(hazard, ok, inside):
    from shedding.studies.beyond.claims import claim_checks
    from shedding.studies.beyond.report import base_of

    rows = claim_rows({"prob": {5: [0.5] * 3, 20: [0.5] * 3}, "hazard": hazard, "age": {5: [0.6] * 3, 20: [0.6] * 3}})
    exp = {"x": "lag_spread", "checks": [{"kind": "closes", "share": 0.5, "over": "every"}]}
    check, = claim_checks(rows, exp, ["lag_spread"], base_of)
    assert (check.ok, check.within_seeds) == (ok, inside) and check.text.startswith("HAZARD, the best online policy")
    assert bool(check.cause) is (not ok)
    over_x = {**exp, "checks": [{"kind": "closes", "share": 0.5, "over": "x"}]}
    averaged, = claim_checks(rows, over_x, ["lag_spread"], base_of)
    assert averaged.ok is True and "averaged over lag_spread" in averaged.text  # 20's shortfall is made up at 5


@pytest.mark.parametrize("hazard, ok", [([0.5, 0.497, 0.496], True), ([0.49, 0.5, 0.5], True),  # one seed may miss
                                        ([0.49, 0.49, 0.5], False), ([0.5, 0.5, 0.48], False)])
def test_a_not_below_check_on_both_sides_of_its_margin(hazard, ok):
    from shedding.studies.beyond.claims import claim_checks
    from shedding.studies.beyond.report import base_of
    from shedding.studies.page.verdicts import verdict_word

    rows = claim_rows({"prob": {5: [0.5] * 3}, "hazard": {5: hazard}})
    exp = {"x": "lag_spread", "checks": [{"kind": "not-below", "policy": "hazard", "base": "prob", "within": 0.005}]}
    checks = claim_checks(rows, exp, ["lag_spread"], base_of)
    assert [c.ok for c in checks] == [ok] and verdict_word(checks) == ("agrees" if ok else "disagrees")


def test_a_claim_the_runs_cannot_judge_is_not_checked_never_agrees():
    from shedding.studies.beyond.claims import claim_checks
    from shedding.studies.beyond.report import base_of
    from shedding.studies.page.verdicts import verdict_word

    rows = claim_rows({"prob": {5: [1.0, 1.0]}, "hazard": {5: [1.0, 1.0]}})  # PROB at OPT: no gap to close
    exp = {"x": "lag_spread", "checks": [{"kind": "closes", "share": 0.5, "over": "every"}]}
    assert verdict_word(claim_checks(rows, exp, ["lag_spread"], base_of)) == "not checked"


def test_a_suite_runs_a_time_range(tmp_path):
    """``range`` is a grid field: the runs join under it ("" keeps the window), each policy a fraction
    of the OPT of the same range."""
    from shedding.datasets.generators import generate
    from shedding.offline.opt import solve_opt
    from shedding.run import run_policy
    from shedding.studies.beyond.execute import execute

    path = tmp_path / "s.toml"
    path.write_text("kind = 'beyond'\n[[experiment]]\nid = 'a'\ngenerator = 'age'\nlength = 800\nwindow = 60\n"
                    "memory = 10\nlag_mean = 20.0\nlag_spread = 5.0\nsplit = 'held-out'\npolicies = ['prob', 'hazard']\n"
                    "range = ['', '0,59']\nx = 'range'\n")
    _, suite = load_suite(str(path))
    runs = suite.runs(seeds=1)
    assert [r.range for r in runs] == ["", "0,59"]
    rows = {(r.range, row["policy"]): row for r in runs for row in execute(r)}
    wl = generate("age", {"lag_mean": 20.0, "lag_spread": 5.0}, window=60, warmup=None, length=800, seed=0)
    ranged = wl.with_params(range=(0, 59))
    assert rows["0,59", "prob"]["outputs"] == run_policy(ranged, "prob", 10, estimator="online").outputs
    assert rows["0,59", "prob"]["opt"] == solve_opt(ranged, 10).outputs
    assert rows["", "prob"]["opt"] == solve_opt(wl, 10).outputs
    assert rows["0,59", "hazard"]["range"] == "0,59" and "range" not in rows["", "hazard"]
    # group "": HAZARD's default, named in the rows: auto-history under the one-sided range, none on the window
    assert rows["0,59", "hazard"]["outputs"] == run_policy(ranged, "hazard", 10, estimator="online",
                                                           group="auto-history").outputs
    assert rows["0,59", "hazard"]["group"] == "auto-history" == rows["0,59", "prob"]["group"]
    assert rows["", "hazard"]["group"] == ""


def test_a_group_may_combine_payload_columns(tmp_path):
    """group = "dest,carrier": each destination and carrier together gets its own age curve; the
    runs carry the list as run_policy takes it."""
    import tomllib

    from shedding.studies.beyond.spec import parse_beyond_suite

    text = one_experiment("flights", "group = ['dest,carrier', 'origin', '', 'auto']\n").replace("length = 300\n", "")
    suite = parse_beyond_suite(tomllib.loads(text), "s.toml")
    assert sorted({r.group for r in suite.runs()}) == ["", "auto", "dest,carrier", "origin"]


def test_the_keys_history_is_a_group_of_any_generator():
    """group = "history" needs no payload (the drift generator has none), and combines with the
    flights' columns."""
    import tomllib

    from shedding.studies.beyond.spec import parse_beyond_suite

    suite = parse_beyond_suite(tomllib.loads(one_experiment("drift", "group = ['history', '']\n")), "s.toml")
    assert sorted({r.group for r in suite.runs()}) == ["", "history"]
    text = one_experiment("flights", "group = ['dest,history']\n").replace("length = 300\n", "")
    assert {r.group for r in parse_beyond_suite(tomllib.loads(text), "s.toml").runs()} == {"dest,history"}
