"""HAZARD's learner settings (:mod:`~shedding.online.hazard`): the age buckets, the shadow sample,
the refit schedule, EM and the model test, as the library, ``--tuning`` and the streaming join
take them. No numba here, so that the command line reads them without loading the compiled join."""

from __future__ import annotations

import math
from dataclasses import Field, dataclass, fields

import numpy as np

from shedding.errors import ShedError

#: the largest shadow sample per side (its entries take 56 bytes each)
MAX_SHADOW = 65_536
#: the most EM steps per refit
MAX_ITERS = 10_000
#: the widest growth of the age buckets (the second bucket a million times the first)
MAX_RATIO = 1e6
#: the most pseudo-exposure steps of the groups' shrinkage (more than any stream holds; kappa times
#: a rate must stay finite)
MAX_KAPPA = 1e12
#: what each field's type must be, by the type of its default
_KINDS = {bool: ("True or False", (bool, np.bool_)), int: ("an integer", (int, np.integer)),
          float: ("a number", (int, float, np.integer, np.floating))}


def _kind(f: Field) -> type:
    """A field's type, bool, int or float, read from its default (every field has one)."""
    return type(f.default)


@dataclass(frozen=True)
class HazardTuning:
    """The learner's settings: age buckets (``first`` steps wide, each next ``ratio`` times
    wider), the shadow sample's size per side (``shadow``), refits (at the first arrival, then
    ``refit_first`` arrivals later, then each time the arrivals so far double, at most every
    ``refit_every`` arrivals; with payload groups a refit fits the model anew at most every
    ``group_fit_every`` arrivals and in between only judges, see
    :func:`~shedding.online.agehooks.fit_due`), EM steps per refit (``iters``), the groups'
    shrinkage (``kappa`` steps), the model test's penalty factor (``evidence``; 0 takes the
    shaped model on any improvement; ``test`` False always takes it), and the guard that judges
    the shaped order by the outputs it keeps against PROB's (``guard``; it switches when one
    keeps more than the other by the share ``hysteresis``, see :mod:`~shedding.online.guard`), and
    a second fit that forgets the share ``forget`` of its statistics at each refit that fits (0 <=
    forget < 1; 0: no such fit), which the guard takes in place of the fit of all arrivals while it
    predicts the shadow sample's new events better (:mod:`~shedding.online.forgetting`; without
    the guard it is always taken).

    Attributes:
        first: The first age bucket's width in steps (>= 1).
        ratio: How much wider each next bucket is (> 1).
        shadow: The shadow sample's size per side (>= 1).
        refit_first: Arrivals between the first fit and the second.
        refit_every: The most arrivals between two refits.
        group_fit_every: With payload groups, the most arrivals between two fits (>= 1; at or
            below ``refit_every`` every refit fits, as without groups).
        iters: EM steps per refit.
        kappa: The groups' shrinkage towards the pooled curve, in steps.
        evidence: The model test's penalty factor (>= 0).
        test: Whether the shaped model must pass the test to be taken.
        guard: Whether the guard judges the shaped order against PROB's by the pairs each keeps.
        hysteresis: The share by which one order must keep more than the other to switch.
        forget: The share the second fit forgets at each refit (0 <= forget < 1; 0: none).

    Raises:
        ShedError: A field of the wrong type or out of its range, naming it.
    """

    first: int = 8
    ratio: float = 1.3
    shadow: int = 256
    refit_first: int = 64
    refit_every: int = 4096
    group_fit_every: int = 16384
    iters: int = 8
    kappa: float = 100.0
    evidence: float = 1.0
    test: bool = True
    guard: bool = True
    hysteresis: float = 0.002
    forget: float = 0.0

    def __post_init__(self) -> None:
        for f in fields(self):  # the type first (a text or a bool is no number), then made canonical
            value, kind = getattr(self, f.name), _kind(f)
            what, types = _KINDS[kind]
            if not isinstance(value, types) or (kind is not bool and isinstance(value, (bool, np.bool_))):
                raise ShedError(f"{{param}} must be {what}, got {value!r}", param=f.name)
            try:
                object.__setattr__(self, f.name, kind(value))
            except OverflowError:  # an integer beyond every float
                raise ShedError(f"{{param}} must be {what} of a float's range, got {value!r}", param=f.name) from None
        for name in ("first", "shadow", "refit_first", "refit_every", "group_fit_every", "iters"):
            value = getattr(self, name)
            if not 1 <= value <= 2**62:
                raise ShedError(f"{{param}} must be an integer >= 1 (and at most 2^62), got {value!r}", param=name)
        if self.iters > MAX_ITERS:
            raise ShedError(f"{{param}} is at most {MAX_ITERS:,} EM steps per refit, got {self.iters!r}", param="iters")
        if self.shadow > MAX_SHADOW:
            raise ShedError(f"{{param}} is at most {MAX_SHADOW:,} entries per side, got {self.shadow!r}",
                            param="shadow")
        if not 1.0 <= self.ratio <= MAX_RATIO:  # NaN fails too
            raise ShedError(f"{{param}} must be a number >= 1 and <= {MAX_RATIO:g}, got {self.ratio!r}", param="ratio")
        if not 0.0 <= self.kappa <= MAX_KAPPA:
            raise ShedError(f"{{param}} must be a number >= 0 and <= {MAX_KAPPA:g}, got {self.kappa!r}", param="kappa")
        if not 0.0 <= self.forget < 1.0:
            raise ShedError(f"{{param}} must be a number >= 0 and < 1 (the share forgotten at each refit; 0 never "
                            f"forgets), got {self.forget!r}", param="forget")
        if not 0.0 <= self.hysteresis <= 1.0:
            raise ShedError(f"{{param}} must be a number >= 0 and <= 1, got {self.hysteresis!r}", param="hysteresis")
        if not (math.isfinite(self.evidence) and self.evidence >= 0):
            raise ShedError(f"{{param}} must be a finite number >= 0, got {self.evidence!r}", param="evidence")

    @classmethod
    def of(cls, value: HazardTuning | str | None) -> HazardTuning:
        """``value`` as settings.

        Args:
            value: A HazardTuning (taken as it is), its ``field=value,...`` text (read by
                :meth:`parse`), or None for the defaults.

        Returns:
            The :class:`HazardTuning`.

        Raises:
            ShedError: Anything else, or a text :meth:`parse` refuses, naming ``tuning``.
        """
        if value is None:
            return cls()
        if isinstance(value, cls):
            return value
        if isinstance(value, str):
            return cls.parse(value)
        raise ShedError(f"{{param}} must be a HazardTuning or its text field=value,... (e.g. 'ratio=2'), got "
                        f"{value!r}", param="tuning")

    @classmethod
    def parse(cls, text: str) -> HazardTuning:
        """The settings a text names, the others at their defaults.

        Args:
            text: ``field=value,...`` (``ratio=2,shadow=128``); empty for the defaults.

        Returns:
            The :class:`HazardTuning`.

        Raises:
            ShedError: Not text, an unknown or repeated field, or a value of the wrong type
                or out of its range.
        """
        if not isinstance(text, str):
            raise ShedError(f"{{param}} must be a text field=value,... such as 'ratio=2', got {text!r}", param="tuning")
        types = {f.name: _kind(f) for f in fields(cls)}
        values: dict = {}
        for item in (part.strip() for part in text.split(",")):
            if not item:
                continue
            name, eq, value = (part.strip() for part in item.partition("="))
            if name not in types or not eq:
                raise ShedError(f"{item!r} is not field=value with a field of {', '.join(types)}; e.g. ratio=2")
            if name in values:
                raise ShedError(f"{name} is given twice; give each field once")
            kind = types[name]
            try:
                if kind is bool:
                    if value.lower() not in ("true", "false", "1", "0"):
                        raise ValueError
                    values[name] = value.lower() in ("true", "1")
                else:
                    values[name] = kind(value)
            except ValueError:
                what = {bool: "true or false", int: "an integer", float: "a number"}[kind]
                raise ShedError(f"{name}={value!r} is not {what}; e.g. {name}={getattr(cls(), name)}") from None
        try:
            return cls(**values)
        except ShedError as exc:
            raise ShedError(str(exc)) from None  # names the field, whatever flag or parameter the text came from

    @property
    def spec(self) -> str:
        """The fields that differ from the defaults as :meth:`parse` reads them (``""``: the defaults)."""
        default = HazardTuning()
        return ",".join(f"{f.name}={getattr(self, f.name)}" for f in fields(self)
                        if getattr(self, f.name) != getattr(default, f.name))
