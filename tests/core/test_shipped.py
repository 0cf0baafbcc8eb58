"""The shipped engines (shedding/jit.py): compiled ahead of time into a copy of the package, as
setup.py does for a wheel, a command then runs without compiling and gives the JIT's output; an edit
below the CLI makes the copy compile again (a stale engine is never loaded)."""

from __future__ import annotations

import json
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from shedding import jit

pytestmark = pytest.mark.slow

COMMAND = ["simulate", "--policy", "prob,lifev,rand", "--window", "20", "--memory", "10", "--length", "400",
           "--json"]


def _shed(root: Path, cache: Path, log: Path) -> list[dict]:
    env = os.environ | {"PYTHONPATH": str(root), "NUMBA_CACHE_DIR": str(cache), "SHEDDING_JIT_LOG": str(log)}
    done = subprocess.run([sys.executable, "-m", "shedding.cli", *COMMAND], env=env, capture_output=True,
                          text=True, timeout=600, cwd=root)
    assert done.returncode == 0, done.stderr
    return [{k: v for k, v in json.loads(line).items() if k != "seconds"} for line in done.stdout.splitlines()]


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the package with shipped engines: the checkout's own, as ``make`` built them
    (``make test`` builds them first) and as a wheel carries them, when they are of this source;
    else the engines of the runs COMMAND needs, compiled into the copy (two minutes)."""
    root = tmp_path_factory.mktemp("site")
    built = jit.shipped_stamp() == jit.source_stamp()
    shutil.copytree(jit.PACKAGE, root / "shedding",
                    ignore=shutil.ignore_patterns("__pycache__", *(() if built else ("_engines",))))
    if not built:
        env = os.environ | {"PYTHONPATH": str(root)}
        subprocess.run([sys.executable, "-m", "shedding.cli.engines", str(root / "shedding" / "_engines"), "--only",
                        "equi-static", "--jobs", "1"], env=env, cwd=root, check=True, capture_output=True, timeout=900)
    assert (root / "shedding" / "_engines" / jit.STAMP).read_text().strip() == jit.source_stamp()
    return root


def test_a_command_runs_on_the_shipped_engines_without_compiling(copy: Path, tmp_path: Path) -> None:
    log = tmp_path / "compiled.txt"
    shipped = _shed(copy, tmp_path / "cache", log)
    assert not log.exists(), log.read_text()
    assert not any((tmp_path / "cache").rglob("*.nbc"))  # nothing compiled into the user's cache either
    plain = tmp_path / "plain"  # the same package without shipped engines: the JIT compiles it
    shutil.copytree(copy / "shedding", plain / "shedding", ignore=shutil.ignore_patterns("_engines", "__pycache__"))
    jitted = _shed(plain, tmp_path / "jit-cache", tmp_path / "jit.txt")
    assert shipped == jitted
    assert (tmp_path / "jit.txt").exists()  # the reference run compiled: the two are independent


def test_the_shipped_engines_are_for_any_cpu_of_the_architecture(copy: Path) -> None:
    engines = copy / "shedding" / "_engines"
    indexes = sorted(engines.rglob("*.nbi"))
    assert indexes and (engines / jit.STAMP).read_text().strip()
    for index in indexes:
        with index.open("rb") as f:
            pickle.load(f)  # numba's version
            _, overloads = pickle.loads(f.read())
        assert {key[1][1:] for key in overloads} == {(jit.SHIPPED_CPU, "")}, index.name


def test_an_edit_below_the_cli_never_loads_a_stale_engine(copy: Path, tmp_path: Path) -> None:
    before = _shed(copy, tmp_path / "cache", tmp_path / "before.txt")
    edited = tmp_path / "site"
    shutil.copytree(copy, edited)
    metrics = edited / "shedding" / "metrics.py"
    metrics.write_text(metrics.read_text() + "\n# an edit\n")
    log = tmp_path / "after.txt"
    assert _shed(edited, tmp_path / "cache2", log) == before
    assert "shedding.online.kernel.process" in log.read_text().split()
