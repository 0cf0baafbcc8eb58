"""The documentation: the MkDocs site builds with ``--strict`` (no broken link, no missing page, no
docstring the API pages cannot render), the README stays a short entry point, the pages cite
nothing outside the repository, and every ``shed`` example names a command and flags that exist.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = sorted((ROOT / "docs").rglob("*.md"))
TEXTS = [README, ROOT / "CHANGELOG.md", *PAGES]
#: fenced code blocks of a Markdown page
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # its parent package is missing
        return False


def test_site_builds_strict(tmp_path: Path) -> None:
    missing = [module for module in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python")
               if not _installed(module)]
    if missing:
        pytest.skip(f"the docs packages are not installed ({', '.join(missing)}): pip install -e '.[docs]'")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "site" / "semantics" / "index.html").is_file()
    assert (tmp_path / "site" / "api" / "online" / "index.html").is_file()
    _check_parameter_tables(tmp_path / "site")  # on this build: the site is built once


#: API page -> public entry points whose section must show a parameters table, and a parameter
#: each table must list (the docstrings' Google-style ``Args:``, mkdocs.yml's ``docstring_style``)
PARAMETER_TABLES = {
    "run": {"shedding.run.run_policy": "memory_split", "shedding.run.run_params": "params"},
    "model": {"shedding.model.Memory.of": "split"},
    "online": {"shedding.online.simulator.simulate": "samples", "shedding.online.params.RunParams.of": "band",
               "shedding.online.params.OperatorParams.of": "share_every", "shedding.online.policies.get_policy": "name",
               "shedding.online.policies.require": "family", "shedding.online.policies.names_for": "family",
               "shedding.online.estimators.make_estimator": "decay",
               "shedding.online.estimators.check_estimator": "name", "shedding.online.tuning.HazardTuning.of": "value",
               "shedding.online.tuning.HazardTuning.parse": "text", "shedding.online.bound.online_bound": "variable"},
    "exact": {"shedding.exact.exact_count": "wl"},
    "metrics": {"shedding.metrics.archive_metric": "schedule"},
    "offline": {"shedding.offline.opt.solve_opt": "max_graph_bytes", "shedding.offline.agebound.age_bound": "reveal"},
    "datasets": {"shedding.datasets.zipf.zipf_workload": "skew_s", "shedding.datasets.files.load_workload": "path"},
    "streaming": {"shedding.streaming.spark_join.semantic_window_join": "allowed_lateness"},
    "band": {"shedding.band.simulate.simulate_band": "bins", "shedding.band.exact.BandIndex": "bw",
             "shedding.band.estimator.BandHistogram.layout": "bins"},
    "wjoin": {"shedding.wjoin.loadshed.shed_wjoin": "memory_split", "shedding.wjoin.windows.WindowSpec.uniform": "window",
              "shedding.wjoin.windows.WindowSpec.from_pairs": "pairs", "shedding.wjoin.operator.run": "order"},
    "bestmatch": {"shedding.bestmatch.join.bestmatch": "dominance"},
    "studies": {"shedding.studies.runner.run_study": "resume"},
}


def _check_parameter_tables(site: Path) -> None:
    """Each entry point of :data:`PARAMETER_TABLES` is rendered with a parameters table that
    lists its parameter: the API reference has not fallen back to prose-only docstrings."""
    for page, entries in PARAMETER_TABLES.items():
        html = (site / "api" / page / "index.html").read_text()
        for name, param in entries.items():
            start = html.find(f'id="{name}"')
            assert start >= 0, f"api/{page}: no section for {name}"
            end = html.find('class="doc doc-heading"', html.find(">", start))
            section = html[start:end if end >= 0 else len(html)]
            assert 'doc-section-title">Parameters:' in section, (
                f"api/{page}: {name} has no parameters table; write its docstring's Args: in Google style "
                "(mkdocs.yml's docstring_style is google)")
            assert f"<code>{param}</code>" in section, f"api/{page}: {name}'s parameters table does not list {param}"


def test_readme_is_an_entry_point() -> None:
    lines = README.read_text().splitlines()
    assert len(lines) < 300, f"README.md has {len(lines)} lines; move detail into docs/"
    text = "\n".join(lines)
    for command in ("make demo", "make test"):
        assert command in text


@pytest.mark.parametrize("path", TEXTS, ids=_rel)
def test_no_issue_numbers_or_outside_files(path: Path) -> None:
    text = path.read_text()
    assert not re.search(r"\bissues?\s*#?\s*[0-9]", text, re.I), f"{_rel(path)} cites an issue number"
    assert "DESIGN.md" not in text, f"{_rel(path)} cites DESIGN.md, which is not in the repository"
    for outside in ("../shared", "/work/", "scratch/"):
        assert outside not in text, f"{_rel(path)} names {outside!r}, outside the repository"


def _examples(path: Path) -> list[list[str]]:
    """The ``shed`` command lines of a page's code blocks, continuation lines joined, comments cut."""
    lines = []
    for block in FENCE.findall(path.read_text()):
        joined = re.sub(r"\\\n\s*", " ", block)
        for line in joined.splitlines():
            line = line.strip()
            if line.startswith("$ "):
                line = line[2:]
            if line.startswith("shed "):
                lines.append(shlex.split(line, comments=True))
    return lines


def _flags(command) -> set[str]:
    return {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)} | {"--help"}


@pytest.mark.parametrize("path", [README, *PAGES], ids=_rel)
def test_shed_examples_name_real_commands_and_flags(path: Path) -> None:
    import typer.main

    from shedding.cli import app

    group = typer.main.get_command(app)  # the click group: imports no numpy, pandas or Spark
    for argv in _examples(path):
        if len(argv) == 2 and argv[1].startswith("-"):
            assert argv[1] in _flags(group), f"{_rel(path)}: shed has no option {argv[1]}"
            continue
        assert len(argv) > 1 and argv[1] in group.commands, f"{_rel(path)}: unknown command in {' '.join(argv)}"
        flags = _flags(group.commands[argv[1]])
        for arg in argv[2:]:
            if arg.startswith("-") and not re.fullmatch(r"-\d.*", arg):
                name = arg.split("=", 1)[0]
                assert name in flags, f"{_rel(path)}: shed {argv[1]} has no flag {name} ({' '.join(argv)})"


def test_the_policies_table_is_the_registry() -> None:
    """docs/policies.md shows the registry's table (``python -m shedding.online.policies`` prints it)."""
    from shedding.online.policies import markdown_table

    text = (ROOT / "docs" / "policies.md").read_text()
    block = re.search(r"<!-- registry:policies -->\n(.*?)<!-- /registry:policies -->", text, re.S)
    assert block is not None, "docs/policies.md lost its <!-- registry:policies --> block"
    assert block.group(1) == markdown_table(), ("docs/policies.md's table is not the registry's; paste the output of "
                                                "python -m shedding.online.policies between its markers")


@pytest.mark.parametrize("page", ["index.md", "semantics.md"])
def test_pages_listing_policies_name_every_one(page: str) -> None:
    """The pages that list the policies in prose name every family of the registry."""
    from shedding.online.policies import POLICIES

    text = (ROOT / "docs" / page).read_text()
    missing = [p.family.upper() for p in POLICIES.values() if not p.replay and p.family.upper() not in text]
    assert not missing, f"docs/{page} does not name {', '.join(dict.fromkeys(missing))}"


def test_the_shipped_suites_table_lists_every_suite() -> None:
    """docs/commands/compare.md's table of shipped suites has one row per suite of the registry
    (``shedding.studies.suite.SHIPPED``), which is the suite files that ship."""
    from shedding.studies.suite import SHIPPED

    files = {p.stem for p in (ROOT / "shedding" / "studies" / "suite_files").glob("*.toml")}
    assert set(SHIPPED) == files
    text = (ROOT / "docs" / "commands" / "compare.md").read_text()
    table = text.split("## The shipped suites", 1)[1].split("\n## ", 1)[0]
    listed = {name for row in table.splitlines() if row.startswith("| `")
              for name in re.findall(r"`([a-z-]+)`", row.split("|")[1])}
    assert listed == set(SHIPPED), f"docs/commands/compare.md lists {sorted(listed)}, the registry {sorted(SHIPPED)}"


def test_the_workloads_table_names_every_generator_and_its_parameters() -> None:
    """docs/studies/beyond.md's table of workloads has a row per generator of the workload registry
    beyond the paper's Zipf streams, naming each of its own parameters and its function."""
    from shedding.datasets.generators import GENERATORS, own_params

    text = (ROOT / "docs" / "studies" / "beyond.md").read_text()
    rows = {m.group(1): m.group(0) for m in re.finditer(r"^\| `([a-z]+)` \|.*$", text, re.M)}
    for name, source in GENERATORS.items():
        if name == "zipf":  # the paper's streams: docs/studies/paper.md and shed simulate's flags
            continue
        assert name in rows, f"docs/studies/beyond.md has no row for the {name} generator"
        missing = [p for p in own_params(name) if f"`{p}`" not in rows[name]]
        assert not missing, f"docs/studies/beyond.md's {name} row does not name {', '.join(missing)}"
        assert f"{source.module}.{source.function}" in rows[name]
