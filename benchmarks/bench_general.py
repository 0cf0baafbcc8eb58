"""HAZARD on age-shaped streams it was never tuned for, for development only: auctions and bids in
the style of the NEXMark benchmark, and requests and responses with heavy-tailed latency and
retries (two small generators of this script, not of the package). Per workload and memory: PROB,
RAND, AGE (estimated curve), HAZARD and OPT, each policy's fraction of OPT, HAZARD's share of the
gap between the better of PROB and RAND and OPT, and HAZARD against the best of RAND, PROB and AGE
in points of OPT (the goals: at least half of the gap; never more than 0.5 points below).

    python benchmarks/bench_general.py --seeds 0,1,2
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from shedding.model import Workload
from shedding.offline.opt import solve_opt
from shedding.run import run_policy


def _workload(side: np.ndarray, time: np.ndarray, key: np.ndarray, window: int, name: str) -> Workload:
    order = np.lexsort((side, time))
    return Workload(side=side[order].astype(np.int64), time=time[order].astype(np.int64),
                    key=key[order].astype(np.int64), window=window, warmup=window, name=name)


def auctions(steps: int = 4000, rate: float = 0.5, duration: float = 120.0, bids: float = 4.0, window: int = 400,
             seed: int = 0) -> Workload:
    """R: auctions opening (Poisson, ``rate`` per step), each open for an exponential time of mean
    ``duration`` steps; S: its bids (a Zipf-like number, mean about ``bids``: a few auctions draw
    most bids), placed at ages that crowd towards the close (the square root of a uniform share of
    the duration, as last-minute bidding does). The key is the auction."""
    rng = np.random.default_rng(seed)
    n = rng.poisson(rate * steps)
    opened = np.sort(rng.integers(0, steps, n))
    length = np.maximum(1, rng.exponential(duration, n)).astype(np.int64)
    count = np.minimum(rng.zipf(2.2, n) * bids / 2.2, 200).astype(np.int64)
    owner = np.repeat(np.arange(n), count)
    ages = (np.sqrt(rng.random(len(owner))) * length[owner]).astype(np.int64) + 1
    side = np.concatenate([np.zeros(n), np.ones(len(owner))])
    time = np.concatenate([opened, opened[owner] + ages])
    key = np.concatenate([np.arange(n), owner])
    return _workload(side, time, key, window, f"auctions(seed={seed})")


def requests(steps: int = 4000, rate: float = 1.0, latency: float = 3.5, sigma: float = 1.0, timeout: int = 150,
             retries: int = 2, window: int = 400, seed: int = 0) -> Workload:
    """R: requests (Poisson, ``rate`` per step); S: their responses after a log-normal latency
    (median e^``latency`` steps, ``sigma``); a request whose response has not come by ``timeout``
    steps is sent again (the same key, up to ``retries`` times, each copy with its own latency),
    and one response in ten never comes. The key is the request."""
    rng = np.random.default_rng(seed)
    n = rng.poisson(rate * steps)
    sent = np.sort(rng.integers(0, steps, n))
    side, time, key = [], [], []
    for k in range(n):
        t = int(sent[k])
        for _ in range(retries + 1):
            side.append(0)
            time.append(t)
            key.append(k)
            if rng.random() < 0.9:
                lag = 1 + int(rng.lognormal(latency, sigma))
                if lag <= timeout:
                    side.append(1)
                    time.append(t + lag)
                    key.append(k)
                    break
            t += timeout
    return _workload(np.array(side), np.array(time), np.array(key), window, f"requests(seed={seed})")


def measure(wl: Workload, memory: int) -> dict:
    row: dict = {"workload": wl.name, "memory": memory, "tuples": len(wl)}
    row["opt"] = int(solve_opt(wl, memory, allocation="fixed").outputs)
    for policy in ("prob", "rand", "age", "hazard"):
        row[policy] = int(run_policy(wl, policy, memory, estimator="online").outputs)
    base = max(row["prob"], row["rand"])
    best = max(row["prob"], row["rand"], row["age"])
    row["hazard_gap_closed"] = round((row["hazard"] - base) / (row["opt"] - base), 3) if row["opt"] > base else None
    row["hazard_vs_best_points"] = round(100 * (row["hazard"] - best) / max(row["opt"], 1), 2)
    for policy in ("prob", "rand", "age", "hazard"):
        row[f"{policy}/opt"] = round(row[policy] / max(row["opt"], 1), 4)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=lambda s: [int(x) for x in s.split(",")], default=[0, 1, 2])
    parser.add_argument("--memory", type=lambda s: [int(x) for x in s.split(",")], default=[50, 100])
    args = parser.parse_args()
    for seed in args.seeds:
        for make in (auctions, requests):
            wl = make(seed=seed)
            for memory in args.memory:
                print(json.dumps(measure(wl, memory)), flush=True)


if __name__ == "__main__":
    main()
