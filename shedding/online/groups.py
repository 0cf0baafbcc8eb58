"""Payload groups: the tuples that share HAZARD's age curve.

HAZARD fits one age shape e[s, g, c, a] per payload group g, shrunk towards the curve pooled over
all groups (:mod:`~shedding.online.hazard`): a group is a set of tuples whose partners come at
alike ages (the flights to one destination, the bids on one auction category, the requests to
one endpoint). A group is given as one or more payload columns of the workload
(``wl.meta["payload"]``, one row per tuple: the flights' ``dest``, ``carrier`` and ``origin``, or a
CSV or Parquet file's own columns beside ``stream``, ``time`` and ``key``); several columns
combine, each distinct combination of their values one group.

``group="history"`` groups each tuple by how soon its key's previous tuple met a partner, read from
the stream alone (:mod:`~shedding.online.keyhistory`): it needs no payload and combines with
payload columns like one (``"history,dest"``). ``group="auto-history"`` lets HAZARD pick, per side
and as it learns, between no group and the key's history (:mod:`~shedding.online.autogroup` with
the history as its one candidate): it is HAZARD's default under a time range whose sides live
apart (:func:`default_group`), where a stored tuple waits for partners that come at an age the pair
sets (a departure its own arrival), and ``group="none"`` asks for no group there. A payload column
named ``history``, ``auto``, ``auto-history`` or ``none`` is not reachable by that name.

``group="auto"`` lets HAZARD pick the grouping itself (:mod:`~shedding.online.autogroup`). The
candidates are no group and the payload columns, in the input's column order, that have from 2 to
:data:`MAX_GROUPS` distinct values (a missing value counts as one) and are not the join key under
other names (the carrier as a group when the carrier is the key: :func:`renames_key`), the first
:data:`AUTO_COLUMNS` of them (:func:`auto_columns`); a workload that names the columns a group may
use (``wl.meta["group_columns"]``: the flights' dest, carrier and origin, not the air time that
sets the arrival's time) offers only those: at most six candidates, so the statistics
HAZARD keeps per arrival grow at most six-fold. Which columns qualify is read from the whole input,
as the groups' numbers are; every choice among them is made online.

The rule that numbers them (:func:`group_ids`): the distinct value combinations sorted (column by
column, each column's values in their own order: text as text, numbers as numbers, a missing value
after every other one, a group of its own), and each tuple's group its combination's rank. The
numbers depend on the set of values alone, not on the order of the rows. The streaming join, which
never sees the whole input, numbers each group by a 64-bit hash of its values instead
(:mod:`~shedding.streaming.inputs`); which number a group gets changes no decision, as HAZARD treats
every group alike (a test relabels the groups and compares the schedules).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from shedding.errors import ShedError
from shedding.model import Workload
from shedding.online.agedlayout import MAX_CANDIDATES
from shedding.online.keyhistory import HISTORY, history_groups
from shedding.timerange import lives_apart

#: the most distinct groups HAZARD learns curves for. Each group's curve is fitted from the share
#: of the shadow sample (256 tuples per side by default) that falls into it: past about a thousand
#: groups a group holds a quarter of a sample tuple at a time on average, so its curve is the pooled
#: one shrunk by ``kappa`` and the groups add nothing but memory (about 160 KB of per-group
#: statistics and priorities at w = 720, 160 MB at the bound). Typical groups are far below it: the
#: flights' destinations 105, destination and carrier together 314.
MAX_GROUPS = 1000
#: ``group="auto"``: the value that asks HAZARD to pick its grouping, and the most payload columns
#: it picks among (beside no group)
AUTO, AUTO_COLUMNS = "auto", MAX_CANDIDATES - 1
#: ``group="auto-history"``: HAZARD picks between no group and the key's history; ``group="none"``:
#: no group, where HAZARD's default (:func:`default_group`) would take one
AUTO_HISTORY, NONE = "auto-history", "none"
#: the values of ``group`` that stand alone: each is a grouping of its own, not a column
_ALONE = (AUTO, AUTO_HISTORY, NONE)


def group_columns(group: str | Sequence[str] | None) -> tuple[str, ...] | None:
    """``group`` as a tuple of column names: one name, a comma list (``"dest,carrier"``) or a
    sequence of names; None (or an empty sequence) for no group. Empty text is refused."""
    if group is None:
        return None
    if isinstance(group, str):
        names = [n.strip() for n in group.split(",")]
    elif isinstance(group, Sequence) and all(isinstance(n, str) for n in group):
        if not group:  # an empty list of columns: no group, as a stored spec without one has
            return None
        names = [n.strip() for n in group]
    else:
        raise ShedError(f"{{param}} must be a column name, a comma list of them or a list of names, got {group!r}",
                        param="group")
    if not names or not all(names):
        raise ShedError(f"{{param}} {group!r} has an empty column name; give names such as dest or dest,carrier",
                        param="group")
    alone = next((n.lower() for n in names if n.lower() in _ALONE), None)
    if alone is not None and len(names) > 1:
        raise ShedError(f"{{param}} {alone} is a grouping of its own; give {alone} alone or the columns",
                        param="group")
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ShedError(f"{{param}} names {', '.join(twice)} twice; give each column once", param="group")
    if alone == NONE:
        return None
    return (alone,) if alone is not None else tuple(names)


def default_group(bounds: tuple[int, int] | None) -> tuple[str, ...] | None:
    """HAZARD's grouping when ``group`` is not given, on a join of time range ``bounds``
    (``Workload.bounds``; None when not known): ``auto-history`` under a range whose sides live
    apart (:func:`~shedding.timerange.lives_apart`: a one-sided range such as an arrival within 12
    hours after its departure), else none. Under such a range memory holds tuples that wait for
    partners at an age the pair sets (a departure waits for its own aircraft's arrival), which the
    key's previous wait often tells, and HAZARD takes the history only where it predicts the shadow
    sample better (docs/policies.md, "Payload groups"). On the symmetric window it takes no group
    unless told: there the history's work would cost more than HAZARD's budget per arrival allows."""
    return (AUTO_HISTORY,) if bounds is not None and lives_apart(*bounds) else None


def run_group(group: str | Sequence[str] | None, bounds: tuple[int, int] | None, takes: bool) -> tuple[str, ...] | None:
    """The grouping a run ranks by: ``group`` checked (:func:`group_columns`), or for None, when the
    policy takes a group (``takes``: HAZARD on an equi-join), its default on the time range
    ``bounds`` (:func:`default_group`). The one rule of the batch runs and the streaming join."""
    return default_group(bounds) if group is None and takes else group_columns(group)


def _codes(values: pd.Series) -> np.ndarray:
    """Each value's rank among the column's distinct values (missing last, its own value)."""
    try:
        codes, _ = pd.factorize(values, sort=True, use_na_sentinel=False)
    except TypeError:  # values of several types (an object column of text and numbers): by type, then value
        text = values.map(lambda v: (type(v).__name__, str(v)), na_action="ignore")
        codes, _ = pd.factorize(text, sort=True, use_na_sentinel=False)
    return np.asarray(codes, dtype=np.int64)


def group_ids(table: pd.DataFrame, columns: Sequence[str]) -> np.ndarray:
    """The dense group id of each row of ``table`` by ``columns`` (the module's rule): the rank of
    the row's value combination among the distinct combinations; at most :data:`MAX_GROUPS`."""
    codes = [_codes(table[c]) for c in columns]
    ids = codes[0]  # the ranks of the first column's values; then of the combinations, a column more each
    for c in codes[1:]:  # ids and c are below the rows' count, so the pair's number stays within 64 bits
        _, ids = np.unique(ids * (int(c.max(initial=0)) + 1) + c, return_inverse=True)
    count = int(ids.max(initial=-1)) + 1
    if count > MAX_GROUPS:
        raise ShedError(f"{{param}} {','.join(columns)} has {count:,} distinct values, more than the "
                        f"{MAX_GROUPS:,} HAZARD learns age curves for (each from its share of a 256-tuple sample); "
                        "choose a column with fewer values", param="group")
    return np.asarray(ids, dtype=np.int64).reshape(-1)


def is_auto(columns: Sequence[str] | None) -> bool:
    """Whether the checked ``columns`` (:func:`group_columns`) ask HAZARD to pick its grouping."""
    return columns is not None and len(columns) == 1 and columns[0].lower() == AUTO


def is_auto_history(columns: Sequence[str] | None) -> bool:
    """Whether the checked ``columns`` ask HAZARD to pick between no group and the key's history."""
    return columns is not None and len(columns) == 1 and columns[0].lower() == AUTO_HISTORY


def is_history(column: str) -> bool:
    """Whether ``column`` asks for the key's history (:mod:`~shedding.online.keyhistory`), alone or
    as ``auto-history``'s candidate, not a payload column."""
    return column.lower() in (HISTORY, AUTO_HISTORY)


def candidate_names(wl: Workload, columns: Sequence[str] | None) -> list[str]:
    """The candidate groupings HAZARD picks among beside no group, by name: ``history`` for
    ``auto-history``, :func:`auto_columns` for ``auto``."""
    return [HISTORY] if is_auto_history(columns) else auto_columns(wl)


def batch_only(columns: Sequence[str] | None) -> str | None:
    """The grouping among ``columns`` that the streaming join does not make (``auto``: the choice
    among candidate groupings reads which columns qualify from the whole input), else None."""
    return next((c.lower() for c in columns or () if c.lower() == AUTO), None)


def payload_names(columns: Sequence[str] | None) -> tuple[str, ...]:
    """The payload columns among the checked ``columns``: all but the key's history."""
    return tuple(c for c in columns or () if not is_history(c))


def _payload(wl: Workload) -> pd.DataFrame:
    payload = wl.meta.get("payload")
    if payload is None or len(payload.columns) == 0:
        raise ShedError("{param} needs payload columns per tuple (a CSV or Parquet file's columns beside stream, "
                        "time and key, or the flights' dest, carrier and origin); this workload has none, so leave "
                        "it out", param="group")
    if len(payload) != len(wl):
        raise ShedError(f"the workload's payload has {len(payload):,} rows for {len(wl):,} tuples; give one row per "
                        "tuple", param="group")
    return payload


def renames_key(values: pd.Series, key: np.ndarray) -> bool:
    """Whether a payload column is the join key under other names: one value per key and one key
    per value. Such a group's age curve is a per-key rate beside beta(key), the key's own rate in
    HAZARD's model (:mod:`~shedding.online.hazard`), so the two components of a group's rate
    describe the same thing and the fit may split them either way."""
    pairs = pd.DataFrame({"v": values.to_numpy(), "k": key}).drop_duplicates()
    return bool(pairs["k"].is_unique and pairs["v"].is_unique)


def auto_columns(wl: Workload) -> list[str]:
    """The payload columns ``group="auto"`` picks among (the module's rule): in column order, those
    the workload allows (all unless ``meta["group_columns"]``) with 2 to :data:`MAX_GROUPS`
    distinct values and not the key renamed (:func:`renames_key`), the first :data:`AUTO_COLUMNS`."""
    payload = _payload(wl)
    allowed = wl.meta.get("group_columns")
    fit = [str(c) for c in payload.columns if (allowed is None or c in allowed)
           and 2 <= payload[c].nunique(dropna=False) <= MAX_GROUPS and not renames_key(payload[c], wl.key)]
    if not fit:
        raise ShedError(f"{{param}} {AUTO} found no payload column with 2 to {MAX_GROUPS:,} distinct values other than the "
                        f"key among {', '.join(map(str, payload.columns))}; leave it out", param="group")
    return fit[:AUTO_COLUMNS]


def payload_groups(wl: Workload, group: str | Sequence[str] | None) -> np.ndarray | None:
    """The group id per tuple of ``wl`` by payload column(s) ``group`` (:func:`group_columns`), None
    without a group; with ``auto``, one column of ids per candidate column (:func:`auto_columns`);
    ``history`` is the key's history (:mod:`~shedding.online.keyhistory`), which needs no payload.
    Columns are matched by name, else case-insensitively."""
    columns = group_columns(group)
    if columns is None:
        return None
    if is_auto(columns):
        payload = _payload(wl)
        return np.stack([group_ids(payload, [c]) for c in auto_columns(wl)], axis=1)
    if is_auto_history(columns):  # the one candidate, as a column of dense ids
        return history_groups(wl)[:, None]
    named = payload_names(columns)
    payload = _payload(wl) if named else pd.DataFrame(index=range(len(wl)))
    names = [str(c) for c in payload.columns]
    lower: dict[str, list[str]] = {}
    for n in names:
        lower.setdefault(n.lower(), []).append(n)
    found = []
    for c in named:
        match = [c] if c in names else lower.get(c.lower(), [])
        if len(match) != 1:
            raise ShedError(f"unknown {{param}} column {c!r}; the workload's payload columns are {', '.join(names)}",
                            param="group")
        found.append(match[0])
    if len(found) < len(columns):  # the key's history, as one more column
        payload = payload[found].assign(**{HISTORY: history_groups(wl)})
        found = [*found, HISTORY]
    return group_ids(payload, found)
