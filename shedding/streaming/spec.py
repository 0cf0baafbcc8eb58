"""The parameters of the streaming semantic window join (:class:`JoinSpec`), checked once on the
driver, so that a bad value is a one-line error before a query starts rather than in a Spark task.

The join they parametrise is the fast-CPU integrated window join of Das, Gehrke, Riedewald
(SIGMOD 2003, §2.1) with the shedding of §3.3, one shard at a time (:mod:`~shedding.streaming.shard`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import KW_ONLY, MISSING, asdict, dataclass, field, fields
from typing import Any


from shedding.errors import ShedError
from shedding.model import Memory, check_window, default_split
from shedding.timerange import check_range, window_range
from shedding.online.estimators import OnlineEstimator
from shedding.online.hazard import age_buckets
from shedding.online.groups import batch_only, group_columns, payload_names, run_group
from shedding.online.policies import POLICIES, STREAM, check_group, grouped, names_for
from shedding.online.tuning import HazardTuning
from shedding.streaming.budget import BUDGETS
from shedding.streaming.partition import check_shards

#: the shedding choices: "none" is the exact window join, the rest are the online policies of
#: :mod:`~shedding.online.policies` (the §3.3 / §4 ones and ours), every one the simulator runs
SHEDDING = ("none", *names_for(STREAM))
#: the fields added after state layout 3, and their defaults: left out of the stored parameters at
#: those, so a checkpoint of the symmetric inner join is the same as before they existed
LATER = {"range": None, "how": "inner", "step": 1, "days": False, "group": ()}
#: the carried original time, and the prefix of the carried original key columns
TIME_VALUE, KEY_VALUE = "_t", "_k"
#: the join types, Spark's names: ``inner`` outputs pairs only; ``left`` also a row for each R
#: tuple whose range passed without a pair (S columns null), ``right`` for each such S tuple,
#: ``full`` for both
HOWS = ("inner", "left", "right", "full")
#: Spark's other names of these join types (``Dataset.join``'s ``how``)
HOW_ALIASES = {"outer": "full", "fullouter": "full", "full_outer": "full", "leftouter": "left", "left_outer": "left",
               "rightouter": "right", "right_outer": "right"}
#: Spark's join types this join does not compute
HOW_OTHERS = ("cross", "semi", "leftsemi", "left_semi", "anti", "leftanti", "left_anti")
#: the sides whose unpaired tuples an outer join outputs, by join type (R = 0, S = 1)
PRESERVED = {"inner": (), "left": (0,), "right": (1,), "full": (0, 1)}
#: the rows' payload group, a 64-bit hash of the group columns' values (HAZARD's groups)
GROUP_VALUE = "_g"


@dataclass(frozen=True)
class JoinSpec:
    """The parameters of a semantic window join; a checkpoint is only valid for equal ones.

    ``window`` w in time steps, ``memory`` M tuples over all shards (split by
    :func:`~shedding.streaming.partition.shard_budgets`), ``shedding`` one of :data:`SHEDDING`,
    ``estimator`` ``online`` (counts so far, per shard) or ``static`` (a frequency table),
    ``seed`` RAND's seed (shard i uses ``seed + i``), ``warmup`` the first time whose outputs
    count, ``strict`` to fail on a late tuple instead of dropping it, ``payload_r`` /
    ``payload_s`` the columns carried into the pairs as ``r_<name>`` / ``s_<name>``, ``budget``
    ``shared`` (M re-divided every micro-batch, :mod:`~shedding.streaming.budget`) or ``even``,
    ``lateness`` L in steps and ``idle_timeout_ms`` (module docstring), ``carry_time`` whether
    the rows carry their original time (column :data:`TIME_VALUE`) for the pairs, and
    ``key_names`` the pairs' key columns when the rows carry original keys (columns ``_k0``,
    ``_k1``, ...; empty: the integer key is the key), and ``tuning`` the learner of HAZARD or AGE
    (:meth:`~shedding.online.tuning.HazardTuning.parse`'s text; empty: the defaults), and
    ``max_held`` the most tuples held back over all shards (None: no cap; module docstring),
    ``range`` (lo, hi) in steps, the time range ``lo <= s.time - r.time <= hi`` (None: the
    symmetric window, ``-(w - 1), w - 1``), ``how`` the join type (:data:`HOWS`), and ``step``
    and ``days`` how a step maps back to the original times (the time axis's step, and whether
    the original times are dates counted in days), for the event time of an outer row, and
    ``group`` the input columns whose values are HAZARD's payload groups (empty: none; the rows
    carry their hash, column :data:`GROUP_VALUE`, :mod:`~shedding.online.groups`), or ``history``
    among them, the key's history, which each shard keeps (:mod:`~shedding.online.keyhistory`).
    """

    window: int
    memory: int
    shedding: str = "prob"
    _: KW_ONLY  # the rest by name: a swap of two of them would not fail
    memory_split: tuple[int, int] | None = None
    shards: int = 1
    estimator: str = "online"
    decay: float = 1.0
    seed: int = 0
    warmup: int = 0
    strict: bool = False
    payload_r: tuple[str, ...] = field(default=())
    payload_s: tuple[str, ...] = field(default=())
    budget: str = "shared"
    lateness: int = 0
    idle_timeout_ms: int | None = None
    carry_time: bool = False
    key_names: tuple[str, ...] = field(default=())
    tuning: str = ""
    max_held: int | None = None
    range: tuple[int, int] | None = None
    how: str = "inner"
    step: int = 1
    days: bool = False
    group: tuple[str, ...] = field(default=())

    @classmethod
    def restore(cls, stored: Mapping[str, Any]) -> JoinSpec:
        """The spec :meth:`as_dict` gave, from a checked one (the driver's, or a shard's own state):
        its values were checked when it was built, so they are taken as they are, not checked
        again on every executor and micro-batch. A spec from outside (a checkpoint's
        ``shedding-job.json`` the user may edit) is built by ``JoinSpec(**stored)``, which checks."""
        spec = cls.__new__(cls)
        for f in fields(cls):
            if f.name in stored:
                value = stored[f.name]
                object.__setattr__(spec, f.name, tuple(value) if isinstance(value, list) else value)
            else:
                object.__setattr__(spec, f.name, f.default_factory() if f.default_factory is not MISSING
                                   else f.default)
        return spec

    @property
    def limits(self) -> Memory:
        """M and its split (M_R, M_S) over all shards, as checked when the spec was built (the
        default split follows the range: :func:`~shedding.timerange.default_split`)."""
        bounds = self.range or window_range(self.window)
        return Memory(self.memory, *(self.memory_split or default_split(self.memory, bounds)))

    def __post_init__(self) -> None:
        check_window(self.window)
        check_shards(self.shards)
        if self.shedding not in SHEDDING:
            raise ShedError(f"unknown shedding {self.shedding!r}; choose from {', '.join(SHEDDING)}")
        if self.estimator not in ("online", "static"):
            raise ShedError(f"unknown estimator {self.estimator!r}; choose online or a frequency table")
        OnlineEstimator(self.decay)  # validates the decay
        if self.estimator == "static" and self.decay != 1.0:
            raise ShedError("decay applies to the online estimator only; drop it or use the online estimator")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ShedError(f"seed must be an integer >= 0, got {self.seed!r}")
        if isinstance(self.warmup, bool) or not isinstance(self.warmup, int) or self.warmup < 0:
            raise ShedError(f"warmup must be an integer >= 0, got {self.warmup!r}")
        if self.budget not in BUDGETS:
            raise ShedError(f"unknown budget {self.budget!r}; choose shared (re-divided every micro-batch) or even")
        if isinstance(self.lateness, bool) or not isinstance(self.lateness, int) or self.lateness < 0:
            raise ShedError(f"allowed_lateness must be a whole number of steps >= 0, got {self.lateness!r}")
        if self.idle_timeout_ms is not None and (isinstance(self.idle_timeout_ms, bool) or
                                                 not isinstance(self.idle_timeout_ms, int) or self.idle_timeout_ms < 1):
            raise ShedError(f"idle_timeout must be at least a millisecond, got {self.idle_timeout_ms!r} ms")
        if self.max_held is not None and (isinstance(self.max_held, bool) or not isinstance(self.max_held, int)
                                          or self.max_held < 0):
            raise ShedError(f"{{param}} must be an integer >= 0 (tuples), got {self.max_held!r}", param="max_held")
        object.__setattr__(self, "how", check_how(self.how))
        if self.range is not None:
            object.__setattr__(self, "range", check_range(range_pair(self.range)))
        Memory.of(self.memory, self.memory_split, self.range or window_range(self.window))
        if isinstance(self.step, bool) or not isinstance(self.step, int) or self.step < 1:
            raise ShedError(f"{{param}} must be an integer >= 1, got {self.step!r}", param="step")
        if self.memory_split is not None:
            object.__setattr__(self, "memory_split", tuple(int(v) for v in self.memory_split))
        object.__setattr__(self, "key_names", tuple(self.key_names))
        object.__setattr__(self, "group", group_columns(self.group or None) or ())
        if batch_only(self.group):
            raise ShedError(f"{{param}} {batch_only(self.group)} is for the batch simulator only (it picks among the "
                            "columns that qualify over the whole input, which a shard never sees); give the "
                            "payload column(s) by name, or history", param="group")
        check_group(self.shedding, self.group or None)
        if self.tuning:
            if self.shedding == "none" or not POLICIES[self.shedding].tunable:
                learners = ", ".join(n for n in names_for(STREAM) if POLICIES[n].tunable)
                raise ShedError(f"tuning sets the learner of {learners}, not of {self.shedding}; drop it")
            tuning = HazardTuning.parse(self.tuning)
            age_buckets(self.window, tuning.first, tuning.ratio)  # too many buckets: refused here, not in a task
            object.__setattr__(self, "tuning", tuning.spec)

    @property
    def payload_columns(self) -> list[str]:
        """The payload columns of the unioned input and of the pairs, in order."""
        return [f"r_{c}" for c in self.payload_r] + [f"s_{c}" for c in self.payload_s]

    @property
    def carried_columns(self) -> list[str]:
        """The original time and key columns the rows carry (see :data:`TIME_VALUE`)."""
        return [TIME_VALUE] * self.carry_time + [f"{KEY_VALUE}{i}" for i in range(len(self.key_names))]

    @property
    def payload_group(self) -> tuple[str, ...]:
        """The input columns among ``group`` (all but the key's history)."""
        return payload_names(self.group)

    @property
    def by_history(self) -> bool:
        """Whether ``group`` holds the key's history (which each shard then keeps in its state)."""
        return len(self.payload_group) < len(self.group)

    @property
    def group_columns(self) -> list[str]:
        """The rows' group column (:data:`GROUP_VALUE`) when the join ranks by a payload group."""
        return [GROUP_VALUE] if self.payload_group else []

    @property
    def shares_budget(self) -> bool:
        """Whether the shards re-divide M every micro-batch (and so need the batch's census)."""
        return self.budget == "shared" and self.shards > 1 and self.shedding != "none"

    def as_dict(self) -> dict:
        """JSON-ready parameters (stored beside a checkpoint)."""
        d = asdict(self)
        d["memory_split"] = None if self.memory_split is None else list(self.memory_split)
        d["payload_r"], d["payload_s"], d["key_names"] = list(self.payload_r), list(self.payload_s), list(self.key_names)
        if not self.tuning:
            del d["tuning"]  # the parameters of a checkpoint made before the field existed
        if self.max_held is None:
            del d["max_held"]  # likewise
        d = {k: v for k, v in d.items() if k not in LATER or v != LATER[k]}  # likewise
        if self.range is not None:
            d["range"] = list(self.range)
        if self.group:
            d["group"] = list(self.group)
        return d

    def stored(self) -> dict:
        """The parameters a shard's state stores: every field, but those of :data:`LATER` at their
        defaults."""
        return {k: v for k, v in asdict(self).items() if k not in LATER or v != LATER[k]}

    @property
    def bounds(self) -> tuple[int, int]:
        """(lo, hi): r(a) and s(b) pair iff lo <= b - a <= hi (the symmetric window's by default)."""
        return self.range if self.range is not None else (-(self.window - 1), self.window - 1)

    @property
    def preserved(self) -> tuple[int, ...]:
        """The sides whose unpaired tuples get an outer row (:data:`PRESERVED`)."""
        return PRESERVED[self.how]


def range_pair(value: object) -> tuple:
    """``range`` as its two bounds (lo, hi), not yet checked; anything but two is refused."""
    try:
        bounds: tuple = tuple(value)  # type: ignore[arg-type]  # not iterable: refused below
    except TypeError:
        bounds = ()
    if len(bounds) != 2 or isinstance(value, str):
        raise ShedError(f"{{param}} must be two bounds (lo, hi), got {value!r}", param="range")
    return bounds


def spec_group(group: str | Sequence[str] | None, shedding: str, bounds: tuple[int, int] | None) -> tuple[str, ...]:
    """The ``group`` of a :class:`JoinSpec` from the one given (:func:`~shedding.online.groups.group_columns`),
    or for None HAZARD's default on the time range ``bounds`` (None: the window;
    :func:`~shedding.online.groups.run_group`), so that a stream ranks as ``shed simulate`` does."""
    return run_group(group, bounds, grouped(shedding)) or ()


def check_how(how: object) -> str:
    """The join type ``how`` as one of :data:`HOWS`, Spark's other names for them taken
    (``left_outer``, ``outer``, ...); Spark's others and unknown names refused."""
    name = str(how).strip().lower() if isinstance(how, str) else how
    name = HOW_ALIASES.get(name, name)  # type: ignore[call-overload]  # not text: refused below
    if name in HOWS:
        return name
    if name in HOW_OTHERS:
        raise ShedError(f"{{param}} {how!r} is a join type this window join does not compute; choose from "
                        f"{', '.join(HOWS)}", param="how")
    raise ShedError(f"unknown join type {{param}}={how!r}; choose from {', '.join(HOWS)}", param="how")
