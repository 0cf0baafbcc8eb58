"""HAZARD on age-shaped streams it was never tuned for, for development only: auctions and bids in
the style of the NEXMark benchmark, and requests and responses with heavy-tailed latency and
retries (two small generators of this script, not of the package). Per workload and memory: PROB,
RAND, AGE (estimated curve), HAZARD and OPT, each policy's fraction of OPT, HAZARD's share of the
gap between the better of PROB and RAND and OPT, and HAZARD against the best of RAND, PROB and AGE
in points of OPT (the goals: at least half of the gap; never more than 0.5 points below).

With ``--payload`` the generators give each tuple payload columns: an auction's ``category`` sets
its mean duration and how many bids it draws, a request's ``endpoint`` its median latency, and a
``region`` of each sets nothing; the rows then add HAZARD by that column and with ``group="auto"``
(which must find it). Without it the streams are those of before, bit for bit. With ``--history``
the rows add HAZARD by the key's history (``group="history"``, no payload needed).

    python benchmarks/bench_general.py --seeds 0,1,2 [--payload] [--history]
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import pandas as pd

from shedding.model import Workload
from shedding.offline.opt import solve_opt
from shedding.run import run_policy


#: the payload generators' spread: categories (endpoints) span this many octaves of duration
#: (latency) and of bids, and the regions that set nothing
_OCTAVES, _REGIONS = 3.0, 5


def _workload(side: np.ndarray, time: np.ndarray, key: np.ndarray, window: int, name: str,
              payload: dict | None = None) -> Workload:
    order = np.lexsort((side, time))
    meta = {} if payload is None else {"payload": pd.DataFrame({c: v[order] for c, v in payload.items()})}
    return Workload(side=side[order].astype(np.int64), time=time[order].astype(np.int64),
                    key=key[order].astype(np.int64), window=window, warmup=window, name=name, meta=meta)


def _spread(groups: int) -> np.ndarray:
    """Per group its factor: 2^x for x evenly over ``_OCTAVES`` octaves about 1 (1 for no groups)."""
    return 2.0 ** np.linspace(-_OCTAVES / 2, _OCTAVES / 2, groups) if groups else np.ones(1)


def auctions(steps: int = 4000, rate: float = 0.5, duration: float = 120.0, bids: float = 4.0, window: int = 400,
             seed: int = 0, categories: int = 0) -> Workload:
    """R: auctions opening (Poisson, ``rate`` per step), each open for an exponential time of mean
    ``duration`` steps; S: its bids (a Zipf-like number, mean about ``bids``: a few auctions draw
    most bids), placed at ages that crowd towards the close (the square root of a uniform share of
    the duration, as last-minute bidding does). The key is the auction. With ``categories`` each
    auction has one (payload ``category``, and a ``region`` that sets nothing, both on its bids
    too): category c's auctions last ``_spread`` times longer and draw as many times fewer bids."""
    rng = np.random.default_rng(seed)
    n = rng.poisson(rate * steps)
    opened = np.sort(rng.integers(0, steps, n))
    extra = np.random.default_rng(seed + 10**6)  # the payload's draws, apart: without it the stream is as before
    cat = extra.integers(0, categories, n) if categories else np.zeros(n, np.int64)
    region = extra.integers(0, _REGIONS, n)
    factor = _spread(categories)[cat]
    length = np.maximum(1, rng.exponential(duration, n) * factor).astype(np.int64)
    count = np.minimum(rng.zipf(2.2, n) * bids / 2.2 / factor, 200).astype(np.int64)
    owner = np.repeat(np.arange(n), count)
    ages = (np.sqrt(rng.random(len(owner))) * length[owner]).astype(np.int64) + 1
    side = np.concatenate([np.zeros(n), np.ones(len(owner))])
    time = np.concatenate([opened, opened[owner] + ages])
    key = np.concatenate([np.arange(n), owner])
    payload = {"category": np.concatenate([cat, cat[owner]]), "region": np.concatenate([region, region[owner]])}
    return _workload(side, time, key, window, f"auctions(seed={seed}{f', categories={categories}' if categories else ''})",
                     payload if categories else None)


def requests(steps: int = 4000, rate: float = 1.0, latency: float = 3.5, sigma: float = 1.0, timeout: int = 150,
             retries: int = 2, window: int = 400, seed: int = 0, endpoints: int = 0) -> Workload:
    """R: requests (Poisson, ``rate`` per step); S: their responses after a log-normal latency
    (median e^``latency`` steps, ``sigma``); a request whose response has not come by ``timeout``
    steps is sent again (the same key, up to ``retries`` times, each copy with its own latency),
    and one response in ten never comes. The key is the request. With ``endpoints`` each request
    has one (payload ``endpoint``, and a ``region`` that sets nothing, both on its response too):
    endpoint e's median latency is ``_spread`` times e^``latency``."""
    rng = np.random.default_rng(seed)
    n = rng.poisson(rate * steps)
    sent = np.sort(rng.integers(0, steps, n))
    extra = np.random.default_rng(seed + 10**6)  # the payload's draws, apart: without it the stream is as before
    end = extra.integers(0, endpoints, n) if endpoints else np.zeros(n, np.int64)
    region = extra.integers(0, _REGIONS, n)
    shift = np.log(_spread(endpoints))
    side, time, key = [], [], []
    for k in range(n):
        t = int(sent[k])
        for _ in range(retries + 1):
            side.append(0)
            time.append(t)
            key.append(k)
            if rng.random() < 0.9:
                lag = 1 + int(rng.lognormal(latency + shift[end[k]], sigma))
                if lag <= timeout:
                    side.append(1)
                    time.append(t + lag)
                    key.append(k)
                    break
            t += timeout
    keys = np.array(key)
    return _workload(np.array(side), np.array(time), keys, window,
                     f"requests(seed={seed}{f', endpoints={endpoints}' if endpoints else ''})",
                     {"endpoint": end[keys], "region": region[keys]} if endpoints else None)


def measure(wl: Workload, memory: int, column: str | None = None, history: bool = False) -> dict:
    """One row; with ``column`` (a payload column) also HAZARD by it and with ``group="auto"``; with
    ``history`` also HAZARD by the key's history (``group="history"``)."""
    row: dict = {"workload": wl.name, "memory": memory, "tuples": len(wl)}
    row["opt"] = int(solve_opt(wl, memory, allocation="fixed").outputs)
    for policy in ("prob", "rand", "age", "hazard"):
        row[policy] = int(run_policy(wl, policy, memory, estimator="online").outputs)
    groups = ((f"hazard-{column}", column), ("hazard-auto", "auto")) if column is not None else ()
    if groups or history:
        base = max(row["prob"], row["rand"])
        for label, group in (*groups, *((("hazard-history", "history"),) if history else ())):
            run = run_policy(wl, "hazard", memory, estimator="online", group=group)
            row[label], row[f"{label}_guard"] = int(run.outputs), run.guard
            row[f"{label}_gap_closed"] = round((run.outputs - base) / (row["opt"] - base), 3) if row["opt"] > base else None
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
    parser.add_argument("--payload", action="store_true", help="8 auction categories and 6 request endpoints")
    parser.add_argument("--history", action="store_true", help="also HAZARD by the key's history (group history)")
    args = parser.parse_args()
    for seed in args.seeds:
        for wl, column in ((auctions(seed=seed, categories=8), "category"), (requests(seed=seed, endpoints=6), "endpoint")) \
                if args.payload else ((auctions(seed=seed), None), (requests(seed=seed), None)):
            for memory in args.memory:
                print(json.dumps(measure(wl, memory, column, args.history)), flush=True)


if __name__ == "__main__":
    main()
