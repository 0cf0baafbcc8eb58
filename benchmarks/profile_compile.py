"""Where a command's first run spends its compile time: CPU seconds per compiled function (and per
signature count), from numba's event API, with an empty cache.

    NUMBA_CACHE_DIR=$(mktemp -d) .venv/bin/python benchmarks/profile_compile.py simulate --policy prob --json

The arguments are those of ``shed``. Each function's time excludes the functions it compiled while
being compiled (its callees), so the column adds up to the compile time; "x N" is how many
signatures of it were compiled. The last lines split the time between numba (typing, lowering to
LLVM IR) and LLVM (optimisation and machine code: numba's ``numba:llvm_lock`` events).
"""

from __future__ import annotations

import collections
import os
import sys
import time

from numba.core import event


class _Exclusive(event.Listener):
    """CPU seconds per compiled function, less the compiles nested in it."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = collections.defaultdict(float)
        self.count: collections.Counter = collections.Counter()
        self._stack: list[list] = []

    def on_start(self, ev: event.Event) -> None:
        self._stack.append([ev.data["dispatcher"], time.process_time(), 0.0])

    def on_end(self, ev: event.Event) -> None:
        dispatcher, started, nested = self._stack.pop()
        spent = time.process_time() - started
        name = f"{dispatcher.py_func.__module__}.{dispatcher.py_func.__qualname__}"
        self.seconds[name] += spent - nested
        self.count[name] += 1
        if self._stack:
            self._stack[-1][2] += spent


class _Total(event.Listener):
    """CPU seconds inside the outermost events of one kind."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._depth, self._started = 0, 0.0

    def on_start(self, ev: event.Event) -> None:
        if self._depth == 0:
            self._started = time.process_time()
        self._depth += 1

    def on_end(self, ev: event.Event) -> None:
        self._depth -= 1
        if self._depth == 0:
            self.seconds += time.process_time() - self._started


def main() -> None:
    if not os.environ.get("NUMBA_CACHE_DIR"):
        print("note: NUMBA_CACHE_DIR is not set, so cached functions load instead of compiling; "
              "set it to an empty folder for a cold start", file=sys.stderr)
    per_function, llvm = _Exclusive(), _Total()
    event.register("numba:compile", per_function)
    event.register("numba:llvm_lock", llvm)
    from shedding.cli import main as shed

    started = time.process_time()
    sys.argv = ["shed", *sys.argv[1:]]
    try:
        shed()
    except SystemExit:
        pass
    total = time.process_time() - started
    compiled = sum(per_function.seconds.values())
    print(f"\n{'CPU s':>7}  function (signatures)", file=sys.stderr)
    for name, seconds in sorted(per_function.seconds.items(), key=lambda kv: -kv[1])[:40]:
        print(f"{seconds:7.2f}  {name} (x {per_function.count[name]})", file=sys.stderr)
    print(f"\nthe command: {total:.1f} s CPU; compiling: {compiled:.1f} s ({len(per_function.seconds)} functions), "
          f"of which LLVM {llvm.seconds:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
