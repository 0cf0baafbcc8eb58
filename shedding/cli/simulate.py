"""``shed simulate``: shedding policies on one workload, against EXACT (paper §4)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

import typer

from shedding.cli.checks import choice, columns, decimals, gib, integer, integers, names, number
from shedding.cli.learner import CHECK_TUNING, TUNING_HELP, check_buckets, group_rule, learns, parse_tuning, tuning_rules
from shedding.cli.output import (busy, fraction, hint_group, print_fitted, print_header, say, warn_naive_times, warn_counts_nothing, warn_static_lookahead,
                                 workload_estimator, write_file)
from shedding.cli.rows import REFERENCES, online_bound_row, online_options, row, warm_up
from shedding.cli.rules import Creatable, Holds, Ignored, Needs, SameCount, Values, checked
from shedding.cli.workload import (ESTIMATOR_HELP, ESTIMATORS, GROUP_HELP, MAX_GRAPH_HELP, SOURCES, WORKLOAD_RULES,
                                   check_group, check_split, estimator_of, fixed_split, generated, takes_workload)
from shedding.errors import ShedError
from shedding.online.policies import BAND, grouped, listing, names_for, seeded, uses
from shedding.run import POLICY_NAMES

PREDICATES = ("equi", "band")

if TYPE_CHECKING:
    from shedding.model import Memory, Workload


def policy_list(text: str) -> list[str]:
    """The names of a checked --policy list."""
    return text.split(",")


def online(v: Values) -> bool:
    return any(name not in REFERENCES for name in policy_list(v.policy))


def check_family(v: Values) -> None:
    """With --predicate band, every online policy chosen runs on the band join (the registry's
    families): the others are refused before any data is read, not run with parameters the band
    kernel never sets."""
    if v.predicate != "band":
        return
    refused = [n for n in policy_list(v.policy) if n not in REFERENCES and n not in names_for(BAND)]
    if refused:
        raise ShedError(f"--policy {refused[0]} does not run on the band join (--predicate band); choose from "
                        f"{', '.join(('exact', *names_for(BAND), 'opt', 'optv'))}")


RULES = (
    Needs("--eps", lambda v: v.predicate == "band",
          "--predicate band needs --eps, one band width per attribute, e.g. --eps 0.5"),
    Ignored(("--eps", "--attrs", "--bins"), lambda v: v.predicate == "band", "applies to band joins only",
            "add --predicate band or drop it"),
    SameCount("--eps", "--attrs", "attribute"),
    Ignored(("--decay",), lambda v: v.predicate == "equi", "applies to equi-joins only; band histograms count "
            "every arrival equally"),
    Ignored(("--decay",), lambda v: estimator_of(v) == "online", "applies to the online estimator only",
            "add --estimator online or drop it"),
    Ignored(("--estimator",), online, "applies to the online policies only, not to exact, opt or optv"),
    Ignored(("--policy-seed",), lambda v: any(map(seeded, policy_list(v.policy))),
            f"applies to the random choices of {' and '.join(uses('seed'))} only"),
    Ignored(("--memory-split",), lambda v: any(map(fixed_split, policy_list(v.policy))),
            "applies to the fixed-split policies (opt and the online policies without a v suffix) only; the "
            "others split memory freely"),
    Ignored(("--max-graph-gib",), lambda v: v.predicate == "equi" and bool({"opt", "optv"} & set(policy_list(v.policy))),
            "applies to OPT and OPTV on equi-joins only"),
    group_rule(lambda v: policy_list(v.policy)),
    Ignored(("--group",), lambda v: v.predicate == "equi", "applies to equi-joins only"),
    Ignored(("--range",), lambda v: v.predicate == "equi", "applies to equi-joins only; band joins take --window"),
    Holds(check_group),
    Holds(check_family),
    *tuning_rules(lambda v: policy_list(v.policy), known=lambda v: estimator_of(v) == "static"),
    Holds(check_buckets),
    Ignored(("--bound",), lambda v: SOURCES[v.generator].bound == "age" and v.predicate == "equi" and generated(v),
            "applies to the age-based model only (it bounds online policies from the model's own draws)",
            "add --generator age or drop it"),
    Holds(check_split),
    Creatable(("--out",)),
    *WORKLOAD_RULES,
)


@takes_workload
def simulate(
    load: Callable[[], Workload],
    policy: str = typer.Option("exact,rand,prob,life", "--policy", "-p", callback=names(POLICY_NAMES),
                               help="Comma list of: " + ", ".join(POLICY_NAMES) + ". exact: the full window join; "
                               + listing(POLICY_NAMES) + "; opt, optv: the offline optimum. --predicate band runs "
                               + ", ".join(names_for(BAND)) + " and the references."),
    memory: Optional[int] = typer.Option(None, "--memory", "-m", callback=integer(0), show_default=False,
                                         help="Join memory M in tuples (default: w, half of what EXACT needs)."),
    memory_split: Optional[str] = typer.Option(
        None, "--memory-split", callback=integers(2), show_default=False,
        help="Fixed split M_R,M_S for the fixed-split policies and OPT (default: M//2, M-M//2; all of M to R "
        "or S on a --range that stores one side)."),
    estimator: Optional[str] = typer.Option(None, "--estimator", callback=choice(ESTIMATORS), show_default=False,
                                            help=ESTIMATOR_HELP),
    decay: float = typer.Option(1.0, "--decay", callback=number(0, above=True, high=1),
                                help="Online estimator: weight an arrival keeps per time step."),
    policy_seed: int = typer.Option(0, "--policy-seed", callback=integer(0), help="Seed of RAND's choices."),
    max_graph_gib: float = typer.Option(4.0, "--max-graph-gib", callback=gib(), help=MAX_GRAPH_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object per policy instead of a table."),
    out_path: Optional[Path] = typer.Option(None, "--out", help="Also write the rows of --json to this file: a table if it ends in .csv or "
                                            ".parquet, else JSON lines.",
                                            show_default=False),
    predicate: str = typer.Option("equi", "--predicate", callback=choice(PREDICATES),
                                  help="equi (equal keys) or band (|r.a - s.a| <= eps on every attribute of "
                                  "--attrs)."),
    eps: Optional[str] = typer.Option(None, "--eps", callback=decimals(), show_default=False,
                                      help="Band joins: one band width per attribute, e.g. 0.5 or 0.5,2 (compared "
                                      "exactly as decimals)."),
    attrs: Optional[str] = typer.Option(None, "--attrs", callback=columns(), show_default=False,
                                        help="Band joins: the numeric columns to compare (default: key)."),
    bins: int = typer.Option(1024, "--bins", callback=integer(1),
                             help="Band joins: histogram bins per attribute for PROB/LIFE."),
    group: Optional[str] = typer.Option(None, "--group", show_default=False,
                                        help=GROUP_HELP),
    tuning: Optional[str] = typer.Option(None, "--tuning", callback=CHECK_TUNING, show_default=False,
                                         help=TUNING_HELP),
    bound: bool = typer.Option(False, "--bound", help="--generator age: also give the most any online policy can "
                               "get in expectation (BOUND, BOUNDV for the variable split), to tell a policy's "
                               "loss from the price of not knowing the future."),
) -> None:
    """Run shedding policies on one workload and compare their output with EXACT.

    Example: shed simulate --policy exact,rand,prob,life --window 400 --memory 200
    """
    chosen = policy_list(policy)
    budget = checked(check_split)  # M (--memory, else the window) and its split, checked by the rules
    wl = load()
    warn_counts_nothing(wl)
    warn_naive_times(wl)
    estimator = workload_estimator(wl, estimator)
    warn_static_lookahead(wl, estimator, chosen)
    hint_group(wl, chosen, group)
    m = budget.total
    if predicate == "band":
        assert eps is not None  # RULES: --predicate band needs --eps
        rows = _band_rows(wl, budget, chosen, eps, attrs, bins, estimator, policy_seed)
    else:
        rows = _rows(wl, budget, chosen, estimator, decay, policy_seed, int(max_graph_gib * 2**30), group, tuning)
    if bound:
        rows += _bound_rows(wl, budget, chosen, int(max_graph_gib * 2**30), rows[0]["exact"])
    if out_path is not None:
        write_file(out_path, "--out", _rows_writer(out_path.name, rows))
    if as_json:
        for r in rows:
            print(json.dumps(r))
        return
    _print_table(wl, m, rows)
    for r in rows:
        if "group_choice" in r:
            refits = sum(r["group_choice"]["R"].values())
            say(f"{r['policy'].upper()} --group {r.get('group') or 'auto'}, the grouping each side ranked by at its "
                f"{refits} refits: "
                + "; ".join(f"{side} " + ", ".join(f"{name} {n}" for name, n in counts.items() if n)
                            for side, counts in r["group_choice"].items()))
    if predicate == "band":
        say("band join: " + ", ".join(f"|r.{a} - s.{a}| <= {e}" for a, e in zip(rows[0]["attrs"], rows[0]["eps"])))
    if bound:
        named = " and ".join(r["policy"].upper() for r in rows if "expected_outputs" in r)
        say(f"{named}: the most any online policy can get in expectation on this model; one stream's output may "
            "exceed it, a mean over seeds may not")
    if out_path is not None:
        say(f"results written to {out_path}")


def _rows(wl: Workload, budget: Memory, chosen: list[str], estimator: str, decay: float, seed: int,
          max_graph_bytes: int, group: Optional[str] = None, tuning: Optional[str] = None) -> list[dict]:
    from shedding.online import Reference
    from shedding.run import run_policy

    ref = Reference.of(wl)
    warm_up(chosen)
    learned = None if tuning is None else parse_tuning(tuning)
    rows = []
    with busy("running the policies..."):
        for name in chosen:
            grouping = group if grouped(name) else None
            tuned = learned if learns(name, known=estimator == "static") else None  # AGE is told its curve
            res = run_policy(wl, name, budget, estimator=estimator, decay=decay, seed=seed, reference=ref,
                             max_graph_bytes=max_graph_bytes, group=grouping, tuning=tuned)
            options = online_options(name, estimator, decay if estimator == "online" else None, seed)
            result = res.as_dict()
            ran = result.get("group")  # the grouping HAZARD ran: the one given, or its default
            if ran is not None:
                options["group"] = ran if grouping is None else grouping
            if tuned is not None and tuned.spec:
                options["tuning"] = tuned.spec
            rows.append(row(wl, budget.total, result, **options))
    return rows


def _bound_rows(wl: Workload, budget: Memory, chosen: list[str], max_graph_bytes: int, exact: int) -> list[dict]:
    """The online bound (:mod:`shedding.offline.agebound`) for each split of the chosen online
    policies (the fixed split when there are none); ``exact`` is EXACT's count of the policies' rows."""
    from shedding.model import Memory
    from shedding.offline.agebound import REVEALS, age_bound
    from shedding.online.policies import POLICIES

    rows, budget = [], Memory.of(budget, None, wl.bounds)  # the split the policies ran under
    with busy("bounding the online policies..."):
        for variable in sorted({POLICIES[n].variable for n in chosen if n in POLICIES}) or [False]:
            started = time.perf_counter()
            value = age_bound(wl, budget, variable=variable, max_graph_bytes=max_graph_bytes)
            m_r, m_s = (None, None) if variable else budget.split
            rows.append(online_bound_row(wl, budget.total, {
                "policy": "boundv" if variable else "bound", "expected_outputs": round(value, 3), "exact": exact,
                "ratio": round(value / exact, 6) if exact else 1.0, "relaxation": REVEALS[0], "memory_r": m_r,
                "memory_s": m_s, "seconds": round(time.perf_counter() - started, 4)}))  # as the policies' rows
    return rows


def _band_rows(wl: Workload, budget: Memory, chosen: list[str], eps: str, attrs: Optional[str], bins: int,
               estimator: str, seed: int) -> list[dict]:
    from shedding.cli.band import band_results

    names_ = tuple(a.strip() for a in (attrs or "key").split(","))
    with busy("running the policies on the band join..."):
        results = band_results(wl, names_, eps, bins, estimator, chosen, budget, seed)
    return [row(wl, budget.total, r, **r["options"], **{k: r[k] for k in ("predicate", "eps", "attrs")})
            for r in results]


def _rows_writer(name: str, rows: list[dict]) -> Callable[[Path], object]:
    """What writes the JSON rows to a file called ``name``: a CSV or Parquet table when it ends
    so (nested values as their JSON text), else JSON lines."""
    import pandas as pd

    from shedding.datasets.formats import FORMATS

    lower = name.lower()
    fmt = next((f for ext, f in FORMATS.items() if lower.endswith(ext)), None)  # the stream files' extensions
    if fmt is None:
        text = "".join(json.dumps(r) + "\n" for r in rows)
        return lambda path: path.write_text(text)
    frame = pd.DataFrame([{k: json.dumps(v) if isinstance(v, (list, tuple, dict)) else v for k, v in r.items()}
                          for r in rows])
    if fmt == "parquet":
        return lambda path: frame.to_parquet(path, index=False)
    return lambda path: frame.to_csv(path, index=False, compression="gzip" if lower.endswith(".gz") else None)


def _print_table(wl: Workload, memory: int, rows: list[dict]) -> None:
    from shedding.exact import exact_memory

    print_header(wl, memory)
    need = exact_memory(wl)
    cells = []
    for r in rows:
        mem = str(r["memory"]) if r["memory_r"] is None else f"{r['memory_r']}+{r['memory_s']}"
        if r["policy"] == "exact":
            mem = f">= {need.fixed}"
        outputs = f"{r['outputs']:,}" if "outputs" in r else f"{r['expected_outputs']:,.1f}"
        arm = f"{r['arm']:,}" if r.get("arm") is not None else "-"
        cells.append([r["policy"].upper(), outputs, f"{r['exact']:,}", fraction(r['ratio']), arm, mem,
                      f"{r['seconds']:.2f}"])
    print_fitted([("policy", "left"), ("outputs", "right"), ("EXACT", "right"), ("ratio", "right"),
                  ("ArM", "right"), ("memory", "right"), ("seconds", "right")], cells,
                 optional=("seconds", "memory", "EXACT"))
    if any(r["policy"] == "exact" for r in rows) and (need.r != need.s or need.both != need.fixed):
        say(f"EXACT holds up to {need.r} R and {need.s} S tuples at once: a fixed split keeps every tuple with "
            f"M_R >= {need.r} and M_S >= {need.s} (--memory-split {need.r},{need.s}), a variable split with "
            f"M >= {need.both}")
