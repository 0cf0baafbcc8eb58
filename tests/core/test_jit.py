"""shedding.jit: the compile cache's one stamp, the per-type compilation and the refused inlining."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from shedding import jit


def _tree(root: Path) -> None:
    for rel in ("online/kernel.py", "online/hazardmemory.py", "cli/simulate.py", "studies/suite.py",
                "streaming/job.py", "model.py"):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {rel}\n")


def _stamp(monkeypatch: pytest.MonkeyPatch, root: Path) -> str:
    monkeypatch.setattr(jit, "PACKAGE", root)
    jit.source_stamp.cache_clear()
    try:
        return jit.source_stamp()
    finally:
        jit.source_stamp.cache_clear()


@pytest.mark.parametrize("edited", ["online/hazardmemory.py", "model.py"])
def test_an_edit_to_any_module_below_the_cli_changes_every_function_s_stamp(tmp_path, monkeypatch, edited) -> None:
    """numba's own stamp covers only the defining file: an edit to hazardmemory.py kept a stale kernel."""
    _tree(tmp_path)
    before = _stamp(monkeypatch, tmp_path)
    (tmp_path / edited).write_text("# edited\n")
    assert _stamp(monkeypatch, tmp_path) != before


@pytest.mark.parametrize("edited", ["cli/simulate.py", "studies/suite.py", "streaming/job.py"])
def test_an_edit_above_the_engines_keeps_the_cache(tmp_path, monkeypatch, edited) -> None:
    _tree(tmp_path)
    before = _stamp(monkeypatch, tmp_path)
    (tmp_path / edited).write_text("# edited\n")
    assert _stamp(monkeypatch, tmp_path) == before


def test_the_package_s_functions_use_the_package_s_locator() -> None:
    from shedding.online import kernel

    locator = kernel.process._cache._impl.locator
    assert isinstance(locator, jit.PackageCacheLocator)
    assert locator.get_source_stamp() == jit.source_stamp()


def test_functions_outside_the_package_are_left_to_numba(tmp_path) -> None:
    outside = tmp_path / "mod.py"
    outside.write_text("def f():\n    return 1\n")
    assert jit.PackageCacheLocator.from_function(lambda: 1, str(outside)) is None


def test_a_read_only_package_folder_falls_back_to_the_user_cache(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(jit.config, "CACHE_DIR", "")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    target = Path(jit.__file__)

    def refuse(self) -> None:
        if self.get_cache_path().startswith(str(target.parent)):
            raise PermissionError("read-only")
        Path(self.get_cache_path()).mkdir(parents=True, exist_ok=True)

    monkeypatch.setattr(jit.PackageCacheLocator, "ensure_cache_path", refuse)
    locator = jit.PackageCacheLocator.from_function(jit.njit, str(target))
    assert locator is not None
    assert locator.get_cache_path().startswith(str(tmp_path / "cache" / "shedding" / "numba"))


def test_constants_passed_from_compiled_code_compile_the_callee_once() -> None:
    @jit.njit(cache=False)
    def helper(a, k):
        return a[k] + 1

    @jit.njit(cache=False)
    def caller(a):
        return helper(a, 0) + helper(a, 1) + helper(a, a.shape[0] - 1)

    assert caller(np.arange(3)) == 1 + 2 + 3
    assert len(helper.signatures) == 1  # not one per literal 0, 1 and the int64 expression


@pytest.mark.parametrize("shipped, words", [(None, "no engines were compiled ahead"),
                                            ("another", "make shedding/_engines/.built"),
                                            ("same", "lack a signature")])
def test_the_compile_notice_says_why_the_engines_compile(monkeypatch, shipped, words) -> None:
    monkeypatch.setattr(jit, "shipped_stamp", lambda: jit.source_stamp() if shipped == "same" else shipped)
    line = jit.compile_notice()
    assert words in line and "once" in line and "\n" not in line


_COMPILE = ("import numpy as np; from shedding.online.order import ties_before; "
            "ties_before(np.float32(1), np.int8(0), np.int8(1), np.float32(2), np.int8(0), np.int8(2))")


@pytest.mark.parametrize("terminal", [True, False])
def test_a_run_that_compiles_says_so_once_on_a_terminal_only(tmp_path, terminal) -> None:
    """A first run that compiles (an edited checkout, another Python) took minutes in silence. The
    ``shed`` command sets the notice on; it prints on a terminal's stderr, never into a pipe."""
    import os
    import pty
    import subprocess
    import sys

    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), **{jit.NOTICE_ENV: "1"})
    code = _COMPILE + "; ties_before(np.float32(1), np.int16(0), np.int16(1), np.float32(2), np.int16(0), np.int16(2))"
    if not terminal:
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0 and done.stderr == ""
        return
    main, child = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-c", code], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=child)
    os.close(child)
    chunks = []
    while True:
        try:
            data = os.read(main, 4096)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    assert proc.wait(timeout=300) == 0
    os.close(main)
    text = b"".join(chunks).decode()
    assert text.count("compiling the join engines") == 1, text
