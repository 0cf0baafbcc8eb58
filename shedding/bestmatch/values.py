"""Exact join-attribute values for the bestmatch joins (Kemper/Stegmaier 2002, §2).

The dominance test of §2.1 and MatWin's window bounds (§3.2) compare distances such as
``|r.y_i - s.y_i| <= eps_i`` and ``minRS + eps_1``. With binary floats these comparisons are
wrong at the boundary (``0.3 - 0.1 + 0.1 != 0.3``), and a window bound update computed in floats
can even fail to move the window. Here every value of dimension ``i`` is read as the decimal the
user wrote and stored as the integer ``value * 10**k_i``, ``k_i`` being the most decimal places any
value or ``eps_i`` of that dimension has; all later arithmetic is exact int64 arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Sequence

import numpy as np

from shedding.errors import ShedError

LIMIT = 2**61  # |scaled value| stays below this, so a difference of two fits an int64
#: the most decimal places a dimension can have: its scale 10**k stays below LIMIT (18)
MAX_PLACES = len(str(LIMIT)) - 1


@dataclass(frozen=True)
class BestmatchInput:
    """Two relations R and S on join attributes y_1..y_d (§2), as scaled integers. Error messages
    count data rows from 1, as everywhere in ``shed``.

    ``r`` and ``s`` are (n, d) int64 arrays; ``eps`` the scaled per-dimension maximum distances
    (§2.3), or None for the unconstrained operators; ``scale[i]`` is 10**k_i; ``attrs`` the
    attribute names. Row j of ``r`` is row j of the R input.
    """

    r: np.ndarray
    s: np.ndarray
    eps: np.ndarray | None
    scale: np.ndarray
    attrs: tuple[str, ...]

    @property
    def dims(self) -> int:
        return len(self.attrs)

    def unscaled(self, side: str) -> np.ndarray:
        """The values of ``side`` ('r' or 's') as floats, for display only."""
        return (self.r if side == "r" else self.s) / self.scale


def _decimal(value: object, where: str, param: str | None = None) -> Decimal:
    """``value`` as an exact finite decimal; ``where`` says where it is in errors (with ``{param}``
    for the parameter ``param`` it belongs to, if any)."""
    if value is None:  # a missing value (pandas reads empty CSV cells as NaN or None)
        raise ShedError(f"{where} is NaN (empty); remove the row or fill in a value", param=param)
    text = repr(value) if isinstance(value, float) else str(value).strip()
    try:
        number = Decimal(text)
    except InvalidOperation:
        raise ShedError(f"{where}: {text!r} is not a number; give decimal numbers such as 0.25", param=param) from None
    if number.is_nan():
        raise ShedError(f"{where} is NaN; remove the row or fill in a value", param=param)
    if not number.is_finite():
        raise ShedError(f"{where} is {text}; give finite numbers", param=param)
    return number


def parse_eps(text: str, dims: int, name: str = "eps") -> list[Decimal]:
    """``"0.1,0.05"`` -> the per-dimension eps_i of §2.3, one per join attribute, each >= 0
    (``name`` is the parameter the errors name; another than ``eps`` is one distance)."""
    parts = [p.strip() for p in text.split(",")]
    eps = name == "eps"
    if len(parts) != dims:
        raise ShedError(f"{{param}} has {len(parts)} value(s) but attrs names {dims} attribute(s); "
                        f"give one eps per attribute, e.g. {','.join(['0.1'] * dims)}" if eps else
                        f"{{param}} takes one number, got {text!r}", param=name)
    out = []
    for i, part in enumerate(parts):
        value = _decimal(part, f"{{param}} value {i + 1}" if dims > 1 or eps else "{param}", name)
        if value < 0:
            raise ShedError(f"{{param}} is {part}, a negative distance; give a value >= 0" if not eps else
                            f"{{param}} value {i + 1} is {part}, a negative distance; give eps >= 0", param=name)
        out.append(value)
    return out


def _places(number: Decimal) -> int:
    exponent = number.as_tuple().exponent
    return max(0, -int(exponent)) if isinstance(exponent, int) else 0


def check_places(places: Sequence[tuple[int, str]], param: str | None = None) -> int:
    """The most decimal places of a dimension, given as (places, where the value is) per value;
    more than :data:`MAX_PLACES` raises a one-line ShedError naming the first such value."""
    for k, where in places:
        if k > MAX_PLACES:
            raise ShedError(f"{where} has {k} decimal places; exact comparison holds at most {MAX_PLACES}, round it",
                            param=param)
    return max((k for k, _ in places), default=0)


def scale_columns(columns: Sequence[tuple[str, Sequence[Sequence[object]]]], eps: Sequence[Decimal] | None,
                  ) -> tuple[list[np.ndarray], np.ndarray | None, np.ndarray]:
    """Scale each dimension of several relations to one exact integer grid.

    ``columns[i] = (attribute name, [values of relation 0, values of relation 1, ...])``; returns
    the scaled arrays per relation (n, d), the scaled eps (or None) and the scales. Raises
    ShedError naming the relation row of a non-numeric, NaN or too finely resolved value (relation
    k is the parameter ``R`` or ``S`` of the message).
    """
    dims = len(columns)
    n_rel = len(columns[0][1])
    decimals = [[[_decimal(v, f"{{param}} row {j + 1}, attribute {name!r}", _REL[k]) for j, v in enumerate(col)]
                 for k, col in enumerate(rels)] for name, rels in columns]
    scaled = [np.empty((len(columns[0][1][k]), dims), dtype=np.int64) for k in range(n_rel)]
    scales = np.empty(dims, dtype=np.int64)
    eps_out = None if eps is None else np.empty(dims, dtype=np.int64)
    for i, (name, _) in enumerate(columns):
        places = max([check_places([(_places(x), f"{{param}} row {j + 1}, attribute {name!r}: {x}")
                                    for j, x in enumerate(rel)], _REL[k]) for k, rel in enumerate(decimals[i])]
                     + ([check_places([(_places(eps[i]), f"{{param}} value {i + 1} {eps[i]}")], "eps")] if eps else []))
        factor = Decimal(10) ** places
        scales[i] = 10**places
        for k, rel in enumerate(decimals[i]):
            for j, x in enumerate(rel):
                v = int(x * factor)
                if abs(v) >= LIMIT and abs(int(x)) >= LIMIT:
                    raise ShedError(f"{{param}} row {j + 1}, attribute {name!r}: {x} is beyond +-2^61, more than exact "
                                    "64-bit arithmetic holds; divide the column by a power of ten", param=_REL[k])
                if abs(v) >= LIMIT:
                    raise ShedError(f"{{param}} row {j + 1}, attribute {name!r}: {x} with {places} decimal places (the "
                                    "most any value or eps of the attribute has) is more than 64-bit integers hold; "
                                    "round the column to fewer places", param=_REL[k])
                scaled[k][j, i] = v
        if eps is not None and eps_out is not None:  # eps_out is None exactly when eps is
            e = int(eps[i] * factor)
            if e >= LIMIT:
                raise ShedError(f"{{param}} value {i + 1} ({eps[i]}) is too large; give a smaller distance", param="eps")
            eps_out[i] = e
    return scaled, eps_out, scales


_REL = ("R", "S")


def from_frames(r, s, attrs: Sequence[str], eps_text: str | None) -> BestmatchInput:  # noqa: ANN001 (DataFrames)
    """The input of one bestmatch join from two pandas DataFrames, scaled exactly to integers.

    Args:
        r (pandas.DataFrame): Relation R; its row j is the input's row j.
        s (pandas.DataFrame): Relation S, likewise.
        attrs: The join attributes, columns of both (read as text or numbers).
        eps_text: The maximum distances, one per attribute, like ``"0.1,0.1"``; None for the
            unconstrained operators.

    Returns:
        The :class:`BestmatchInput`.

    Raises:
        ShedError: Empty or repeated ``attrs`` (naming it in ``param``), a column missing
            from R or S, a bad ``eps_text``, or values that are not numbers.
    """
    attrs = tuple(a.strip() for a in attrs)
    if not attrs or any(not a for a in attrs):
        raise ShedError("{param} is empty or has an empty name; give the join attributes, e.g. {param} y1,y2",
                        param="attrs")
    if len(set(attrs)) != len(attrs):
        raise ShedError(f"{{param}} names an attribute twice ({','.join(attrs)}); name each once", param="attrs")
    for name, frame in (("R", r), ("S", s)):
        missing = [a for a in attrs if a not in frame.columns]
        if missing:
            raise ShedError(f"{{param}} names {missing[0]!r}, which {name} lacks; its columns are "
                            f"{', '.join(map(str, frame.columns))}", param="attrs")
    eps = None if eps_text is None else parse_eps(eps_text, len(attrs))
    columns = [(a, [r[a].tolist(), s[a].tolist()]) for a in attrs]
    (rr, ss), eps_scaled, scales = scale_columns(columns, eps)
    return BestmatchInput(rr, ss, eps_scaled, scales, attrs)


def from_arrays(r: np.ndarray, s: np.ndarray, eps: Sequence[int] | None, attrs: Sequence[str] | None = None,
                scale: Sequence[int] | None = None) -> BestmatchInput:
    """An input already on an integer grid (generators, tests).

    Args:
        r: R as an (n, d) integer array.
        s: S as an (m, d) integer array.
        eps: The d maximum distances on the grid (>= 0); None for the unconstrained operators.
        attrs: The attribute names; default ``y1``, ``y2``, ...
        scale: Per attribute, 10**k, the grid's scale; default 1.

    Returns:
        The :class:`BestmatchInput`.

    Raises:
        ShedError: ``eps`` of the wrong length or negative (``param`` ``eps``).
    """
    r, s = np.asarray(r, dtype=np.int64), np.asarray(s, dtype=np.int64)
    d = next((x.shape[1] for x in (r, s) if x.ndim == 2 and x.shape[1]),
             len(eps) if eps is not None else len(attrs or [0]))
    r, s = (np.ascontiguousarray(x.reshape(len(x), d)) for x in (r, s))
    attrs = tuple(attrs) if attrs is not None else tuple(f"y{i + 1}" for i in range(d))
    eps_arr = None if eps is None else np.asarray(eps, dtype=np.int64)
    if eps_arr is not None and (len(eps_arr) != d or (eps_arr < 0).any()):
        raise ShedError(f"{{param}} must be {d} distances >= 0, got {list(eps_arr)}", param="eps")
    scale_arr = np.ones(d, dtype=np.int64) if scale is None else np.asarray(scale, dtype=np.int64)
    return BestmatchInput(r, s, eps_arr, scale_arr, attrs)
