"""The one exception type for bad input.

Every check on user input raises :class:`ShedError` with a one-line message that names the
problem and the fix. The library names its own parameters; the command line names its flags.
A message about one parameter says so with ``param``, and writes ``{param}`` where the name
goes::

    raise ShedError("{param} must be >= 1, got 0", param="memory")

``str(error)`` reads "memory must be >= 1, got 0" for a library user; the command layer
renders the same error with the flag that set the parameter ("--memory must be >= 1, got 0",
:meth:`ShedError.naming`) and exits with code 2.
"""

from __future__ import annotations


class ShedError(ValueError):
    """Bad input: the message names the problem and how to fix it.

    ``param``, when given, is the library parameter the message is about; ``{param}`` in the
    message stands for its name.
    """

    def __init__(self, message: str, param: str | None = None) -> None:
        self.template = message
        self.param = param
        super().__init__(self.naming(param) if param is not None else message)

    def naming(self, name: str | None) -> str:
        """The message with ``name`` where the parameter's name goes (the library's own name
        when ``name`` is None)."""
        if self.param is None:
            return self.template
        return self.template.replace("{param}", self.param if name is None else name)
