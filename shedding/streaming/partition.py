"""Sharding the window join by key: which shard a key goes to, and each shard's memory.

Spark groups the unioned streams by ``pmod(hash(key), P)``: Spark's Murmur3 hash of a long
(``Murmur3_x86_32.hashLong`` with seed 42), which is stable across runs, versions of this package
and cluster layouts. :func:`shard_of` computes the same function in numpy, so that a shard's keys
are known outside Spark (to run the simulator on them, or to split a frequency table).

An equi-join never pairs tuples of different keys, so P shards are P independent window joins.
The memory is split over them (:func:`shard_budgets`): M_R and M_S are each divided as evenly as
possible, the first shards taking the remainder, and shard i holds at most M_R,i + M_S,i tuples.
"""

from __future__ import annotations

import numpy as np

from shedding.errors import ShedError
from shedding.model import Memory

_SEED = 42  # the seed of Spark's hash()
_C1, _C2 = np.uint32(0xCC9E2D51), np.uint32(0x1B873593)


def _rotl(x: np.ndarray, r: int) -> np.ndarray:
    return (x << np.uint32(r)) | (x >> np.uint32(32 - r))


def _mix_k1(k1: np.ndarray) -> np.ndarray:
    return _rotl(k1 * _C1, 15) * _C2


def _mix_h1(h1: np.ndarray, k1: np.ndarray) -> np.ndarray:
    return _rotl(h1 ^ k1, 13) * np.uint32(5) + np.uint32(0xE6546B64)


def spark_hash(keys: np.ndarray) -> np.ndarray:
    """Spark SQL's ``hash(key)`` of 64-bit integer keys, as int32 (Murmur3_x86_32.hashLong)."""
    k = np.asarray(keys, dtype=np.int64).view(np.uint64)
    low = (k & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    high = (k >> np.uint64(32)).astype(np.uint32)
    with np.errstate(over="ignore"):
        h = _mix_h1(np.full(low.shape, _SEED, dtype=np.uint32), _mix_k1(low))
        h = _mix_h1(h, _mix_k1(high))
        h ^= np.uint32(8)
        h ^= h >> np.uint32(16)
        h *= np.uint32(0x85EBCA6B)
        h ^= h >> np.uint32(13)
        h *= np.uint32(0xC2B2AE35)
        h ^= h >> np.uint32(16)
    return h.view(np.int32)


def shard_of(keys: np.ndarray, shards: int) -> np.ndarray:
    """The shard of each key: Spark's ``pmod(hash(key), shards)``."""
    return np.mod(spark_hash(keys).astype(np.int64), check_shards(shards))


def check_shards(shards: object) -> int:
    """P >= 1 shards."""
    if isinstance(shards, bool) or not isinstance(shards, (int, np.integer)) or shards < 1:
        raise ShedError(f"shards must be an integer >= 1, got {shards!r}")
    return int(shards)


def _even(total: int, parts: int) -> list[int]:
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


def shard_budgets(memory: int | Memory, memory_split: tuple[int, int] | None, shards: int) -> list[tuple[int, int, int]]:
    """(M_i, M_R,i, M_S,i) per shard: M_R and M_S each split evenly, remainders to the first shards
    (``memory`` M, or a checked :class:`~shedding.model.Memory`, as a spec's :attr:`limits`)."""
    budget = Memory.of(memory, memory_split)
    m_r, m_s = budget.split
    p = check_shards(shards)
    return [(r + s, r, s) for r, s in zip(_even(m_r, p), _even(m_s, p))]
