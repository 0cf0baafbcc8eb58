"""The benchmarks under benchmarks/ still import: every name they take from shedding exists.

They are run by hand (never by the suite), so a module moved or renamed elsewhere would otherwise
break them silently.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

BENCHMARKS = sorted((Path(__file__).parents[1] / "benchmarks").glob("*.py"))


def _imports(path: Path) -> list[tuple[str, str]]:
    tree = ast.parse(path.read_text())
    return [(node.module, alias.name) for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "shedding"
            for alias in node.names]


@pytest.mark.parametrize("path", BENCHMARKS, ids=[p.name for p in BENCHMARKS])
def test_every_shedding_name_a_benchmark_imports_exists(path: Path) -> None:
    for module, name in _imports(path):
        found = importlib.import_module(module)
        if not hasattr(found, name):  # a submodule imported by name
            importlib.import_module(f"{module}.{name}")
