"""The compiled helpers take their arrays as separate parameters (a tuple of arrays would pass every
array on every call: shedding/online/kernel.py says why), so a call could swap two arrays of the
same type and numba would not notice. The package's convention is that an array keeps its name
from the state to the helper; this test holds every call between compiled functions to it: a
positional argument that is a plain name and names an array parameter of the callee must be
passed in that parameter's place. (Scalars are exempt: a comparator takes ``(b, a)`` on purpose,
and the time ``t`` is passed as many things.) A parameter is an array when the function indexes
it, reads its shape, or passes it on as an array.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "shedding"


def _is_compiled(fn: ast.FunctionDef) -> bool:
    for dec in fn.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        if isinstance(target, ast.Name) and target.id == "njit":
            return True
    return False


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    return ".".join(rel.parts)


def _modules() -> dict[str, ast.Module]:
    return {_module_name(p): ast.parse(p.read_text()) for p in sorted(PACKAGE.rglob("*.py"))}


def _compiled(modules: dict[str, ast.Module]) -> dict[str, dict[str, list[str]]]:
    """module -> compiled function -> its parameter names."""
    return {name: {fn.name: [a.arg for a in fn.args.args] for fn in tree.body
                   if isinstance(fn, ast.FunctionDef) and _is_compiled(fn)}
            for name, tree in modules.items()}


def _aliases(tree: ast.Module, compiled: dict[str, dict[str, list[str]]]) -> tuple[dict, dict]:
    """(alias -> module, name -> (module, function)) of a module's imports of compiled code."""
    modules, functions = {}, {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("shedding"):
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                if full in compiled:
                    modules[alias.asname or alias.name] = full
                elif alias.name in compiled.get(node.module, {}):
                    functions[alias.asname or alias.name] = (node.module, alias.name)
    return modules, functions


def _calls(modules: dict[str, ast.Module], compiled: dict[str, dict[str, list[str]]]):
    """Every call between compiled functions: (module, caller, call node, callee module, callee)."""
    for name, tree in modules.items():
        mod_alias, fn_alias = _aliases(tree, compiled)
        for fn in tree.body:
            if not (isinstance(fn, ast.FunctionDef) and _is_compiled(fn)):
                continue
            for call in ast.walk(fn):
                if not isinstance(call, ast.Call):
                    continue
                f, target = call.func, None
                if isinstance(f, ast.Name):
                    if f.id in compiled[name]:
                        target = (name, f.id)
                    elif f.id in fn_alias:
                        target = fn_alias[f.id]
                elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in mod_alias:
                    if f.attr in compiled[mod_alias[f.value.id]]:
                        target = (mod_alias[f.value.id], f.attr)
                if target is not None:
                    yield name, fn, call, target


def _arrays(modules: dict[str, ast.Module], compiled: dict[str, dict[str, list[str]]]) -> dict[tuple, set[str]]:
    """(module, function) -> its array parameters: indexed, shape read, or passed on as arrays."""
    arrays: dict[tuple, set[str]] = {}
    for name, tree in modules.items():
        for fn in tree.body:
            if isinstance(fn, ast.FunctionDef) and _is_compiled(fn):
                params = set(compiled[name][fn.name])
                arrays[(name, fn.name)] = {n.value.id for n in ast.walk(fn)
                                           if isinstance(n, (ast.Subscript, ast.Attribute))
                                           and isinstance(n.value, ast.Name) and n.value.id in params
                                           and (isinstance(n, ast.Subscript) or n.attr == "shape")}
    calls = list(_calls(modules, compiled))
    changed = True
    while changed:
        changed = False
        for name, fn, call, target in calls:
            callee_params = compiled[target[0]][target[1]]
            mine = arrays[(name, fn.name)]
            for i, arg in enumerate(call.args[:len(callee_params)]):
                if (isinstance(arg, ast.Name) and callee_params[i] in arrays[target]
                        and arg.id in compiled[name][fn.name] and arg.id not in mine):
                    mine.add(arg.id)
                    changed = True
    return arrays


def _violations() -> list[str]:
    modules = _modules()
    compiled = _compiled(modules)
    arrays = _arrays(modules, compiled)
    found = []
    for name, fn, call, target in _calls(modules, compiled):
        params, array_params = compiled[target[0]][target[1]], arrays[target]
        for i, arg in enumerate(call.args[:len(params)]):
            if (isinstance(arg, ast.Name) and arg.id in array_params and params[i] in array_params
                    and params[i] != arg.id):
                found.append(f"{name}.{fn.name} line {call.lineno}: passes {arg.id} as {params[i]} "
                             f"to {ast.unparse(call.func)}")
    return found


def test_every_compiled_call_passes_each_array_by_its_name() -> None:
    assert _violations() == []


def _inlined(fn: ast.FunctionDef) -> bool:
    """Whether numba inlines ``fn`` at its level (``@njit(inline="always")``)."""
    return any(isinstance(dec, ast.Call) and any(k.arg == "inline" for k in dec.keywords) for dec in fn.decorator_list)


def _inline_chains() -> list[str]:
    modules = _modules()
    compiled = _compiled(modules)
    inlined = {(name, fn.name) for name, tree in modules.items() for fn in tree.body
               if isinstance(fn, ast.FunctionDef) and _is_compiled(fn) and _inlined(fn)}
    calls: dict[tuple[str, str], set[tuple[str, str]]] = {}
    for name, fn, _, target in _calls(modules, compiled):
        calls.setdefault((name, fn.name), set()).add(target)
    return [f"{a[0]}.{a[1]} -> {b[0]}.{b[1]} -> {c[0]}.{c[1]}" for a in inlined for b in calls.get(a, ())
            if b in inlined for c in calls.get(b, ()) if c in inlined]


def test_numba_inlines_no_chains() -> None:
    """numba types an inlined function again at every call site, and the functions inlined into
    it again with it, so a chain of inlined helpers multiplies the compile time (the join loop
    took minutes): an ``inline="always"`` function's inlined callees inline nothing further
    (shedding/jit.py). Its other callees are compiled once per argument type, whatever the
    number of sites it is inlined at."""
    assert _inline_chains() == []


def test_the_chain_check_finds_a_chain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The chain check is not vacuous: three inlined functions calling each other are reported."""
    pkg = tmp_path / "shedding"
    pkg.mkdir()
    (pkg / "m.py").write_text(
        "from shedding.jit import njit\n\n"
        "@njit(inline='always')\ndef c(x):\n    return x\n\n"
        "@njit(inline='always')\ndef b(x):\n    return c(x)\n\n"
        "@njit(inline='always')\ndef a(x):\n    return b(x)\n\n"
        "@njit\ndef d(x):\n    return b(x)\n")
    monkeypatch.setitem(globals(), "PACKAGE", pkg)
    assert _inline_chains() == ["shedding.m.a -> shedding.m.b -> shedding.m.c"]


def test_the_check_finds_a_swap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check is not vacuous: a call that swaps two arrays is reported."""
    pkg = tmp_path / "shedding"
    pkg.mkdir()
    (pkg / "m.py").write_text(
        "from shedding.jit import njit\n\n"
        "@njit\ndef helper(node, cnt, k):\n    return node[k] + cnt[k]\n\n"
        "@njit\ndef caller(node, cnt, k):\n    return helper(cnt, node, k)\n")
    monkeypatch.setitem(globals(), "PACKAGE", pkg)
    assert len(_violations()) == 2
