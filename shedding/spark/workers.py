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
import sys
from pathlib import Path

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
        tmp = cache / f".spark-python.{os.getpid()}"
        tmp.write_text(text)
        tmp.chmod(0o755)
        os.replace(tmp, target)  # concurrent sessions see one whole launcher
    return str(target)
