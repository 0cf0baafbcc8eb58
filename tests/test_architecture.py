"""The house rules of docs/architecture.md, checked on the code itself.

* the import-linter contracts of pyproject.toml (the layers, the independent join families, no
  import circle between the modules of a package) are kept;
* no module imports another module's private (``_``-prefixed) name;
* no module is over 450 lines but the compiled kernel;
* no module cites a file outside the repository, or an issue number;
* no module outside the command line names a CLI flag;
* every file is written whole (a temporary file, then a rename: `shedding.atomic`).
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


#: a flag as a message would name it (``--memory``), not a command quoted whole (``shed compare --out``)
FLAG = re.compile(r"(?<![\w-])--[a-z]")
QUOTED = re.compile(r"\bshed [a-z-]+ (?:[^-]\S* )*--[a-z]")


def _flag_strings(path: Path) -> list[str]:
    """The string constants of ``path`` that name a CLI flag: not docstrings, not the items of an
    argument list (a subprocess's argv, a script's argparse), not a quoted ``shed`` command."""
    tree = ast.parse(path.read_text())
    skip: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            skip.add(id(first.value))
        if isinstance(node, ast.List):
            skip.update(id(e) for e in node.elts)
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "add_argument":
            skip.update(id(a) for a in node.args)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            text = QUOTED.sub("", node.value)
            if FLAG.search(text):
                found.append(f"line {node.lineno}: {node.value!r}")
    return found


LIBRARY = [p for p in MODULES if (PACKAGE / "cli") not in p.parents]


@pytest.mark.parametrize("path", LIBRARY, ids=[_name(p) for p in LIBRARY])
def test_the_library_never_names_a_flag(path: Path) -> None:
    """The library names its parameters (``ShedError("{param} ...", param=...)``); the command
    line maps each to its flag (docs/architecture.md, "Errors")."""
    found = _flag_strings(path)
    assert not found, f"{_name(path)} names a CLI flag: {found[:3]}; write {{param}} and pass param="


def test_the_flag_scan_sees_a_flag(tmp_path: Path) -> None:
    import textwrap

    source = textwrap.dedent('''
        def f(x):
            """--docstring is fine"""
            subprocess.run(["git", "--porcelain"])
            note = "see shed compare --max-graph-gib"
            raise ShedError(f"--memory must be >= 1, got {x}")
    ''')
    probe = tmp_path / "probe.py"
    probe.write_text(source)
    assert [line.split(":")[0] for line in _flag_strings(probe)] == ["line 6"]


#: the calls that write a file, and where each takes the file it writes: ``self``, or the index of
#: the argument (``pyarrow.parquet.write_table(table, where)``; a stream writer's
#: ``writer.write_table(table)`` writes to a stream opened elsewhere, not to a file it names)
WRITES: dict[str, str | int] = {"to_csv": 0, "to_parquet": 0, "write_table": 1, "write_text": "self",
                                "write_bytes": "self"}
#: names that are a temporary file already, a write probe, or a scratch file in a temporary folder
SCRATCH = {"tmp", "probe", "src"}
#: a rename by hand is a second way to write a file whole (a temporary file, then ``os.replace``):
#: only shedding/atomic.py renames, but where a whole file is set aside under another name
RENAMES = {"replace", "rename"}
SET_ASIDE = {"studies/store.py"}  # a damaged part renamed to *.damaged, not written


def _unguarded_writes(path: Path) -> list[str]:
    """File writes in ``path`` that do not go through :func:`shedding.atomic.write_atomically`: a
    write is guarded when it writes the parameter of the function it is handed in (the
    temporary path), or a scratch file; ``os.replace``/``os.rename`` outside shedding/atomic.py
    is an atomic write of its own beside the helper."""
    tree = ast.parse(path.read_text())
    parents = {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found = []
    renames = path.name != "atomic.py" and not any(str(path).endswith(p) for p in SET_ASIDE)
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if (renames and node.func.attr in RENAMES and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "os"):
            found.append(f"line {node.lineno}: {ast.unparse(node)[:80]}")
            continue
        where = WRITES.get(node.func.attr)
        if where is None or (isinstance(where, int) and len(node.args) <= where):
            continue
        target = node.func.value if where == "self" else node.args[int(where)]
        if isinstance(target, ast.Name):
            if target.id in SCRATCH:
                continue
            scope = parents.get(id(node))
            while scope is not None and not isinstance(scope, (ast.Lambda, ast.FunctionDef)):
                scope = parents.get(id(scope))
            if isinstance(scope, ast.Lambda) and target.id in {a.arg for a in scope.args.args}:
                continue
        found.append(f"line {node.lineno}: {ast.unparse(node)[:80]}")
    return found


@pytest.mark.parametrize("path", MODULES, ids=[_name(p) for p in MODULES])
def test_every_file_is_written_whole(path: Path) -> None:
    """Every write goes through the one helper, a temporary file then a rename (docs/commands/
    compare.md, "Whole files only"), so a crash never leaves a file cut short."""
    found = _unguarded_writes(path)
    assert not found, f"{_name(path)} writes in place: {found[:3]}; use shedding.atomic.write_atomically"


def test_the_write_scan_sees_a_write_in_place(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text("def f(frame, out, table):\n"
                     "    write_atomically(out, lambda tmp: frame.to_csv(tmp))\n"
                     "    frame.to_parquet(out / 'x.parquet')\n"
                     "    (out / 'suite.json').write_text('{}')\n"
                     "    pq.write_table(table, out / 'y.parquet')\n"
                     "    pq.write_table(table, tmp)\n"
                     "    os.replace(tmp, out / 'z.parquet')\n"
                     "    writer.write_table(table)\n")
    assert [line.split(":")[0] for line in _unguarded_writes(probe)] == ["line 3", "line 4", "line 5", "line 7"]
