"""The house rules of docs/architecture.md, checked on the code itself.

* the import-linter contracts of pyproject.toml (the layers, the independent join families, no
  import circle between the modules of a package) are kept;
* no module imports another module's private (``_``-prefixed) name;
* no module is over 450 lines but the compiled kernel;
* no module cites a file outside the repository, or an issue number.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
PACKAGE = ROOT / "shedding"
MODULES = sorted(PACKAGE.rglob("*.py"))
#: the compiled join kernel: one numba loop whose helpers must stay in one module to inline
LONG_ALLOWED = {PACKAGE / "online" / "kernel.py"}
MAX_LINES = 450


def _name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_import_contracts_are_kept() -> None:
    lint = Path(sys.executable).parent / "lint-imports"
    proc = subprocess.run([str(lint), "--config", str(ROOT / "pyproject.toml")], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "BROKEN" not in proc.stdout


@pytest.mark.parametrize("path", MODULES, ids=[_name(p) for p in MODULES])
def test_no_module_imports_a_private_name_of_another(path: Path) -> None:
    here = _name(path)
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("shedding"):
            if node.module == here:
                continue
            private = [a.name for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
            assert not private, f"{here} imports {private} from {node.module}: make the name public there"


@pytest.mark.parametrize("path", MODULES, ids=[_name(p) for p in MODULES])
def test_modules_are_small(path: Path) -> None:
    if path in LONG_ALLOWED:
        return
    lines = len(path.read_text().splitlines())
    assert lines <= MAX_LINES, f"{_name(path)} has {lines} lines; split it by job (at most {MAX_LINES})"


@pytest.mark.parametrize("path", MODULES, ids=[_name(p) for p in MODULES])
def test_no_module_cites_an_outside_file_or_an_issue(path: Path) -> None:
    text = path.read_text()
    for pattern in (r"DESIGN\.md", r"\.\./shared", r"\bissue \d+", r"\bissues? #\d+"):
        found = re.search(pattern, text, flags=re.IGNORECASE)
        assert found is None, f"{_name(path)} cites {found.group(0)!r}: cite the paper or docs/ instead"
