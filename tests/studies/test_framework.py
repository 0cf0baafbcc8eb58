"""The study framework without a study: the verdict rule, the results store (parts, resume,
damaged files), the runner on a fake study, and which study a stored suite belongs to."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pandas as pd
import pytest

from shedding.errors import ShedError
from shedding.studies.page.verdicts import Check, Verdict, verdict_word
from shedding.studies.registry import stored_study
from shedding.studies.runner import run_study
from shedding.studies.store import ResultsStore
from shedding.studies.study import Plan, Study
from shedding.studies.suite import Run, SuiteBase


# "b": a failure inside the seed range (at most half of the seeds miss the criterion); "u": not decidable
@pytest.mark.parametrize("oks, word", [
    ((), "not checked"), ((None, None), "not checked"), ((True, None), "agrees"), ((True, True), "agrees"),
    ((True, True, False), "partly agrees"),  # more than half pass
    ((True, False), "disagrees"), ((False, None, True), "disagrees"),  # half is not more than half
    ((True, False, False, False), "disagrees"),  # never partly on one check in four
    ((True, True, False, False), "disagrees"),
    ((True, "b"), "partly agrees"), ((True, "b", "b", "b"), "partly agrees"),  # every failure inside the seed range
    ((True, "b", "b", False), "disagrees"),  # one failure outside it
    ((True, True, "b", False), "disagrees"),
    (("b", "b"), "disagrees"),  # nothing passed
    ((False, False, None), "disagrees"),
    (("u",), "not decidable at this scale"), ((True, "u"), "not decidable at this scale"),
    ((True, True, "u"), "not decidable at this scale"),  # agrees if it passes, partly agrees if it fails
    ((True, True, True, "u"), "not decidable at this scale"),
    ((False, False, "u"), "disagrees"),  # disagrees whichever way it goes
    ((True, False, False, False, "u"), "disagrees"),
    (("u", None), "not decidable at this scale"),
])
def test_the_verdict_rule(oks, word):
    checks = tuple(Check(False, f"check {i}", "seed noise", within_seeds=True) if ok == "b" else
                   Check(None, f"check {i}", undecided=True) if ok == "u" else
                   Check(ok, f"check {i}") for i, ok in enumerate(oks))
    assert verdict_word(checks) == Verdict("claim", checks).word == word
    states = {None: "unknown", True: "pass", False: "fail", "b": "fail", "u": "undecided"}
    assert [c.state for c in checks] == [states[ok] for ok in oks]


def test_the_rule_is_stated_and_a_failure_inside_the_seed_range_says_so():
    from shedding.studies.page.sections import Section, findings_section
    from shedding.studies.page.verdicts import RULE, check_item

    inside = Check(False, "within 10%: 10.6% (seeds 6.1% to 14.0%)", "the online bound", within_seeds=True)
    outside = Check(False, "within 10%: 25.4%", "the online bound")
    assert ("Disagrees inside the seed range (at most half of the seeds miss the criterion); likely cause: the online "
            "bound") in check_item(inside)
    assert "Not decidable at this scale" in check_item(Check(None, "timed", undecided=True))
    assert "Disagrees; likely cause: the online bound" in check_item(outside) and "seed range" not in check_item(outside)
    assert "likely cause" not in check_item(Check(True, "fine", "unused"))
    page = findings_section([Section(0, "t", "", [], Verdict("claim", (inside,)), False)])
    assert RULE in page.replace("&#x27;", "'") and "more than half" in RULE and "at most a third of the seeds" in RULE


def test_a_run_with_several_rows_is_read_back_once(tmp_path):
    store = ResultsStore(tmp_path)
    store.write_part([{"run_id": "a", "x": 1}, {"run_id": "a", "x": 2}, {"run_id": "b", "x": 3}])
    store.write_part([{"run_id": "a", "x": 9}, {"run_id": "c", "x": 4}])  # "a" again, as after an interrupted wave
    assert store.read_parts()[["run_id", "x"]].values.tolist() == [["a", 1], ["a", 2], ["b", 3], ["c", 4]]
    assert store.done() == {"a", "b", "c"}


def test_a_part_may_leave_a_column_empty(tmp_path):
    store = ResultsStore(tmp_path)
    store.write_part([{"run_id": "a", "k": None, "x": 1.5}])
    store.write_part([{"run_id": "b", "k": 3, "x": 2.5}])
    frame = store.read_parts()
    assert frame.columns.tolist() == ["run_id", "k", "x"] and frame.k.isna().tolist() == [True, False]


@pytest.mark.parametrize("text", ["{not json", "[]", '{"name": "x"}', '{"run_ids": [], "total_runs": "3"}'])
def test_a_damaged_suite_json_is_one_line(tmp_path, text):
    (tmp_path / "suite.json").write_text(text)
    with pytest.raises(ShedError, match="damaged") as info:
        ResultsStore(tmp_path).read_suite()
    assert "\n" not in str(info.value)


def test_a_stored_suite_names_its_study():
    assert stored_study({"kind": "bestmatch"}).kind == "bestmatch"
    # stored before suites named their kind: told apart by their figures
    assert stored_study({"experiments": [{"figure": "service"}, {"figure": "shedding"}]}).kind == "wjoin"
    assert stored_study({"experiments": [{"figure": "memory"}]}).kind == "dgr"
    with pytest.raises(ShedError, match="unknown kind 'mars'"):
        stored_study({"kind": "mars"})


@dataclass(frozen=True)
class Step(Run):
    value: int


def fake_study(fail_at: int | None = None) -> Study:
    """A study of ``n`` runs in this process, each row its value squared; run ``fail_at`` fails."""
    def task(spec: dict, shared: None) -> list[dict]:
        if spec["value"] == fail_at:
            raise ShedError("this run fails")
        return [{"run_id": Step(**spec).run_id, "value": spec["value"], "square": spec["value"] ** 2}]

    def plan(suite: SuiteBase, seeds: int | None = None) -> Plan:
        runs = [Step(suite.name, "e", v) for v in range(seeds or suite.seeds)]
        return Plan(suite, seeds or suite.seeds, runs, task, batch=lambda s: s.value // 2, label=str)

    return Study("fake", "fake", lambda data, where: None, plan, lambda *args: args[-1], inputs=("seeds",),
                 spark=False, sort=("value",))


def test_the_runner_keeps_parts_resumes_and_counts_what_it_ran(tmp_path):
    suite = SuiteBase("steps", "a fake suite", (), seeds=5)
    first = run_study(fake_study(), suite, tmp_path / "out", seeds=3)
    assert first.complete and first.ran == 3 and first.results.square.tolist() == [0, 1, 4]
    assert len(list((tmp_path / "out" / "parts").iterdir())) == 2  # batches {0, 1} and {2}
    with pytest.raises(ShedError, match="already holds results"):
        run_study(fake_study(), suite, tmp_path / "out")
    more = run_study(fake_study(), suite, tmp_path / "out", resume=True)
    assert more.complete and more.ran == 2 and more.results.value.tolist() == [0, 1, 2, 3, 4]
    stored = json.loads((tmp_path / "out" / "suite.json").read_text())
    assert stored["kind"] == "fake" and stored["total_runs"] == 5 and len(stored["provenance"]["load_after"]) == 3
    assert pd.read_csv(tmp_path / "out" / "results.csv").value.tolist() == [0, 1, 2, 3, 4]


def test_the_provenance_names_the_machine_the_folders_and_the_times(tmp_path, monkeypatch):
    from shedding.studies.page.page import provenance_facts, seeds_fact

    monkeypatch.chdir(tmp_path)
    run_study(fake_study(), SuiteBase("steps", "a fake suite", (), seeds=2), "out", command="shed compare x")
    stored = json.loads((tmp_path / "out" / "suite.json").read_text())
    info = stored["provenance"]
    assert info["working_folder"] == str(tmp_path) and info["out"] == str(tmp_path / "out")  # a relative --out
    assert info["cpu"] and info["cores"] >= 1 and info["memory_gib"] > 0
    assert info["started"].endswith("UTC") and info["finished"] >= info["started"]
    facts = provenance_facts(info)
    assert facts["Machine"].startswith(info["cpu"]) and f"{info['cores']} cores" in facts["Machine"]
    assert facts["Command"] == "shed compare x" and facts["Results folder"] == str(tmp_path / "out")
    assert stored["seeds_by_experiment"] == {}  # the fake plan's runs have no seed
    assert seeds_fact({"seeds": 3, "seeds_by_experiment": {"fig9a": 3, "shedding": 1}}) == "3 (shedding: 1)"
    assert seeds_fact({"seeds": 3, "seeds_by_experiment": {"fig9a": 3}}) == "3"


def test_a_failure_before_any_run_is_stored_leaves_no_folder(tmp_path):
    suite = SuiteBase("steps", "a fake suite", (), seeds=4)
    with pytest.raises(ShedError, match="this run fails"):
        run_study(fake_study(fail_at=0), suite, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    with pytest.raises(ShedError, match="this run fails"):
        run_study(fake_study(fail_at=3), suite, tmp_path / "out")
    assert ResultsStore(tmp_path / "out").done() == {Step("steps", "e", v).run_id for v in (0, 1)}


def test_inputs_a_study_does_not_take_are_refused(tmp_path):
    with pytest.raises(ShedError, match="cell_size do not apply to the fake suite steps"):
        run_study(fake_study(), SuiteBase("steps", "", ()), tmp_path / "out", cell_size=1.0)
    assert not (tmp_path / "out").exists()


def _cut_short(path) -> None:
    """Leave ``path`` as a crash in the middle of writing it would have (its first bytes only)."""
    path.write_bytes(path.read_bytes()[:40])


def test_a_part_cut_short_is_set_aside_on_resume_and_its_runs_run_again(tmp_path):
    import io

    from rich.console import Console

    suite = SuiteBase("steps", "a fake suite", (), seeds=5)
    run_study(fake_study(), suite, tmp_path / "out")  # batches {0, 1}, {2, 3}, {4}
    parts = ResultsStore(tmp_path / "out").part_paths()
    assert len(parts) == 3
    _cut_short(parts[1])
    with pytest.raises(ShedError, match="already holds results"):  # without resume: refused, nothing touched
        run_study(fake_study(), suite, tmp_path / "out")
    said = io.StringIO()
    again = run_study(fake_study(), suite, tmp_path / "out", resume=True, console=Console(file=said, width=300))
    assert again.complete and again.ran == 2 and sorted(again.results.value) == [0, 1, 2, 3, 4]
    lines = [line for line in said.getvalue().splitlines() if line.startswith("warning:")]
    assert len(lines) == 1 and str(parts[1]) in lines[0] and "run again" in lines[0]
    assert parts[1].with_name(parts[1].name + ".damaged").is_file()


def test_a_resumed_suite_never_writes_over_a_stored_part(tmp_path):
    """Parts are not numbered by counting files: with a part gone, the next one takes a new name."""
    store = ResultsStore(tmp_path)
    first, second = store.write_part([{"run_id": "a", "x": 1}]), store.write_part([{"run_id": "b", "x": 2}])
    first.unlink()
    third = store.write_part([{"run_id": "c", "x": 3}])
    assert third != second and second.is_file()
    assert store.read_parts()[["run_id", "x"]].values.tolist() == [["b", 2], ["c", 3]]
    assert all(p.name.startswith("part-") for p in tmp_path.joinpath("parts").iterdir())  # no temporary file left


def test_a_damaged_part_is_one_line_naming_the_file(tmp_path):
    store = ResultsStore(tmp_path)
    part = store.write_part([{"run_id": "a", "x": 1}])
    _cut_short(part)
    with pytest.raises(ShedError, match="damaged") as info:
        store.read_parts()
    assert str(part) in str(info.value) and "\n" not in str(info.value)


def test_shed_report_names_a_damaged_part(tmp_path):
    from helpers import assert_error_line, run_shed

    run_study(fake_study(), SuiteBase("steps", "a fake suite", (), seeds=2), tmp_path / "out")
    suite = json.loads((tmp_path / "out" / "suite.json").read_text())
    (tmp_path / "out" / "suite.json").write_text(json.dumps({**suite, "kind": "bestmatch"}))  # a kind shed knows
    part = ResultsStore(tmp_path / "out").part_paths()[0]
    _cut_short(part)
    assert_error_line(run_shed("report", tmp_path / "out"), part.name)


def test_a_write_that_fails_leaves_the_file_as_it_was(tmp_path):
    from shedding.atomic import write_atomically, write_text

    target = write_text(tmp_path / "suite.json", "old")

    def crash(tmp):
        tmp.write_text("half of the ne")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_atomically(target, crash)
    assert target.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["suite.json"]
    write_atomically(tmp_path / "t.csv.gz", lambda tmp: pd.DataFrame({"a": [1]}).to_csv(tmp, index=False))
    assert pd.read_csv(tmp_path / "t.csv.gz").a.tolist() == [1]  # the format from the target's own name
