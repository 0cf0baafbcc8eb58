"""How much any online policy can get on the age-based model: an information-relaxation bound.

On the age-based model of Srivastava and Widom (VLDB 2004; :mod:`shedding.datasets.age`: each R
tuple's partner arrives after a random lag, S also carries i.i.d. background traffic, R's keys are
i.i.d.) the i.i.d. argument of :mod:`shedding.online.bound` no longer holds: what arrives at step
t depends on what arrived before. Its idea still does, with a larger information set.

Let G_t be everything up to step t plus, by ``reveal``, each R tuple's lag from its arrival on
(``lags``) or which earlier R tuple each S arrival is the partner of (``labels``): more than any
online policy knows (Das, Gehrke, Riedewald 2003, §3.3: it sees keys, not lags or labels). Given
G_(t-1), the expected number of arrivals at step t that join a held tuple x, its *credit*, is

* x in S with key k: ``rate * P_R(k)`` (R is i.i.d.);
* x in R with key k: ``rate_bg * P_bg(k)`` plus the partners of key k due at t: with ``lags``,
  the number that arrive at t; with ``labels``, for every R tuple r of key k whose partner has
  not arrived yet, the hazard of r's lag at its age, ``partner * pmf(a) / (1 - partner * cdf(a-1))``
  (x itself included: with colliding keys a partner joins every held R tuple of its key).

An online policy decides what it holds at step t from less than G_(t-1), so its expected output is
the expected sum of the credits of what it holds, plus the same-step pairs every policy produces.
That sum is at most the best sum of credits over *all* schedules that know the future: a min-cost
flow, OPT's star network (:mod:`shedding.offline.compact`, §3.2.2) with the credits as gains. Its
expectation bounds the expected output of every online policy, whatever it learns or is told about
the model, for either ``reveal`` (take the smaller); OPT, which sees the realized matches and not
just their credits, is not bound by it. Per stream the bound is a random number like the
policies' outputs: compare means over seeds.

Under a time range ``lo <= s.time - r.time <= hi`` (docs/semantics.md, "Time range") an arrival
at t joins a held tuple only within its partner ages (``max(lo, 1) <= t - a <= hi`` for r(a),
``max(-hi, 1) <= t - b <= -lo`` for s(b)): its credit is 0 at the other steps and it is held to
its last partner time, so the argument holds as it is.
"""

from __future__ import annotations

import numpy as np

from shedding.datasets.age import background_rate, key_probabilities, partner_times
from shedding.errors import ShedError
from shedding.exact import KeyedStreams
from shedding.model import Memory, Schedule, Workload
from shedding.offline.compact import star_network
from shedding.offline.network import GRAPH_BYTES_PER_ARC, ORTOOLS_BYTES_PER_ARC, same_time_pairs
from shedding.offline.opt import DEFAULT_MAX_GRAPH_BYTES, GIB, SOLVERS, check_solver, group_caps

#: what G adds to what the policy knows: each R tuple's lag from its arrival on (``lags``, the
#: default) or each S arrival's label (``labels``)
REVEALS = ("lags", "labels")
#: credits enter the flow as whole multiples of 2^-20 pairs, rounded up (so the bound stays one)
SCALE = float(1 << 20)
#: bytes per (tuple, step) of the credit arrays and the gains built from them (index, step, credit,
#: running total, gain, masks)
BYTES_PER_CREDIT = 48


def _holding(wl: Workload, length: int) -> tuple[np.ndarray, np.ndarray]:
    """Per tuple: the last step it can join (its last partner time, ``a + hi`` for r(a) and
    ``b - lo`` for s(b), ``a + w - 1`` under the window; or the end of the stream) and the number
    of steps from its arrival + 1 up to it."""
    lo, hi = wl.bounds
    last = np.minimum(wl.time + np.where(wl.side == 0, hi, -lo), length - 1)
    return last, np.maximum(last - wl.time, 0)


def credits(wl: Workload, reveal: str = "lags") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every (tuple, step) at which a held tuple could join arrivals, with its credit given G
    (``reveal``, module docstring): arrays (tuple index, step, credit), sorted by tuple and step;
    steps from the tuple's arrival + 1 to its last partner time or the end of the stream, credits 0
    before the warmup and before its range begins."""
    if reveal not in REVEALS:
        raise ShedError(f"unknown {{param}} {reveal!r}; choose one of {', '.join(REVEALS)}", param="reveal")
    meta, w = wl.meta, max(wl.window, wl.horizon)  # the lags that can still pair: the window's or the range's
    pt = partner_times(wl)
    length = int(meta["length"])
    pmf = np.zeros(w)
    pmf[: min(w, len(meta["lag_pmf"]))] = np.asarray(meta["lag_pmf"], dtype=np.float64)[:w]
    rate, partner = float(meta["rate"]), float(meta["partner"])
    p_r, p_bg = key_probabilities(meta)
    alive = 1.0 - partner * np.concatenate([[0.0], np.cumsum(pmf)[:-1]])  # P(no partner before age a)
    hazard = np.divide(partner * pmf, alive, out=np.zeros(w), where=alive > 1e-12)

    last, n = _holding(wl, length)
    owner = np.repeat(np.arange(len(wl)), n)
    step = wl.time[owner] + 1 + (np.arange(len(owner)) - np.repeat(np.cumsum(n) - n, n))
    key = wl.key[owner]
    r_part = wl.side[owner] == 0
    credit = np.where(r_part, background_rate(rate, partner, float(meta["background"])) * p_bg[key],
                      rate * p_r[key])
    # the partners of key k due at each step: with the lags, each partner when it comes; with the
    # labels, each R tuple's lag's hazard at every step until its partner has come
    r = np.flatnonzero(wl.side == 0)
    reach = np.minimum(wl.time[r] + w - 1, length - 1)  # the partners counted: within w - 1 steps of their R tuple
    if reveal == "lags":  # the partner itself, when it comes
        src = r[pt[r] <= reach]
        age, weight = pt[src] - wl.time[src], np.ones(len(src))
    else:
        due = (np.minimum(reach, pt[r]) - wl.time[r]).clip(0)
        src = np.repeat(r, due)
        age = 1 + (np.arange(len(src)) - np.repeat(np.cumsum(due) - due, due))
        weight = hazard[age]
    span = length + 1
    codes, inverse = np.unique(wl.key[src] * span + wl.time[src] + age, return_inverse=True)
    per_code = np.bincount(inverse, weights=weight, minlength=len(codes))
    query = key[r_part] * span + step[r_part]
    at = np.minimum(np.searchsorted(codes, query), max(len(codes) - 1, 0))
    if len(codes):
        credit[r_part] += np.where(codes[at] == query, per_code[at], 0.0)
    lo, hi = wl.bounds
    first = wl.time[owner] + np.where(wl.side[owner] == 0, max(lo, 1), max(-hi, 1))  # the range's first step
    credit[(step < wl.warmup) | (step < first)] = 0.0
    return owner, step, credit


def expected_outputs(wl: Workload, schedule: Schedule, reveal: str = "lags") -> float:
    """The expected counted output of a schedule given G (module docstring): the same-step pairs
    plus the credits of every step a tuple is held for (after its admission at a, the steps
    a + 1 .. left)."""
    owner, step, credit = credits(wl, reveal)
    held = schedule.admitted[owner] & (step <= schedule.left[owner])
    return same_time_pairs(wl, KeyedStreams.of(wl)) + float(credit[held].sum())


def age_bound(wl: Workload, memory: int | Memory, memory_split: tuple[int, int] | None = None, variable: bool = False,
              reveal: str = "lags", solver: str = "ortools", max_graph_bytes: int = DEFAULT_MAX_GRAPH_BYTES) -> float:
    """Upper bound on the expected counted output of any online policy on a workload of
    :func:`~shedding.datasets.age.age_workload`: the same-step pairs plus the best sum of credits
    over all schedules given G (module docstring; the online policies of Das, Gehrke, Riedewald
    2003, §3.3, see less than G), by min-cost flow on OPT's star network (§3.2.2).

    Args:
        wl: The age-based model's workload (its ``meta`` holds the model).
        memory: M (an integer >= 0), or a checked :class:`~shedding.model.Memory`.
        memory_split: (M_R, M_S), summing to M; default the range's
            (:func:`~shedding.timerange.default_split`), as the policies run under.
        variable: Bound the variable-split policies (one pool of M) instead of the fixed split.
        reveal: What G adds to the past: ``lags`` (each R tuple's lag) or ``labels`` (which R
            tuple each S arrival is the partner of); both bound, take the smaller.
        solver: The min-cost-flow solver: ``ortools`` or ``ssp``.
        max_graph_bytes: The limit on the network's size (an exit per tuple and step of its
            window), checked up front.

    Returns:
        The bound on the expected counted output.

    Raises:
        ShedError: A bad ``memory``, ``memory_split``, ``reveal`` or ``solver``, a workload
            that is not the age-based model's, or a network over ``max_graph_bytes``, naming
            the parameter.
    """
    check_solver(solver)
    budget = Memory.of(memory, memory_split, wl.bounds)  # a Memory is checked already
    m, m_r, m_s = budget.total, budget.r, budget.s
    exits = int(_holding(wl, int(wl.meta.get("length", 0)))[1].sum())
    need = exits * (GRAPH_BYTES_PER_ARC + ORTOOLS_BYTES_PER_ARC + BYTES_PER_CREDIT)
    if need > max_graph_bytes:
        raise ShedError(f"the age bound's network needs about {need / GIB:.1f} GiB ({exits:,} exits), more than "
                        f"{{param}} = {max_graph_bytes / GIB:.1f} GiB; shorten the stream or the window",
                        param="max_graph_bytes")
    owner, step, credit = credits(wl, reveal)
    total = np.cumsum(credit)  # running total, then per owner from its first step
    first = np.flatnonzero(np.diff(owner, prepend=-1))
    total -= np.repeat(total[first] - credit[first], np.diff(first, append=len(owner)))
    gain = np.ceil(total * SCALE).astype(np.int64) + 1  # + 1: the float sums' rounding cannot lower it
    gain[total <= 0.0] = 0
    rises = np.ones(len(owner), dtype=bool)  # an exit that gains nothing over the one before is dominated
    rises[1:] = (owner[1:] != owner[:-1]) | (gain[1:] > gain[:-1])
    rises &= gain > 0
    useful, local = np.unique(owner[rises], return_inverse=True)
    ks = KeyedStreams.of(wl)
    span = max(int(wl.meta["length"]), int(wl.time.max(initial=0)) + 1) + 1
    graph = star_network(wl, group_caps(wl, m, m_r, m_s, variable), variable, useful, local, step[rises], span,
                         same_time_pairs(wl, ks), gain=gain[rises])
    cost, _ = SOLVERS[solver](graph)
    return graph.constant - cost / SCALE
