"""``shed explain``: where an online policy loses against the offline optimum, and why.

Both schedules come out of the existing engines: the policy's from :func:`~shedding.online.simulate`
(the §3.3 policies and ours), the reference's from :func:`~shedding.offline.solve_opt` (OPT or OPTV,
Das, Gehrke, Riedewald 2003, §3.2) replayed through the same join operator, or EXACT (§2.1). From
their produced pairs and per-tuple schedules (admitted, left) this module computes, per key and
per time bucket, the outputs one produced and the other did not, the tuples one kept and the other
did not, the memory each spent on each key, and why each lost tuple was lost:

* ``never admitted``: the earlier member of a lost pair never entered the policy's memory;
* ``evicted before partners came``: it entered, but left before its partner arrived;
* ``kept but never matched``: the policy held the tuple, it produced nothing and lost nothing
  (memory the policy spent for no output, which is what pushed the lost tuples out).

A pair is produced iff its earlier member is in memory when the later one arrives (same-time pairs
always are: the join step of §2.1 joins every arrival with its batch), so the first two reasons
partition the lost tuples, and the per-key differences of outputs sum to the difference of the
totals.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from shedding.errors import ShedError
from shedding.exact import exact_pairs, partner_times
from shedding.model import Memory, Schedule, Workload
from shedding.offline.opt import DEFAULT_MAX_GRAPH_BYTES, check_size, solve_opt
from shedding.online import Reference, simulate
from shedding.online.policies import get_policy
from shedding.online.tuning import HazardTuning

AGAINST = ("opt", "optv", "exact")
REASONS = ("never admitted", "evicted before partners came", "kept but never matched")
#: keys drawn one by one in the memory composition; the rest are summed as "other keys"
COMPOSITION_KEYS = 8


@dataclass
class Side:
    """One schedule and what it produced: ``pairs`` as codes ``r * n + s`` (sorted)."""

    name: str
    outputs: int
    schedule: Schedule
    codes: np.ndarray


@dataclass
class Explanation:
    """The comparison of ``policy`` with ``reference`` on one workload.

    ``keys``: one row per key, ranked by net outputs lost (most first); ``cells``: per key and time
    bucket (non-zero rows only) the outputs lost and gained and the tuples kept by one only;
    ``memory``: mean tuples held per time bucket and key group, for both schedules; ``gap``: the
    cumulative outputs of both over time; ``tuples``: the reason of every lost or wasted tuple.
    """

    summary: dict
    keys: pd.DataFrame
    cells: pd.DataFrame
    memory: pd.DataFrame
    gap: pd.DataFrame
    tuples: pd.DataFrame
    edges: np.ndarray = field(repr=False)

    def as_dict(self, top: int | None = None) -> dict:
        """The JSON document of ``shed explain --json`` (``top`` limits the key table)."""
        keys = self.keys if top is None else self.keys.head(top)
        return {"summary": self.summary,
                "buckets": [[int(a), int(b) - 1] for a, b in zip(self.edges[:-1], self.edges[1:])],
                "keys": _records(keys), "cells": _records(self.cells), "memory": _records(self.memory),
                "gap": _records(self.gap)}


def _records(frame: pd.DataFrame) -> list[dict]:
    return [{k: (v.item() if isinstance(v, np.generic) else v) for k, v in row.items()}
            for row in frame.to_dict(orient="records")]


def default_against(policy: str) -> str:
    """OPT for a fixed-split policy, OPTV for a variable one (the optimum of the same constraint)."""
    return "optv" if get_policy(policy).variable else "opt"


def check_request(policy: str, against: str | None, buckets: int) -> tuple[str, str]:
    """The policy and reference names if they are valid (before any data is read)."""
    name = policy.strip().lower()
    if name in ("exact", "opt", "optv") or "schedule" in name:
        raise ShedError(f"{{param}} {policy!r} is a reference, not an online policy; give one of the online "
                        "policies (e.g. prob) and name the reference as the one to compare against", param="policy")
    get_policy(name)
    against = default_against(name) if against is None else against.strip().lower()
    if against not in AGAINST:
        raise ShedError(f"unknown {{param}} {against!r}; choose opt, optv or exact", param="against")
    if isinstance(buckets, bool) or not isinstance(buckets, (int, np.integer)) or not 1 <= buckets <= 1000:
        raise ShedError(f"{{param}} must be an integer from 1 to 1000, got {buckets!r}", param="buckets")
    return name, against


def explain(wl: Workload, policy: str, memory: int | Memory, *, against: str | None = None,
            memory_split: tuple[int, int] | None = None, estimator: str | None = None, decay: float = 1.0,
            seed: int = 0, buckets: int = 40, max_graph_bytes: int = DEFAULT_MAX_GRAPH_BYTES,
            group: str | Sequence[str] | None = None, tuning: HazardTuning | str | None = None) -> Explanation:
    """Compare ``policy`` (with ``memory`` tuples) with ``against`` (opt, optv or exact; default the
    optimum of the policy's own split) on ``wl``, in ``buckets`` time buckets. ``estimator`` (None:
    the workload's default), ``group`` (HAZARD's payload column or columns) and ``tuning`` (its
    learner) as for :func:`~shedding.online.simulator.simulate`.

    Refuses up front (before any run) a workload whose OPT network would exceed ``max_graph_bytes``.
    """
    policy, against = check_request(policy, against, buckets)
    budget = Memory.of(memory, memory_split, wl.bounds)  # once: simulate and the reference take it as it is
    m = budget.total
    if against != "exact":
        check_size(wl, "variable" if against == "optv" else "fixed", max_graph_bytes=max_graph_bytes)
    ref = Reference.of(wl)
    run = simulate(wl, policy, budget, estimator=estimator, decay=decay, seed=seed,
                   pairs=True, reference=ref, group=group, tuning=tuning)
    mine = Side(policy, run.outputs, run.schedule, _codes(run.pairs, len(wl)))
    other = _reference(wl, against, budget, ref, max_graph_bytes)
    ex = compare_schedules(wl, mine, other, buckets, memory=m)
    # what produced the policy's schedule, as simulate's rows say it
    ran = run.params["estimator"]
    ex.summary.update(estimator=ran, decay=decay if ran == "online" else None, seed=seed,
                      group=run.params.get("group"), tuning=HazardTuning.of(tuning).spec or None,
                      range=None if wl.range is None else list(wl.range), group_choice=run.group_choice)
    return ex


def _codes(pairs: np.ndarray, n: int) -> np.ndarray:
    return np.sort(pairs[:, 0].astype(np.int64) * n + pairs[:, 1])


def _reference(wl: Workload, against: str, budget: Memory, ref: Reference, max_graph_bytes: int) -> Side:
    """EXACT's pairs and keep-everything schedule, or OPT's / OPTV's schedule replayed for its pairs
    (``budget`` checked already)."""
    if against == "exact":
        last = np.maximum(partner_times(wl)[1], wl.time)  # held to its range's end (a + w - 1)
        keep = Schedule(np.ones(len(wl), dtype=bool), last)
        return Side("exact", ref.exact, keep, _codes(exact_pairs(wl, ref.ks), len(wl)))
    variable = against == "optv"
    opt = solve_opt(wl, budget, None, allocation="variable" if variable else "fixed", max_graph_bytes=max_graph_bytes)
    replay = simulate(wl, f"{against}-schedule", budget, schedule=opt.schedule, pairs=True, reference=ref)
    return Side(against, opt.outputs, opt.schedule, _codes(replay.pairs, len(wl)))


def bucket_edges(wl: Workload, buckets: int) -> np.ndarray:
    """``buckets`` (or fewer, one per time at most) integer time buckets ``[e_i, e_{i+1})`` covering the
    arrivals and the last window."""
    if len(wl) == 0:
        return np.array([0, 1], dtype=np.int64)
    lo, hi = int(wl.time[0]), int(wl.time[-1]) + 1
    return np.unique(np.linspace(lo, hi, buckets + 1).round().astype(np.int64))


def _bucket(edges: np.ndarray, t: np.ndarray) -> np.ndarray:
    return np.clip(np.searchsorted(edges, t, side="right") - 1, 0, len(edges) - 2)


def _pair_table(wl: Workload, codes: np.ndarray) -> pd.DataFrame:
    """Per pair: r, s, its key, when it was produced and its earlier member (the one that had to be held)."""
    n = max(len(wl), 1)
    r, s = codes // n, codes % n
    tr, ts = wl.time[r], wl.time[s]
    return pd.DataFrame({"r": r, "s": s, "key": wl.key[r], "produced": np.maximum(tr, ts),
                         "earlier": np.where(tr < ts, r, s), "same_time": tr == ts})


def held_steps(wl: Workload, schedule: Schedule, edges: np.ndarray) -> np.ndarray:
    """Tuple-steps each tuple spends in memory inside each bucket, ``(n, buckets)``: a tuple admitted at
    ``a`` is held after admission at every step ``a <= t < left`` (it leaves during step ``left``)."""
    a = wl.time.astype(np.float64)[:, None]
    d = np.where(schedule.admitted, schedule.left - wl.time, 0).astype(np.float64)[:, None]
    cum = np.clip(edges[None, :] - a, 0.0, d)  # steps held before each edge
    return np.diff(cum, axis=1)


def compare_schedules(wl: Workload, mine: Side, other: Side, buckets: int, memory: int) -> Explanation:
    """The explanation of ``mine`` against ``other`` (see :func:`explain`), from their pairs and schedules."""
    edges = bucket_edges(wl, buckets)
    n_b = len(edges) - 1
    keys, rank = np.unique(wl.key, return_inverse=True)
    lost = _pair_table(wl, np.setdiff1d(other.codes, mine.codes, assume_unique=True))
    gained = _pair_table(wl, np.setdiff1d(mine.codes, other.codes, assume_unique=True))
    if lost.same_time.any() or gained.same_time.any():  # same-time pairs are produced whatever is kept
        raise AssertionError("a same-time pair differs between two schedules")
    n_keys = len(keys)

    def per_key_bucket(frame: pd.DataFrame, time_col: str) -> np.ndarray:
        out = np.zeros((n_keys, n_b), dtype=np.int64)
        if len(frame):
            kr = np.searchsorted(keys, frame["key"].to_numpy())
            np.add.at(out, (kr, _bucket(edges, frame[time_col].to_numpy())), 1)
        return out

    lost_kb, gained_kb = per_key_bucket(lost, "produced"), per_key_bucket(gained, "produced")
    adm_m, adm_o = mine.schedule.admitted, other.schedule.admitted
    only = {}
    for name, mask in (("kept_policy_only", adm_m & ~adm_o), ("kept_reference_only", adm_o & ~adm_m)):
        only[name] = np.zeros((n_keys, n_b), dtype=np.int64)
        np.add.at(only[name], (rank[mask], _bucket(edges, wl.time[mask])), 1)

    tuples = lost_and_wasted(wl, mine, lost)
    held_m = held_steps(wl, mine.schedule, edges)
    held_o = held_steps(wl, other.schedule, edges)
    key_rows = _key_table(wl, keys, rank, lost, gained, tuples, held_m, held_o, mine, other)
    cell_rows = [{"key": keys[k].item(), "bucket": int(b), "lost": int(lost_kb[k, b]), "gained": int(gained_kb[k, b]),
                  "kept_policy_only": int(only["kept_policy_only"][k, b]),
                  "kept_reference_only": int(only["kept_reference_only"][k, b])}
                 for k, b in zip(*np.nonzero(lost_kb + gained_kb + only["kept_policy_only"]
                                             + only["kept_reference_only"]))]
    cells = pd.DataFrame(cell_rows, columns=["key", "bucket", "lost", "gained", "kept_policy_only",
                                             "kept_reference_only"])
    labels = wl.meta.get("key_labels")
    if labels is not None:  # text keys (and the flights' tail numbers) as the data names them
        for frame in (key_rows, cells):
            frame.insert(1, "label", [str(labels[k]) for k in frame.key])
    memory_frame = _composition(wl, keys, rank, key_rows, edges, {mine.name: held_m, other.name: held_o})
    summary = {
        "workload": wl.name, "tuples": len(wl), "window": wl.window, "warmup": wl.warmup, "memory": memory,
        "policy": mine.name, "against": other.name, "policy_outputs": int(mine.outputs),
        "reference_outputs": int(other.outputs), "difference": int(mine.outputs - other.outputs),
        "ratio": round(mine.outputs / other.outputs, 6) if other.outputs else 1.0,  # as the rows of shed simulate
        "lost_outputs": int(len(lost)), "gained_outputs": int(len(gained)),
        "lost_tuples": int((tuples.reason != REASONS[2]).sum()),
        **{f"tuples_{r.replace(' ', '_')}": int((tuples.reason == r).sum()) for r in REASONS},
        "buckets": n_b, "keys": n_keys,
        # timestamps: the steps' length and the instant step 0 begins, to read the buckets' steps as times
        **{k: wl.meta[k] for k in ("time_step", "time_origin") if k in wl.meta},
    }
    return Explanation(summary, key_rows, cells, memory_frame, _gap(wl, mine, other), tuples, edges)


def lost_and_wasted(wl: Workload, mine: Side, lost: pd.DataFrame) -> pd.DataFrame:
    """Every tuple with a lost pair (the earlier member of a pair the reference produced and the policy
    did not), with its reason, its key and the pairs it lost; then every tuple the policy kept that
    produced nothing and lost nothing (``kept but never matched``, with the steps it was held)."""
    sched = mine.schedule
    per_tuple = lost.groupby("earlier").size() if len(lost) else pd.Series(dtype=np.int64)
    idx = per_tuple.index.to_numpy(dtype=np.int64)
    reason = np.where(sched.admitted[idx], REASONS[1], REASONS[0])
    produced_from = np.zeros(len(wl), dtype=bool)
    mine_pairs = _pair_table(wl, mine.codes)
    produced_from[mine_pairs.earlier[~mine_pairs.same_time].to_numpy()] = True
    is_lost = np.zeros(len(wl), dtype=bool)
    is_lost[idx] = True
    wasted = np.flatnonzero(sched.admitted & ~produced_from & ~is_lost)
    frame = pd.DataFrame({
        "tuple": np.concatenate([idx, wasted]),
        "reason": np.concatenate([reason, np.full(len(wasted), REASONS[2])]),
        "lost_pairs": np.concatenate([per_tuple.to_numpy(dtype=np.int64), np.zeros(len(wasted), np.int64)]),
    })
    frame["key"] = wl.key[frame.tuple.to_numpy()]
    frame["side"] = np.where(wl.side[frame.tuple.to_numpy()] == 0, "R", "S")
    frame["held_steps"] = np.where(sched.admitted[frame.tuple.to_numpy()],
                                   sched.left[frame.tuple.to_numpy()] - wl.time[frame.tuple.to_numpy()], 0)
    return frame


def _key_table(wl: Workload, keys: np.ndarray, rank: np.ndarray, lost: pd.DataFrame, gained: pd.DataFrame,
               tuples: pd.DataFrame, held_m: np.ndarray, held_o: np.ndarray, mine: Side, other: Side) -> pd.DataFrame:
    """One row per key: outputs of both, lost, gained, net, lost pairs per reason, wasted memory, memory
    shares and arrivals; ranked by net loss, with the main reason."""
    n_keys = len(keys)

    def count(frame: pd.DataFrame, column: str = "key", weights: str | None = None) -> np.ndarray:
        if not len(frame):
            return np.zeros(n_keys, dtype=np.int64)
        kr = np.searchsorted(keys, frame[column].to_numpy())
        w = None if weights is None else frame[weights].to_numpy()
        return np.bincount(kr, weights=w, minlength=n_keys).astype(np.int64)

    out_m = count(_pair_table(wl, mine.codes))
    out_o = count(_pair_table(wl, other.codes))
    t = {r: tuples[tuples.reason == r] for r in REASONS}
    mem_m = np.bincount(rank, weights=held_m.sum(axis=1), minlength=n_keys)
    mem_o = np.bincount(rank, weights=held_o.sum(axis=1), minlength=n_keys)
    frame = pd.DataFrame({
        "key": keys, "arrivals_r": np.bincount(rank[wl.side == 0], minlength=n_keys),
        "arrivals_s": np.bincount(rank[wl.side == 1], minlength=n_keys),
        "policy_outputs": out_m, "reference_outputs": out_o,
        "lost": count(lost), "gained": count(gained),
        "lost_never_admitted": count(t[REASONS[0]], weights="lost_pairs"),
        "lost_evicted_early": count(t[REASONS[1]], weights="lost_pairs"),
        "tuples_never_admitted": count(t[REASONS[0]]), "tuples_evicted_early": count(t[REASONS[1]]),
        "tuples_kept_never_matched": count(t[REASONS[2]]),
        "wasted_steps": count(t[REASONS[2]], weights="held_steps"),
        "policy_memory_share": mem_m / mem_m.sum() if mem_m.sum() else np.zeros(n_keys),
        "reference_memory_share": mem_o / mem_o.sum() if mem_o.sum() else np.zeros(n_keys),
    })
    frame["net_lost"] = frame.lost - frame.gained
    frame["reason"] = np.select(
        [frame.lost_never_admitted + frame.lost_evicted_early == 0,
         frame.lost_never_admitted >= frame.lost_evicted_early],
        [np.where(frame.tuples_kept_never_matched > 0, REASONS[2], "-"), REASONS[0]], REASONS[1])
    return frame.sort_values(["net_lost", "lost", "key"], ascending=[False, False, True], kind="stable",
                             ignore_index=True)


def _composition(wl: Workload, keys: np.ndarray, rank: np.ndarray, key_rows: pd.DataFrame, edges: np.ndarray,
                 held: dict[str, np.ndarray]) -> pd.DataFrame:
    """Mean tuples held per bucket, per schedule, for the keys losing most (one group each) and the rest."""
    shown = key_rows.key.head(COMPOSITION_KEYS).to_numpy()
    group = np.full(len(keys), len(shown))
    group[np.searchsorted(keys, shown)] = np.arange(len(shown))
    named = key_rows.label.head(COMPOSITION_KEYS) if "label" in key_rows else shown
    names = [f"key {k}" for k in named] + ["other keys"]
    width = np.diff(edges).astype(np.float64)
    rows = []
    for schedule, steps in held.items():
        per_group = np.zeros((len(names), len(width)))
        np.add.at(per_group, group[rank], steps)
        for g, name in enumerate(names):
            for b in range(len(width)):
                rows.append({"schedule": schedule, "group": name, "bucket": b, "start": int(edges[b]),
                             "tuples": float(per_group[g, b] / width[b])})
    return pd.DataFrame(rows)


def _gap(wl: Workload, mine: Side, other: Side, points: int = 400) -> pd.DataFrame:
    """Cumulative counted outputs of both schedules over time (at most ``points`` times) and their gap."""
    fine = bucket_edges(wl, points)
    ends = fine[1:] - 1

    def cumulative(codes: np.ndarray) -> np.ndarray:
        produced = np.sort(_pair_table(wl, codes)["produced"].to_numpy())
        return np.searchsorted(produced, ends, side="right")

    m, o = cumulative(mine.codes), cumulative(other.codes)
    return pd.DataFrame({"time": ends, "policy": m, "reference": o, "gap": o - m})
