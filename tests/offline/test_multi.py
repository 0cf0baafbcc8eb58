"""Multi-relation static shedding (paper §3.1.2): CP-SAT against brute force, the m-approximation bound."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from math import prod

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from shedding.errors import ShedError
from shedding.offline.multi import (
    MultiInstance,
    approximation_ratio,
    counts_from_keys,
    multi_approx,
    multi_exact,
)

TINY = st.integers(1, 3).flatmap(
    lambda values: st.lists(st.lists(st.integers(0, 2), min_size=values, max_size=values), min_size=3, max_size=3)
)


def brute_force(counts, retain) -> int:
    """Best output over every table of retained counts, deliberately naive.

    ``retain`` is one int (overall) or a list with one int per relation."""
    m, values = len(counts), len(counts[0])
    best = -1
    for flat in itertools.product(*[range(c + 1) for row in counts for c in row]):
        kept = [flat[i * values:(i + 1) * values] for i in range(m)]
        sums = [sum(row) for row in kept]
        if (sum(sums) == retain) if isinstance(retain, int) else (sums == list(retain)):
            best = max(best, sum(prod(kept[i][v] for i in range(m)) for v in range(values)))
    return best


def random_budget(counts, rng, overall: bool):
    sizes = [sum(row) for row in counts]
    if overall:
        return int(rng.integers(0, sum(sizes) + 1))
    return [int(rng.integers(0, s + 1)) for s in sizes]


@settings(max_examples=60, deadline=None)
@given(TINY, st.booleans(), st.integers(0, 2**32 - 1))
def test_cpsat_equals_brute_force(counts, overall, seed):
    drop = random_budget(counts, np.random.default_rng(seed), overall)
    sizes = [sum(row) for row in counts]
    retain = sum(sizes) - drop if overall else [s - d for s, d in zip(sizes, drop)]
    result = multi_exact(counts, drop=drop)
    assert result.optimal
    assert result.output == brute_force(counts, retain)
    kept = result.kept
    assert np.all((0 <= kept) & (kept <= np.array(counts)))
    assert (int(kept.sum()) == retain) if overall else (kept.sum(axis=1).tolist() == retain)


@settings(max_examples=60, deadline=None)
@given(TINY, st.integers(0, 2**32 - 1))
def test_keep_is_drop_of_the_rest(counts, seed):
    keep = random_budget(counts, np.random.default_rng(seed), overall=False)
    drop = [sum(row) - k for row, k in zip(counts, keep)]
    assert np.array_equal(multi_approx(counts, keep=keep).kept, multi_approx(counts, drop=drop).kept)
    assert multi_exact(counts, keep=keep).output == multi_exact(counts, drop=drop).output


@settings(max_examples=60, deadline=None)
@given(TINY, st.integers(0, 2**32 - 1))
def test_approx_is_the_papers_independent_selection(counts, seed):
    """Per relation, the approximation's deletions lose exactly p_i, the least any k_i deletions
    from A_i alone can lose (the paper's definition of the algorithm)."""
    drop = random_budget(counts, np.random.default_rng(seed), overall=False)
    approx = multi_approx(counts, drop=drop)
    full = MultiInstance(np.arange(len(counts[0])), counts)
    for i, k in enumerate(drop):
        alone = full.counts.copy()
        alone[i] = approx.kept[i]
        best_alone = full.output - brute_force_single(counts, i, sum(counts[i]) - k)
        assert full.output - int(np.prod(alone, axis=0).sum()) == best_alone


def brute_force_single(counts, i, retain) -> int:
    """Best output when only relation i is truncated to ``retain`` tuples."""
    best = -1
    for kept in itertools.product(*[range(c + 1) for c in counts[i]]):
        if sum(kept) == retain:
            rows = [list(kept) if j == i else row for j, row in enumerate(counts)]
            best = max(best, sum(prod(col) for col in zip(*rows)))
    return best


def test_approximation_stays_within_m_times_optimal_loss():
    rng = np.random.default_rng(2003)
    worst = {3: 1.0, 4: 1.0}
    for trial in range(300):
        m = 3 if trial % 3 else 4
        counts = rng.integers(0, 5, size=(m, int(rng.integers(1, 6)))).tolist()
        drop = random_budget(counts, rng, overall=trial % 2 == 0)
        report = approximation_ratio(counts, drop=drop)
        assert report.exact.optimal
        assert report.approx.loss <= report.bound * report.exact.loss
        assert report.approx.output <= report.exact.output
        worst[m] = max(worst[m], report.loss_ratio)
    print(f"\nworst measured loss ratio (approx / optimal) over 300 instances: {worst}")
    assert worst[3] <= 3 and worst[4] <= 4


def test_overall_budget_bound_is_tight():
    """Dropping 4 tuples overall: the optimum empties value 1 in every relation (loses 2), the
    greedy drops the four tuples of smallest degree, all of relation 1 (loses 6): ratio m = 3."""
    report = approximation_ratio([[3, 2, 2], [1, 1, 2], [2, 1, 4]], drop=4)
    assert (report.approx.loss, report.exact.loss, report.loss_ratio) == (6, 2, 3.0)
    assert report.approx.kept.tolist() == [[1, 0, 2], [1, 1, 2], [2, 1, 4]]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(0, 5), max_size=8), min_size=3, max_size=4))
def test_counts_from_keys_matches_naive_count(key_lists):
    inst = counts_from_keys(*[np.array(k, dtype=np.int64) for k in key_lists])
    counters = [Counter(k) for k in key_lists]
    values = sorted(set().union(*key_lists))
    assert inst.values.tolist() == values
    assert inst.counts.tolist() == [[c[v] for v in values] for c in counters]
    assert inst.output == sum(prod(c[v] for c in counters) for v in values)


def test_result_is_json_ready():
    inst = counts_from_keys(["a", "a", "b"], ["a", "b"], ["a", "b", "b"])
    result = multi_exact(inst, drop=2)
    data = json.loads(json.dumps(result.as_dict()))
    assert data["method"] == "cpsat" and data["optimal"] and data["output"] == result.output
    assert [row["value"] for row in data["rows"]] == ["a", "b"]
    report = json.loads(json.dumps(approximation_ratio(inst, keep=[1, 1, 2]).as_dict()))
    assert report["within_bound"] and report["bound"] == 3


@pytest.mark.parametrize(
    "call, fragment",
    [
        (lambda: multi_approx([[1, 2], [3, 4], [1, 1]]), "give exactly one of drop or keep"),
        (lambda: multi_approx([[1, 2], [3, 4], [1, 1]], drop=1, keep=1), "give exactly one of drop or keep"),
        (lambda: multi_approx([[1, 2], [3, 4], [1, 1]], drop=13), "drop=13 exceeds the 12 tuples"),
        (lambda: multi_approx([[1, 2], [3, 4], [1, 1]], drop=[1, 1]), "lists 2 numbers for 3 relations"),
        (lambda: multi_approx([[1, 2], [3, 4], [1, 1]], keep=[1, 8, 1]), "keep[1]=8 exceeds the 7 tuples of relation 2"),
        (lambda: multi_approx([[1, 2], [3, 4], [1, 1]], drop=-1), "drop must be >= 0"),
        (lambda: multi_exact([[1, 2], [3, 4], [1, 1]], drop=[0, 1.5, 0]), "drop[1] must be a whole number"),
        (lambda: multi_approx([[1, 2]], drop=0), "at least 2 relations"),
        (lambda: multi_approx([1, 2, 3], drop=0), "2-D table"),
        (lambda: multi_approx([[1, -2], [3, 4]], drop=0), "counts must be >= 0"),
        (lambda: multi_approx([[1, 0.5], [3, 4]], drop=0), "whole numbers"),
        (lambda: counts_from_keys([1, 2]), "at least 2 relations"),
        (lambda: counts_from_keys([1, 2], ["a"], [1]), "numbers and others text"),
    ],
)
def test_bad_input_raises_one_line_shed_error(call, fragment):
    with pytest.raises(ShedError) as err:
        call()
    message = str(err.value)
    assert fragment in message and "\n" not in message
