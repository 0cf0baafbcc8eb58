"""The Python that Spark starts its Python processes with, on an embedded (``local``) session.

Spark puts ``$SPARK_HOME/python/lib/pyspark.zip`` first on every Python worker's ``PYTHONPATH``.
With pyspark installed by pip, ``SPARK_HOME`` is the installed ``pyspark`` package itself and the
zip is a second copy of that same package. Python imports modules from a zip without caching their
compiled bytecode, so every Python process Spark starts compiles pyspark again: 0.8-1.0 s on this
machine against 0.13 s for the same imports from the installed package. A long-lived executor
worker pays it once, but ``transformWithStateInPandas`` starts a fresh Python process on the driver
to plan every query's first micro-batch (to learn the processor's state variables), so each
streaming query start paid it (about 0.8 s per query start; docs/benchmarks.md has the stream-join figures).

:func:`worker_python` writes a small launcher that drops exactly that zip from ``PYTHONPATH`` and
runs this interpreter, which then imports the installed pyspark the zip copies. It is used only
where the two are the same package (pip-installed pyspark, ``SPARK_HOME`` unset or pointing at it);
with a separate Spark distribution its zip stays, and the launcher is plain ``sys.executable``.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

from shedding.atomic import write_atomically
from shedding.errors import ShedError

_LAUNCHER = """#!/bin/sh
# Written by shedding.spark.workers: run {python} without pyspark.zip, a copy of the installed
# pyspark that Python cannot cache compiled bytecode for (see that module's docstring).
PYTHONPATH=$(printf '%s' "$PYTHONPATH" | tr ':' '\\n' | grep -vxF {zip} | paste -sd: -)
export PYTHONPATH
exec {python} "$@"
"""


def bundled_zip() -> Path | None:
    """``pyspark.zip`` when it is a copy of the installed pyspark package Spark runs from, else None."""
    import pyspark

    package = Path(pyspark.__file__).resolve().parent
    home = os.environ.get("SPARK_HOME")
    if home and Path(home).resolve() != package:
        return None  # a separate Spark distribution: its zip may differ from the installed package
    zip_path = package / "python" / "lib" / "pyspark.zip"
    return zip_path if zip_path.is_file() else None


def worker_python(cache: Path) -> str:
    """The executable for ``PYSPARK_PYTHON``: a launcher in ``cache`` that runs this interpreter
    without the bundled ``pyspark.zip`` (module docstring), or ``sys.executable`` where that zip is
    not a copy of the installed pyspark or there is no POSIX shell."""
    zip_path = bundled_zip()
    if zip_path is None or os.name != "posix":
        return sys.executable
    text = _LAUNCHER.format(python=shlex.quote(sys.executable), zip=shlex.quote(str(zip_path)))
    cache.mkdir(parents=True, exist_ok=True)
    # one launcher per interpreter and pyspark: sessions of other environments share the cache
    target = cache / f"spark-python-{hashlib.sha1(text.encode()).hexdigest()[:12]}"
    if not target.exists() or target.read_text() != text:
        write_atomically(target, lambda tmp: _executable(tmp, text))  # concurrent sessions see one whole launcher
    return str(target)


def same_interpreter(python: str) -> bool:
    """Whether ``python`` (a ``PYSPARK_PYTHON`` value) names this interpreter: the same binary in the
    same folder, so the same virtual environment (a venv's ``python`` is a link to its base
    interpreter, which has other packages, so the folder counts too)."""
    here = Path(sys.executable)
    given = Path(python) if os.sep in python else None
    if given is None:  # a bare name such as python3: whatever PATH finds
        import shutil

        found = shutil.which(python)
        given = Path(found) if found else None
    return (given is not None and given.is_file() and os.path.abspath(given.parent) == os.path.abspath(here.parent)
            and os.path.realpath(given) == os.path.realpath(here))


def launcher_for_env(python: str) -> None:
    """Set ``PYSPARK_PYTHON`` to the launcher ``python`` (:func:`worker_python`) unless it names another
    interpreter. Spark starts its driver-side Python processes (the Python data sources'
    streaming runners and planners, ``transformWithStateInPandas``' first-batch planning) with
    ``PYSPARK_PYTHON`` from the environment, not ``spark.pyspark.python``: a user who set it to this
    interpreter, as the streaming docs advise, gave each of them the zip's uncached imports, about
    1.5 s more per process and 2 of them per query start with two folder sources. Another
    interpreter is left as it is."""
    current = os.environ.get("PYSPARK_PYTHON")
    if current is None or (current != python and same_interpreter(current)):
        os.environ["PYSPARK_PYTHON"] = python


def _executable(tmp: Path, text: str) -> None:
    """``text`` as an executable script at ``tmp`` (:func:`~shedding.atomic.write_atomically`'s
    temporary file)."""
    tmp.write_text(text)
    tmp.chmod(0o755)


@lru_cache(maxsize=None)
def _imports_shedding(python: str) -> bool:
    try:
        return subprocess.run([python, "-c", "import shedding"], capture_output=True, timeout=120).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def check_worker_python(spark) -> None:
    """Refuse a session whose Python workers cannot import this package (they would fail inside
    the first micro-batch with "No module named 'shedding'"). Spark starts them with
    ``PYSPARK_PYTHON`` (or ``spark.pyspark.python``), ``python3`` by default. A Spark Connect
    session runs them on its server, which is not checked here."""
    context = getattr(spark, "sparkContext", None) if not type(spark).__module__.startswith("pyspark.sql.connect") \
        else None
    python = getattr(context, "pythonExec", None) if context is not None else None
    if python and not _imports_shedding(python):
        raise ShedError(f"Spark's Python workers run {python}, which cannot import shedding; set PYSPARK_PYTHON to "
                        f"an interpreter that has it (this one: {sys.executable}) before the Spark session starts")
