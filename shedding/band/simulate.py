"""Run a shedding policy on a band join (issue 13): the band counterpart of
:func:`shedding.online.simulate`, reporting the same :class:`~shedding.model.RunResult`.

Policies are the keyed engine's (:mod:`shedding.online.policies`): PROB and LIFE rank tuples by
the band probability of :mod:`.estimator`, RAND drops uniformly, ``opt-schedule`` /
``optv-schedule`` replay a schedule (OPT's, §3.2). EXACT comes from :mod:`.exact`.
"""

from __future__ import annotations

import time as _time
from dataclasses import dataclass

import numpy as np

from ..errors import ShedError
from ..model import RunResult, Schedule, check_memory
from ..online import kernel as K
from ..online.policies import get_policy
from .estimator import DEFAULT_BINS, BandHistogram
from .exact import BandIndex, band_archive_metric, band_exact_pairs
from .kernel import ERR_SCHEDULE_OVERFULL, band_run
from .predicate import BandWorkload, eps_texts


@dataclass
class BandReference:
    """EXACT's pairs of one band workload, computed once for every policy run on it."""

    pairs: np.ndarray

    @classmethod
    def of(cls, bw: BandWorkload) -> "BandReference":
        return cls(band_exact_pairs(bw, BandIndex(bw)))

    @property
    def exact(self) -> int:
        return len(self.pairs)


def simulate_band(
    bw: BandWorkload,
    policy: str,
    memory: int,
    *,
    memory_split: tuple[int, int] | None = None,
    seed: int = 0,
    pairs: bool = False,
    schedule: Schedule | None = None,
    bins: int = DEFAULT_BINS,
    reference: BandReference | None = None,
) -> RunResult:
    """Run ``policy`` (exact, prob, life, rand, probv, lifev, randv, or opt-schedule /
    optv-schedule with ``schedule``) with ``memory`` tuples on the band join ``bw``. The
    priorities come from the static histogram of the whole workload (``bins`` per attribute)."""
    m, m_r, m_s = check_memory(memory, memory_split)
    wl = bw.workload
    ref = reference or BandReference.of(bw)
    name = policy.strip().lower()
    params = {"window": wl.window, "warmup": wl.warmup, "workload": wl.name, "estimator": "static",
              "predicate": "band", "eps": eps_texts(bw), "attrs": list(bw.attrs)}
    started = _time.perf_counter()
    if name == "exact":
        res = RunResult("exact", ref.exact, ref.exact, 0, 2 * wl.window - 2, None, None, params=params)
        res.pairs = ref.pairs if pairs else None
        res.seconds = _time.perf_counter() - started
        return res
    pol = get_policy(name)
    if pol.kind == K.SCHEDULE and schedule is None:
        raise ShedError(f"policy {pol.name} needs a schedule to replay")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ShedError(f"the policy seed (--policy-seed) must be an integer >= 0, got {seed!r}")
    hist = BandHistogram.of(bw, bins)
    side = wl.side.astype(np.int64)
    cnt = np.zeros((2, len(wl)), dtype=np.float64)
    cnt[1 - side, np.arange(len(wl))] = hist.numerators(bw)
    fsc = np.zeros(K.FSC_FIELDS, dtype=np.float64)
    fsc[K.F_TOT_R], fsc[K.F_TOT_S] = hist.denominators()
    sc = np.zeros(K.SC_FIELDS, dtype=np.int64)
    sc[K.P_W], sc[K.P_KIND], sc[K.P_WARMUP] = wl.window, pol.kind, wl.warmup
    budgets = np.array([m, m] if pol.variable else [m_r, m_s], dtype=np.int64)
    draws = np.random.default_rng(seed).random(max(len(wl), 1))
    sched = np.ascontiguousarray(schedule.left if schedule is not None else np.zeros(1), dtype=np.int64)
    dep = np.zeros((len(wl), 2), dtype=np.int64)
    buf = np.zeros((ref.exact if pairs else 0, 2), dtype=np.int64)
    outputs, n_pairs, err = band_run(side, wl.time, bw.values, bw.eps, cnt, fsc, sc, pol.variable, budgets,
                                     draws, sched, dep, buf)
    if err == ERR_SCHEDULE_OVERFULL:
        raise ShedError("the schedule keeps more tuples than the memory allows; check its memory and split")
    run_schedule = Schedule(dep[:, 1].astype(bool), dep[:, 0].copy())
    split_r, split_s = (None, None) if pol.variable else (m_r, m_s)
    return RunResult(
        pol.name, int(outputs), ref.exact, band_archive_metric(bw, run_schedule, ref.pairs), m, split_r, split_s,
        schedule=run_schedule, pairs=buf[:n_pairs] if pairs else None,
        seconds=_time.perf_counter() - started,
        params=params | ({"seed": seed} if pol.name.startswith("rand") else {}),
    )
