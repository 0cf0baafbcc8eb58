"""The one exception type for bad input.

Every check on user input raises :class:`ShedError` with a one-line message that names the
problem and the fix; the CLI prints it and exits with code 2.
"""


class ShedError(ValueError):
    """Bad input: the message names the problem and how to fix it."""
