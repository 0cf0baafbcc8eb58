"""Static k-truncation of a two-relation equi-join (Das, Gehrke, Riedewald, SIGMOD 2003, §3.1).

The join graph of A and B on an equality predicate is a disjoint union of complete bipartite
*Kuratowski components* K(m, n): m tuples of A and n tuples of B share one join value, and the
component produces m * n output tuples. Dropping a tuple deletes its node and every incident edge.

* **keep / drop** (paper §3.1, primal and dual): retain exactly ``keep`` of the nodes (drop the
  rest) so that the retained output is as large as possible.
* **drop_a / drop_b** (the paper's k_A, k_B variant): drop exactly ``drop_a`` tuples of A and
  ``drop_b`` of B. Dropping more never adds output, so "at most" has the same optimum; the result
  always drops exactly the requested numbers.

Within one component, retaining p nodes yields at most
``C_(m,n)(p) = max{a * b : a + b = p, a <= m, b <= n}``, reached by the most balanced split
(:func:`best_split`). Components with m = 0 or n = 0 (keys on one side only) produce nothing: their
tuples are dropped first, for free, and retained only when ``keep`` exceeds the useful nodes.

Every solver works on whichever of the dual (retain B nodes) or primal (delete B nodes) form has
the smaller budget B (per relation for the k_A, k_B variant); the paper notes the two are
equivalent (§3.1), and the small side keeps the tables small when only a few tuples are shed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from shedding.errors import ShedError
from shedding.model import INT64_MAX

NEG = np.int64(-(2**62))  # "infeasible" in the knapsack tables; every real value is > NEG // 2
MAX_OUTPUT = 2**60  # keeps every sum of gains far from NEG and from int64 overflow
MAX_CELLS = 100_000_000  # largest back-tracking table (cells) a solver may allocate
_PAIR = re.compile(r"^\s*(\d+)\s*[xX]\s*(\d+)\s*$")


# ----------------------------------------------------------------------------- components


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
    m = [_whole(row[0], "component size m") for row in rows]
    n = [_whole(row[1], "component size n") for row in rows]
    keys = [row[2] for row in rows] if widths == {3} else list(range(len(rows)))
    key_arr = np.empty(len(keys), dtype=object)
    key_arr[:] = keys
    return Components(np.array(m, dtype=np.int64), np.array(n, dtype=np.int64), key_arr)


def _whole(value: Any, name: str) -> int:
    """A non-negative whole number (ints, integral floats); ShedError otherwise."""
    if isinstance(value, (bool, np.bool_)):
        raise ShedError(f"{name} must be a whole number, got {value!r}")
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        value = int(value)
    if not isinstance(value, (int, np.integer)):
        raise ShedError(f"{name} must be a whole number, got {value!r}")
    if value < 0:
        raise ShedError(f"{name} must be >= 0, got {value}")
    return int(value)


# ----------------------------------------------------------------------------- C_(m,n)(p)


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


# ----------------------------------------------------------------------------- results


@dataclass(frozen=True)
class StaticResult:
    """An optimal static truncation: tuples of A and B kept in every component.

    ``method`` is the algorithm that ran (``"fast"`` or ``"dp"``), ``problem`` is ``"keep"`` (k
    nodes overall) or ``"drop_ab"`` (k_A, k_B variant).
    """

    method: str
    problem: str
    components: Components
    kept_a: np.ndarray
    kept_b: np.ndarray

    @property
    def output(self) -> int:
        """Retained join output, sum of kept_a * kept_b."""
        return int(np.dot(self.kept_a, self.kept_b))

    @property
    def kept(self) -> int:
        return int(self.kept_a.sum() + self.kept_b.sum())

    def summary(self) -> dict:
        """The headline figures (JSON-ready)."""
        comps, total = self.components, self.components.output
        return {
            "method": self.method,
            "problem": self.problem,
            "components": len(comps),
            "tuples_a": int(comps.m.sum()),
            "tuples_b": int(comps.n.sum()),
            "kept_a": int(self.kept_a.sum()),
            "kept_b": int(self.kept_b.sum()),
            "dropped_a": int(comps.m.sum() - self.kept_a.sum()),
            "dropped_b": int(comps.n.sum() - self.kept_b.sum()),
            "output": self.output,
            "total_output": total,
            "retained_fraction": self.output / total if total else 1.0,
        }

    def rows(self) -> list[dict]:
        """One row per component: key, m, n, kept_a, kept_b, output (JSON-ready)."""
        return [
            {"key": _plain(key), "m": m, "n": n, "kept_a": a, "kept_b": b, "output": a * b}
            for (m, n, key), a, b in zip(self.components, self.kept_a.tolist(), self.kept_b.tolist())
        ]

    def as_dict(self) -> dict:
        """``summary()`` plus the per-component ``rows()`` under ``"rows"``."""
        return {**self.summary(), "rows": self.rows()}


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python value (for JSON)."""
    return value.item() if isinstance(value, np.generic) else value


# ----------------------------------------------------------------------------- keep k nodes


def best_keep_dp(components: Any, keep: int) -> StaticResult:
    """The paper's dynamic program (§3.1.1): retain ``keep`` nodes maximizing the retained output.

    T(i, j) = max_p T(i-1, j-p) + C_i(p): one row per component, each row a max-plus convolution
    vectorized over j (a Python loop over p only). Row i is limited to j <= nodes of the first i
    components, so every cell is feasible. It runs on the smaller of the dual (retain B = keep
    useful nodes) and primal (delete B) forms, in O(B * sum_i min(N_i, B)) <= O(c B^2) time and
    O(c B) memory for the back-tracking table.
    """
    return _solve_keep(components, keep, "dp", _dp_choose)


def best_keep_fast(components: Any, keep: int) -> StaticResult:
    """Same optimum as :func:`best_keep_dp`, by knapsack over component shapes.

    **Exchange argument.** Let g_i(q) be the output of component i as a function of its budget
    use q in 0..N_i (N_i = m_i + n_i): g_i = C_i when retaining, q -> C_i(N_i - q) when deleting.
    Both are convex (C_i has nondecreasing increments ceil(p/2), then min(m_i, n_i)). Suppose an
    optimal solution has two partial components i, j (0 < q_i < N_i, 0 < q_j < N_j). Moving t
    units from j to i keeps the budget; phi(t) = g_i(q_i + t) + g_j(q_j - t) is convex on the
    integer interval where both stay within bounds, which contains 0. A convex function attains
    its maximum over an interval at an endpoint, and at either endpoint i or j is empty or full.
    So phi(endpoint) >= phi(0) with one partial component fewer; repeating, some optimal
    solution has every component full or empty except at most one.

    **Algorithm.** Full/empty choices form a 0/1 knapsack with exact weight (weights N_i, gains
    m_i n_i, or -m_i n_i when deleting). Identical shapes {min(m,n), max(m,n)} are grouped and
    their count c_g split into binary bundles 1, 2, 4, ... (a bounded knapsack: exact for
    identical items). The partial component is handled by one designated copy per shape: the
    knapsack *of everything but that copy* is computed for every shape at once by divide and
    conquer over shapes (each half is added to the table passed to the other half), and at the
    leaf the copy takes every q in 0..N_g (q = 0 or N_g covers "no partial"). Cost: O(B * b *
    log d) for d shapes with b bundles in all (b <= c, so O(c B log c) in the worst case, much
    less when shapes repeat), plus one tracked knapsack to recover the choice.

    A plain DP with a "partial used" flag would need a convex max-plus convolution per component,
    which costs O(B N_i) again; the designated-copy decomposition avoids it.
    """
    return _solve_keep(components, keep, "fast", _fast_choose)


_Chooser = Callable[[np.ndarray, np.ndarray, int, bool], np.ndarray]


def _solve_keep(components: Any, keep: int, method: str, choose: _Chooser) -> StaticResult:
    comps = as_components(components)
    keep = _whole(keep, "--keep")
    if keep > comps.nodes:
        raise ShedError(f"--keep {keep} exceeds the {comps.nodes} tuples in the components; use --keep <= {comps.nodes}")
    m, n = comps.m, comps.n
    useful = (m > 0) & (n > 0)
    sizes = m + n
    retained = np.zeros(len(comps), dtype=np.int64)
    useful_nodes = int(sizes[useful].sum())
    keep_useful = min(keep, useful_nodes)
    deleting = useful_nodes - keep_useful < keep_useful
    budget = useful_nodes - keep_useful if deleting else keep_useful
    if useful.any():
        use = choose(m[useful], n[useful], budget, deleting)
        retained[useful] = sizes[useful] - use if deleting else use
    retained[~useful] = _fill(sizes[~useful], keep - keep_useful)
    kept_a, kept_b = best_split(m, n, retained)
    return StaticResult(method, "keep", comps, kept_a, kept_b)


def _fill(capacity: np.ndarray, amount: int) -> np.ndarray:
    """Spread ``amount`` over slots of the given capacities, first slots first."""
    before = np.cumsum(capacity) - capacity
    return np.clip(amount - before, 0, capacity)


def _gain(m: int, n: int, q: np.ndarray, deleting: bool) -> np.ndarray:
    """Output of K(m, n) when q of its nodes are retained (or deleted)."""
    return component_output(m, n, m + n - q if deleting else q)


def _check_cells(cells: int, what: str) -> None:
    if cells > MAX_CELLS:
        raise ShedError(f"the {what} needs {cells:,} table cells (limit {MAX_CELLS:,}); shed fewer tuples or split the input")


def _index_dtype(largest: int) -> np.dtype:
    return np.min_scalar_type(max(int(largest), 0))


def _dp_choose(m: np.ndarray, n: np.ndarray, budget: int, deleting: bool) -> np.ndarray:
    """Paper DP over components in input order; returns the budget use q_i of each component."""
    sizes = m + n
    return dp_over_tables([_gain(int(mi), int(ni), np.arange(min(int(mi + ni), budget) + 1), deleting)
                           for mi, ni in zip(m.tolist(), n.tolist())], sizes, budget)


def dp_over_tables(gains: Sequence[np.ndarray], sizes: np.ndarray, budget: int) -> np.ndarray:
    """The paper's DP (§3.1.1) T(i, j) = max_q T(i-1, j-q) + g_i(q) for any per-component gain
    tables ``gains[i][q]``, q = 0..min(sizes[i], budget); returns the budget use q_i of each
    component (using exactly ``budget`` in all, which needs ``budget <= sum(sizes)``)."""
    sizes = np.asarray(sizes, dtype=np.int64)
    reach = np.minimum(np.cumsum(sizes), budget)  # row i covers j = 0..reach[i]
    _check_cells(int(reach.sum()) + len(sizes), "paper DP")
    dtype = _index_dtype(min(int(sizes.max()), budget) if len(sizes) else 0)
    table = np.zeros(1, dtype=np.int64)  # T(0, 0) = 0
    choices = []
    for i, size in enumerate(sizes.tolist()):
        qmax = min(size, budget)
        row = np.full(int(reach[i]) + 1, NEG, dtype=np.int64)
        choice = np.zeros(len(row), dtype=dtype)
        for q in range(qmax + 1):
            hi = min(len(row), q + len(table))  # j - q must index table
            cand = table[: hi - q] + gains[i][q]
            seg = row[q:hi]
            np.copyto(choice[q:hi], q, where=cand > seg)
            np.maximum(seg, cand, out=seg)
        table = row
        choices.append(choice)
    use = np.zeros(len(sizes), dtype=np.int64)
    j = budget
    for i in range(len(sizes) - 1, -1, -1):
        use[i] = choices[i][j]
        j -= int(use[i])
    return use


def _bundles(count: int) -> list[int]:
    """Binary split of a count (1, 2, 4, ..., rest): every 0..count is a sum of a sub-multiset."""
    out, size = [], 1
    while count > 0:
        take = min(size, count)
        out.append(take)
        count -= take
        size *= 2
    return out


def _add_copies(table: np.ndarray, weight: int, gain: int, count: int) -> np.ndarray:
    """Exact-weight knapsack table after adding ``count`` identical 0/1 items."""
    sizes = [size for size in _bundles(count) if size * weight < len(table)]
    if not sizes:
        return table
    table = table.copy()
    for size in sizes:
        w = size * weight  # the right-hand side is evaluated before the write: each bundle once
        np.maximum(table[w:], table[:-w] + size * gain, out=table[w:])
    return table


def _fast_choose(m: np.ndarray, n: np.ndarray, budget: int, deleting: bool) -> np.ndarray:
    """Exact solver of :func:`best_keep_fast`; returns the budget use q_i of each component."""
    lo, hi = np.minimum(m, n), np.maximum(m, n)
    shapes, inverse, counts = np.unique(np.stack([lo, hi], 1), axis=0, return_inverse=True, return_counts=True)
    inverse = inverse.reshape(-1)
    weights = shapes.sum(1)
    full = shapes.prod(1) * (-1 if deleting else 1)  # gain of a fully used copy (offset form)
    _check_cells(sum(len(_bundles(int(c))) for c in counts) * (budget + 1), "fast knapsack")
    best = [NEG, 0, 0]  # value, shape, q of the designated copy

    def leaf(g: int, table: np.ndarray) -> None:
        table = _add_copies(table, int(weights[g]), int(full[g]), int(counts[g]) - 1)
        q = np.arange(min(int(weights[g]), budget) + 1)
        base = table[budget - q]
        partial = _gain(int(shapes[g, 0]), int(shapes[g, 1]), q, deleting)
        vals = np.where(base > NEG // 2, base + partial - (shapes[g].prod() if deleting else 0), NEG)
        k = int(np.argmax(vals))
        if vals[k] > best[0]:
            best[:] = [vals[k], g, int(q[k])]

    def solve(first: int, last: int, table: np.ndarray) -> None:
        if last - first == 1:
            leaf(first, table)
            return
        mid = (first + last) // 2
        for lo_g, hi_g, (a, b) in ((first, mid, (mid, last)), (mid, last, (first, mid))):
            sub = table
            for g in range(a, b):
                sub = _add_copies(sub, int(weights[g]), int(full[g]), int(counts[g]))
            solve(lo_g, hi_g, sub)

    start = np.full(budget + 1, NEG, dtype=np.int64)
    start[0] = 0
    solve(0, len(shapes), start)
    _, g_star, q_star = best
    rest = counts.copy()
    rest[g_star] -= 1
    n_full = _track_knapsack(weights, full, rest, budget - q_star)
    # the first n_full[g] components of shape g are full, the next one of g_star is the partial one
    order = np.argsort(inverse, kind="stable")
    rank = np.empty(len(inverse), dtype=np.int64)
    rank[order] = np.arange(len(inverse)) - np.repeat(np.cumsum(counts) - counts, counts)
    use = np.where(rank < n_full[inverse], weights[inverse], 0)
    use[(inverse == g_star) & (rank == n_full[g_star])] = q_star
    return use


def _track_knapsack(weights: np.ndarray, gains: np.ndarray, counts: np.ndarray, target: int) -> np.ndarray:
    """Bounded exact-weight knapsack reaching ``target``; returns the full copies used per shape."""
    table = np.full(target + 1, NEG, dtype=np.int64)
    table[0] = 0
    steps = []  # (shape, bundle size, took-mask)
    for g, (w, gain, count) in enumerate(zip(weights.tolist(), gains.tolist(), counts.tolist())):
        for size in _bundles(count):
            span = size * w
            if span <= target:
                cand = table[: len(table) - span] + size * gain
                took = np.zeros(len(table), dtype=bool)
                took[span:] = cand > table[span:]
                np.maximum(table[span:], cand, out=table[span:])
                steps.append((g, size, took))
    used = np.zeros(len(weights), dtype=np.int64)
    j = target
    for g, size, took in reversed(steps):
        if took[j]:
            used[g] += size
            j -= size * int(weights[g])
    return used


# ----------------------------------------------------------------------------- k_A, k_B variant


def best_drop_ab_dp(components: Any, drop_a: int, drop_b: int) -> StaticResult:
    """The k_A, k_B variant (§3.1.1, last paragraph): drop exactly ``drop_a`` tuples of A and
    ``drop_b`` of B maximizing the retained output, by the paper's 3-D table T(i, x, y).

    Tuples of one-sided components are dropped first (they cost no output). Each side is indexed
    by the smaller of its retained and deleted counts (U_A, U_B); row i is a 2-D max-plus
    convolution with the table a * b of the component, vectorized over (x, y): O(sum_i m_i n_i *
    U_A U_B) time in the worst case.

    No faster exact method is provided. With b fixed, the objective sum a_i b_i is linear in a,
    so a greedy fill shows some optimum has at most one partial component per side; but the
    partial components (possibly one and the same, partial on both sides) still need a 2-D
    convolution per candidate, so that structure does not beat this DP in the worst case.
    """
    comps = as_components(components)
    drop_a, drop_b = _whole(drop_a, "--drop-a"), _whole(drop_b, "--drop-b")
    m, n = comps.m, comps.n
    for name, value, total in (("--drop-a", drop_a, int(m.sum())), ("--drop-b", drop_b, int(n.sum()))):
        if value > total:
            side = name[-1].upper()
            raise ShedError(f"{name} {value} exceeds the {total} tuples of {side}; use {name} <= {total}")
    useful = (m > 0) & (n > 0)
    kept_a, kept_b = m.copy(), n.copy()
    # one-sided tuples first: the rest of each drop goes to the useful components
    free_a, free_b = (n == 0) & (m > 0), (m == 0) & (n > 0)
    kept_a[free_a] -= _fill(m[free_a], drop_a)
    kept_b[free_b] -= _fill(n[free_b], drop_b)
    rest_a = drop_a - int(m[free_a].sum() - kept_a[free_a].sum())
    rest_b = drop_b - int(n[free_b].sum() - kept_b[free_b].sum())
    if useful.any():
        kept_a[useful], kept_b[useful] = _dp_ab(m[useful], n[useful], rest_a, rest_b)
    return StaticResult("dp", "drop_ab", comps, kept_a, kept_b)


def _dp_ab(m: np.ndarray, n: np.ndarray, drop_a: int, drop_b: int) -> tuple[np.ndarray, np.ndarray]:
    """3-D DP over (component, x, y); x, y count deleted or retained tuples, whichever is fewer."""
    del_a, del_b = drop_a <= int(m.sum()) - drop_a, drop_b <= int(n.sum()) - drop_b
    ua = drop_a if del_a else int(m.sum()) - drop_a
    ub = drop_b if del_b else int(n.sum()) - drop_b
    reach_a, reach_b = np.minimum(np.cumsum(m), ua), np.minimum(np.cumsum(n), ub)
    _check_cells(int(((reach_a + 1) * (reach_b + 1)).sum()), "k_A, k_B DP")
    dtype = _index_dtype((min(int(m.max()), ua) + 1) * (min(int(n.max()), ub) + 1))
    table = np.zeros((1, 1), dtype=np.int64)
    choices = []
    for i, (mi, ni) in enumerate(zip(m.tolist(), n.tolist())):
        us, vs = np.arange(min(mi, ua) + 1), np.arange(min(ni, ub) + 1)
        gains = np.outer(mi - us if del_a else us, ni - vs if del_b else vs)
        row = np.full((int(reach_a[i]) + 1, int(reach_b[i]) + 1), NEG, dtype=np.int64)
        choice = np.zeros(row.shape, dtype=dtype)
        for u in us.tolist():
            hx = min(row.shape[0], u + table.shape[0])
            for v in vs.tolist():
                hy = min(row.shape[1], v + table.shape[1])
                cand = table[: hx - u, : hy - v] + gains[u, v]
                seg = row[u:hx, v:hy]
                np.copyto(choice[u:hx, v:hy], u * len(vs) + v, where=cand > seg)
                np.maximum(seg, cand, out=seg)
        table = row
        choices.append((choice, len(vs)))
    use_a, use_b = np.zeros(len(m), dtype=np.int64), np.zeros(len(m), dtype=np.int64)
    x, y = ua, ub
    for i in range(len(m) - 1, -1, -1):
        choice, width = choices[i]
        use_a[i], use_b[i] = divmod(int(choice[x, y]), width)
        x, y = x - int(use_a[i]), y - int(use_b[i])
    return (m - use_a if del_a else use_a), (n - use_b if del_b else use_b)


# ----------------------------------------------------------------------------- dispatcher


def static_truncation(
    components: Any,
    keep: int | None = None,
    drop: int | None = None,
    drop_a: int | None = None,
    drop_b: int | None = None,
    method: str = "fast",
) -> StaticResult:
    """Optimal static load shedding for a two-relation equi-join (paper §3.1).

    Give exactly one of ``keep`` (tuples to retain overall), ``drop`` (tuples to delete overall)
    or ``drop_a``/``drop_b`` (per relation; a missing one means 0). ``method`` is ``"fast"``
    (:func:`best_keep_fast`) or ``"dp"`` (:func:`best_keep_dp`, the paper's DP); the k_A, k_B
    variant has only the DP, so it always runs :func:`best_drop_ab_dp` and reports ``"dp"``.
    ``components`` may be :class:`Components`, ``"MxN,..."`` text or (m, n[, key]) rows.
    """
    if method not in ("fast", "dp"):
        raise ShedError(f"unknown --method {method!r}; use fast or dp")
    comps = as_components(components)
    given = [name for name, value in (("--keep", keep), ("--drop", drop)) if value is not None]
    if drop_a is not None or drop_b is not None:
        given.append("--drop-a/--drop-b")
    if len(given) != 1:
        which = " and ".join(given) if given else "nothing"
        raise ShedError(f"give exactly one of --keep, --drop or --drop-a/--drop-b (got {which})")
    if given == ["--drop-a/--drop-b"]:
        return best_drop_ab_dp(comps, 0 if drop_a is None else drop_a, 0 if drop_b is None else drop_b)
    if drop is not None:
        drop = _whole(drop, "--drop")
        if drop > comps.nodes:
            raise ShedError(f"--drop {drop} exceeds the {comps.nodes} tuples in the components; use --drop <= {comps.nodes}")
        keep = comps.nodes - drop
    return (best_keep_fast if method == "fast" else best_keep_dp)(comps, keep)
