"""The second half of the validation layer: the flags of a command checked together, before it runs.

A command declares its rules beside its signature, and :func:`register` adds it to the app as a
:class:`Checked` command, which runs them in order after typer has parsed (and
:mod:`shedding.cli.checks` has checked) every flag, and before the command's body does any work:

* :class:`Together`, :class:`Conflicts`, :class:`OneOf`, :class:`Needs`: flags that go together
  or contradict;
* :class:`Ignored`: flags the chosen mode would ignore, refused instead (a flag counts as given
  when it is on the command line, even at its default value);
* :class:`SameCount`: lists that go item by item (one --eps per attribute);
* :class:`Holds`: a check of several values, often the library's own (``check_memory``);
* :class:`Exists`, :class:`Creatable`: files and folders that must exist, or that the command
  must be able to create;
* :class:`Fits`: what a run would allocate, refused up front when it exceeds the machine's memory.

A ShedError of the library names its parameter (``param``); :class:`Checked` renders it with the
command's flag for that parameter, or leaves the message as it is when no flag sets it.
"""

from __future__ import annotations

import os
import re
import tempfile
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, TypeVar
from urllib.parse import urlparse

import typer

from shedding.cli.checks import flag_name
from shedding.errors import ShedError

Test = Callable[["Values"], bool]
T = TypeVar("T")
#: what the running command's :class:`Holds` rules returned, by test (:func:`checked`)
RESULTS: ContextVar[dict[Callable, Any]] = ContextVar("shedding.cli.rules.results")


class Values:
    """The parsed flags of one command line: ``values.memory`` is the value of ``--memory``;
    :meth:`given` tells whether a flag was on the command line."""

    def __init__(self, ctx: typer.Context) -> None:
        self._ctx = ctx
        self._names = {flag_name(p): p.name for p in ctx.command.params}
        #: what each :class:`Holds` rule's test returned, by test (:func:`checked`)
        self.results: dict[Callable, Any] = {}

    def __getattr__(self, name: str) -> Any:
        try:
            return self._ctx.params[name]
        except KeyError:
            raise AttributeError(name) from None

    def of(self, flag: str) -> Any:
        """The value of ``flag`` (``--memory-split``)."""
        return self._ctx.params[self._names[flag]]

    def given(self, flag: str) -> bool:
        """Whether ``flag`` was given (on the command line), not left at its default."""
        source = self._ctx.get_parameter_source(self._names[flag])
        return source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")


def _both(flags: tuple[str, ...]) -> str:
    return ", ".join(flags[:-1]) + f" and {flags[-1]}" if len(flags) > 1 else flags[0]


@dataclass(frozen=True)
class Together:
    """All of ``flags`` or none of them."""

    flags: tuple[str, ...]
    hint: str = ""

    def check(self, v: Values) -> None:
        if len({v.given(f) for f in self.flags}) > 1:
            raise ShedError(f"give both {_both(self.flags)} together{self.hint}")


@dataclass(frozen=True)
class Conflicts:
    """At most one of two flags (or groups of flags: ``("--r", "--s")``)."""

    first: tuple[str, ...]
    second: tuple[str, ...]
    hint: str = ""

    def check(self, v: Values) -> None:
        if any(map(v.given, self.first)) and any(map(v.given, self.second)):
            raise ShedError(f"give either {'/'.join(self.first)} or {'/'.join(self.second)}, not both{self.hint}")


def _either(groups: tuple[tuple[str, ...], ...]) -> str:
    names = ["/".join(group) for group in groups]
    return ", ".join(names[:-1]) + f" or {names[-1]}"


@dataclass(frozen=True)
class OneOf:
    """Exactly one of ``groups`` of flags (a group counts when any of its flags is given)."""

    groups: tuple[tuple[str, ...], ...]

    def check(self, v: Values) -> None:
        given = [group for group in self.groups if any(map(v.given, group))]
        if len(given) != 1:
            got = f" (got {', '.join('/'.join(group) for group in given)})" if given else ""
            raise ShedError(f"give exactly one of {_either(self.groups)}{got}")


@dataclass(frozen=True)
class Needs:
    """``flag`` must be given when ``when`` holds; ``message`` says why."""

    flag: str
    when: Test
    message: str

    def check(self, v: Values) -> None:
        if self.when(v) and not v.given(self.flag):
            raise ShedError(self.message)


@dataclass(frozen=True)
class Ignored:
    """``flags`` mean nothing unless ``unless`` holds: given otherwise, they are refused
    (``because`` says where they apply, after the flag's name; ``fix`` what to do)."""

    flags: tuple[str, ...]
    unless: Test
    because: str
    fix: str = "drop it"

    def check(self, v: Values) -> None:
        given = [f for f in self.flags if v.given(f)]
        if given and not self.unless(v):
            raise ShedError(f"{given[0]} {self.because}; {self.fix}")


@dataclass(frozen=True)
class SameCount:
    """``flag`` has one comma item per item of ``other`` (``default`` items when ``other`` is
    not set), e.g. one --eps per attribute of --attrs."""

    flag: str
    other: str
    unit: str
    default: int = 1

    def check(self, v: Values) -> None:
        value, other = v.of(self.flag), v.of(self.other)
        if value is None:
            return
        n, m = len(str(value).split(",")), self.default if other is None else len(str(other).split(","))
        if n != m:
            raise ShedError(f"{self.flag} has {n} value(s) but {self.other} names {m} {self.unit}(s); give one "
                            f"value per {self.unit}, in the same order")


@dataclass(frozen=True)
class Holds:
    """``test`` raises a ShedError when the values do not go together (a library check). What it
    returns (the library's checked object: a :class:`~shedding.model.Memory`) the command's body
    takes with :func:`checked`, so that it is not checked again."""

    test: Callable[[Values], Any]

    def check(self, v: Values) -> None:
        v.results[self.test] = self.test(v)


def checked(test: Callable[[Values], T]) -> T:
    """What ``test``, a :class:`Holds` rule of the running command, returned when the rules ran
    (before the body): the value the rules checked, handed to the body as it is."""
    return RESULTS.get()[test]


def _paths(v: Values, flags: tuple[str, ...], split: bool) -> list[tuple[str, Path]]:
    out = []
    for flag in flags:
        value = v.of(flag)
        if value is None or not v.given(flag):
            continue
        items = [p.strip() for p in str(value).split(",")] if split else [value]
        if split and not all(items):  # a stray comma would drop an input without a word
            raise ShedError(f"{flag} {str(value)!r} has an empty item; give paths separated by single commas")
        out += [(flag, local_path(item)) for item in items]
    return out


def local_path(value: str | Path) -> Path:
    """A path flag's value as a path; a ``file:`` URL names the path it holds."""
    text = str(value)
    return Path(urlparse(text).path) if text.lower().startswith("file:") else Path(text)


#: the first bytes of the file formats whose extension promises them (Parquet also ends with its mark)
SIGNATURES = {".parquet": b"PAR1", ".pq": b"PAR1", ".gz": b"\x1f\x8b"}


def _check_signature(flag: str, path: Path) -> None:
    """A file can be opened, and a Parquet or gzip file (by its extension) starts as one does."""
    mark = next((m for ext, m in SIGNATURES.items() if path.name.lower().endswith(ext)), None)
    try:
        with open(path, "rb") as f:
            head = f.read(len(mark or b""))
            if mark == b"PAR1" and head == mark:
                f.seek(-len(mark), os.SEEK_END)
                head = f.read()
    except OSError as exc:
        raise ShedError(f"{flag} {path} cannot be read ({exc.strerror}); check the file") from None
    if mark is not None and head != mark:
        kind = "gzip" if mark != b"PAR1" else "Parquet"
        raise ShedError(f"{flag} {path} is not a {kind} file, as its extension says; check the file")


@dataclass(frozen=True)
class Exists:
    """Each of ``flags`` names an existing file (``folder=True``: folder; None: either) that can
    be read, and is of the format its extension names; ``split``: a comma list of them; ``when``
    limits the check to the modes that read the path."""

    flags: tuple[str, ...]
    folder: bool | None = False
    split: bool = False
    when: Test = field(default=lambda v: True)

    def check(self, v: Values) -> None:
        if not self.when(v):
            return
        kind = {True: "folder", False: "file", None: "folder or file"}[self.folder]
        for flag, path in _paths(v, self.flags, self.split):
            if not path.exists():
                raise ShedError(f"{flag} {path}: {kind} not found; check the path")
            if self.folder is not None and path.is_dir() != self.folder:
                raise ShedError(f"{flag} {path} is a {'file' if self.folder else 'folder'}; give the path of a {kind}")
            if not path.is_dir():
                _check_signature(flag, path)

    def naming(self, v: Values, message: str) -> str | None:
        """``message`` with the flag that gave the path it is about, if it names a path of these flags
        as a path of its own, not within a word or a name (a folder ``r`` is not named by "error")."""
        for flag, path in _paths(v, self.flags, self.split):
            own = re.search(rf"(?<![\w.-]){re.escape(str(path))}(?![\w-]|\.\w)", message)
            if own and not re.search(rf"{re.escape(flag)}(?![\w-])", message):
                return f"{flag} {message}" if message.startswith(str(path)) else f"{flag}: {message}"
        return None


def _creatable(flag: str, path: Path, folder: bool) -> None:
    kind = "folder" if folder else "file"
    if path.exists():
        if path.is_dir() != folder:
            raise ShedError(f"{flag} {path} is a {'file' if folder else 'folder'}; give the path of a {kind} to write")
        if not folder:
            return
    base = path if path.exists() else next(p for p in path.absolute().parents if p.exists())
    if not base.is_dir():
        raise ShedError(f"{flag} {path} cannot be created: {base} is a file; choose another {kind}")
    try:  # a probe that leaves nothing behind: os.access says yes to root even where it cannot write
        tempfile.TemporaryDirectory(dir=base).cleanup()
    except OSError as exc:
        raise ShedError(f"{flag} {path} cannot be written ({exc.strerror or exc}); choose a writable {kind}") from None


@dataclass(frozen=True)
class Creatable:
    """Each of ``flags`` names a file (``folder=True``: folder) the command can write: not a
    path of the other kind, and inside a folder that can be written."""

    flags: tuple[str, ...]
    folder: bool = False

    def check(self, v: Values) -> None:
        for flag, path in _paths(v, self.flags, False):
            _creatable(flag, path, self.folder)


def machine_memory() -> int:
    """The machine's physical memory in bytes."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def size_text(n: float) -> str:
    """``3.2 TiB``."""
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.3g} {unit}" if n >= 1000 else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError  # unreachable


@dataclass(frozen=True)
class Fits:
    """What the run would allocate, ``need(values)`` bytes (an estimate), is refused up front
    when it exceeds the machine's memory; ``flags`` are the flags that drive it."""

    flags: tuple[str, ...]
    need: Callable[[Values], float]
    what: str
    when: Test = field(default=lambda v: True)

    def check(self, v: Values) -> None:
        if not self.when(v):
            return
        need, have = float(self.need(v)), machine_memory()
        if need > have:
            shown = [(f, v.of(f)) for f in self.flags if v.given(f)]
            given = " ".join(f"{f} {' '.join(map(str, x)) if isinstance(x, (list, tuple)) else x}" for f, x in shown) \
                or " and ".join(self.flags)
            raise ShedError(f"{given}: {self.what} would take about {size_text(need)}, more than this machine's "
                            f"{size_text(have)} (not enough memory); give a smaller {' or '.join(self.flags)}")


def same_file(a: Path, b: Path) -> bool:
    """Whether two paths name one file (the same resolved path, or one file by two names)."""
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and os.path.samefile(a, b))
    except (OSError, RuntimeError):
        return False


def _takes_value(param: Any) -> bool:
    return isinstance(param, typer.core.TyperOption) and not param.is_flag and not param.count


class Checked(typer.core.TyperCommand):
    """A command whose ``rules`` run after its flags are parsed and before its body; a library
    ShedError about a parameter is named with the flag that sets it (``aliases``: library
    parameter -> flag, where the names differ; otherwise ``memory_split`` -> ``--memory-split``)."""

    rules: tuple = ()
    aliases: Mapping[str, str] = {}

    def flag_of(self, param: str) -> str | None:
        """The flag of this command that sets the library parameter ``param``, if any."""
        flags = {p.name: flag_name(p) for p in self.params if p.name}
        return self.aliases.get(param) or flags.get(param)

    def naming(self, exc: ShedError, values: Values | None = None) -> str:
        """The message of a library error with this command's flags: the flag that sets its
        parameter, and (with ``values``) the flag that gave the file it names."""
        flag = None if exc.param is None else self.flag_of(exc.param)
        message = exc.naming(flag, {name: self.flag_of(name) for name in exc.names})
        if values is None:
            return message
        named = (rule.naming(values, message) for rule in self.rules if isinstance(rule, Exists))
        return next((text for text in named if text is not None), message)

    def path_flags(self) -> set[str]:
        """The flags (and DIR-like arguments) that name a file or folder: typed as a path, or read
        or written by a rule of this command."""
        flags = {f for rule in self.rules if isinstance(rule, (Exists, Creatable)) for f in rule.flags}
        for param in self.params:
            if "Path" in repr(getattr(getattr(param, "type_descriptor", None), "annotation", None)):
                flags.add(flag_name(param))
        return flags

    # ctx is click's Context (typer.Context's base; typer >= 0.12 keeps click in a private module or
    # another package): the annotation names the public subclass, whose used attributes are the base's
    def parse_args(self, ctx: typer.Context, args: list[str]) -> list[str]:  # type: ignore[override]
        if not ctx.resilient_parsing:
            self.check_tokens(list(args))
        return super().parse_args(ctx, args)

    def check_tokens(self, args: list[str]) -> None:
        """What the parser would take silently, refused on the raw command line: a flag of one
        value given twice (the last would win) and an empty path (it would name the current folder)."""
        options = {o: p for p in self.params if isinstance(p, typer.core.TyperOption) for o in p.opts}
        seen: dict[str, str | None]
        paths, seen, positional = self.path_flags(), {}, []
        i = 0
        while i < len(args):
            token, value, inline = args[i], None, False
            i += 1
            if token == "--":
                positional += args[i:]
                break
            if token.startswith("--") and "=" in token:
                token, _, value = token.partition("=")
                inline = True
            elif token[:1] == "-" and token[:2] in options and len(token) > 2 and not token.startswith("--"):
                token, value, inline = token[:2], token[2:], True
            param = options.get(token)
            if param is None:
                if not token.startswith("-") or token == "-":
                    positional.append(token)
                continue
            if not _takes_value(param):
                continue
            if not inline:
                value = args[i] if i < len(args) else None
                i += 1
            flag = flag_name(param)
            if not param.multiple and param.name in seen:
                raise ShedError(f"{flag} is given twice ({seen[param.name]!r}, then {value!r}); it takes one value, "
                                "give it once")
            seen[param.name] = value
            if value is not None and not value.strip() and flag in paths:
                raise ShedError(f"{flag} is empty; give a path (an empty one would name the current folder)")
        arguments = [p for p in self.params if isinstance(p, typer.core.TyperArgument)]
        for argument, value in zip(arguments, positional):
            if not value.strip():
                raise ShedError(f"{flag_name(argument)} is empty; give a path (an empty one would name the current "
                                "folder)")

    def check_apart(self, v: Values) -> None:
        """No output path is one of the command's inputs: writing it would destroy the input."""
        inputs = [(flag, path) for rule in self.rules if isinstance(rule, Exists) and rule.when(v)
                  for flag, path in _paths(v, rule.flags, rule.split)]
        for rule in self.rules:
            if isinstance(rule, Creatable):
                for flag, path in _paths(v, rule.flags, False):
                    for source, read in inputs:
                        if same_file(path, read):
                            raise ShedError(f"{flag} {path} is the input file of {source}; writing it would overwrite "
                                            f"the input, choose another {flag} path")

    def invoke(self, ctx: typer.Context) -> Any:  # type: ignore[override]  # as parse_args
        values = Values(ctx)
        try:
            for rule in self.rules:
                rule.check(values)
            self.check_apart(values)
        except ShedError as exc:
            raise ShedError(self.naming(exc)) from None
        token = RESULTS.set(values.results)
        try:
            return super().invoke(ctx)
        except ShedError as exc:
            raise ShedError(self.naming(exc, values)) from None
        except MemoryError:
            sizes = [f for rule in self.rules if isinstance(rule, Fits) for f in rule.flags]
            raise ShedError("not enough memory for this run; give smaller inputs"
                            + (f" ({', '.join(dict.fromkeys(sizes))})" if sizes else "")) from None
        finally:
            RESULTS.reset(token)


def register(app: typer.Typer, name: str, function: Callable[..., Any], rules: tuple = (),
             aliases: Mapping[str, str] | None = None) -> None:
    """Add ``function`` to ``app`` as the command ``name``, checked by ``rules``."""
    cls = type(f"{name.title().replace('-', '')}Command", (Checked,), {"rules": tuple(rules),
                                                                        "aliases": dict(aliases or {})})
    app.command(name, cls=cls)(function)
