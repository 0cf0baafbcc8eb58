"""What ``shed`` prints and writes: the consoles, tables that never cut a number, a spinner for
long steps, and output files whose errors name the flag. Every path printed is escaped for rich,
emoji codes are never replaced (a path with ``:smile:`` in it is printed as it is), and a message
is one line whatever its values hold (:func:`one_line`)."""

from __future__ import annotations

import os
import sys
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from rich.console import Console, JustifyMethod
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from shedding.atomic import write_atomically
from shedding.errors import ShedError

if TYPE_CHECKING:
    from shedding.model import Workload

out = Console(emoji=False)
err = Console(stderr=True, emoji=False)


def one_line(text: str) -> str:
    """``text`` on one line: a newline, tab or other control character in a value (a path with a
    newline in it) is written as its escape (``\\n``), so an error or a warning stays one line."""
    return "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in text)


def wraps() -> bool:
    """Whether text lines wrap at a width: on a terminal, or where ``COLUMNS`` gives one; a pipe
    or a log otherwise gets each line whole."""
    return out.is_terminal or bool(os.environ.get("COLUMNS"))


def fraction(value: float) -> str:
    """A fraction (a ratio of outputs, precision, recall) to three decimals that never rounds to a
    bound it does not reach: 11,242 of 11,247 reads >0.999, not 1.000 (which says none was lost)."""
    text = f"{value:.3f}"
    if text == "1.000" and value < 1:
        return ">0.999"
    if text == "0.000" and value > 0:
        return "<0.001"
    return text


def say(text: str) -> None:
    """Print ``text`` as it is (no markup, no highlighting), wrapped only where lines wrap
    (:func:`wraps`)."""
    out.print(text, markup=False, highlight=False, soft_wrap=not wraps())


def busy(text: str) -> AbstractContextManager:
    """A spinner on stderr while a long step runs (only on a terminal, so pipes and logs stay clean)."""
    return err.status(text, spinner="dots") if err.is_terminal else nullcontext()


def warn(text: str) -> None:
    err.print(f"warning: {one_line(text)}", markup=False, highlight=False, emoji=False, soft_wrap=True)


def warn_counts_nothing(wl: Workload) -> None:
    """A workload that counts nothing, every output 0 and every ratio 1.000: a stream without tuples
    (a file of a header alone), or a warmup after the last arrival."""
    empty = [name for name, n in (("R", wl.n_r), ("S", wl.n_s)) if n == 0]
    if empty:
        what = f"stream {empty[0]} has" if len(empty) == 1 else "streams R and S have"
        warn(f"{what} no tuples, so nothing is joined and every ratio is 1.000; give {'it' if len(empty) == 1 else 'them'}"
             " rows")
    elif wl.warmup > int(wl.time[-1]):
        warn(f"the warmup {wl.warmup} (--warmup, default 2w) is after the last arrival time {int(wl.time[-1])}, so "
             f"nothing is counted and every ratio is 1.000; give a smaller --warmup or a longer workload")


def warn_naive_times(wl: Workload) -> None:
    """One notice line when some files' timestamps carry a time zone or an offset and others do not:
    those without are read as UTC (docs/semantics.md, "Arrivals"), which shifts them by the
    offset if they are local times, silently joining the streams at the wrong distance."""
    naive = wl.meta.get("naive_times")
    if naive:
        warn(f"the times of {', '.join(naive)} have no time zone or UTC offset, while the other files' times do; "
             "times without one are read as UTC, so local times would be shifted against the others: give every "
             "file's times an offset (or none)")


def workload_estimator(wl: Workload, estimator: str | None) -> str:
    """``--estimator``, else the workload's default (:func:`shedding.online.estimators.default_estimator`)."""
    from shedding.online.estimators import default_estimator

    return default_estimator(wl) if estimator is None else estimator


def warn_static_lookahead(wl: Workload, estimator: str, names: list[str]) -> None:
    """One notice line when the static estimator reads the future: its key counts cover the whole
    stream, each tuple's partners to come included, and on a workload whose default is the online
    estimator (files, the flights, the beyond-i.i.d. generators:
    :func:`shedding.online.estimators.default_estimator`) they tell a policy that ranks by them
    what is still to come, so its run is not an online one."""
    from shedding.online.estimators import default_estimator
    from shedding.online.kinds import DUAL, HAZARD, LIFE, PROB, SURV
    from shedding.online.policies import POLICIES

    if estimator != "static" or default_estimator(wl) != "online":
        return
    keyed = [n for n in names if n in POLICIES and POLICIES[n].kind in (PROB, LIFE, SURV, DUAL, HAZARD)]
    if keyed:
        one = len(keyed) == 1
        what = f"the {wl.meta['generator']} workload" if wl.meta.get("generator") else "this file's workload"
        warn(f"with --estimator static, {' and '.join(n.upper() for n in keyed)} rank{'s' if one else ''} by the whole "
             f"stream's key counts, which on {what} read the future (whose partners are still to come), so "
             f"{'this run is' if one else 'these runs are'} not online; drop --estimator static (the default here "
             f"is online) to compare {'it' if one else 'them'} as online")


def hint_group(wl: Workload, names: list[str], group: str | None) -> None:
    """One note line when a policy that ranks by a payload group (HAZARD) runs without one on a
    workload whose payload has columns ``--group auto`` would pick among
    (:func:`shedding.online.groups.auto_columns`): one age curve for every tuple cannot tell a
    40-minute flight from a 6-hour one (on the flights' one-sided range HAZARD keeps 87% of OPT
    without a group, 91-93% by default, where it weighs the key's history, and 97% by destination;
    docs/policies.md, "Payload groups")."""
    from shedding.errors import ShedError
    from shedding.online.groups import auto_columns, default_group
    from shedding.online.policies import grouped

    takes = [n.upper() for n in names if grouped(n)]
    if group is not None or not takes or "payload" not in wl.meta:
        return
    try:
        columns = auto_columns(wl)
    except ShedError:  # no column could be a group
        return
    how = "by one age curve, or by the key's history where it predicts better" if default_group(wl.bounds) else \
        "by one age curve"
    err.print(f"note: {' and '.join(takes)} rank{'s' if len(takes) == 1 else ''} every tuple {how}; "
              f"this input's {', '.join(columns)} may set when partners come: --group auto picks among them as it "
              f"learns, --group COLUMN names one", markup=False, highlight=False, emoji=False, soft_wrap=True)


def print_header(wl: Workload, memory: int) -> None:
    """The workload's name, sizes, window (or time range), warmup and memory (and its summary, if any)."""
    join = f"w = {wl.window}" if wl.range is None else f"range {wl.range[0]} <= s.time - r.time <= {wl.range[1]}"
    out.print(f"[bold]{escape(wl.name)}[/bold]: {wl.n_r:,} R + {wl.n_s:,} S tuples, {join}, "
              f"warmup = {wl.warmup}, M = {memory}", soft_wrap=not wraps())
    if wl.meta.get("summary"):
        say(wl.meta["summary"])
    if "time_step" in wl.meta:
        say(f"time steps of {wl.meta['time_step']}; step 0 begins at {wl.meta['time_origin']}")


def print_fitted(columns: list[tuple[str, JustifyMethod]], rows: list[list[str]], optional: tuple[str, ...] = ()) -> None:
    """Print a table that never cuts a number: while it is wider than the terminal, the
    ``optional`` columns are left out (first named first); what still does not fit wraps."""
    shown = [name for name, _ in columns]
    while True:
        table = Table(show_edge=False)
        for name, justify in columns:
            if name in shown:
                table.add_column(name, justify=justify, overflow="fold")
        for row in rows:
            table.add_row(*(Text(str(cell)) for (name, _), cell in zip(columns, row) if name in shown))
        droppable = [name for name in optional if name in shown]
        natural = out.measure(table, options=out.options.update_width(sys.maxsize)).maximum
        if not droppable or natural <= out.width:
            break
        shown.remove(droppable[0])
    out.print(table)
    left_out = [name for name, _ in columns if name not in shown]
    if left_out:
        say(f"({', '.join(left_out)} left out to fit {out.width} columns; --json gives every field)")


def write_file(path: Path, flag: str, write: Callable[[Path], object]) -> None:
    """Write an output file with ``write`` (what it returns is ignored); an unwritable path is a
    one-line error naming ``flag``."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, write)
    except OSError as exc:
        raise ShedError(f"cannot write {path}: {exc.strerror}; choose a writable {flag} path") from None
