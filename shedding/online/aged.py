"""The state of the age-aware kinds, AGE and HAZARD, beside the join operator's own: its arrays
(:mod:`~shedding.online.ageing`, :mod:`~shedding.online.hazard`,
:mod:`~shedding.online.hazardmemory`), how they grow with the node pool, the keys and the payload
groups, and AGE's plan from a known age curve.

Every other kind carries the same arrays at size one, unused, so that the compiled join has one
signature for all kinds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from shedding.errors import ShedError
from shedding.online import (agedlayout as L, agehooks as A, ageing as AG, exposure as EX, guard as GD, hazard as Z,
                             hazardmemory as HM)
from shedding.online.agebuckets import bucket_table
from shedding.online.groups import MAX_GROUPS
from shedding.online.hazardindex import MEMO_BINS, row_room
from shedding.online.kinds import AGE, HAZARD, is_age_aware
from shedding.online.layout import INF
from shedding.online.tuning import HazardTuning


class AgedArrays(NamedTuple):
    """The arrays of the age-aware kinds, as the compiled join takes them, by name. C: node
    capacity, D: keys, G: payload groups, B: age buckets, A: candidate groupings (1 unless
    ``group="auto"``: events and exposure hold a block of G groups per candidate;
    :mod:`~shedding.online.agedlayout` defines the columns)."""

    hsc: np.ndarray  #: int64 [H_FIELDS + 4 G P]: the learner's and the memory's counters (``H_*``), then memo rows
    hf: np.ndarray  #: float64 [HF_FIELDS]: its float parameters (``HF_*``)
    hn: np.ndarray  #: int64 [C, HN_FIELDS]: per node its list, group, matched flag, bucket, due time
    hprio: np.ndarray  #: float64 [C]: per node its value in the tree
    htree: np.ndarray  #: int64 [2, 2L]: per side the tournament tree over the nodes
    hk: np.ndarray  #: int64 [2, D, KEY_FIELDS]: per side and key its last arrival and sample list (``K_*``)
    sg: np.ndarray  #: int64 [2, S, 2]: per side AGE's segments or HAZARD's wheel slots (head, tail)
    segedge: np.ndarray  #: int64 [2, 3]: AGE's segment edges (ages) per side
    sh: np.ndarray  #: int64 [2, shadow, SH_FIELDS]: the shadow sample (``SH_*``)
    ev: np.ndarray  #: int64 [2, A * G, 2, B, Q]: events per side, group, matched, bucket, beta bin
    ex: np.ndarray  #: int64 [2, A * G, 2, B, Q]: exposure in the same cells
    eg: np.ndarray  #: float64 [2, G, 2, B]: the fitted age curve e
    th: np.ndarray  #: float64 [2, 2, B]: the fitted key factor theta
    ep: np.ndarray  #: float64 [2, 2, B]: the pooled curve the groups shrink towards
    memo: np.ndarray  #: float64 [2, G, 2, P + 3, B]: per state and beta bin its priorities per bucket (NaN: not yet)
    edges: np.ndarray  #: int64 [B + 1]: the age buckets' edges
    lens: np.ndarray  #: float64 [B]: their lengths
    vm: np.ndarray  #: int64 [2, 2, V]: HAZARD's guard's virtual memories (:mod:`~shedding.online.guard`)
    evd: np.ndarray  #: float64 [2, G, 2, B, Q]: the decayed events (:mod:`~shedding.online.forgetting`)
    exd: np.ndarray  #: float64 [2, G, 2, B, Q]: the decayed exposure
    evl: np.ndarray  #: int64 [2, A * G, 2, B, Q]: the events at the last refit (forgetting, auto)
    exl: np.ndarray  #: int64 [2, A * G, 2, B, Q]: the exposure at the last refit
    cf: np.ndarray  #: float64 [2, 2, 2, 2, B]: per candidate (all, decayed) its pooled e and theta per side, c, j
    ac: np.ndarray  #: float64 [2, A * G, 2, B]: each candidate grouping's curves (:mod:`~shedding.online.autogroup`)
    xc: np.ndarray  #: int64 [2, A * G, Q, B + 1]: closed shadow entries by split bucket (:mod:`~shedding.online.exposure`)
    ab: np.ndarray  #: int64 [ages]: the age bucket of each age below the last edge (:mod:`~shedding.online.agebuckets`)


#: a field's position in :class:`AgedArrays` (and in ``AgedState.arrays``)
_INDEX = {name: i for i, name in enumerate(AgedArrays._fields)}


def _pow2(n: int) -> int:
    return 1 << max(0, (max(n, 1) - 1).bit_length())


class AgedState:
    """The arrays of the age-aware kinds for ``kind`` (tiny for the other kinds), window w,
    memory budgets (M_R, M_S) or M (``variable``), ``tuning`` (:class:`~shedding.online.tuning.HazardTuning`)
    and, for AGE with a known curve, ``curves`` f[s, a] with the arrival ``rates``."""

    def __init__(self, kind: int, window: int, budgets: tuple[int, int], variable: bool, tuning: HazardTuning,
                 curves: np.ndarray | None = None, rates: np.ndarray | None = None) -> None:
        self.kind, self.window = kind, window
        self.active = is_age_aware(kind)
        self._group_keys = np.zeros(0, dtype=np.int64)  # sorted raw group values
        self._group_ids = np.zeros(0, dtype=np.int64)
        self.grouped: bool | None = None  # decided by the first feed
        self._forgets = tuning.forget > 0.0
        edges = Z.age_buckets(window, tuning.first, tuning.ratio) if self.active else np.array([0, 1], np.int64)
        nb = len(edges) - 1
        shadow = tuning.shadow if self.active else 1
        hsc = np.zeros(L.H_FIELDS + (row_room(1) if self.active else 0), dtype=np.int64)
        hf = np.zeros(L.HF_FIELDS)
        hsc[L.H_NB], hsc[L.H_NG], hsc[L.H_T0], hsc[L.H_NEXT_REFIT], hsc[L.H_NCAND] = nb, 1, -1, 1, 1
        hsc[L.H_GOFF0 + 1] = 1  # one candidate grouping, of one group
        hsc[L.H_SAMPLE0] = hsc[L.H_SAMPLE0 + 1] = 1
        hsc[L.H_TEST], hsc[L.H_EVERY], hsc[L.H_FIRST], hsc[L.H_ITERS] = (int(tuning.test), tuning.refit_every,
                                                                         tuning.refit_first, tuning.iters)
        hf[L.HF_KAPPA], hf[L.HF_EVIDENCE] = tuning.kappa, tuning.evidence
        hsc[L.H_FIT_EVERY], hsc[L.H_NEXT_FIT] = tuning.group_fit_every, 1
        hsc[L.H_GUARD], hf[L.HF_HYST] = int(tuning.guard and kind == HAZARD), tuning.hysteresis
        hf[L.HF_FORGET] = tuning.forget
        hsc[L.H_JEVERY0] = hsc[L.H_JEVERY0 + 1] = 1
        segs = 2  # AGE's segments
        segedge = np.full((2, segs + 1), max(window, 1) + 1, dtype=np.int64)
        segedge[:, 0] = 0
        segedge[:, 1] = max(window, 1)
        hsc[L.H_NSEG0] = hsc[L.H_NSEG0 + 1] = 2 if kind == AGE else 1
        hsc[L.H_HOLD0] = hsc[L.H_HOLD0 + 1] = max(window - 1, 1)
        lens = np.diff(edges).astype(np.float64)
        self.arrays = [hsc, hf, np.zeros((0, L.HN_FIELDS), np.int64), np.zeros(0), np.full((2, 2), -1, np.int64),
                       np.zeros((2, 0, L.KEY_FIELDS), np.int64),
                       np.full((2, HM.wheel_slots(window) if kind == HAZARD else segs, 2), -1, np.int64), segedge,
                       np.zeros((2, shadow, L.SH_FIELDS), np.int64), *self._stats(nb, 1), edges, lens,
                       np.full((2, 2, GD.SLOTS + 1 if kind == HAZARD else 1), -1, np.int64),
                       *self._decayed(nb, 1), np.zeros((2, 1, 2, 1)), self._waiting(nb, 1),
                       bucket_table(edges) if kind == HAZARD else np.zeros(1, np.int64)]
        self._capacity = 0
        self._n_keys = 0
        self._plan: tuple[np.ndarray, np.ndarray] | None = None  # AGE's known curve: its knots and cumulative sums
        if kind == AGE and curves is not None:
            hsc[L.H_KNOWN] = 1
            hf[L.HF_RHO0:L.HF_RHO0 + 2] = rates
            cum = np.cumsum(np.asarray(curves, dtype=np.float64), axis=1)
            self._plan = (np.arange(cum.shape[1], dtype=np.int64), cum)
            AG.set_hold(hsc, hf, segedge, *self._plan, np.array(budgets, dtype=np.int64), variable, window)

    def set_budgets(self, budgets: tuple[int, int], variable: bool, node: np.ndarray, cnt: np.ndarray,
                    sc: np.ndarray, t: int) -> None:
        """New budgets between feeds, at the last fed time t: AGE with a known curve plans its hold
        ages for them now and re-sorts the memory into its segments (Srivastava and Widom's plan
        depends on M); a learned curve's plan follows at the next refit, HAZARD's index does not
        depend on M."""
        if self._plan is None:
            return
        AG.set_hold(self.hsc, self.hf, self.segedge, *self._plan, np.array(budgets, dtype=np.int64), variable,
                   self.window)
        A.rebuild(node, cnt, sc, self.state(), t, AGE)

    def _stats(self, nb: int, ng: int, blocks: int | None = None) -> list[np.ndarray]:
        """Fresh statistics and model for ``ng`` groups (events and exposure in ``blocks`` rows of
        groups, those of every candidate grouping; ``ng`` unless given): ev, ex, eg, th, ep, memo
        (its rows not computed for any fit: NaN)."""
        shape = (2, ng, 2, nb) if self.active else (2, 1, 2, 1)
        q = (Z.Q_STATS,) if self.active else (1,)
        prio = shape[:3] + (MEMO_BINS if self.active else 1, shape[3])
        counts = (2, shape[1] if blocks is None else blocks) + shape[2:] + q
        return [np.zeros(counts, np.int64), np.zeros(counts, np.int64), np.zeros(shape),
                np.ones((2, 2, shape[3])), np.zeros((2, 2, shape[3])), np.full(prio, np.nan)]

    def _waiting(self, nb: int, blocks: int) -> np.ndarray:
        """Fresh counts of closed shadow entries by split bucket (:mod:`~shedding.online.exposure`)
        for ``blocks`` rows of groups."""
        return np.zeros((2, blocks, Z.Q_STATS, nb + 1) if self.active else (2, 1, 1, 1), np.int64)

    def _decayed(self, nb: int, ng: int) -> list[np.ndarray]:
        """Fresh statistics of the fit that forgets (HAZARD with ``forget`` > 0): evd, exd, evl,
        exl, cf (each candidate's fit starts flat, theta 1)."""
        used = self.kind == HAZARD and self._forgets
        shape = (2, ng, 2, nb, Z.Q_STATS) if used else (2, 1, 2, 1, 1)
        cf = np.zeros((2, 2, 2, 2, nb if used else 1))
        cf[:, 1] = 1.0
        return [np.zeros(shape), np.zeros(shape), np.zeros(shape, np.int64), np.zeros(shape, np.int64), cf]

    def __getattr__(self, name: str) -> np.ndarray:
        try:
            return self.__dict__["arrays"][_INDEX[name]]
        except KeyError:
            raise AttributeError(name) from None

    def _set(self, name: str, value: np.ndarray) -> None:
        self.arrays[_INDEX[name]] = value

    def state(self) -> AgedArrays:
        """The arrays, named, as the compiled join takes them."""
        return AgedArrays(*self.arrays)

    # ------------------------------------------------------------------ growth

    def grow(self, capacity: int, n_keys: int, node: np.ndarray, head: int) -> None:
        """Room for ``capacity`` nodes and ``n_keys`` keys, keeping the content (the node pool grew
        to ``node``; its memory tuples are the global list from ``head``)."""
        if not self.active:
            return
        old = self._capacity
        if capacity > old:
            hn = np.zeros((capacity, L.HN_FIELDS), np.int64)
            hprio = np.zeros(capacity)
            hn[:old], hprio[:old] = self.hn, self.hprio
            leaves = _pow2(capacity)
            self.hsc[L.H_LEAVES] = leaves
            for name, value in (("hn", hn), ("hprio", hprio), ("htree", np.full((2, 2 * leaves), -1, np.int64))):
                self._set(name, value)
            self._capacity = capacity
            if self.kind == HAZARD:
                HM.rebuild_tree(node, self.hprio, self.htree, self.hsc, head)
        if n_keys > self._n_keys:
            hk = np.full((2, n_keys, L.KEY_FIELDS), -1, np.int64)
            hk[:, :, L.K_LAST] = -INF
            hk[:, :, L.K_Q] = 0
            hk[:, :self._n_keys] = self.hk
            self._set("hk", hk)
            self._n_keys = n_keys

    def group_ids(self, group: np.ndarray | None, n: int) -> np.ndarray:
        """Dense ids of a feed's payload groups (HAZARD with groups), zeros otherwise; the first
        feed decides whether the operator ranks by group, and by how many candidate groupings (a
        2-D ``group``, one column of dense ids per candidate: HAZARD picks among them and no group,
        :mod:`~shedding.online.autogroup`)."""
        if self.kind != HAZARD:
            return np.zeros(n, np.int64)
        auto = group is not None and np.ndim(group) == 2
        if self.grouped is None:
            self.grouped = group is not None
            self.hsc[L.H_GROUPS] = int(self.grouped)
            if group is not None and auto:
                self._set_candidates(1 + np.shape(group)[1])
        if (group is not None) != self.grouped or auto != (self.hsc[L.H_NCAND] > 1):
            raise ShedError("the operator's first feed decided whether it ranks by payload group (and by one or by "
                            "candidate groupings); give group alike with every feed or with none")
        if group is None:
            return np.zeros(n, np.int64)
        if auto:
            return self._packed(np.asarray(group), n)
        raw = np.ascontiguousarray(group, dtype=np.int64)
        if len(raw) != n:
            raise ShedError("group must have one value per arrival")
        table = self._table(raw)
        ids = self._ids_of(raw, table)
        if (ids < 0).any():
            if table is not None:  # the new values, sorted, without sorting the feed
                seen = np.zeros(len(table), bool)
                seen[raw] = True
                new = np.flatnonzero(seen & (table < 0))
            else:
                new = np.unique(raw[ids < 0])
            used = len(self._group_keys)
            if used + len(new) > MAX_GROUPS:  # a stream's groups, seen one feed at a time (the streaming join)
                raise ShedError(f"{{param}} has more than {MAX_GROUPS:,} distinct values, more than HAZARD learns age "
                                "curves for; choose a column with fewer values", param="group")
            keys = np.concatenate([self._group_keys, new])
            order = np.argsort(keys, kind="stable")
            self._group_keys = keys[order]
            self._group_ids = np.concatenate([self._group_ids, np.arange(used, used + len(new))])[order]
            self._grow_groups([len(keys)])
            if table is not None:
                table[new] = np.arange(used, used + len(new))
            ids = self._ids_of(raw, table)
        return ids

    def _table(self, raw: np.ndarray) -> np.ndarray | None:
        """The ids of the groups seen so far in a table indexed by the raw value (-1: not seen),
        when the feed's values are small non-negative integers (payload codes, as the flights'
        columns give): a lookup per arrival instead of a binary search, which took HAZARD by
        destination 0.08 us per arrival on the flights. None for other values."""
        if not len(raw) or raw.min() < 0 or raw.max() >= 4 * len(raw) + 1024:
            return None
        table = np.full(int(raw.max()) + 1, -1, np.int64)
        inside = self._group_keys < len(table)
        table[self._group_keys[inside]] = self._group_ids[inside]
        return table

    def _ids_of(self, raw: np.ndarray, table: np.ndarray | None) -> np.ndarray:
        """Each raw value's group id, -1 for a value not seen yet: from ``table``, or by a binary
        search of the sorted values seen."""
        if table is not None:
            return table[raw]
        if not len(self._group_keys):
            return np.full(len(raw), -1, np.int64)
        pos = np.minimum(np.searchsorted(self._group_keys, raw), len(self._group_keys) - 1)
        return np.where(self._group_keys[pos] == raw, self._group_ids[pos], -1)

    def _set_candidates(self, ncand: int) -> None:
        """The first feed gives ``ncand`` candidate groupings (no group and each column): a block of
        events and exposure per candidate, their snapshot at the last refit and their curves."""
        if self._forgets:
            raise ShedError("{param} auto does not combine with tuning forget > 0 yet (the fit that forgets keeps one "
                            "grouping's statistics); give a column or leave forget out", param="group")
        if not 2 <= ncand <= L.MAX_CANDIDATES:
            raise ShedError(f"{{param}} auto takes 1 to {L.MAX_CANDIDATES - 1} candidate columns, got {ncand - 1}",
                            param="group")
        nb = int(self.hsc[L.H_NB])
        self.hsc[L.H_NCAND] = ncand
        self.hsc[L.H_GOFF0:L.H_GOFF0 + ncand + 1] = np.arange(ncand + 1)  # one group each so far
        ev, ex = self._stats(nb, 1, ncand)[:2]
        for name, value in (("ev", ev), ("ex", ex), ("evl", ev.copy()), ("exl", ex.copy()),
                            ("ac", np.zeros((2, ncand, 2, nb))), ("xc", self._waiting(nb, ncand))):
            self._set(name, value)

    def _packed(self, ids: np.ndarray, n: int) -> np.ndarray:
        """A feed's candidate groups (n x candidate columns of dense ids, each below ``MAX_GROUPS``)
        packed into one code per arrival, ``GROUP_BITS`` bits per candidate (none: 0)."""
        ncand = int(self.hsc[L.H_NCAND])
        if ids.shape != (n, ncand - 1) or not np.issubdtype(ids.dtype, np.integer):
            raise ShedError(f"{{param}} must have one row of integer ids per arrival and {ncand - 1} columns",
                            param="group")
        columns = [np.ascontiguousarray(ids[:, a], dtype=np.int64) for a in range(ncand - 1)]
        if n and (min(c.min() for c in columns) < 0 or max(c.max() for c in columns) >= MAX_GROUPS):
            raise ShedError(f"{{param}} candidate ids must be dense ids 0 to {MAX_GROUPS - 1}", param="group")
        if n:
            self._grow_groups([1, *(int(c.max()) + 1 for c in columns)])
        code = np.zeros(n, np.int64)
        for a, column in enumerate(columns):  # a column at a time: reducing the rows took 2 ms a month
            code |= column << (L.GROUP_BITS * (a + 1))
        return code

    def _grow_groups(self, need: list[int]) -> None:
        """Room for ``need[a]`` groups of each candidate grouping a (no shrinking): its block of
        events and exposure (and, with candidates, their snapshot and curves), and the curves and
        priorities of the most groups any candidate has."""
        hsc, ncand = self.hsc, int(self.hsc[L.H_NCAND])
        off = hsc[L.H_GOFF0:L.H_GOFF0 + ncand + 1].copy()
        sizes = np.maximum(np.diff(off), np.asarray(need, np.int64))
        if np.array_equal(sizes, np.diff(off)):
            return
        new = np.concatenate([[0], np.cumsum(sizes)])
        EX.settle(self.edges, self.ex, self.xc)  # the exposure whole before its blocks move
        old, ng = int(hsc[L.H_NG]), max(int(hsc[L.H_NG]), int(sizes.max()))
        ev, ex, eg, th, ep, memo = self._stats(int(hsc[L.H_NB]), ng, int(new[-1]))
        kappa = float(self.hf[L.HF_KAPPA])
        eg[:, :old], memo[:, :old] = self.eg, self.memo
        th[:], ep[:] = self.th, self.ep
        # a group first seen now has no events yet: the last fit would have given it the pooled
        # curve, shrunk by nothing (the same arithmetic as hazard.fit, so a stream fed in pieces
        # ranks as one fed whole)
        fresh = (0.0 + kappa * ep[:, None]) / (0.0 + kappa) if kappa > 0.0 else ep[:, None]
        eg[:, old:] = fresh
        grown = [("ev", ev), ("ex", ex)]
        if ncand > 1:
            ac = np.zeros((2, int(new[-1])) + eg.shape[2:])
            ac[:] = fresh  # a new group's curve in each candidate: as in eg
            grown += [("evl", np.zeros_like(ev)), ("exl", np.zeros_like(ex)), ("ac", ac)]
        for name, value in grown:
            was = getattr(self, name)
            for a in range(ncand):
                value[:, new[a]:new[a] + off[a + 1] - off[a]] = was[:, off[a]:off[a + 1]]
        grown_all = (*grown, ("eg", eg), ("th", th), ("ep", ep), ("memo", memo),
                     ("xc", self._waiting(int(hsc[L.H_NB]), int(new[-1]))))
        for name, value in grown_all:
            self._set(name, value)
        hsc[L.H_GOFF0:L.H_GOFF0 + ncand + 1] = new
        if self.kind == HAZARD and self._forgets:
            evd, exd, evl, exl, _ = self._decayed(int(self.hsc[L.H_NB]), ng)
            evd[:, :old], exd[:, :old], evl[:, :old], exl[:, :old] = self.evd, self.exd, self.evl, self.exl
            for name, value in (("evd", evd), ("exd", exd), ("evl", evl), ("exl", exl)):
                self._set(name, value)
        hsc[L.H_NG] = ng
        if ng > old:  # room to list every memo row (:mod:`~shedding.online.hazardindex`)
            rows = np.zeros(L.H_FIELDS + row_room(ng), np.int64)
            rows[:len(hsc)] = hsc
            self._set("hsc", rows)

    def guard_choice(self) -> str | None:
        """HAZARD's refits at which each side ranked by its age shape, of all refits
        (``R 3/19 S 0/19``), and those at which it fitted the decayed statistics (``forget 2/19``,
        with ``forget`` > 0); None for the other kinds."""
        if self.kind != HAZARD:
            return None
        hsc = self.hsc
        choice = f"R {hsc[L.H_CHOSE0]}/{hsc[L.H_REFITS]} S {hsc[L.H_CHOSE0 + 1]}/{hsc[L.H_REFITS]}"
        return f"{choice} forget {hsc[L.H_FCHOSE]}/{hsc[L.H_REFITS]}" if self._forgets else choice

    def picks(self) -> np.ndarray | None:
        """With candidate groupings (``group="auto"``): per side and candidate (no group first) the
        refits at which the side ranked by it; None otherwise."""
        ncand = int(self.hsc[L.H_NCAND])
        if self.kind != HAZARD or ncand <= 1:
            return None
        return self.hsc[L.H_PICKN0:L.H_PICKN0 + 2 * L.MAX_CANDIDATES].reshape(2, L.MAX_CANDIDATES)[:, :ncand].copy()

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in self.arrays)

    # ------------------------------------------------------------------ snapshot

    def snapshot(self) -> dict[str, np.ndarray | int | bool]:
        """The state as plain data: copies of the arrays (one entry per :class:`AgedArrays` field,
        by name), the payload groups' map and the sizes; AGE's plan from a known curve as
        ``plan_knots`` and ``plan_sums``. Absent entries are None (``grouped`` before the first
        feed, the plan without a known curve). :meth:`restore` reads it back."""
        snap: dict[str, np.ndarray | int | bool] = {
            "kind": self.kind, "window": self.window, "capacity": self._capacity, "n_keys": self._n_keys,
            "group_keys": self._group_keys.copy(), "group_ids": self._group_ids.copy()}
        snap |= {name: a.copy() for name, a in zip(AgedArrays._fields, self.arrays)}
        if self.grouped is not None:
            snap["grouped"] = self.grouped
        if self._plan is not None:
            snap["plan_knots"], snap["plan_sums"] = (a.copy() for a in self._plan)
        return snap

    @classmethod
    def restore(cls, snap: Mapping[str, np.ndarray]) -> AgedState:
        """The state :meth:`snapshot` took, its entries as numpy arrays (0-d for the scalars) the
        state may keep (:class:`~shedding.online.snapshot.SnapshotReader` hands out copies)."""
        aged = cls.__new__(cls)
        aged.kind, aged.window = int(snap["kind"]), int(snap["window"])
        aged.active = is_age_aware(aged.kind)
        aged._capacity, aged._n_keys = int(snap["capacity"]), int(snap["n_keys"])
        aged._group_keys, aged._group_ids = snap["group_keys"], snap["group_ids"]
        aged.grouped = bool(snap["grouped"]) if "grouped" in snap else None
        aged.arrays = [snap[name] for name in AgedArrays._fields]
        aged._plan = (snap["plan_knots"], snap["plan_sums"]) if "plan_knots" in snap else None
        aged._forgets = float(aged.hf[L.HF_FORGET]) > 0.0
        return aged
