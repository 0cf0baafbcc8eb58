"""The join predicates of a W-join beside its windows (Hammad, Aref, Elmagarmid 2002, §2.2, §4.3).

* The **key predicate**: equality of the keys (``key_band = 0``; the paper's "equality over
  objectID", the only predicate HW's hash tables can serve), or the band ``key_band = EPS > 0``:
  the keys of *every pair* of members differ by at most EPS, a non-equi predicate for NLW and MW
  (§4.3: hash joins are "a restricted case compared with NLW-join and MW-join"). Keys are integers,
  so the test is exact.
* A **user predicate** on the N-tuple's members (their per-stream sequence numbers).
* A **refinement** on the N-tuple's timestamps (the path W-join's directed windows).

:func:`parse_key_predicate` reads the text form ``eq`` or ``band:EPS``.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from shedding.errors import ShedError

#: a test of an N-tuple's members (one sequence number per stream)
Predicate = Callable[[tuple[int, ...]], bool]
#: a test of an N-tuple's timestamps (one per stream, in stream order)
Refine = Callable[[Sequence[int]], bool]


def check_key_band(value: object) -> int:
    """The key band: an integer >= 0 (0 is equality)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ShedError(f"{{param}} must be an integer >= 0 (0 joins equal keys only), got {value!r}",
                        param="key_band")
    return int(value)


def keys_join(keys: Sequence[int], key_band: int) -> bool:
    """Whether the keys of an N-tuple satisfy the key predicate: every pair within ``key_band``."""
    return max(keys) - min(keys) <= key_band


def parse_key_predicate(text: str) -> int:
    """``eq`` -> 0, ``band:EPS`` -> EPS (an integer >= 0); errors name the text ``predicate``."""
    name, sep, value = text.strip().lower().partition(":")
    if name == "eq" and not sep:
        return 0
    if name == "band" and sep:
        try:
            eps = int(value.strip())
        except ValueError:
            eps = -1
        if eps >= 0:
            return eps
    raise ShedError(f"{{param}} {text!r} is not eq or band:EPS with an integer EPS >= 0, e.g. band:2",
                    param="predicate")
