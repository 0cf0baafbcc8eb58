"""The workload-source registry (``shedding.datasets.generators.GENERATORS``) is the one list of
generated workloads: the command line, the DGR suites and the beyond-i.i.d. study offer exactly
its entries, and no module outside the datasets names a workload to decide what it can do."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from shedding.datasets.generators import GENERATORS, Source, generate, own_params, read, with_payload
from shedding.errors import ShedError
from shedding.studies.registry import load_suite

ROOT = Path(__file__).resolve().parents[2]


def test_every_source_is_offered_everywhere():
    from shedding.cli.workload import GENERATORS as CLI
    from shedding.studies.beyond.spec import PARAM_FIELDS
    from shedding.studies.dgr.spec import DATASETS

    assert tuple(CLI()) == tuple(GENERATORS)
    assert set(GENERATORS) <= set(DATASETS)
    assert all(set(own_params(name)) <= set(PARAM_FIELDS) | {"length", "window"} for name in GENERATORS)


def test_entries_say_what_they_are():
    assert all(isinstance(s, Source) and s.name == n and s.summary for n, s in GENERATORS.items())
    assert all(s.estimator in ("static", "online") and s.bound in (None, "iid", "age") for s in GENERATORS.values())
    assert read() == ("flights",) and with_payload() == ("flights",)
    from shedding.datasets.flights import PAYLOAD

    assert GENERATORS["flights"].payload_columns() == PAYLOAD
    assert GENERATORS["zipf"].payload_columns() == ()


def _dgr_suite(tmp_path: Path, dataset: str, extra: str = "", skew: float = 1.0) -> str:
    path = tmp_path / "s.toml"
    path.write_text(f"[[experiment]]\nid = 'a'\ndataset = '{dataset}'\npolicies = ['prob']\nskew = {skew}\n"
                    f"domain = 20\nlength = 400\nwindow = 30\nmemory = 10\n{extra}")
    return str(path)


@pytest.mark.parametrize("name", ["drift", "bursts"])
def test_a_generator_reaches_a_dgr_suite(tmp_path, name):
    """A generator of the registry is a DGR dataset: its runs draw the generator's workload from the
    suite's skew, domain, length and correlation."""
    from shedding.studies.dgr.execute import workload_of

    _, suite = load_suite(_dgr_suite(tmp_path, name))
    run = suite.runs(seeds=1)[0]
    wl = workload_of(run)
    want = generate(name, {"skew": 1.0, "domain": 20, "correlation": "independent"}, window=30, warmup=60,
                    length=400, seed=0)
    assert wl.meta["generator"] == name
    assert np.array_equal(wl.key, want.key) and np.array_equal(wl.time, want.time)


def test_zipf_in_a_dgr_suite_is_the_paper_s_streams(tmp_path):
    from shedding.datasets import zipf_workload
    from shedding.studies.dgr.execute import workload_of

    _, suite = load_suite(_dgr_suite(tmp_path, "zipf", "skew_s = 0.5\ncorrelation = 'same'\n"))
    wl = workload_of(suite.runs(seeds=1)[0])
    want = zipf_workload(1.0, 20, 400, 0, "same", 30, 60, skew_s=0.5)
    assert np.array_equal(wl.key, want.key) and np.array_equal(wl.side, want.side)


def test_a_generator_s_bad_parameters_are_refused_when_the_dgr_suite_is_read(tmp_path):
    with pytest.raises(ShedError, match="experiment 'a': dataset bursts: skew must be a number >= 0, got -1.0$"):
        load_suite(_dgr_suite(tmp_path, "bursts", skew=-1.0))


def test_no_workload_is_special_cased_by_name():
    """Outside the datasets package, no module compares a workload's name with ``"flights"``: the
    registry's capabilities say what a workload carries and how it is made."""
    found = [f"{p.relative_to(ROOT)}:{i}" for p in sorted((ROOT / "shedding").rglob("*.py"))
             if p.parent.name != "datasets"
             for i, line in enumerate(p.read_text().splitlines(), 1) if re.search(r"""["']flights["']""", line)]
    assert not found, found
