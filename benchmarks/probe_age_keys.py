"""How much of PROB's gap to OPT can a policy close on the age-based model with colliding keys if it
knows the model itself, and if it learns it?  Probes, not policies of the package.

On the age-based model (shedding.datasets.age: each R tuple's partner follows after a lag from a
known distribution, S also carries background traffic, keys Zipf(0.5) over 1,000 values) the
adaptive HAZARD closes 1-25% of PROB's gap to OPT against the issue's goal of two thirds. This
probe asks whether any policy we can describe does much better. KEYAGE knows the generator: the
lag distribution, the key probabilities, the rates. It tracks, per key, the R tuples whose partner
has not come yet (an S arrival of the key is taken as the partner of the waiting R tuple for which
that lag is most likely), and ranks

* an S tuple of key k by the R arrivals of k to come, ``rate`` P_R(k) per step (R is i.i.d.);
* an R tuple of key k by the best mean rate, over horizons up to the end of its window, of the S
  arrivals of k to come: background ``rate_bg`` P_bg(k) per step plus, for each waiting R tuple
  of k (itself included), its partner's lag distribution conditioned on the lag not having
  passed. Unlike HAZARD, it sees that the partners of *other* R tuples of the same key are due.

KEYLEARN ranks the same way but is told nothing: it learns the rates per key, the lag
distribution and the share of R tuples with a partner from the arrivals so far (:class:`Learned`).

PROB and HAZARD run with the online estimator, as in the study. KEYAGE and KEYLEARN run in the
test suite's reference join (tests/reference.py, written from the join semantics, with its
per-step ``valuer`` hook), whose PROB equals the compiled kernel's tuple for tuple.

    python benchmarks/probe_age_keys.py --seeds 0,1
    python benchmarks/probe_age_keys.py --premise   # KEYLEARN is online: outputs - credits ~ 0
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from reference import reference_run  # noqa: E402

from shedding.datasets.age import age_workload, background_rate, key_probabilities  # noqa: E402
from shedding.model import Schedule  # noqa: E402
from shedding.offline.agebound import expected_outputs  # noqa: E402
from shedding.offline.opt import solve_opt  # noqa: E402
from shedding.run import run_policy  # noqa: E402


class Told:
    """What KEYAGE is told: the generator's lag distribution, key probabilities and rates."""

    def __init__(self, wl) -> None:
        meta = wl.meta
        self.pmf = np.asarray(meta["lag_pmf"], dtype=np.float64) * float(meta["partner"])
        self.cdf = np.cumsum(self.pmf)
        self.probs, self.p_bg = key_probabilities(meta)
        self.rate = float(meta["rate"])
        self.rate_bg = background_rate(self.rate, float(meta["partner"]), float(meta["background"]))

    def observe(self, t, batch) -> None:
        pass

    def bg(self, k: int) -> float:
        return self.rate_bg * self.p_bg[k]

    def r_rate(self, k: int) -> float:
        return self.rate * self.probs[k]


class Learned:
    """What KEYLEARN learns from the arrivals so far, told nothing: per key, the R and S arrival
    rates; the lag distribution from the ages at which S arrivals of a key meet the R arrivals of
    that key (all of them, kept or not), less the floor of coincidental meetings (their 20th
    percentile over the ages; partners make a bump on that floor), refitted every ``refit`` steps;
    the share of R tuples with a partner from the bump's mass; a key's background rate as its S
    arrivals not explained by partners."""

    def __init__(self, wl, refit: int = 50) -> None:
        self.w, self.side, self.key, self.refit = wl.window, wl.side, wl.key, refit
        self.hist = np.zeros(self.w)
        self.recent: dict[int, list[int]] = defaultdict(list)
        self.n_r: dict[int, int] = defaultdict(int)
        self.n_s: dict[int, int] = defaultdict(int)
        self.total_r, self.t, self.partner = 0, 0, 0.0
        self.pmf = np.zeros(self.w)  # nothing learned yet: no partner is due
        self.cdf = np.zeros(self.w)

    def observe(self, t, batch) -> None:
        self.t = t
        for x in batch:
            k = int(self.key[x])
            if self.side[x] == 0:
                self.n_r[k] += 1
                self.total_r += 1
                self.recent[k].append(t)
            else:
                self.n_s[k] += 1
                times = self.recent.get(k)
                if times:
                    while times and t - times[0] > self.w - 1:
                        times.pop(0)
                    ages = t - np.array(times, dtype=np.int64)
                    ages = ages[ages >= 1]
                    np.add.at(self.hist, ages, 1.0)
        if t % self.refit == 0 and self.hist.sum() > 0:
            excess = np.maximum(self.hist - np.percentile(self.hist[1:], 20), 0.0)
            excess[0] = 0.0
            mass = excess.sum()
            if mass > 0:
                self.partner = min(mass / max(self.total_r, 1), 1.0)
                self.pmf = excess / mass * self.partner
                self.cdf = np.cumsum(self.pmf)

    def bg(self, k: int) -> float:
        return max(self.n_s.get(k, 0) - self.partner * self.n_r.get(k, 0), 0.0) / (self.t + 1)

    def r_rate(self, k: int) -> float:
        return self.n_r.get(k, 0) / (self.t + 1)


def keyage_valuer(wl, model):
    """The reference join's valuer for KEYAGE (``model`` a :class:`Told`) or KEYLEARN (a
    :class:`Learned`) on the age workload ``wl`` (module docstring)."""
    w = wl.window
    side, time, key = wl.side, wl.time, wl.key
    waiting: dict[int, list[int]] = defaultdict(list)  # key -> arrival times of R tuples still waiting

    def valuer(t, batch, counts, totals):
        model.observe(t, batch)
        pmf, cdf = model.pmf, model.cdf
        for x in batch:
            if side[x] == 0:
                waiting[int(key[x])].append(t)
        for x in batch:
            lst = waiting.get(int(key[x]))
            if side[x] == 1 and lst:
                ages = t - np.array(lst)
                like = np.where((ages >= 1) & (ages < w), pmf[np.clip(ages, 0, w - 1)], 0.0)
                if like.max() > 0:
                    lst.pop(int(np.argmax(like)))
        rates: dict[int, np.ndarray] = {}

        def s_rate(k: int) -> np.ndarray:  # cumulative expected S arrivals of k at t+1 .. t+w-1
            if k not in rates:
                lam = np.full(w - 1, model.bg(k))
                for tr in waiting.get(k, ()):
                    age = t - tr
                    alive = 1.0 - cdf[age] if age < w - 1 else 0.0
                    if alive > 1e-12:
                        lags = np.arange(age + 1, min(age + w, w))
                        lam[: len(lags)] += pmf[lags] / alive
                rates[k] = np.cumsum(lam)
            return rates[k]

        def value(x):
            if side[x] == 1:
                return model.r_rate(int(key[x]))
            life = int(time[x]) + w - 1 - t  # steps it can still join
            if life <= 0:
                return 0.0
            return float(np.max(s_rate(int(key[x]))[:life] / np.arange(1, life + 1)))

        return value

    return valuer


def premise(seeds: range) -> None:
    """KEYLEARN's outputs minus its credits given the lags (shedding.offline.agebound) over small
    streams: an online policy's average to zero."""
    diff = []
    for seed in seeds:
        wl = age_workload(length=600, window=60, lag_mean=20, lag_spread=5, background=0.25, skew=0.5, domain=50,
                          seed=seed)
        out, _, left, admitted = reference_run(wl.side, wl.time, wl.key, wl.window, 5, 5, wl.warmup, "prob", False,
                                               estimator="online", valuer=keyage_valuer(wl, Learned(wl, refit=10)))
        schedule = Schedule(np.asarray(admitted, dtype=bool), np.asarray(left, dtype=np.int64))
        diff.append(out - expected_outputs(wl, schedule))
    print(f"KEYLEARN outputs - credits over {len(diff)} streams: mean {np.mean(diff):.2f}, standard error "
          f"{np.std(diff) / np.sqrt(len(diff)):.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=lambda s: [int(x) for x in s.split(",")], default=[0, 1])
    parser.add_argument("--memory", type=int, default=100)
    parser.add_argument("--premise", action="store_true", help="check that KEYLEARN is online (30 small streams)")
    args = parser.parse_args()
    if args.premise:
        premise(range(30))
        return
    m = args.memory
    print("seed spread background   OPT   PROB HAZARD KEYAGE KEYLEARN  closed: HAZARD KEYAGE KEYLEARN",
          flush=True)
    for seed in args.seeds:
        for spread in (5, 20, 50):
            for background in (0.0, 0.25, 0.5):
                wl = age_workload(length=3000, lag_spread=spread, background=background, skew=0.5, domain=1000,
                                  seed=seed)
                opt = solve_opt(wl, m).outputs
                prob = run_policy(wl, "prob", m, estimator="online").outputs
                hazard = run_policy(wl, "hazard", m, estimator="online").outputs
                probes = [reference_run(wl.side, wl.time, wl.key, wl.window, m // 2, m - m // 2, wl.warmup, "prob",
                                        False, estimator="online", valuer=keyage_valuer(wl, model(wl)))[0]
                          for model in (Told, Learned)]
                gap = opt - prob
                closed = " ".join(f"{(v - prob) / gap:6.2f}" for v in (hazard, *probes))
                print(f"{seed:4d} {spread:6d} {background:10.2f} {opt:5d} {prob:6d} {hazard:6d} {probes[0]:6d}"
                      f" {probes[1]:8d}  {closed}", flush=True)


if __name__ == "__main__":
    main()
