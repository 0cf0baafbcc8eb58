"""Suite files: the shipped suites expand as the paper's grids, each names its study by its kind; bad
files are one-line errors."""

from __future__ import annotations

import pytest

from shedding import ShedError
from shedding.studies.registry import load_suite as load
from shedding.studies.suite import SHIPPED


def load_suite(name_or_path: str):
    """A DGR suite by name or path."""
    study, suite = load(name_or_path)
    assert study.kind == "dgr"
    return suite


def test_paper_suite_has_the_paper_settings():
    suite = load_suite("paper")
    runs = suite.runs()
    fig3 = [r for r in runs if r.experiment == "fig3"]
    assert {r.memory for r in fig3} == {40, 100, 200, 400, 600}
    assert {r.window for r in fig3} == {400} and {r.warmup for r in fig3} == {800}
    assert {r.length for r in runs} == {5600}
    assert {r.window for r in runs if r.experiment == "fig4"} == {800}
    assert {r.skew for r in runs if r.experiment == "fig5"} == {0.0}
    fig6 = [r for r in runs if r.experiment == "fig6"]
    assert {r.correlation for r in fig6} == {"independent", "same"} and {r.memory for r in fig6} == {400}
    assert {r.domain for r in runs if r.experiment == "fig9"} == {10, 50, 200}
    assert any(r.policy == "optv" and r.share for r in runs)


@pytest.mark.parametrize("name", ["paper", "quick"])
def test_the_dgr_suites_run_what_their_checks_need(name):
    # the runs behind the checks of the whole claim and their causes: Figure 5 with the online
    # estimator, LIFE's other readings beside LIFE, the share at two pairs of skews with the fixed
    # splits beside the variable ones, and the uncorrelated and correlated streams of Figure 6
    suite = load_suite(name)
    runs = suite.runs(1)
    of = {e.id: e for e in suite.experiments}
    assert {r.estimator for r in runs if r.experiment == "fig5" and r.policy in ("prob", "life")} == {"online"}
    assert {r.estimator for r in runs if r.experiment == "fig3" and r.policy == "prob"} == {"static"}
    assert {"life", "life-own", "life-flat"} <= {r.policy for r in runs if r.experiment == "fig3"}
    share = [r for r in runs if r.experiment == "share"]
    assert {r.skew_s for r in share} == {0.5, 1.0} and {r.policy for r in share} == {"prob", "probv", "opt", "optv"}
    assert {r.correlation for r in runs if r.experiment == "fig6"} == {"independent", "same"}
    assert not [e for e in of.values() if e.like and e.like not in of]
    if name == "paper":
        assert of["fig4"].like == "fig3"


def test_paper_suite_runs_five_seeds_by_default():
    paper, quick = load_suite("paper"), load_suite("quick")
    assert paper.seeds == 5 and quick.seeds == 1
    assert {r.seed for r in paper.runs()} == set(range(5)) and len(paper.runs()) == 5 * len(paper.runs(1))
    assert paper.with_cell_size(1.0).seeds == 5


def test_an_experiment_runs_its_own_seeds_unless_the_command_says_otherwise():
    suite = load_suite("quick")
    seeds = {}
    for r in suite.runs():
        seeds.setdefault(r.experiment, set()).add(r.seed)
    assert seeds["variable"] == seeds["share"] == {0, 1, 2} and seeds["fig3"] == {0}  # the variable split on 3
    assert {r.seed for r in suite.runs(2)} == {0, 1}  # --seeds overrides every experiment's


def test_seeds_multiply_runs_and_ids_are_stable():
    suite = load_suite("quick")
    one, three = suite.runs(1), suite.runs(3)
    assert len(three) == 3 * len(one)
    assert len({r.run_id for r in three}) == len(three)
    assert [r.run_id for r in suite.runs(1)] == [r.run_id for r in one]


@pytest.mark.parametrize("text, needle", [
    ("not toml [", "not valid TOML"),
    ("name = 'x'\n", "no .* tables"),
    ("[[experiment]]\nid = 'a'\npolicies = ['prob', 'best']\nskew = 1.0\ndomain = 5\nlength = 10\nwindow = 3\n",
     "unknown policy 'best'"),
    ("[[experiment]]\nid = 'a'\ndataset = 'mars'\npolicies = ['prob']\nskew = 1.0\ndomain = 5\nlength = 10\nwindow = 3\n",
     "known dataset"),
    ("[[experiment]]\nid = 'a'\npolicies = ['prob']\nskew = 1.0\ndomain = 5\nlength = 10\n", "needs window"),
    ("[[experiment]]\nid = 'a'\npolicies = ['prob']\nskew = 1.0\ndomain = 5\nlength = 10\nwindow = 0\n", "window = 0"),
    ("[[experiment]]\nid = 'a'\nwindows = 3\npolicies = ['prob']\n", "unknown field"),
    ("window = 3\n[[experiment]]\nid = 'a'\npolicies = ['prob']\n", "unknown top-level key.* window"),
    ("seeds = 0\n[[experiment]]\nid = 'a'\npolicies = ['prob']\nskew = 1.0\ndomain = 5\nlength = 10\nwindow = 3\n",
     "seeds = 0 is not an integer >= 1"),
    ("[[experiment]]\nid = 'a'\nseeds = 0\npolicies = ['prob']\nskew = 1.0\ndomain = 5\nlength = 10\nwindow = 3\n",
     "seeds = 0 is not an integer >= 1"),
    ("[[experiment]]\nid = 'a'\ny = 'ratio_opt'\npolicies = ['prob']\nskew = 1.0\ndomain = 5\nlength = 10\nwindow = 3\n",
     "needs opt"),
    ("[[experiment]]\nid = 'a'\npolicies = ['prob', 'PROB']\nskew = 1.0\ndomain = 5\nlength = 10\nwindow = 3\n",
     "policies names 'prob' twice"),  # was run twice, stored twice, and the report never complete
    ("[[experiment]]\nid = 'a'\npolicies = ['prob']\nskew = []\ndomain = 5\nlength = 10\nwindow = 3\n",
     r"skew = \[\] gives no runs"),  # was "all 0 runs finished"
    ("[[experiment]]\nid = 'a'\nclaim = ['c']\npolicies = ['prob']\nskew = 1.0\ndomain = 5\nlength = 10\nwindow = 3\n",
     r"claim = \['c'\] is not text"),  # was printed on the page as "['c']"
    ("kind = 'wjoin'\n[[experiment]]\nid = 'a'\nfigure = 'path'\ntitle = 3\n", "title = 3 is not text"),
    ("description = ['a', 'b']\n[[experiment]]\nid = 'a'\npolicies = ['prob']\nskew = 1.0\ndomain = 5\nlength = 10\n"
     "window = 3\n", r"description = \['a', 'b'\] is not text"),
    ("name = 7\n[[experiment]]\nid = 'a'\npolicies = ['prob']\nskew = 1.0\ndomain = 5\nlength = 10\nwindow = 3\n",
     "name = 7 is not text"),
    ("[[experiment]]\nid = 'a'\nfigure = 'share'\npolicies = ['prob', 'rand']\nskew = 1.0\ndomain = 5\nlength = 10\n"
     "window = 3\n", "figure = 'share' plots how a variable split divides memory"),  # plotted nothing, "runs missing"
])
def test_bad_suite_files(tmp_path, text, needle):
    path = tmp_path / "suite.toml"
    path.write_text(text)
    with pytest.raises(ShedError, match=needle) as info:
        load_suite(str(path))
    assert "\n" not in str(info.value)


def test_unknown_suite_name():
    with pytest.raises(ShedError, match="unknown suite"):
        load_suite("nonexistent-suite")


def test_every_shipped_suite_names_its_study_by_its_kind():
    kinds = {name: load(name)[0].kind for name in SHIPPED}
    assert kinds == {"quick": "dgr", "paper": "dgr", "weather-sample": "dgr", "weather": "dgr", "policies": "dgr",
                     "wjoin": "wjoin", "wjoin-full": "wjoin", "bestmatch": "bestmatch", "beyond-iid": "beyond",
                     "beyond-iid-quick": "beyond"}


def test_kind_is_read_from_the_file(tmp_path):
    body = "[[experiment]]\nid = 'a'\npolicies = ['prob']\nskew = 1.0\ndomain = 5\nlength = 10\nwindow = 3\n"
    path = tmp_path / "suite.toml"
    path.write_text("kind = 'dgr'\n" + body)
    assert len(load_suite(str(path)).runs()) == 1
    path.write_text("kind = 'mars'\n" + body)
    with pytest.raises(ShedError, match="unknown kind 'mars'; choose from dgr, wjoin, bestmatch, beyond") as info:
        load(str(path))
    assert "\n" not in str(info.value)


def test_compare_help_names_every_shipped_suite_and_its_seeds():
    """``shed compare --help`` lists every shipped suite under --suite, and --seeds states the
    default of each suite that takes it ("N for a, b and c; ... 1 for the others")."""
    import re

    from shedding.cli.compare import SEEDS_HELP, SUITE_HELP

    assert set(SHIPPED) <= set(re.findall(r"[a-z][a-z-]*", SUITE_HELP))
    said = {}
    for count, names in re.findall(r"(\d+) for ([^;)]+)", SEEDS_HELP):
        for name in re.split(r", | and ", names):
            said[name] = int(count)
    others = said.pop("the others")
    takes = [name for name in SHIPPED if "seeds" in load(name)[0].inputs]
    assert {name: load(name)[1].seeds for name in takes} == {name: said.get(name, others) for name in takes}
    assert set(said) <= set(takes)
