"""Policies beyond i.i.d. streams, as fractions of OPT: PROB (the kernel), AGE (Srivastava and
Widom 2004; age curve known or estimated) and the adaptive HAZARD (shedding.online.hazard), all kinds
of the one join kernel run by shedding.run.run_policy,
on the flights of 2013, the age-based model, drifting and bursty streams and the paper's i.i.d.
Zipf settings.

Each row: the workload, M, the split, every policy's outputs, OPT's, and per policy its fraction of
OPT, the fraction of PROB's gap to OPT it closes ((policy - PROB) / (OPT - PROB)) and its time per
arrival against PROB's (each policy run twice on the same workload, the second run timed); for
HAZARD also the guard's choice (``hazard_guard``: per side, the refits at which it ranked by its
age shape, of all refits; shedding.online.guard). Rows are
appended to a JSON-lines file as they finish, and a rerun skips the rows already there.

    python benchmarks/bench_beyond.py flights --months 7,8,9,10,11,12 --out out/beyond.jsonl
    python benchmarks/bench_beyond.py flights --key carrier --window 240 --memory 100 --out out/beyond.jsonl
    python benchmarks/bench_beyond.py age|drift|bursts|iid --out out/beyond.jsonl
    python benchmarks/bench_beyond.py cost   # time per arrival of the operator alone, against PROB
    python benchmarks/bench_beyond.py cost --tuning ratio=1.6,first=16 --tuning shadow=128
    python benchmarks/bench_beyond.py cost-grid --months 1,9 --repeats 3   # PROB, HAZARD (none, dest, history): w x M
    python benchmarks/bench_beyond.py churn --months 1   # tuples admitted and how long they stay, against OPT

``--tuning`` sets HAZARD's learner (fields of shedding.online.tuning.HazardTuning, the others at
their defaults; every row records the whole tuning); ``cost`` takes it more than once and times
the settings alternately in one run against the same PROB.

Development and tuning used January to June of the flights and seeds 0-1 of the synthetic
models only; the held-out evaluation is July to December and seeds 2-3.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from pathlib import Path

import numpy as np

from shedding.datasets import zipf_workload
from shedding.datasets.age import age_workload
from shedding.datasets.bursts import burst_workload
from shedding.datasets.drift import drift_workload
from shedding.datasets.flights import flights_workload
from shedding.errors import ShedError
from shedding.offline.opt import solve_opt
from shedding.online.policies import get_policy
from shedding.online.simulator import Reference
from shedding.online.tuning import HazardTuning
from shedding.run import run_policy


#: the policies measured besides PROB: name -> (registry name, estimator or None for the run's,
#: group or None for HAZARD's default); AGE with the static estimator knows the workload's age curve. A
#: payload group (``dest``, ``auto``) runs only on a workload with a payload; the key's history
#: (``history``, ``auto-history``, shedding.online.keyhistory) reads the stream alone, so it runs on
#: every workload, as does no group (``none``; HAZARD's default under a one-sided range is auto-history)
POLICIES = {"age": ("age", "static", None), "age-est": ("age", "online", None), "hazard": ("hazard", None, None),
            "hazard-none": ("hazard", None, "none"), "hazard-dest": ("hazard", None, "dest"),
            "hazard-auto": ("hazard", None, "auto"), "hazard-history": ("hazard", None, "history"),
            "hazard-auto-history": ("hazard", None, "auto-history")}
#: the groupings that need no payload column
STREAM_ONLY = (None, "none", "history", "auto-history")


def parse_tuning(text: str) -> HazardTuning:
    """``--tuning``: HazardTuning.parse, its error as argparse's."""
    try:
        return HazardTuning.parse(text)
    except ShedError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def spec(tuning: HazardTuning) -> str:
    """How a row names ``tuning``: the fields that differ from the defaults, or ``default``."""
    return tuning.spec or "default"


def measure(wl, memory: int, label: dict, estimator: str = "online", variable: bool = False,
            only: tuple[str, ...] | None = None, tuning: HazardTuning | None = None) -> dict:
    v = "v" if variable else ""
    tuning = tuning or HazardTuning()
    row = dict(label, memory=memory, variable=variable, estimator=estimator, window=wl.window, tuples=len(wl),
               tuning=dataclasses.asdict(tuning))
    started = time.perf_counter()
    opt = solve_opt(wl, memory, allocation="variable" if variable else "fixed")
    row["opt"], row["exact"] = int(opt.outputs), int(opt.exact)
    row["opt_seconds"] = round(time.perf_counter() - started, 1)
    ref = Reference.of(wl)
    names = ["prob"] + [n for n in POLICIES if (not only or n in only)
                        and (POLICIES[n][2] in STREAM_ONLY or "payload" in wl.meta)]
    for name in names:
        policy, est, group = POLICIES.get(name, ("prob", None, None))
        for _ in range(2):  # the second run, warm, is timed
            run = run_policy(wl, policy + v, memory, estimator=est or estimator, reference=ref, group=group,
                             tuning=tuning if get_policy(policy).tunable else None)
        row[name], row[f"{name}_seconds"] = int(run.outputs), round(run.seconds, 3)
        if run.guard is not None:
            row[f"{name}_guard"] = run.guard
        row[f"{name}_us_per_arrival"] = round(1e6 * run.seconds / max(len(wl), 1), 3)
    gap = row["opt"] - row["prob"]
    for name in names:
        row[f"{name}/opt"] = round(row[name] / max(row["opt"], 1), 4)
        if name != "prob":
            row[f"{name}_gap_closed"] = round((row[name] - row["prob"]) / gap, 4) if gap > 0 else None
            row[f"{name}_cost_vs_prob"] = round(row[f"{name}_seconds"] / max(row["prob_seconds"], 1e-9), 2)
    return row


def _best_seconds(wl, memory: int, runs: list, repeats: int) -> list[float]:
    """The best of ``repeats`` CPU times of each run's feed (``runs``: (name, policy, group,
    tuning)), all runs of one repeat in turn, so that the load of the machine falls alike on each;
    a first, untimed round loads the compiled code."""
    from shedding.online import JoinOperator, OnlineEstimator

    best = [float("inf")] * len(runs)
    for r in range(repeats + 1):
        for i, (_, policy, group, tuning) in enumerate(runs):
            op = JoinOperator(wl.window, memory, policy, warmup=wl.warmup, estimator=OnlineEstimator(), tuning=tuning)
            started = time.process_time()
            op.feed(wl.side, wl.time, wl.key, group)
            if r > 0:
                best[i] = min(best[i], time.process_time() - started)
    return best


def cost(tunings: list[HazardTuning], repeats: int = 5) -> list[dict]:
    """CPU time per arrival of each policy's join operator alone (the feed, best of ``repeats``), on
    the flights of January (M = 200, online estimator) and the paper's Zipf point (w = M = 400);
    AGE and HAZARD (without a group; by destination and with ``auto`` on the flights; by the key's
    history, and picking between it and no group as under a one-sided range, ``auto-history``) with
    each of ``tunings``, all runs of one repeat in turn; and the CPU time of working
    out the history's groups (row ``history-groups``, best of ``repeats``, per tuple)."""
    from shedding.online.simulator import payload_groups

    rows = []
    for label, wl, memory in (("flights-jan", flights_workload(1), 200), ("zipf", zipf_workload(seed=2), 400)):
        groups = payload_groups(wl, "dest") if "payload" in wl.meta else None
        auto = payload_groups(wl, "auto") if "payload" in wl.meta else None
        history = payload_groups(wl, "history")
        runs = [("prob", "prob", None, None), ("probv", "probv", None, None)]
        for tuning in tunings:
            runs += [(name, policy, group, tuning) for name, policy, group in (
                ("age", "age", None), ("hazard", "hazard", None), ("hazard-dest", "hazard", groups),
                ("hazard-auto", "hazard", auto), ("hazard-history", "hazard", history),
                ("hazard-auto-history", "hazard", history[:, None]), ("hazardv", "hazardv", None))
                if group is not None or name not in ("hazard-dest", "hazard-auto")]
        best = _best_seconds(wl, memory, runs, repeats)
        for (name, _, _, tuning), seconds in zip(runs, best):
            base = best[1 if name.endswith("v") else 0]
            rows.append({"workload": label, "policy": name, "tuples": len(wl), "memory": memory,
                         "tuning": None if tuning is None else dataclasses.asdict(tuning),
                         "tuning_spec": None if tuning is None else spec(tuning),
                         "us_per_arrival": round(1e6 * seconds / len(wl), 3), "vs_prob": round(seconds / base, 2)})
        grouping = []  # working out the history's groups, before the feed (not in the rows above)
        for _ in range(repeats):
            started = time.process_time()
            payload_groups(wl, "history")
            grouping.append(time.process_time() - started)
        rows.append({"workload": label, "policy": "history-groups", "tuples": len(wl),
                     "us_per_arrival": round(1e6 * min(grouping) / len(wl), 3), "vs_prob": round(min(grouping) / best[0], 2)})
    return rows


def cost_grid(months: list[int], windows: list[int], memories: list[int], repeats: int = 3) -> list[dict]:
    """The cost across settings: CPU time per arrival of the feed alone (best of ``repeats``, the
    policies alternating) of PROB, HAZARD, HAZARD by destination and HAZARD by the key's history on
    the flights of each month (the tail number as the key), window and memory; one row per setting."""
    from shedding.online.simulator import payload_groups

    rows = []
    for month in months:
        for window in windows:
            wl = flights_workload(month, window=window)
            runs = [("prob", "prob", None, None), ("hazard", "hazard", None, None),
                    ("hazard-dest", "hazard", payload_groups(wl, "dest"), None),
                    ("hazard-history", "hazard", payload_groups(wl, "history"), None)]
            for memory in memories:
                best = _best_seconds(wl, memory, runs, repeats)
                row: dict = {"month": month, "window": window, "memory": memory, "tuples": len(wl)}
                for (name, *_), seconds in zip(runs, best):
                    row[f"{name}_us"] = round(1e6 * seconds / len(wl), 3)
                    if name != "prob":
                        row[f"{name}_vs_prob"] = round(seconds / best[0], 2)
                rows.append(row)
    return rows


def churn(months: list[int], memory: int) -> list[dict]:
    """The work behind the cost: per policy (and OPT's schedule) on the flights of each month, the
    tuples admitted (held past their arrival step), those dropped again within HAZARD's first age
    bucket (``first`` steps), the median steps held and the outputs."""
    from shedding.online import JoinOperator, OnlineEstimator
    from shedding.online.simulator import payload_groups

    first = HazardTuning().first
    rows = []
    for month in months:
        wl = flights_workload(month)
        held = {}
        opt = solve_opt(wl, memory, allocation="fixed")
        keep = opt.schedule.admitted.astype(bool) & (opt.schedule.left > wl.time)
        held["opt"] = ((opt.schedule.left - wl.time)[keep], int(opt.outputs))
        for name, policy, group in (("prob", "prob", None), ("hazard", "hazard", None),
                                    ("hazard-dest", "hazard", payload_groups(wl, "dest"))):
            op = JoinOperator(wl.window, memory, policy, warmup=wl.warmup, estimator=OnlineEstimator(), record=True)
            fed = op.feed(wl.side, wl.time, wl.key, group)
            dep = np.concatenate([fed.departures, op.finish()])
            dep = dep[dep[:, 2] == 1]
            held[name] = (dep[:, 1] - wl.time[dep[:, 0]], fed.outputs)
        for name, (steps, outputs) in held.items():
            rows.append({"workload": "flights", "month": month, "memory": memory, "policy": name,
                         "outputs": outputs, "admitted": len(steps), f"dropped_within_{first}": int((steps < first).sum()),
                         "median_held": float(np.median(steps)) if len(steps) else 0.0})
    return rows


def cases(kind: str, args) -> list:
    """(label, workload factory, memory, groups factory) per row."""
    out = []
    if kind == "flights":
        for month in args.months:
            def make(month=month):
                return flights_workload(month, key=args.key, window=args.window or 720)
            out += [({"workload": "flights", "month": month, "key": args.key, "window": args.window or 720,
                      "split": "dev" if month <= 6 else "held-out"}, make, args.memory or 200, "dest")]
    elif kind == "age":
        for seed in args.seeds:
            for spread in (5, 20, 50):
                for background in (0.0, 0.25, 0.5):
                    for skew, domain in ((0.0, 10**6), (0.5, 1000)):
                        def make(seed=seed, spread=spread, background=background, skew=skew, domain=domain):
                            return age_workload(length=3000, lag_spread=spread, background=background, skew=skew,
                                                domain=domain, seed=seed)
                        out += [({"workload": "age", "seed": seed, "lag_spread": spread, "background": background,
                                  "skew": skew, "domain": domain}, make, args.memory or 100, None)]
    elif kind == "drift":
        for seed in args.seeds:
            for period, shift in ((700, 5), (300, 10), (100, 1)):
                def make(seed=seed, period=period, shift=shift):
                    return drift_workload(period=period, shift=shift, seed=seed)
                out += [({"workload": "drift", "seed": seed, "period": period, "shift": shift}, make,
                         args.memory or 400, None)]
    elif kind == "bursts":
        for seed in args.seeds:
            for rotate in (True, False):
                def make(seed=seed, rotate=rotate):
                    return burst_workload(rotate=rotate, seed=seed)
                out += [({"workload": "bursts", "seed": seed, "rotate": rotate}, make, args.memory or 400, None)]
    elif kind == "iid":  # the paper's Figures 3, 5, 6 and 9 settings at w = 400
        settings = [dict(skew=1.0, domain=50, m=m) for m in (40, 100, 200, 400, 600)]
        settings += [dict(skew=s, domain=50, m=400) for s in (0.0, 0.5, 1.5, 2.0)]
        settings += [dict(skew=1.0, domain=d, m=400) for d in (10, 200)]
        for seed in args.seeds:
            for st in settings:
                def make(seed=seed, st=st):
                    return zipf_workload(skew=st["skew"], domain=st["domain"], seed=seed)
                out += [({"workload": "zipf", "seed": seed, "skew": st["skew"], "domain": st["domain"]}, make,
                         st["m"], None)]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kind", choices=["flights", "age", "drift", "bursts", "iid", "cost", "cost-grid",
                                                     "churn"])
    parser.add_argument("--months", type=lambda s: [int(x) for x in s.split(",")], default=list(range(1, 13)),
                        help="comma list of months")
    parser.add_argument("--seeds", type=lambda s: [int(x) for x in s.split(",")], default=[0, 1])
    parser.add_argument("--memory", type=int, default=None)
    parser.add_argument("--key", default="tailnum", choices=["tailnum", "carrier", "dest"], help="flights: the join key")
    parser.add_argument("--window", type=int, default=None, help="flights: w in minutes (default 720)")
    parser.add_argument("--estimator", default="online", choices=["online", "static"])
    parser.add_argument("--variable", action="store_true", help="the variable split (OPTV, PROBV, ...)")
    parser.add_argument("--only", default=None, help="comma list of the valuers to run (default: all)")
    parser.add_argument("--out", type=Path, default=Path("out/beyond.jsonl"))
    parser.add_argument("--tuning", type=parse_tuning, action="append", default=None,
                        help="HAZARD's learner, e.g. ratio=1.6,first=16 (cost: may be given more than once)")
    parser.add_argument("--repeats", type=int, default=5, help="cost: timed runs of each policy")
    parser.add_argument("--range", type=lambda s: tuple(int(x) for x in s.split(",")), default=None,
                        help="LO,HI: join every workload of the suite over this time range instead of its window "
                             "(e.g. 100,399 on the generators' w = 400: an R tuple meets nothing before the age 100)")
    args = parser.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tunings = args.tuning or [HazardTuning()]
    if args.kind == "cost":
        for row in cost(tunings, args.repeats):
            print(json.dumps(row), flush=True)
        return
    if args.kind == "cost-grid":
        windows = [args.window] if args.window else [240, 720, 1440]
        memories = [args.memory] if args.memory else [100, 200, 600]
        for row in cost_grid(args.months, windows, memories, args.repeats):
            print(json.dumps(row), flush=True)
        return
    if args.kind == "churn":
        for row in churn(args.months, args.memory or 200):
            print(json.dumps(row), flush=True)
        return
    if len(tunings) > 1:
        parser.error("--tuning is given once, except for cost")
    done = set()
    if args.out.exists():
        done = {json.dumps({k: v for k, v in json.loads(line).items() if k in ("label",)}) for line in args.out.open()}
    only = tuple(args.only.split(",")) if args.only else None
    for label, make, memory, _ in cases(args.kind, args):
        label = dict(label, memory=memory, estimator=args.estimator, variable=args.variable)
        if args.range:
            label["range"] = list(args.range)
        if tunings[0] != HazardTuning():
            label["tuning"] = spec(tunings[0])
        key = json.dumps({"label": label})
        if key in done:
            continue
        wl = make() if not args.range else make().with_params(range=args.range)
        row = measure(wl, memory, label, args.estimator, args.variable, only=only, tuning=tunings[0])
        row["label"] = label
        with args.out.open("a") as f:
            f.write(json.dumps(row) + "\n")
        print(json.dumps({k: v for k, v in row.items() if "/opt" in k or "gap" in k or "guard" in k or k in label}),
              flush=True)


if __name__ == "__main__":
    main()
