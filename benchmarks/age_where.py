"""Where AGE (Srivastava and Widom, VLDB 2004) loses on the flights of 2013 with the tail number as
the key, against PROB, HAZARD and OPT: per setting (w = 240, 720, 1440 minutes; M = 100, 300, 600)
the fraction of OPT and of PROB's gap to OPT closed, AGE's hold ages and the partners per tuple
they catch, and where each policy's memory went (the share of its tuples' memory-minutes spent on
tuples that never met a partner, the share of tuples it admitted); then, at one setting, the
arrivals each policy refused per hour of the day against the hourly arrival rate.

    python benchmarks/age_where.py --months 7 --out out/age_where.jsonl
    python benchmarks/age_where.py --months 7 --hours 240,300

Rows are appended to the JSON-lines file as they finish. The outputs are deterministic.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from shedding.datasets.flights import flights_workload
from shedding.offline.opt import solve_opt
from shedding.online.ageing import age_plan, known_curves
from shedding.online.simulator import Reference, simulate

#: the runs measured: name -> (policy, estimator); AGE with the static estimator is told the curve
RUNS = {"prob": ("prob", "online"), "age_known": ("age", "static"), "age_est": ("age", "online"),
        "hazard": ("hazard", "online")}


def memory_use(wl, res) -> dict:
    """The share of tuples admitted and of the admitted tuples' memory-minutes spent on tuples that
    never met a partner."""
    matched = np.zeros(len(wl), dtype=bool)
    matched[res.pairs.ravel()] = True
    stay = np.where(res.schedule.admitted, res.schedule.left - wl.time, 0).astype(float)
    return {"admitted": float(res.schedule.admitted.mean()),
            "memory_never_matched": float(stay[~matched].sum() / max(stay.sum(), 1.0))}


def plan(wl, memory: int) -> dict:
    """AGE's hold ages with the known curve (fixed split) and the partners per tuple they catch."""
    f, rates = known_curves(wl)
    cum = np.cumsum(f, axis=1)
    hold, density = np.zeros(2, np.int64), np.zeros(2)
    age_plan(np.arange(cum.shape[1], dtype=np.int64), cum, rates, np.array([memory // 2, memory - memory // 2]),
             False, hold, density)
    return {"rate": float(rates[0]), "hold": hold.tolist(),
            "caught": [round(float(cum[s, hold[s]]), 3) for s in (0, 1)],
            "partners": [round(float(cum[s, -1]), 3) for s in (0, 1)]}


def settings(month: int, out: Path) -> None:
    with out.open("a") as sink:
        for window in (240, 720, 1440):
            wl = flights_workload(months=month, window=window, warmup=0)
            ref = Reference.of(wl)
            for memory in (100, 300, 600):
                row = {"month": month, "window": window, "memory": memory, "opt": int(solve_opt(wl, memory).outputs),
                       "age_plan": plan(wl, memory)}
                for name, (policy, estimator) in RUNS.items():
                    res = simulate(wl, policy, memory, estimator=estimator, reference=ref, pairs=True)
                    row[name] = int(res.outputs)
                    row[f"{name}_memory"] = memory_use(wl, res)
                gap = row["opt"] - row["prob"]
                for name in ("age_known", "age_est", "hazard"):
                    row[f"{name}_closed"] = (row[name] - row["prob"]) / gap if gap > 0 else None
                sink.write(json.dumps(row) + "\n")
                sink.flush()
                print(json.dumps(row))


def hours(month: int, window: int, memory: int) -> None:
    """Per hour of the day: R's arrivals per minute, and the share of all arrivals each policy never
    admitted (AGE refuses the newest when its memory is full of tuples younger than their hold age)."""
    wl = flights_workload(months=month, window=window, warmup=0)
    ref = Reference.of(wl)
    hour = (wl.time // 60) % 24
    r = wl.side == 0
    days = (wl.time[-1] - wl.time[0] + 1) / 1440
    print("R arrivals per minute:", np.round(np.bincount(hour[r], minlength=24) / (days * 60), 2).tolist())
    for name in ("age_known", "hazard"):
        policy, estimator = RUNS[name]
        res = simulate(wl, policy, memory, estimator=estimator, reference=ref)
        refused = [float(1 - res.schedule.admitted[hour == h].mean()) for h in range(24)]
        print(f"{name} never admitted:", np.round(refused, 2).tolist())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--months", type=lambda s: [int(x) for x in s.split(",")], default=[7])
    parser.add_argument("--out", type=Path, default=Path("out/age_where.jsonl"))
    parser.add_argument("--hours", default=None, help="WINDOW,MEMORY: the hourly table at this setting instead")
    args = parser.parse_args()
    if args.hours:
        window, memory = (int(x) for x in args.hours.split(","))
        for month in args.months:
            hours(month, window, memory)
        return
    args.out.parent.mkdir(parents=True, exist_ok=True)
    for month in args.months:
        settings(month, args.out)


if __name__ == "__main__":
    main()
