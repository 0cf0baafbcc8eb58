"""Assertions shared by several test modules."""

from __future__ import annotations

import pytest


def assert_one_line_error(excinfo: pytest.ExceptionInfo, *words: str) -> str:
    """The error message is one line and names every word (case-insensitive)."""
    msg = str(excinfo.value)
    assert msg and "\n" not in msg and "\r" not in msg, msg
    for word in words:
        assert word.lower() in msg.lower(), (word, msg)
    return msg
