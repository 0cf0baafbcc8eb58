"""Counts in words that agree with their number ("1 row", "2 rows"), for the job's progress
lines, summary, report and errors.

A module of its own, importing nothing, so that the folder source (which Spark's Python processes
import) and the command line's output can use it without loading pandas.
"""

from __future__ import annotations


def counted(n: int, noun: str) -> str:
    """``n`` and the noun, plural unless n is 1: "1 row", "2 rows"."""
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"


def skipped_sentence(n: int) -> str:
    """What ``n`` files skipped for arriving out of name order were: the progress line's and the
    summary's words for them."""
    return f"{counted(n, 'file')} skipped: {'it' if n == 1 else 'they'} arrived named before files already read"
