"""The build: setup.py compiles the engines into the wheel by running the commands they serve, so the
build needs the dependencies those commands import, at the versions the package itself asks for."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: dependencies the engines' build does not import (Spark, the figures, the .Z reader)
NOT_BUILT_WITH = {"pyspark", "plotly", "ncompress"}


def _by_name(requirements: list[str]) -> dict[str, str]:
    return {re.match(r"[A-Za-z0-9_.-]+", r).group(0).lower(): r for r in requirements}  # type: ignore[union-attr]


def test_the_build_requires_what_the_engines_runs_import_at_the_package_s_versions() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    build = _by_name(pyproject["build-system"]["requires"])
    runtime = _by_name(pyproject["project"]["dependencies"])
    assert set(runtime) - NOT_BUILT_WITH == set(build) - {"setuptools", "wheel"}
    for name in set(runtime) - NOT_BUILT_WITH:
        assert build[name] == runtime[name], name

