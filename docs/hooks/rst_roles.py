"""MkDocs hook: show the docstrings' Sphinx cross-reference roles as plain code.

The library's docstrings write ``:func:`solve_opt``` and ``:class:`~shedding.model.Workload```
(reStructuredText roles). mkdocstrings renders the backticked part as code and leaves the role
name in front of it; this hook drops the role name, and the module path where a ``~`` asks for
the last name only.
"""

import re

ROLE = re.compile(r":(?:py:)?(?:func|meth|class|mod|data|attr|exc|obj|const):<code>(~?)([^<]*)</code>")


def _code(match: re.Match) -> str:
    name = match.group(2).split(".")[-1] if match.group(1) else match.group(2)
    return f"<code>{name}</code>"


def on_page_content(html: str, **kwargs) -> str:
    return ROLE.sub(_code, html)
