"""The ``shed`` app: its commands, each checked by its rules (:mod:`shedding.cli.rules`), and the
entry point that turns bad input into one line, ``error: ...``, with exit code 2.

Only typer and rich are imported up front, so ``--help`` is instant: a command imports numpy,
pandas, numba or Spark inside its body, when it runs.
"""

from __future__ import annotations

import sys
from typing import Any

import typer

from shedding.cli import bmj, compare, explain, opt, report, simulate, static, stream_join, wjoin, workload
from shedding.cli.checks import flag_name
from shedding.cli.output import err, one_line, warn
from shedding.cli.rules import register
from shedding.errors import ShedError


def _no_flag_type(params: list) -> list:
    """Flags (--json, --help, ...) take no value: show no ``<bool>`` type for them in --help."""
    for param in params:
        if getattr(param, "is_flag", False):
            param.metavar = ""
    return params


class _Group(typer.core.TyperGroup):
    """The ``shed`` group; applies :func:`_no_flag_type` to itself and to every command."""

    def get_params(self, ctx: Any) -> list:
        return _no_flag_type(super().get_params(ctx))

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            _no_flag_type(command.get_params(ctx))
        return command


app = typer.Typer(
    cls=_Group,
    add_completion=False,
    pretty_exceptions_enable=False,
    no_args_is_help=True,
    help="Semantic load shedding for sliding-window stream joins (Das, Gehrke, Riedewald, SIGMOD 2003): "
    "how much join output a memory budget loses, per policy, against EXACT and OPT.",
)


def _version(value: bool) -> None:
    if value:
        from shedding import __version__

        print(__version__)
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print the version and exit.")) -> None:
    pass  # the group's own option; --version exits in its callback


register(app, "simulate", simulate.simulate, simulate.RULES, workload.ALIASES | workload.OPT_BOUNDS)
register(app, "opt", opt.opt, opt.RULES, workload.ALIASES)
register(app, "explain", explain.explain, explain.RULES, workload.ALIASES | workload.OPT_BOUNDS)
register(app, "static", static.static, static.RULES)
register(app, "compare", compare.compare, compare.RULES, compare.ALIASES)
register(app, "report", report.report, report.RULES)
register(app, "stream-join", stream_join.stream_join, stream_join.RULES, stream_join.ALIASES)
register(app, "wjoin", wjoin.wjoin, wjoin.RULES, wjoin.ALIASES)
register(app, "bmj", bmj.bmj, bmj.RULES)


def _usage(exc: Any) -> str:
    """A usage error of typer (an unknown option, a missing value, a value of the wrong type) in
    one line that names the flag."""
    param = getattr(exc, "param", None)
    message = " ".join(str(getattr(exc, "message", exc)).split())
    if param is not None and type(exc) is typer.BadParameter:
        return f"{flag_name(param)}: {message[:1].lower()}{message[1:]}"
    return " ".join(exc.format_message().split())


#: the base class of typer's usage errors (click's ClickException, wherever this typer keeps it;
#: typed Any, as it is found at run time)
USAGE_ERRORS: type[Any] = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")


def _warning_line(message: Any, category: Any, *args: Any, **kwargs: Any) -> None:
    """A Python warning (numpy's RuntimeWarning, a library's DeprecationWarning) as one
    ``warning: ...`` line, not the two lines with a source file that Python prints."""
    warn(f"{' '.join(str(message).split())} ({getattr(category, '__name__', 'warning')})")


def main() -> None:
    """Entry point: runs the app; bad input ends with one line, ``error: ...``, and exit code 2."""
    import os
    import warnings

    os.environ.setdefault("SHEDDING_COMPILE_NOTICE", "1")  # shedding.jit.NOTICE_ENV, without importing numba
    shown = warnings.showwarning
    warnings.showwarning = _warning_line
    try:
        _main()
    finally:
        warnings.showwarning = shown


#: the exit code of a command stopped by Ctrl-C (128 + SIGINT), as shells give it
INTERRUPTED = 130


def _main() -> None:
    try:
        code = app(standalone_mode=False)
    except ShedError as exc:
        _fail(str(exc))
    except USAGE_ERRORS as exc:  # an unknown option, a missing or malformed value
        if type(exc).__name__ == "NoArgsIsHelpError":  # plain ``shed``: its help
            print(exc.format_message())
            sys.exit(2)
        _fail(_usage(exc))
    except (KeyboardInterrupt, typer.Abort):
        code = INTERRUPTED
    if code == INTERRUPTED:  # Ctrl-C: typer returns its exit code without standalone mode
        err.print("interrupted", markup=False)
    sys.exit(code if isinstance(code, int) else 0)


def _fail(message: str) -> None:
    err.print(f"error: {one_line(message)}", markup=False, highlight=False, emoji=False, soft_wrap=True)
    sys.exit(2)
