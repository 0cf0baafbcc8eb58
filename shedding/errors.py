"""The one exception type for bad input.

Every check on user input raises :class:`ShedError` with a one-line message that names the
problem and the fix. The library names its own parameters; the command line names its flags.
A message about one parameter says so with ``param``, and writes ``{param}`` where the name
goes::

    raise ShedError("{param} must be >= 1, got 0", param="memory")

``str(error)`` reads "memory must be >= 1, got 0" for a library user; the command layer
renders the same error with the flag that set the parameter ("--memory must be >= 1, got 0",
:meth:`ShedError.naming`) and exits with code 2. A fix that another parameter or function gives
is written ``{NAME}`` with ``names={NAME: library text}``: a command that has a flag for NAME
names that flag instead::

    raise ShedError("... or bound OPT with {bounds}", names={"bounds": "bound_opt"})
"""

from __future__ import annotations


class ShedError(ValueError):
    """Bad input: the message names the problem and how to fix it.

    ``param``, when given, is the library parameter the message is about; ``{param}`` in the
    message stands for its name.
    """

    def __init__(self, message: str, param: str | None = None, names: dict[str, str] | None = None) -> None:
        self.template = message
        self.param = param
        self.names = dict(names or {})
        super().__init__(self.naming(None))

    def naming(self, name: str | None, flags: dict[str, str | None] | None = None) -> str:
        """The message with ``name`` where the parameter's name goes (the library's own name
        when ``name`` is None), and each of ``names`` as ``flags`` gives it (else its library
        text)."""
        text = self.template
        for key, library in self.names.items():
            text = text.replace("{" + key + "}", (flags or {}).get(key) or library)
        if self.param is None:
            return text
        return text.replace("{param}", self.param if name is None else name)


def cause(exc: BaseException, limit: int = 200) -> str:
    """An exception's message on one line (its whitespace collapsed), cut at ``limit`` characters:
    the cause a one-line error quotes from a library below (pyarrow, py4j, ...)."""
    return " ".join(str(exc).split())[:limit]
