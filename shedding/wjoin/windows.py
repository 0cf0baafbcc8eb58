"""Window constraints of a W-join: Forms 1, 2 and 3 (Hammad, Aref, Elmagarmid 2002, §1, §5).

* **Form 1** (§3): one window w between every pair of streams.
* **Form 2** (§5.1): a window w_ij per pair of streams.
* **Form 3** (§5.2): only some pairs are constrained. "The upper bound to the missing constraint
  is the shortest path between these two streams" in the constraint graph, computed once, at
  query compilation time; the graph must be connected (the paper's footnote 1). The path W-join
  (§5.2.1) is the special case of a chain.

Semantics (docs/wjoin.md, the one place that states them): tuples x_i and x_j of streams i and j
satisfy the constraint w_ij iff ``|t_i - t_j| <= w_ij`` (inclusive; the paper's period of an
m-tuple is ``[TS_max - w, TS_min + w]``). An N-tuple counts iff it satisfies every *given*
constraint. The closure ``bounds`` (all-pairs shortest paths) holds the tightest bound that the
given constraints imply for every pair; by the triangle inequality an N-tuple satisfies the given
constraints iff it satisfies every closure bound, so the algorithms may test either.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import networkx as nx
import numpy as np

from shedding.errors import ShedError


#: the widest window bound: the closure adds bounds along paths of up to N - 1 pairs, and every sum
#: must stay a 64-bit integer (2^53 time units is beyond any stream's time range)
MAX_BOUND = 2**53


def check_bound(value: object, what: str) -> int:
    """A window bound: an integer from 0 (equal timestamps only) to :data:`MAX_BOUND`."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value <= MAX_BOUND:
        raise ShedError(f"{what} must be an integer >= 0 and <= {MAX_BOUND} (time units), got {value!r}")
    return int(value)


def stream_names(n: int) -> tuple[str, ...]:
    """Default names of ``n`` streams: A, B, C, ... (then S26, S27, ...)."""
    return tuple(chr(ord("A") + i) if i < 26 else f"S{i}" for i in range(n))


@dataclass(frozen=True)
class WindowSpec:
    """The window constraints among N named streams and their shortest-path closure.

    ``given`` maps a pair ``(i, j)`` with ``i < j`` to its window; ``bounds[i, j]`` is the closure
    (``bounds[i, i] = 0``). Build one with :meth:`uniform` (Form 1) or :meth:`from_pairs`
    (Forms 2 and 3), as Hammad, Aref and Elmagarmid define them (§1).

    Attributes:
        names: The streams' names, in stream order.
        given: The windows given, by pair of stream indices ``(i, j)``, ``i < j``.
        bounds: The shortest-path closure of ``given``: ``bounds[i, j]`` is the most the times
            of streams i and j may differ in a result (N x N; ``bounds[i, i] = 0``).
    """

    names: tuple[str, ...]
    given: Mapping[tuple[int, int], int]
    bounds: np.ndarray

    @classmethod
    def uniform(cls, names: Sequence[str] | int, window: int) -> "WindowSpec":
        """Form 1: one window between every pair.

        Args:
            names: The streams' names, or their number N (then named A, B, C, ...).
            window: The window W (an integer >= 0).

        Returns:
            The :class:`WindowSpec`.

        Raises:
            ShedError: Fewer than two streams, repeated names, or a window out of range.
        """
        names = _check_names(names)
        w = check_bound(window, "window")
        n = len(names)
        return cls.from_pairs(names, {(i, j): w for i in range(n) for j in range(i + 1, n)})

    @classmethod
    def from_pairs(cls, names: Sequence[str] | int, pairs: Mapping[tuple[str | int, str | int], int]) -> "WindowSpec":
        """Forms 2 and 3: windows for some pairs (every pair: Form 2), the others bounded by the
        closure only.

        Args:
            names: The streams' names, or their number N.
            pairs: The windows, by pair of streams named by name or index.

        Returns:
            The :class:`WindowSpec`.

        Raises:
            ShedError: A stream paired with itself, a pair given twice, an unknown stream, or
                a window out of range.
        """
        names = _check_names(names)
        index = {name: i for i, name in enumerate(names)}
        given: dict[tuple[int, int], int] = {}
        for (a, b), w in pairs.items():
            i, j = _stream_index(a, index, len(names)), _stream_index(b, index, len(names))
            if i == j:
                raise ShedError(f"window {names[i]}-{names[j]} joins a stream with itself; name two different streams")
            pair = (min(i, j), max(i, j))
            if pair in given:
                raise ShedError(f"window {names[pair[0]]}-{names[pair[1]]} is given twice; give each pair once")
            given[pair] = check_bound(w, f"window {names[i]}-{names[j]}")
        return cls(names, given, _closure(names, given))

    @property
    def n(self) -> int:
        return len(self.names)

    @property
    def form(self) -> int:
        """1 (one window for all pairs), 2 (a window for every pair) or 3 (some pairs unconstrained)."""
        n = self.n
        if len(self.given) < n * (n - 1) // 2:
            return 3
        return 1 if len(set(self.given.values())) <= 1 else 2

    @property
    def uniform_bound(self) -> int | None:
        """The single closure bound if every pair has the same one (then Form 1 algorithms apply)."""
        off = self.bounds[~np.eye(self.n, dtype=bool)]
        return int(off[0]) if off.size and np.all(off == off[0]) else None

    @property
    def widest(self) -> int:
        """The largest closure bound: the global conservative approach's single window (§5.1)."""
        return int(self.bounds.max()) if self.n else 0

    def reach(self, i: int) -> int:
        """How far after its own time a tuple of stream i can still join: ``max_j bounds[i, j]``."""
        return int(np.delete(self.bounds[i], i).max())

    def describe(self) -> str:
        """The given constraints, e.g. ``A-B:5, B-C:3``."""
        return ", ".join(f"{self.names[i]}-{self.names[j]}:{w}" for (i, j), w in sorted(self.given.items()))


def _check_names(names: Sequence[str] | int) -> tuple[str, ...]:
    if isinstance(names, (int, np.integer)) and not isinstance(names, bool):
        names = stream_names(int(names))
    names = tuple(str(n) for n in names)  # type: ignore[union-attr]  # a bool fails here, as any non-iterable
    if len(names) < 2:
        raise ShedError(f"a W-join needs at least 2 streams, got {len(names)}; give two or more streams")
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise ShedError(f"stream name {dup!r} is used twice; give every stream its own name")
    return names


def _stream_index(name: str | int, index: Mapping[str, int], n: int) -> int:
    if isinstance(name, (int, np.integer)) and not isinstance(name, bool):
        if not 0 <= int(name) < n:
            raise ShedError(f"stream index {name} is out of range; use 0..{n - 1}")
        return int(name)
    if str(name) not in index:
        raise ShedError(f"window names unknown stream {name!r}; the streams are {', '.join(index)}")
    return index[str(name)]


def _closure(names: tuple[str, ...], given: Mapping[tuple[int, int], int]) -> np.ndarray:
    """All-pairs shortest paths of the constraint graph (§5.2); refuses a disconnected graph."""
    graph = nx.Graph()
    graph.add_nodes_from(range(len(names)))
    graph.add_weighted_edges_from((i, j, w) for (i, j), w in given.items())
    if not nx.is_connected(graph):
        parts = sorted((sorted(c) for c in nx.connected_components(graph)), key=lambda c: c[0])
        listed = " | ".join(",".join(names[i] for i in part) for part in parts)
        raise ShedError(
            f"the window constraints leave the streams disconnected ({listed}); add a window linking these groups"
        )
    bounds = np.zeros((len(names), len(names)), dtype=np.int64)
    for i, lengths in nx.all_pairs_dijkstra_path_length(graph):
        for j, d in lengths.items():
            bounds[i, j] = d
    return bounds


def parse_windows(text: str, names: Sequence[str]) -> WindowSpec:
    """Window constraints from their text (Form 2 or 3, §1).

    Args:
        text: Comma-separated ``NAME-NAME:W`` pairs, e.g. ``"a-b:5,b-c:3"``.
        names: The streams' names, in stream order.

    Returns:
        A :class:`WindowSpec` over ``names``.

    Raises:
        ShedError: A malformed pair, a pair given twice or joining a stream with itself, an
            unknown name, or an empty text (``param`` ``windows``)."""
    pairs: dict[tuple[str | int, str | int], int] = {}
    seen: set[frozenset[str]] = set()
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        pair, sep, value = part.partition(":")
        ends = pair.split("-")
        if not sep or len(ends) != 2 or not all(e.strip() for e in ends):
            raise ShedError(f"window {part!r} is not of the form NAME-NAME:W, e.g. a-b:5")
        a, b = (e.strip() for e in ends)
        try:
            w = int(value.strip())
        except ValueError:
            raise ShedError(f"window {part!r} needs an integer after the colon, e.g. {a}-{b}:5") from None
        key = frozenset((a, b))
        if key in seen:
            raise ShedError(f"window {a}-{b} is given twice; give each pair once")
        seen.add(key)
        pairs[(a, b)] = w
    if not pairs:
        raise ShedError("{param} is empty; give pairs such as a-b:5,b-c:3", param="windows")
    return WindowSpec.from_pairs(names, pairs)
