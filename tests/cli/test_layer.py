"""The validation layer itself: a library error names the command's flag for its parameter (or
stays as it is), a flag counts as given even at its default value, and every refusal comes before
the command's body runs."""

from __future__ import annotations

import pytest

import shedding.datasets
from shedding.errors import ShedError

from helpers import assert_error_line


@pytest.mark.parametrize("param, flag", [("skew", "--zipf-skew"), ("seed", "--seed"), ("domain", "--domain")])
def test_a_library_error_names_the_flag_of_its_parameter(shed, monkeypatch, param, flag):
    def refuse(*args, **kwargs):
        raise ShedError("{param} is refused here; give another", param=param)

    monkeypatch.setattr(shedding.datasets, "zipf_workload", refuse)
    assert_error_line(shed("simulate", "--length", "10"), f"error: {flag} is refused here; give another")


def test_an_unknown_parameter_keeps_the_library_name(shed, monkeypatch):
    def refuse(*args, **kwargs):
        raise ShedError("{param} is refused here", param="nothing_the_cli_sets")

    monkeypatch.setattr(shedding.datasets, "zipf_workload", refuse)
    assert_error_line(shed("simulate", "--length", "10"), "error: nothing_the_cli_sets is refused here")


def test_a_fix_another_parameter_gives_is_that_commands_flag_or_the_library_name(shed, monkeypatch):
    """A fix through another parameter or function (``{bounds}``) reads as the command's flag for
    it, as another command's flag where this one has none, and as the library's name in Python."""
    from shedding.offline.opt import check_size

    wl = shedding.datasets.zipf_workload(1.0, 20, 2_000, seed=0, window=200)
    with pytest.raises(ShedError) as exc:
        check_size(wl, max_graph_bytes=1)
    assert str(exc.value).endswith("or bound OPT with bound_opt") and "{" not in str(exc.value)
    tiny = ("--length", "2000", "--window", "200", "--memory", "50", "--max-graph-gib", "0.000001")
    assert_error_line(shed("opt", *tiny), "raise it with --max-graph-gib, shorten the workload, or bound OPT with "
                      "--bounds")
    assert_error_line(shed("simulate", "--policy", "opt", *tiny), "or bound OPT with shed opt --bounds")
    error = ShedError("{param} is refused; try {other}", param="domain", names={"other": "other_function"})
    assert str(error) == "domain is refused; try other_function"
    assert error.naming("--domain", {"other": "--other"}) == "--domain is refused; try --other"


def test_ctrl_c_says_interrupted_and_exits_130(shed, monkeypatch):
    """Ctrl-C in a command: one line and the shell's code for SIGINT (it exited 130 silently, as
    typer returns the code without standalone mode)."""
    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(shedding.datasets, "zipf_workload", interrupt)
    code, out, err = shed("simulate", "--length", "10")
    assert code == 130 and err.strip() == "interrupted" and not out


def test_the_library_says_how_to_run_the_references():
    from shedding import simulate

    wl = shedding.datasets.zipf_workload(1.0, 10, 100, seed=0, window=10)
    for name, how in (("opt", "solve_opt"), ("OPTV", "allocation=")):
        with pytest.raises(ShedError) as exc:
            simulate(wl, name, 5)
        assert "is not an online policy: run it with run_policy" in str(exc.value) and how in str(exc.value)


def test_an_error_about_a_file_names_its_flag(shed, tmp_path):
    both = tmp_path / "both.csv"
    both.write_text("stream,time,key\nR,0,1\nS,0,1\n")
    assert_error_line(shed("simulate", "--r", str(tmp_path / "r.csv"), "--s", str(both), "--window", "3"), "--r")
    (tmp_path / "r.csv").write_text("time,key\n0,1\n")
    assert_error_line(shed("simulate", "--r", str(tmp_path / "r.csv"), "--s", str(both), "--window", "3"),
                      f"--s {both} has a 'stream' column")


def test_a_flag_at_its_default_value_counts_as_given(shed, tmp_path):
    path = tmp_path / "w.csv"
    path.write_text("stream,time,key\nR,0,1\nS,0,1\n")
    assert_error_line(shed("simulate", "--workload", str(path), "--zipf-skew", "1.0"),
                      "--zipf-skew applies to the generated workloads (--generator), not to --workload")
    code, _, err = shed("simulate", "--workload", str(path), "--window", "3", "--policy", "exact", "--json")
    assert code == 0, err


def test_refusals_come_before_the_body(shed, monkeypatch):
    """The rules run before the command reads or generates any data."""
    def fail(*args, **kwargs):
        raise AssertionError("the workload was built before the flags were checked")

    monkeypatch.setattr(shedding.datasets, "zipf_workload", fail)
    assert_error_line(shed("simulate", "--policy", "probv", "--memory-split", "1,1", "--memory", "2"),
                      "--memory-split")
    assert_error_line(shed("opt", "--bounds", "--solver", "ortools"), "--solver")
