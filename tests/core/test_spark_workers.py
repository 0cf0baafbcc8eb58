"""The launcher Spark starts its Python processes with on embedded sessions (shedding.spark.workers)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pyspark
import pytest

from shedding.spark import workers as spark_python
from shedding.spark.workers import bundled_zip, worker_python

PACKAGE = Path(pyspark.__file__).resolve().parent
ZIP = PACKAGE / "python" / "lib" / "pyspark.zip"

needs_zip = pytest.mark.skipif(not ZIP.is_file() or os.name != "posix",
                               reason="pyspark has no bundled pyspark.zip here, or no POSIX shell")


def _run(python: str, pythonpath: str, code: str, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "SPARK_HOME"} | {"PYTHONPATH": pythonpath}
    return subprocess.run([python, "-c", code, *args], env=env, capture_output=True, text=True, timeout=60)


@needs_zip
def test_the_launcher_imports_the_installed_pyspark_not_the_zip(tmp_path: Path) -> None:
    other = tmp_path / "extra"
    other.mkdir()
    (other / "shed_probe_module.py").write_text("VALUE = 7\n")
    code = ("import sys, pyspark, shed_probe_module; print(pyspark.__file__); print(sys.executable); "
            "print(shed_probe_module.VALUE); print(sys.argv[1:]); sys.exit(3)")
    path = f"{ZIP}:{other}"
    plain = _run(sys.executable, path, code)
    assert plain.stdout.splitlines()[0].startswith(str(ZIP))  # what Spark's own PYTHONPATH does
    launched = _run(worker_python(tmp_path / "cache"), path, code, "a b", "-m")
    lines = launched.stdout.splitlines()
    assert launched.returncode == 3, launched.stderr
    assert Path(lines[0]).resolve() == PACKAGE / "__init__.py"
    assert lines[1] == sys.executable
    assert lines[2] == "7"  # the rest of PYTHONPATH is kept
    assert lines[3] == "['a b', '-m']"  # arguments pass through unchanged


@needs_zip
def test_the_launcher_is_rewritten_only_when_its_text_changes(tmp_path: Path) -> None:
    first = Path(worker_python(tmp_path))
    stamp = first.stat().st_mtime_ns
    assert Path(worker_python(tmp_path)).stat().st_mtime_ns == stamp
    first.write_text("#!/bin/sh\nexit 1\n")
    assert "exec" in Path(worker_python(tmp_path)).read_text()
    assert os.access(first, os.X_OK)


@needs_zip
def test_other_interpreters_get_their_own_launcher(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    python, mine = sys.executable, worker_python(tmp_path)
    monkeypatch.setattr(sys, "executable", "/elsewhere/bin/python3")
    theirs = worker_python(tmp_path)
    assert theirs != mine
    assert "/elsewhere/bin/python3" in Path(theirs).read_text()
    assert python not in Path(theirs).read_text() and python in Path(mine).read_text()


def test_a_separate_spark_distribution_keeps_its_zip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPARK_HOME", str(tmp_path))
    assert bundled_zip() is None
    assert worker_python(tmp_path / "cache") == sys.executable
    assert not (tmp_path / "cache").exists()


def test_no_bundled_zip_means_the_plain_interpreter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spark_python, "bundled_zip", lambda: None)
    assert worker_python(tmp_path) == sys.executable


def test_a_worker_python_without_this_package_is_named_in_one_line(tmp_path):
    from types import SimpleNamespace

    from shedding.errors import ShedError
    from shedding.spark.workers import check_worker_python

    bare = tmp_path / "python"
    bare.write_text("#!/bin/sh\nexit 1\n")  # an interpreter that cannot import shedding
    bare.chmod(0o755)
    with pytest.raises(ShedError) as exc:
        check_worker_python(SimpleNamespace(sparkContext=SimpleNamespace(pythonExec=str(bare))))
    assert "PYSPARK_PYTHON" in str(exc.value) and str(bare) in str(exc.value) and "\n" not in str(exc.value)
    check_worker_python(SimpleNamespace(sparkContext=SimpleNamespace(pythonExec=sys.executable)))  # this one has it


def test_pyspark_python_naming_this_interpreter_becomes_the_launcher(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Spark starts its driver-side Python processes with the environment's PYSPARK_PYTHON: one set
    to this interpreter (as the streaming docs advise) gets the launcher; another interpreter, even
    one with the same binary in another folder (a venv's base), is kept."""
    launcher = str(tmp_path / "launcher")
    monkeypatch.setenv("PYSPARK_PYTHON", sys.executable)  # so that the undo restores the variable even when unset
    for given in (None, sys.executable, os.path.join(os.path.dirname(sys.executable), ".", os.path.basename(sys.executable))):
        if given is None:
            monkeypatch.delenv("PYSPARK_PYTHON", raising=False)
        else:
            monkeypatch.setenv("PYSPARK_PYTHON", given)
        spark_python.launcher_for_env(launcher)
        assert os.environ["PYSPARK_PYTHON"] == launcher, given
    other_folder = tmp_path / "bin"
    other_folder.mkdir()
    (other_folder / "python").symlink_to(os.path.realpath(sys.executable))  # the same binary, another environment
    for given in (str(other_folder / "python"), "/nonexistent/python3"):
        monkeypatch.setenv("PYSPARK_PYTHON", given)
        spark_python.launcher_for_env(launcher)
        assert os.environ["PYSPARK_PYTHON"] == given
