"""Assertions and helpers shared by several test modules."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest


def assert_one_line_error(excinfo: pytest.ExceptionInfo, *words: str) -> str:
    """The error message is one line and names every word (case-insensitive)."""
    msg = str(excinfo.value)
    assert msg and "\n" not in msg and "\r" not in msg, msg
    for word in words:
        assert word.lower() in msg.lower(), (word, msg)
    return msg


def write_stream_files(wl, folder: Path) -> tuple[Path, Path]:
    """R as ``r.csv`` and S as ``s.parquet`` (columns time, key), the two-file layout of --r/--s."""
    from shedding.model import R, S

    paths = []
    for side, name in ((R, "r.csv"), (S, "s.parquet")):
        frame = pd.DataFrame({"time": wl.time[wl.side == side], "key": wl.key[wl.side == side]})
        paths.append(folder / name)
        frame.to_csv(paths[-1], index=False) if name.endswith(".csv") else frame.to_parquet(paths[-1])
    return paths[0], paths[1]


def run_shed(*args: object) -> tuple[int, str, str]:
    """`shed ARGS` in this process through the entry point, its error handling included:
    (exit code, stdout, stderr), as a subprocess would give them without a new interpreter's
    start-up. The one way the tests run the command line in process (the ``shed`` fixture)."""
    from shedding.cli import main

    out, err, code = io.StringIO(), io.StringIO(), 0
    argv = sys.argv
    sys.argv = ["shed", *map(str, args)]
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.argv = argv
    return code, out.getvalue(), err.getvalue()


def shed_in_process(*args: object) -> subprocess.CompletedProcess:
    """:func:`run_shed` as a CompletedProcess (returncode, stdout, stderr)."""
    return subprocess.CompletedProcess(args, *run_shed(*args))


#: the JSON schema every --json output follows
SCHEMA = json.loads((Path(__file__).parents[1] / "docs" / "shed-output.schema.json").read_text())


def assert_error_line(result: tuple[int, str, str], *needles: str) -> str:
    code, _, err = result
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2, err
    assert "Traceback" not in err
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def feed(operator, streams, order) -> list[tuple[int, ...]]:
    """Push W-join ``streams`` into ``operator`` in ``order`` (the stream of each push), then
    finish: every result in the order the operator returns them (duplicates kept)."""
    pos = [0] * streams.n
    out = []
    for i in order:
        out.extend(operator.push(i, int(streams.times[i][pos[i]]), int(streams.keys[i][pos[i]])))
        pos[i] += 1
    return out + operator.finish()


def assert_same_state(a: object, b: object, where: str = "state") -> None:
    """Two objects hold the same state, attribute by attribute (``vars``, recursively): arrays by
    dtype, shape and content (NaN equal to NaN), frames exactly, dataclasses by their fields,
    random generators by their state. An attribute a restore forgot fails here."""
    import dataclasses

    import numpy as np

    assert type(a) is type(b), (where, type(a), type(b))
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape, (where, a.dtype, b.dtype, a.shape, b.shape)
        assert np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"), where
    elif isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b, check_exact=True, obj=where)
    elif isinstance(a, np.random.Generator):
        assert a.bit_generator.state == b.bit_generator.state, where
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same_state(x, y, f"{where}[{i}]")
    elif dataclasses.is_dataclass(a):
        for f in dataclasses.fields(a):
            assert_same_state(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    elif hasattr(a, "__dict__"):
        assert sorted(vars(a)) == sorted(vars(b)), (where, sorted(set(vars(a)) ^ set(vars(b))))
        for name in vars(a):
            assert_same_state(vars(a)[name], vars(b)[name], f"{where}.{name}")
    else:
        assert a == b, (where, a, b)


@contextlib.contextmanager
def unpickling_refused():
    """Within the block, any unpickling fails the test."""
    import pickle

    def refuse(*args, **kwargs):
        raise AssertionError("something was unpickled")

    with pytest.MonkeyPatch.context() as patch:
        for name in ("loads", "load", "Unpickler"):
            patch.setattr(pickle, name, refuse)
        yield


def with_paths(args: list[str], files: dict[str, Path]) -> list[str]:
    """The command-line arguments with ``{name}`` replaced by the path of ``files[name]``."""
    out = []
    for arg in args:
        for name, path in files.items():
            arg = arg.replace(f"{{{name}}}", str(path))
        out.append(arg)
    return out


def drops_a_tuple(wl, policy: str, memory: int, split: tuple[int, int] | None = None) -> bool:
    """Whether some tuple that could still meet a later arrival leaves memory before its range (the
    window, by default) ends."""
    import numpy as np

    from shedding import simulate

    lo, hi = wl.bounds
    last = np.where(wl.side == 0, wl.time + hi, wl.time - lo)
    left = simulate(wl, policy, memory, memory_split=split).schedule.left
    return bool(np.any((left < last) & (last > wl.time)))


def assert_exact_memory_is_the_least(wl, policy: str, need) -> None:
    """``need`` (:func:`~shedding.exact.exact_memory`) keeps every tuple under ``policy`` and one
    tuple less of it (of either side, for a fixed split) does not."""
    from shedding.online import POLICIES

    if POLICIES[policy].variable:
        assert not drops_a_tuple(wl, policy, need.both)
        assert need.both == 0 or drops_a_tuple(wl, policy, need.both - 1)
    else:
        assert not drops_a_tuple(wl, policy, need.fixed, (need.r, need.s))
        assert need.r == 0 or drops_a_tuple(wl, policy, need.fixed - 1, (need.r - 1, need.s))
        assert need.s == 0 or drops_a_tuple(wl, policy, need.fixed - 1, (need.r, need.s - 1))
