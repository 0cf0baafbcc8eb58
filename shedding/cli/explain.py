"""``shed explain``: where an online policy loses output against OPT (or OPTV, EXACT), and why."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

import typer
from rich.markup import escape

from shedding.cli.checks import choice, gib, integer, integers, listed_in, number
from shedding.cli.learner import CHECK_TUNING, TUNING_HELP, check_buckets, group_rule, parse_tuning, tuning_rules
from shedding.cli.output import (busy, hint_group, out, print_fitted, print_header, say, warn_naive_times, warn_counts_nothing, warn_static_lookahead,
                                 workload_estimator, write_file)
from shedding.cli.rows import REFERENCES, warm_up
from shedding.cli.rules import Creatable, Holds, Ignored, Values, checked
from shedding.cli.workload import (ESTIMATOR_HELP, ESTIMATORS, GROUP_HELP, WORKLOAD_RULES, check_group, check_split,
                                   estimator_of, fixed_split, takes_workload)
from shedding.online.policies import seeded, uses
from shedding.run import POLICY_NAMES

if TYPE_CHECKING:
    from shedding.model import Workload

ONLINE = tuple(name for name in POLICY_NAMES if name not in REFERENCES)
AGAINST = listed_in("shedding.studies.explain", "AGAINST")


def against_of(v: Values) -> str:
    """The reference: --against, else the optimum of the policy's own split."""
    from shedding.studies.explain import default_against

    return v.against or default_against(v.policy)


RULES = (
    Ignored(("--decay",), lambda v: estimator_of(v) == "online", "applies to the online estimator only",
            "add --estimator online or drop it"),
    Ignored(("--policy-seed",), lambda v: seeded(v.policy),
            f"applies to the random choices of {' and '.join(uses('seed'))} only"),
    Ignored(("--memory-split",), lambda v: fixed_split(v.policy) or against_of(v) == "opt",
            "applies to a fixed-split policy or OPT only; the others split memory freely"),
    Ignored(("--max-graph-gib",), lambda v: against_of(v) != "exact", "applies to OPT and OPTV only, not to "
            "--against exact"),
    group_rule(lambda v: [v.policy]),
    Holds(check_group),
    *tuning_rules(lambda v: [v.policy], known=lambda v: estimator_of(v) == "static"),
    Holds(check_buckets),
    Holds(check_split),
    Creatable(("--out",), folder=True),
    *WORKLOAD_RULES,
)


@takes_workload
def explain(
    load: Callable[[], Workload],
    policy: str = typer.Option("prob", "--policy", "-p", callback=choice(
        ONLINE, "policy", "; exact, opt and optv are references: name them with --against"),
        help="The online policy to explain (one of: " + ", ".join(ONLINE) + ")."),
    against: Optional[str] = typer.Option(None, "--against", callback=choice(AGAINST), show_default=False,
                                          help="opt, optv or exact (default: opt for a fixed split, optv for a "
                                          "variable one)."),
    memory: Optional[int] = typer.Option(None, "--memory", "-m", callback=integer(0), show_default=False,
                                         help="Join memory M in tuples (default: w)."),
    memory_split: Optional[str] = typer.Option(None, "--memory-split", callback=integers(2), show_default=False,
                                               help="Fixed split M_R,M_S for the policy and OPT (default: M//2, "
                                               "M-M//2; all of M to R or S on a --range that stores one side)."),
    estimator: Optional[str] = typer.Option(None, "--estimator", callback=choice(ESTIMATORS), show_default=False,
                                            help=ESTIMATOR_HELP),
    decay: float = typer.Option(1.0, "--decay", callback=number(0, above=True, high=1),
                                help="Online estimator: weight an arrival keeps per time step."),
    policy_seed: int = typer.Option(0, "--policy-seed", callback=integer(0), help="Seed of RAND's choices."),
    buckets: int = typer.Option(40, "--buckets", callback=integer(1, 1000),
                                help="Time buckets of the per-key tables and figures."),
    top: int = typer.Option(15, "--top", callback=integer(1), help="Keys shown in the ranked table."),
    max_graph_gib: float = typer.Option(4.0, "--max-graph-gib", callback=gib(),
                                        help="Refuse OPT networks estimated above this size."),
    out_dir: Optional[Path] = typer.Option(None, "--out", help="Folder for explain.html and explain.json.",
                                           show_default=False),
    as_json: bool = typer.Option(False, "--json", help="Print the explanation as one JSON object."),
    group: Optional[str] = typer.Option(None, "--group", show_default=False,
                                        help=GROUP_HELP),
    tuning: Optional[str] = typer.Option(None, "--tuning", callback=CHECK_TUNING, show_default=False,
                                         help=TUNING_HELP),
) -> None:
    """Explain where an online policy loses output against OPT (or OPTV, EXACT), and why.

    Per key and time bucket: outputs lost and gained, tuples kept by one schedule only, memory shares;
    a ranked key table with the reason (never admitted, evicted before partners came, kept but never
    matched); with --out a self-contained HTML page (heat map, memory composition, cumulative gap).

    Example: shed explain --policy prob --against opt --window 400 --memory 400 --out out/explain
    """
    from shedding.studies.explain import default_against, explain as run

    against = against or default_against(policy)
    budget = checked(check_split)  # M (--memory, else the window) and its split, checked by the rules
    wl = load()
    warn_counts_nothing(wl)
    warn_naive_times(wl)
    estimator = workload_estimator(wl, estimator)
    warn_static_lookahead(wl, estimator, [policy])
    hint_group(wl, [policy], group)
    warm_up([policy, "opt"])
    with busy(f"explaining {policy.upper()} against {against.upper()} ({len(wl):,} tuples)..."):
        ex = run(wl, policy, budget, against=against, estimator=estimator, decay=decay,
                 seed=policy_seed, buckets=buckets, max_graph_bytes=int(max_graph_gib * 2**30), group=group,
                 tuning=None if tuning is None else parse_tuning(tuning))
    if out_dir is not None:
        from shedding.studies.explain_page import write_explain_html

        doc = ex.as_dict()
        write_file(out_dir / "explain.json", "--out", lambda path: path.write_text(json.dumps(doc)))
        write_explain_html(ex, out_dir / "explain.html", top, command=shlex.join(["shed", *sys.argv[1:]]))
    if as_json:
        print(json.dumps(ex.as_dict(top)))
        return
    s = ex.summary
    print_header(wl, budget.total)
    say(f"{policy.upper()} {s['policy_outputs']:,} vs {against.upper()} {s['reference_outputs']:,} outputs "
        f"({100 * s['ratio']:.2f}%): {s['lost_outputs']:,} lost, {s['gained_outputs']:,} gained; lost tuples "
        f"{s['tuples_never_admitted']:,} never admitted, {s['tuples_evicted_before_partners_came']:,} evicted "
        f"early; {s['tuples_kept_but_never_matched']:,} kept but never matched")
    if s.get("group_choice"):
        from shedding.online.simulator import picked

        say(f"{policy.upper()} --group {s.get('group') or 'auto'} ranked {picked(s['group_choice'])} refits")
    named = "label" in ex.keys  # keys as the data names them (text keys, tail numbers), as the page and JSON do
    print_fitted(
        [("key", "right"), ("net lost", "right"), ("lost", "right"), ("gained", "right"), ("mem % pol", "right"),
         ("mem % ref", "right"), ("reason", "left")],
        [[str(r.label if named else r.key), f"{r.net_lost:,}", f"{r.lost:,}", f"{r.gained:,}", f"{100 * r.policy_memory_share:.1f}",
          f"{100 * r.reference_memory_share:.1f}", r.reason] for r in ex.keys.head(top).itertuples()],
        optional=("mem % ref", "mem % pol", "gained"))
    if out_dir is not None:
        out.print(f"page: {escape(str(out_dir / 'explain.html'))}, data: {escape(str(out_dir / 'explain.json'))}")
