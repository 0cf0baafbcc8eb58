"""The Kuratowski components of a two-relation equi-join and their output (Das, Gehrke,
Riedewald, SIGMOD 2003, §3.1).

The join graph of A and B on an equality predicate is a disjoint union of complete bipartite
*Kuratowski components* K(m, n): m tuples of A and n tuples of B share one join value, and the
component produces m * n output tuples. Retaining p of its nodes yields at most
``C_(m,n)(p) = max{a * b : a + b = p, a <= m, b <= n}`` (:func:`component_output`), reached by
the most balanced split (:func:`best_split`). This module builds the components (from key arrays,
``"MxN,..."`` text or rows) and checks the budgets the solvers of :mod:`.static` take.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

import numpy as np

from shedding.errors import ShedError
from shedding.model import INT64_MAX

MAX_OUTPUT = 2**60  # keeps every sum of gains far from the knapsacks' NEG and from int64 overflow
_PAIR = re.compile(r"^\s*(\d+)\s*[xX]\s*(\d+)\s*$")


@dataclass(frozen=True)
class Components:
    """Kuratowski components K(m[i], n[i]) with join values ``key[i]`` (paper §3.1).

    Iterating yields ``(m, n, key)`` triples, so it can be used wherever a list of them is expected.
    """

    m: np.ndarray
    n: np.ndarray
    key: np.ndarray

    def __post_init__(self) -> None:
        m, n = np.asarray(self.m, dtype=np.int64), np.asarray(self.n, dtype=np.int64)
        if m.shape != n.shape or m.ndim != 1 or len(self.key) != len(m):
            raise ShedError("components need one m, one n and one key each; pass equally long 1-D arrays")
        if m.size and (m.min() < 0 or n.min() < 0):
            raise ShedError("component sizes must be >= 0; remove negative counts")
        if float(np.dot(m.astype(np.float64), n)) > MAX_OUTPUT:
            raise ShedError("the join output exceeds 2^60 tuples; split the input into smaller parts")
        object.__setattr__(self, "m", m)
        object.__setattr__(self, "n", n)
        object.__setattr__(self, "key", np.asarray(self.key))

    def __len__(self) -> int:
        return len(self.m)

    def __iter__(self) -> Iterator[tuple[int, int, Any]]:
        return iter(zip(self.m.tolist(), self.n.tolist(), self.key.tolist()))

    @property
    def nodes(self) -> int:
        """Total tuples (nodes) of A and B."""
        return int(self.m.sum() + self.n.sum())

    @property
    def output(self) -> int:
        """Size of the untruncated join, sum of m * n."""
        return int(np.dot(self.m, self.n))


def components_from_keys(keys_a: Any, keys_b: Any) -> Components:
    """Group two arrays of join keys into components K(m, n), one per distinct key (sorted).

    Keys present on one side only give K(m, 0) or K(0, n); they are kept in the list (they hold
    tuples) but produce no output.
    """
    keys, counts = key_counts(keys_a, keys_b, names=("A", "B"))
    return Components(counts[0], counts[1], keys)


def key_counts(*key_arrays: Any, names: Sequence[str] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Distinct keys of all arrays (sorted) and an (arrays x keys) table of their counts.

    ``names`` label the arrays in error messages (default: relation 1, 2, ...).
    """
    names = names or [f"relation {i + 1}" for i in range(len(key_arrays))]
    arrays = [_key_array(k, f"keys of {name}") for k, name in zip(key_arrays, names)]
    kinds = {_kind(a) for a in arrays if a.size}
    if {"number", "text"} <= kinds:
        raise ShedError("some key arrays hold numbers and others text; convert all keys to one type")
    dtype = next((a.dtype for a in arrays if a.size), np.int64)
    try:
        keys, inverse = np.unique(np.concatenate([a.astype(dtype) if a.size == 0 else a for a in arrays]),
                                  return_inverse=True)
    except TypeError:
        raise ShedError("keys mix types that cannot be compared; convert them to one type") from None
    inverse = inverse.reshape(-1)
    bounds = np.cumsum([0] + [len(a) for a in arrays])
    counts = [np.bincount(inverse[lo:hi], minlength=len(keys)) for lo, hi in zip(bounds[:-1], bounds[1:])]
    return keys, np.array(counts, dtype=np.int64).reshape(len(arrays), len(keys))


def _key_array(keys: Any, what: str) -> np.ndarray:
    arr = np.asarray(keys)
    if arr.ndim != 1:
        raise ShedError(f"{what} must be a one-dimensional array, got shape {arr.shape}")
    if arr.dtype.kind == "f" and arr.size and not np.all(np.isfinite(arr)):
        raise ShedError(f"{what} contain missing or infinite values; drop or fill those rows")
    if arr.dtype.kind == "O" and any(k is None for k in arr.tolist()):
        raise ShedError(f"{what} contain missing values (None); drop or fill those rows")
    return arr


def _kind(arr: np.ndarray) -> str:
    return {"U": "text", "S": "text", "O": "objects"}.get(arr.dtype.kind, "number")


def parse_components(text: str) -> Components:
    """Parse ``"3x2,4x4"`` (m x n pairs separated by commas) into components keyed 0, 1, ..."""
    if not isinstance(text, str) or not text.strip():
        raise ShedError("no components given; write MxN pairs separated by commas, e.g. '3x2,4x4'")
    pairs = []
    for token in text.split(","):
        match = _PAIR.match(token)
        if match is None:
            raise ShedError(f"bad component {token.strip()!r}; write MxN pairs separated by commas, e.g. '3x2,4x4'")
        pair = (int(match[1]), int(match[2]))
        if max(pair) > INT64_MAX:
            raise ShedError(f"component {token.strip()!r} does not fit in 64-bit integers; use sizes below 2^63")
        pairs.append(pair)
    m, n = np.array(pairs, dtype=np.int64).T
    return Components(m, n, np.arange(len(pairs)))


def as_components(obj: Any) -> Components:
    """Accept :class:`Components`, ``"3x2,4x4"`` text, or a sequence of (m, n) / (m, n, key) rows."""
    if isinstance(obj, Components):
        return obj
    if isinstance(obj, str):
        return parse_components(obj)
    try:
        rows = [tuple(row) for row in obj]
    except TypeError:
        raise ShedError(f"components must be (m, n) pairs, (m, n, key) triples or 'MxN,...' text, got {type(obj).__name__}") from None
    widths = {len(row) for row in rows}
    if not widths <= {2, 3} or len(widths) > 1:
        raise ShedError("each component must be an (m, n) pair or an (m, n, key) triple, all of one kind")
    m = [whole_number(row[0], "component size m") for row in rows]
    n = [whole_number(row[1], "component size n") for row in rows]
    keys = [row[2] for row in rows] if widths == {3} else list(range(len(rows)))
    key_arr = np.empty(len(keys), dtype=object)
    key_arr[:] = keys
    return Components(np.array(m, dtype=np.int64), np.array(n, dtype=np.int64), key_arr)


def whole_number(value: Any, name: str) -> int:
    """``value`` as a non-negative whole number (ints, integral floats); otherwise a ShedError
    about the parameter ``name``."""
    if isinstance(value, (bool, np.bool_)):
        raise ShedError(f"{{param}} must be a whole number, got {value!r}", param=name)
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        value = int(value)
    if not isinstance(value, (int, np.integer)):
        raise ShedError(f"{{param}} must be a whole number, got {value!r}", param=name)
    if value < 0:
        raise ShedError(f"{{param}} must be >= 0, got {value}", param=name)
    return int(value)


def fill_in_order(capacity: np.ndarray, amount: int) -> np.ndarray:
    """Spread ``amount`` over slots of the given capacities, first slots first."""
    before = np.cumsum(capacity) - capacity
    return np.clip(amount - before, 0, capacity)


def best_split(m: Any, n: Any, p: Any) -> tuple[np.ndarray, np.ndarray]:
    """Kept (a, b) with a + b = p, a <= m, b <= n maximizing a * b (paper §3.1.1: alternate
    between the partitions, then fill from the larger one). Vectorized; needs 0 <= p <= m + n."""
    m, n, p = (np.asarray(x, dtype=np.int64) for x in (m, n, p))
    half = p // 2
    a_small, b_small = np.minimum(m, half), np.minimum(n, half)
    a = np.where(m >= n, p - b_small, a_small)
    b = np.where(m >= n, b_small, p - a_small)
    return a, b


def component_output(m: Any, n: Any, p: Any) -> np.ndarray:
    """C_(m,n)(p), the paper's closed form (§3.1.1): floor(p/2) * ceil(p/2) while p <= 2 min(m, n),
    else min(m, n) * (p - min(m, n)). Vectorized; needs 0 <= p <= m + n.

    It is convex in p: its increments are ceil(p/2) up to p = 2 min(m, n), then min(m, n).
    """
    m, n, p = (np.asarray(x, dtype=np.int64) for x in (m, n, p))
    s = np.minimum(m, n)
    return np.where(p <= 2 * s, (p // 2) * ((p + 1) // 2), s * (p - s))


def component_gain(m: int, n: int, q: np.ndarray, deleting: bool) -> np.ndarray:
    """Output of K(m, n) when q of its nodes are retained (or, ``deleting``, deleted)."""
    return component_output(m, n, m + n - q if deleting else q)
