"""The ``shed`` command line: one module per command, and one layer that checks every flag.

Only typer and rich are imported up front, so ``shed --help`` answers at once; a command imports
numpy, pandas, numba or Spark inside its body, when it runs.
"""

from shedding.cli.group import app, main

__all__ = ["app", "main"]
