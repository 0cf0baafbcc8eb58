"""The path W-join with directed windows (Hammad, Aref, Elmagarmid 2002, §5.2.1, Figures 12 and 14).

"Consider the tracking of an object by multiple monitoring devices installed along a certain
path": streams A, B, C, D along the path and a window between each pair of neighbours. The
window is *directed* (the paper's ``DWINDOW``): ``A DWINDOW(w_1) B`` holds for tuples that appear
in stream A first and then in B, ``t_A <= t_B <= t_A + w_1``. "A candidate output needs to appear at
any of the paths: ABCD, DCBA": the query is the union of the forward path (every neighbour
``t_{k+1} - t_k`` in ``[0, w_k]``) and the reverse path (in ``[-w_k, 0]``), keys equal. An
N-tuple with all times equal is on both paths and counts once.

Three ways to evaluate it:

* :func:`path_brute_results`: the definition over all combinations (the tests' reference);
* ``pipeline`` (:class:`PathPipelineJoin`): "the modified NLW-join where we join the streams
  pairwise in a pipeline fashion": a new tuple is extended along the path one neighbour at a
  time, each step's period set by the neighbour alone ("joining A and B propagates a period in the
  form ``[TS_b, TS_b + w_2]``"), once for each direction;
* ``lca`` and ``gca``: "reconstructing the complete graph and applying the conservative
  approaches": the windows read as undirected (``|t_{k+1} - t_k| <= w_k``, a Form 3 W-join whose
  missing pairs get their shortest-path bounds) filter with MW (:class:`~.mw_paper.PaperMWJoin`),
  and every N-tuple is refined against the directed windows.

:func:`path_exact_count` counts it with the compiled sweep of :mod:`.exact`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from shedding.errors import ShedError
from shedding.wjoin.exact import count_between
from shedding.wjoin.operator import WJoinOperator
from shedding.wjoin.streams import Streams, as_rows, check_compatible
from shedding.wjoin.windows import WindowSpec, check_bound, stream_names

PATH_ALGORITHMS = ("pipeline", "lca", "gca")


@dataclass(frozen=True)
class PathSpec:
    """Streams ``names``, the path ``order`` (stream indices, each stream once) and the directed
    window ``windows[k]`` from ``order[k]`` to ``order[k + 1]``."""

    names: tuple[str, ...]
    order: tuple[int, ...]
    windows: tuple[int, ...]

    @classmethod
    def of(cls, names: Sequence[str] | int, path: Sequence[str | int] | None = None,
           windows: Sequence[int] | int = 0) -> "PathSpec":
        """The path over ``names`` (default: the streams in their order) with one window per step,
        or one window for every step."""
        names = stream_names(int(names)) if isinstance(names, (int, np.integer)) else tuple(str(n) for n in names)
        index = {name: i for i, name in enumerate(names)}
        path = list(range(len(names))) if path is None else list(path)
        order = tuple(index[p] if isinstance(p, str) and p in index else _stream_at(p, names) for p in path)
        if sorted(order) != list(range(len(names))):
            raise ShedError(f"the path {'-'.join(str(p) for p in path)} must visit every one of the {len(names)} "
                            f"streams exactly once; name each stream once")
        steps = [windows] * (len(order) - 1) if isinstance(windows, (int, np.integer)) else list(windows)
        if len(steps) != len(order) - 1:
            raise ShedError(f"a path of {len(order)} streams has {len(order) - 1} steps but got {len(steps)} windows; "
                            f"give one window per step")
        return cls(names, order, tuple(check_bound(w, f"window {names[a]}->{names[b]}")
                                       for w, a, b in zip(steps, order, order[1:])))

    @property
    def n(self) -> int:
        return len(self.names)

    def relaxed(self) -> WindowSpec:
        """The undirected windows along the path (Form 3; the closure completes the graph, §5.2)."""
        return WindowSpec.from_pairs(self.names, {(a, b): w for a, b, w in zip(self.order, self.order[1:],
                                                                                  self.windows)})

    def accepts(self, times: Sequence[int]) -> bool:
        """Whether timestamps (in stream order) lie on the forward or the reverse path."""
        steps = [times[b] - times[a] for a, b in zip(self.order, self.order[1:])]
        return all(0 <= d <= w for d, w in zip(steps, self.windows)) or \
            all(-w <= d <= 0 for d, w in zip(steps, self.windows))

    def difference_bounds(self, forward: bool) -> tuple[np.ndarray, np.ndarray]:
        """``(lower, upper)`` with ``lower[i, j] <= t_j - t_i <= upper[i, j]`` for one direction,
        closed by shortest paths (the tightest bounds the steps imply)."""
        n = self.n
        upper = np.full((n, n), np.iinfo(np.int64).max // 4, dtype=np.int64)
        np.fill_diagonal(upper, 0)
        for a, b, w in zip(self.order, self.order[1:], self.windows):
            if not forward:
                a, b = b, a
            upper[a, b] = min(upper[a, b], w)   # t_b - t_a <= w
            upper[b, a] = min(upper[b, a], 0)   # t_a - t_b <= 0
        for k in range(n):  # Floyd-Warshall; a path's constraint graph has no negative cycle
            upper = np.minimum(upper, upper[:, [k]] + upper[[k], :])
        return -upper.T, upper

    def describe(self) -> str:
        """The path, e.g. ``A>B:5, B>C:3`` (read also in reverse)."""
        return ", ".join(f"{self.names[a]}>{self.names[b]}:{w}"
                         for a, b, w in zip(self.order, self.order[1:], self.windows))


def _stream_at(p: str | int, names: tuple[str, ...]) -> int:
    if isinstance(p, (int, np.integer)) and not isinstance(p, bool) and 0 <= int(p) < len(names):
        return int(p)
    raise ShedError(f"the path names unknown stream {p!r}; the streams are {', '.join(names)}")


def parse_path(text: str, names: Sequence[str]) -> PathSpec:
    """``"a>b:5,b>c:3,c>d:4"`` (each step's window, in path order) -> a :class:`PathSpec`."""
    order: list[str] = []
    windows: list[int] = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        step, sep, value = part.partition(":")
        ends = [e.strip() for e in step.split(">")]
        if not sep or len(ends) != 2 or not all(ends):
            raise ShedError(f"path step {part!r} is not of the form NAME>NAME:W, e.g. a>b:5")
        if order and ends[0] != order[-1]:
            raise ShedError(f"path step {part!r} does not start where the previous step ended ({order[-1]}); "
                            f"list the steps in path order")
        try:
            windows.append(int(value.strip()))
        except ValueError:
            raise ShedError(f"path step {part!r} needs an integer after the colon, e.g. {ends[0]}>{ends[1]}:5") from None
        order += ends if not order else ends[1:]
    if not order:
        raise ShedError("{param} is empty; give steps such as a>b:5,b>c:3", param="path")
    return PathSpec.of(names, order, windows)


def path_brute_results(streams: Streams, path: PathSpec) -> np.ndarray:
    """The path W-join by definition: every combination with equal keys on the forward or the
    reverse path; sorted rows (tiny inputs only)."""
    from itertools import product

    check_compatible(streams, path.n)
    out = [combo for combo in product(*(range(len(t)) for t in streams.times))
           if len({int(streams.keys[i][s]) for i, s in enumerate(combo)}) == 1
           and path.accepts([int(streams.times[i][s]) for i, s in enumerate(combo)])]
    return as_rows(out, streams.n)


def path_exact_count(streams: Streams, path: PathSpec) -> int:
    """The number of N-tuples of the path W-join: forward plus reverse, less those with all times
    equal (on both)."""
    check_compatible(streams, path.n)
    zero = np.zeros((path.n, path.n), dtype=np.int64)
    return sum(count_between(streams, *path.difference_bounds(forward)) for forward in (True, False)) - \
        count_between(streams, zero, zero)


class PathPipelineJoin(WJoinOperator):
    """The path W-join by the paper's modified NLW: pairwise along the path, in both directions.

    A new tuple at path position p is extended to p + 1, p + 2, ... and then p - 1, p - 2, ...; each
    candidate of stream ``order[q]`` is tested against the period set by its neighbour on the side
    of p alone: ``[t, t + w]`` or ``[t - w, t]`` by the direction. Buffers are purged as NLW's, by the
    undirected bounds the steps imply. Equal keys only.
    """

    name = "pipeline"

    def __init__(self, path: PathSpec) -> None:
        super().__init__(path.relaxed())
        self.path = path
        # per path position p and direction: the levels (stream, neighbour level or -1 for the new
        # tuple, offsets of the period from the neighbour's time)
        self._plans = {(p, d): self._plan(p, d) for p in range(path.n) for d in (1, -1)}

    def _plan(self, p: int, d: int) -> list[tuple[int, int, int, int]]:
        order, w = self.path.order, self.path.windows
        levels: list[tuple[int, int, int, int]] = []
        for q in range(p + 1, len(order)):  # after p: t_q - t_{q-1} in d * [0, w_{q-1}]
            lo, hi = (0, w[q - 1]) if d > 0 else (-w[q - 1], 0)
            levels.append((order[q], len(levels) - 1 if q > p + 1 else -1, lo, hi))
        for q in range(p - 1, -1, -1):  # before p: t_{q+1} - t_q in d * [0, w_q]
            lo, hi = (-w[q], 0) if d > 0 else (0, w[q])
            levels.append((order[q], len(levels) - 1 if q < p - 1 else -1, lo, hi))
        return levels

    def _arrive(self, stream: int, seq: int, time: int, key: int) -> list[tuple[int, ...]]:
        self._purge_others(stream)
        p = self.path.order.index(stream)
        out = self._chain(stream, seq, time, key, self._plans[(p, 1)], False)
        out += self._chain(stream, seq, time, key, self._plans[(p, -1)], True)
        self.buffers[stream].append((time, key, seq))
        return out

    def _chain(self, stream: int, seq: int, time: int, key: int, levels: list[tuple[int, int, int, int]],
               reverse: bool) -> list[tuple[int, ...]]:
        """The N-tuples of the new tuple along one direction (the reverse skips those with all
        times equal, which the forward direction has)."""
        members = [0] * self.n
        members[stream] = seq
        picked = [0] * len(levels)
        out: list[tuple[int, ...]] = []
        buffers, last = self.buffers, len(levels) - 1

        def rec(level: int) -> None:
            j, nb, lo, hi = levels[level]
            anchor = time if nb < 0 else picked[nb]
            a, b = anchor + lo, anchor + hi
            for ty, ky, sy in buffers[j]:
                if ky != key or not a <= ty <= b:
                    continue
                members[j] = sy
                picked[level] = ty
                if level < last:
                    rec(level + 1)
                elif not (reverse and all(t == time for t in picked)):
                    out.append(tuple(members))

        rec(0)
        return out


def path_operator(algorithm: str, path: PathSpec) -> WJoinOperator:
    """The path W-join operator ``pipeline``, ``lca`` or ``gca`` (see the module docstring)."""
    from shedding.wjoin.mw_paper import PaperMWJoin

    name = algorithm.strip().lower()
    if name == "pipeline":
        return PathPipelineJoin(path)
    if name in ("lca", "gca"):
        return PaperMWJoin(path.relaxed(), approach="local" if name == "lca" else "global", refine=path.accepts)
    raise ShedError(f"unknown {{param}} {algorithm!r}; choose from {', '.join(PATH_ALGORITHMS)}", param="algorithm")
