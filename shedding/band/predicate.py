"""The band predicate |r.a_i - s.a_i| <= eps_i, compared exactly (the band join of DeWitt,
Naughton and Schneider, VLDB 1991, in the window join of Das, Gehrke, Riedewald 2003, §2.1).

Rule for exact comparison: every attribute value is taken as the *shortest decimal that reads
back as the same number* (for text input that is what the file said: ``0.1`` is one tenth, not
the binary double nearest to it), and every ``eps_i`` as the decimal (or fraction) it was written
as. Attribute ``i`` and its ``eps_i`` are then scaled by ``10^d_i``, where ``d_i`` is the largest
number of decimals among them, to 64-bit integers, and the predicate is evaluated on those
integers. So ``|0.3 - 0.1| <= 0.2`` holds, as on paper, where doubles would say
``0.3 - 0.1 = 0.19999999999999998`` or ``0.20000000000000004`` depending on the values.
Scaled values must stay below 2^53 in magnitude (15 significant digits), which keeps every
difference exact as well.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from shedding.errors import ShedError
from shedding.model import Workload, check_window_join

#: Magnitude limit of a scaled value: integers below it are exact in float64 and their
#: differences fit in int64.
LIMIT = 2**53
MAX_DECIMALS = 15


def parse_eps(values: Any, n_attrs: int | None = None) -> list[Fraction]:
    """``eps`` as exact fractions.

    Args:
        values: A comma list ``"0.5,2"``, one number, or a sequence of numbers, strings or
            fractions; each a finite decimal >= 0.
        n_attrs: The number of attributes the widths must match; None for any.

    Returns:
        One :class:`~fractions.Fraction` per attribute.

    Raises:
        ShedError: An empty, non-numeric, infinite, negative or non-decimal width, or a count
            other than ``n_attrs`` (``param`` ``eps``)."""
    if isinstance(values, str):
        items: Sequence[Any] = [v for v in values.split(",")]
    elif isinstance(values, (int, float, Fraction, Decimal, np.number)):
        items = [values]
    else:
        items = list(values)
    if not items:
        raise ShedError("{param} is empty; give one band width per attribute, e.g. {param} 0.5", param="eps")
    out = []
    for item in items:
        text = str(item).strip() if not isinstance(item, (float, np.floating)) else repr(float(item))
        try:
            eps = Fraction(text) if not isinstance(item, Fraction) else item
        except (ValueError, ZeroDivisionError):
            raise ShedError(f"{{param}} {text!r} is not a number; give a decimal >= 0 such as 0.5", param="eps") from None
        if isinstance(item, (float, np.floating)) and not np.isfinite(item):
            raise ShedError(f"{{param}} {text!r} is not finite; give a decimal >= 0 such as 0.5", param="eps")
        if eps < 0:
            raise ShedError(f"{{param}} {text} is negative; a band width must be >= 0", param="eps")
        if _decimals(eps) is None:
            raise ShedError(f"{{param}} {text} has no finite decimal expansion; round it to at most {MAX_DECIMALS} "
                            "decimals", param="eps")
        out.append(eps)
    if n_attrs is not None and len(out) != n_attrs:
        raise ShedError(f"{{param}} has {len(out)} value(s) but there are {n_attrs} attribute(s) (attrs); "
                        f"give one eps per attribute, in the same order", param="eps")
    return out


def _decimals(value: Fraction) -> int | None:
    """Fewest decimals that write ``value`` exactly (None beyond MAX_DECIMALS)."""
    for d in range(MAX_DECIMALS + 1):
        if (value * 10**d).denominator == 1:
            return d
    return None


def _column_decimals(col: np.ndarray, what: str) -> int:
    """Most decimals any value of a float column needs to read back as itself (shortest round
    trip), found for all values at once: the least d with ``rint(x 10^d) / 10^d == x``."""
    if col.size and not np.all(np.isfinite(col)):
        i = int(np.argmax(~np.isfinite(col)))
        raise ShedError(f"{what} has a missing or infinite value at tuple {i}; drop or fill that row")
    if col.size and np.abs(col).max() >= LIMIT:
        i = int(np.argmax(np.abs(col) >= LIMIT))
        raise ShedError(f"{what} value {float(col[i])!r} (tuple {i}) is beyond 2^53; use smaller values")
    pending = np.ones(col.size, dtype=bool)
    need = 0
    for d in range(MAX_DECIMALS + 1):
        scaled = np.rint(col[pending] * 10.0**d)
        done = (scaled / 10.0**d == col[pending]) & (np.abs(scaled) < LIMIT)
        if done.any():
            need = d
        idx = np.flatnonzero(pending)
        pending[idx[done]] = False
        if not pending.any():
            return need
    i = int(np.argmax(pending))
    raise ShedError(f"{what} value {float(col[i])!r} (tuple {i}) needs more than {MAX_DECIMALS} significant digits; "
                    f"round the attribute to fewer digits")


def scale_column(col: Any, eps: Fraction, what: str) -> tuple[np.ndarray, int, int]:
    """One attribute and its band width as integers: (values * 10^d, eps * 10^d, d)."""
    arr = np.asarray(col)
    if arr.dtype.kind == "b" or arr.dtype.kind not in "iuf":
        raise ShedError(f"{what} must hold numbers, got values of type {arr.dtype}; convert the column to numbers")
    d = max(_decimals(eps) or 0, 0 if arr.dtype.kind in "iu" else _column_decimals(arr.astype(np.float64), what))
    if arr.dtype.kind in "iu":
        if arr.size and np.abs(arr.astype(np.float64)).max() * 10**d >= LIMIT:
            raise ShedError(f"{what} has values beyond 2^53 after scaling by 10^{d}; use smaller values")
        ints = arr.astype(np.int64) * 10**d
    else:
        scaled = np.rint(arr.astype(np.float64) * 10.0**d)
        if scaled.size and np.abs(scaled).max() >= LIMIT:
            raise ShedError(f"{what} has values beyond 2^53 after scaling by 10^{d}; use fewer digits")
        ints = scaled.astype(np.int64)
    eps_int = eps * 10**d
    if eps_int >= LIMIT:
        raise ShedError(f"eps {eps} of {what} is beyond 2^53 after scaling by 10^{d}; use a smaller eps")
    return ints, int(eps_int), d


@dataclass(frozen=True)
class BandWorkload:
    """A workload (sides, times, window, warmup) whose tuples carry ``values`` (N x d scaled
    integers) joined by |r.a_i - s.a_i| <= ``eps[i]`` on every attribute ``attrs[i]``.

    Build one with :meth:`of` (attribute columns and eps, scaled exactly) or :meth:`on_key`.

    Attributes:
        workload: The :class:`~shedding.model.Workload` of sides, times, window and warmup
            (its keys are not joined on unless :meth:`on_key` made them the attribute).
        values: An N x d int64 array: tuple n's attribute i, scaled by 10^decimals[i].
        eps: The d band widths, scaled like the values.
        attrs: The d attribute names.
        decimals: Attribute i is scaled by 10^decimals[i] (see the module docstring).
        meta: What a loader records; not compared.
    """

    workload: Workload
    values: np.ndarray
    eps: np.ndarray
    attrs: tuple[str, ...]
    decimals: tuple[int, ...]
    meta: dict = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        # the band engines hold every tuple for the symmetric window: a time range would be ignored
        check_window_join(self.workload, "the band join")

    @classmethod
    def of(cls, wl: Workload, columns: Sequence[Any], eps: Any, attrs: Sequence[str] | None = None) -> "BandWorkload":
        """Scale ``columns`` and ``eps`` exactly into a band join of ``wl``.

        Args:
            wl: The workload whose tuples carry the attributes.
            columns: One array of numbers per attribute, one value per tuple in workload order.
            eps: The band widths, one per attribute (as :func:`parse_eps` reads them).
            attrs: The attribute names; default ``a0``, ``a1``, ...

        Returns:
            The :class:`BandWorkload`.

        Raises:
            ShedError: No attribute (``param`` ``attrs``), names or columns of other lengths,
                a bad ``eps`` (``param`` ``eps``), missing or non-numeric values, values
                beyond 2^53 once scaled, or a workload with a time range (``param`` ``wl``: the
                band join takes the symmetric window only).
        """
        attrs = tuple(attrs) if attrs is not None else tuple(f"a{i}" for i in range(len(columns)))
        if len(attrs) != len(columns):
            raise ShedError(f"{len(columns)} attribute column(s) but {len(attrs)} name(s); give one name per column")
        if not columns:
            raise ShedError("a band join needs at least one attribute; name it with {param}", param="attrs")
        fractions = parse_eps(eps, len(columns))
        vals, widths, decs = [], [], []
        for col, e, name in zip(columns, fractions, attrs):
            if len(col) != len(wl):
                raise ShedError(f"attribute {name!r} has {len(col)} values for {len(wl)} tuples; give one per tuple")
            ints, e_int, d = scale_column(col, e, f"attribute {name!r}")
            vals.append(ints)
            widths.append(e_int)
            decs.append(d)
        values = np.ascontiguousarray(np.column_stack(vals) if vals[0].size else np.zeros((0, len(vals)), np.int64),
                                      dtype=np.int64)
        return cls(wl, values, np.asarray(widths, dtype=np.int64), attrs, tuple(decs))

    @classmethod
    def on_key(cls, wl: Workload, eps: Any) -> "BandWorkload":
        """The band join |r.key - s.key| <= eps on the workload's own join key."""
        return cls.of(wl, [wl.key], eps, ("key",))

    def __len__(self) -> int:
        return len(self.workload)

    @property
    def n_attrs(self) -> int:
        return int(self.values.shape[1])

    def matches(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """Whether tuples i and j (arrays) satisfy the band predicate on every attribute."""
        return np.all(np.abs(self.values[i] - self.values[j]) <= self.eps, axis=-1)


def eps_texts(bw: BandWorkload) -> list[str]:
    """Each attribute's eps as the decimal it was written as (``"0.25"``, ``"3"``)."""
    out = []
    for e, d in zip(bw.eps.tolist(), bw.decimals):
        digits = f"{e:0{d + 1}d}"
        out.append(f"{digits[:-d]}.{digits[-d:]}".rstrip("0").rstrip(".") if d else str(e))
    return out
