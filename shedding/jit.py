"""How the compiled engines are compiled and cached: ``njit`` with numba's on-disk cache keyed by
the content of every module a compiled function can call.

numba's own cache checks only the file a function is defined in, so an edit to a module the join
kernel calls (``hazardmemory.py``, say) would leave a stale ``kernel.process`` in the cache. Here every
cached function of the package carries one stamp instead: a hash of the source of every module of
the layers that hold compiled code (everything but ``shedding.cli``, ``shedding.streaming`` and
``shedding.studies``, which the layers contract keeps out of the engines' reach, so no compiled
function can call into them). Any edit below those layers recompiles everything on its next use,
which takes seconds (``docs/benchmarks.md``, "First run").

Where the cache lives: ``NUMBA_CACHE_DIR`` when set (an empty folder gives a cold start), else the
``__pycache__`` beside the module when it is writable, else ``~/.cache/shedding/numba`` (or
``$XDG_CACHE_HOME/shedding/numba``), as for an installation in a read-only site-packages.

**The shipped engines.** A wheel carries its engines compiled (``shedding/_engines``, one folder per
package folder, made by ``python -m shedding.cli.engines`` when the wheel is built: see
``setup.py``), so a user's first run loads machine code instead of compiling (docs/benchmarks.md,
"First run"). They are compiled for a generic x86-64 CPU (``NUMBA_CPU_NAME=generic``), so one
wheel serves every x86-64 machine, and keyed by the same source stamp, so an edited module never
loads a shipped engine of its older self. :class:`PackageCache` reads them before numba's own
cache; whatever they miss (another Python, another architecture, a signature no command of the
build reached) numba compiles for the host and caches as above. ``SHEDDING_JIT_LOG=FILE`` appends
the name of every function compiled at run time to FILE (empty: nothing was compiled).

Two habits of numba that multiplied the compile time are turned off:

* inlining at numba's level (``inline="always"``) types each callee again at every call site: the
  join kernel's nested helpers grew into one function that took minutes to compile. LLVM inlines
  the helpers instead. ``inline="always"`` stays on small helpers whose inlined callees inline
  nothing further (no chain of three: tests/online/test_call_names.py holds this); their other
  callees are compiled once, whatever the number of sites. It is used where LLVM's inlining does
  not do: the W-join's list operations, called from a loop compiled with reference counting,
  where a real call counts references on every array it passes (PROB ran 1.3x slower without
  it); the bestmatch skyline's insert (1.5x); and the age-aware kinds' hooks
  (shedding/online/agehooks.py), which only pass a call on to AGE's or HAZARD's module (as a
  compiled level of their own they made LLVM compile those modules' code once more: 3 s of
  HAZARD's first run);
* a call from compiled code with a constant argument (``_depart(..., 1, ...)``) compiles the callee
  again for that literal value. Here a compiled function is compiled once per argument *type*.

Instead LLVM inlines: its inlining threshold is raised from 225 to :data:`INLINE_THRESHOLD` (LLVM's
``-inline-threshold``, an option of the process's LLVM, which numba's other users in the process
share). At 225 the kernel's per-arrival helpers stayed calls, and PROB ran at half the speed of
the loop inlined by numba; at :data:`INLINE_THRESHOLD` it runs as fast (docs/benchmarks.md).
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import os
import sys
from pathlib import Path
from typing import Any, Callable

from llvmlite import binding as llvm
from numba import config, njit as _numba_njit
from numba.core import caching, event, types
from numba.core.caching import FunctionCache, IndexDataCacheFile, _CacheLocator

PACKAGE = Path(__file__).resolve().parent
#: LLVM's inlining threshold for everything compiled in the process (its default is 225)
INLINE_THRESHOLD = 3000
llvm.set_option("", f"-inline-threshold={INLINE_THRESHOLD}")
#: the packages above the compiled layers (the layers contract in pyproject.toml keeps the
#: engines from importing them), left out of the stamp so that an edit there keeps the cache
_ABOVE = ("cli", "streaming", "studies")
#: the engines a wheel ships, one folder per package folder (``online``, ``offline``, ...)
SHIPPED = PACKAGE / "_engines"
#: the CPU the shipped engines are compiled for: any x86-64 (or other architecture) runs them
SHIPPED_CPU = "generic"
#: set by the wheel's build (shedding/cli/engines.py): save every compiled function under this
#: folder, laid out as :data:`SHIPPED` is
BUILD_ENV = "SHEDDING_ENGINES_OUT"
#: the file beside the shipped engines that names the source stamp they were compiled for
STAMP = "STAMP"
#: set to a file: every function of the package compiled at run time is appended to it by name
LOG_ENV = "SHEDDING_JIT_LOG"
#: set by the ``shed`` command (:func:`shedding.cli.group.main`): the first function of the package
#: compiled at run time prints one line on a terminal's stderr (:func:`compile_notice`), so that a
#: first run that compiles for minutes is not silent
NOTICE_ENV = "SHEDDING_COMPILE_NOTICE"


@functools.lru_cache(maxsize=1)
def source_stamp() -> str:
    """A hash of the source of every module a compiled function can reach (read once per process)."""
    digest = hashlib.sha256()
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        if rel.parts[0] in _ABOVE:
            continue
        digest.update(str(rel).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def shipped_stamp() -> str | None:
    """The source stamp the shipped engines were compiled for (None: no engines shipped); they
    serve this package when it equals :func:`source_stamp`."""
    try:
        return (SHIPPED / STAMP).read_text().strip()
    except OSError:
        return None


def _user_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "shedding" / "numba"


class PackageCacheLocator(_CacheLocator):
    """numba's cache locator for this package's functions: one stamp for all (:func:`source_stamp`)."""

    def __init__(self, py_func: Callable, py_file: str, path: str) -> None:
        self._lineno = py_func.__code__.co_firstlineno
        self._path = path

    def get_cache_path(self) -> str:
        return self._path

    def get_source_stamp(self) -> str:
        return source_stamp()

    def get_disambiguator(self) -> str:
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func: Callable, py_file: str) -> PackageCacheLocator | None:
        try:
            Path(py_file).resolve().relative_to(PACKAGE)
        except ValueError:
            return None  # not ours: numba's own locators decide
        if os.environ.get(BUILD_ENV):
            candidates = [os.path.join(os.environ[BUILD_ENV], _folder(py_file))]
        elif config.CACHE_DIR:
            candidates = [os.path.join(config.CACHE_DIR, cls.get_suitable_cache_subpath(py_file))]
        else:
            candidates = [os.path.join(os.path.dirname(py_file), "__pycache__"),
                          str(_user_cache() / cls.get_suitable_cache_subpath(py_file))]
        for path in candidates:
            locator = cls(py_func, py_file, path)
            try:
                locator.ensure_cache_path()
            except OSError:
                continue
            return locator
        return None


# numba 0.68 renamed _CacheImpl to CacheImpl
_LOCATORS = getattr(caching, "CacheImpl", None) or caching._CacheImpl
if PackageCacheLocator not in _LOCATORS._locator_classes:
    _LOCATORS._locator_classes.insert(0, PackageCacheLocator)


def _folder(py_file: str) -> str:
    """The package folder of a module, relative to the package (``online``; ``.`` for the top)."""
    return str(Path(py_file).resolve().parent.relative_to(PACKAGE))


class PackageCache(FunctionCache):
    """numba's cache of one compiled function, which first looks among the shipped engines
    (:data:`SHIPPED`), then in numba's own cache (:class:`PackageCacheLocator`)."""

    def __init__(self, py_func: Callable) -> None:
        super().__init__(py_func)
        self._shipped = IndexDataCacheFile(cache_path=str(SHIPPED / _folder(inspect.getfile(py_func))),
                                           filename_base=self._impl.filename_base,
                                           source_stamp=source_stamp())

    def _load_overload(self, sig: Any, target_context: Any) -> Any:
        if self._enabled:
            signature, magic, code = self._index_key(sig, target_context.codegen())
            data = self._shipped.load((signature, (magic[0], SHIPPED_CPU, ""), code))
            if data is not None:
                return self._impl.rebuild(target_context, data)
        return super()._load_overload(sig, target_context)


class _CompileLog(event.Listener):
    """Appends the name of each function of the package compiled at run time to :data:`LOG_ENV`."""

    def on_start(self, ev: event.Event) -> None:
        func = ev.data["dispatcher"].py_func
        if func.__module__.startswith("shedding."):
            with open(os.environ[LOG_ENV], "a", encoding="utf-8") as log:
                log.write(f"{func.__module__}.{func.__qualname__}\n")

    def on_end(self, ev: event.Event) -> None:
        pass


if os.environ.get(LOG_ENV):
    event.register("numba:compile", _CompileLog())


def compile_notice() -> str:
    """The one line printed when the package first compiles at run time: why, and how long."""
    shipped = shipped_stamp()
    if shipped is None:
        why = "no engines were compiled ahead for this installation"
    elif shipped != source_stamp():
        why = ("the engines compiled ahead are for another version of the source (an edited checkout: "
               "`make shedding/_engines/.built` compiles them again)")
    else:
        why = "the engines compiled ahead lack a signature this run needs"
    return f"compiling the join engines for this machine, once (a minute or more; cached afterwards): {why}"


class _CompileNotice(event.Listener):
    """Prints :func:`compile_notice` on stderr, if it is a terminal, when the package first compiles."""

    def __init__(self) -> None:
        self.shown = False

    def on_start(self, ev: event.Event) -> None:
        if not self.shown and ev.data["dispatcher"].py_func.__module__.startswith("shedding."):
            self.shown = True
            if sys.stderr.isatty():
                print(compile_notice(), file=sys.stderr, flush=True)

    def on_end(self, ev: event.Event) -> None:
        pass


if os.environ.get(NOTICE_ENV):
    event.register("numba:compile", _CompileNotice())


def _per_type(dispatcher: Any) -> Any:
    """Make calls from compiled code compile ``dispatcher`` per argument type, not per literal value."""
    template = dispatcher.get_call_template

    def get_call_template(args: tuple, kws: dict) -> Any:
        return template(tuple(types.unliteral(a) for a in args), {k: types.unliteral(v) for k, v in kws.items()})

    dispatcher.get_call_template = get_call_template
    return dispatcher


def njit(func: Callable | None = None, /, **options: Any) -> Any:
    """numba's ``njit`` with the package's cache (``cache=True``), compiled once per argument type;
    use as ``@njit`` or ``@njit(_nrt=False)`` (``inline="always"`` only without chains: see the
    module's docstring)."""
    cache = options.pop("cache", True)

    def compiled(f: Callable) -> Any:
        dispatcher = _numba_njit(**options)(f)
        if cache:
            dispatcher._cache = PackageCache(dispatcher.py_func)
        return _per_type(dispatcher)

    return compiled if func is None else compiled(func)
