"""``python -m shedding.cli``: the ``shed`` command."""

from shedding.cli.group import main

main()
