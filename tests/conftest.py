"""Shared fixtures: one embedded Spark session for the whole run, and the ``shed`` runner.

Tests that take the ``spark`` fixture are marked ``spark`` here, so ``make test-fast``
(``-m "not spark and not slow"``) leaves them out without each module saying so.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import pytest


def pytest_collection_modifyitems(items: list) -> None:
    for item in items:
        if "spark" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.spark)


@pytest.fixture(scope="session")
def spark():
    """One embedded Spark session for every test that needs one."""
    from shedding.spark import spark_session

    with spark_session("local[2]", "shedding-tests") as session:
        yield session


@pytest.fixture()
def shed():
    """The CLI runner: ``shed ARGS`` through the entry point in this process, its error handling
    included: (exit code, stdout, stderr) (:func:`helpers.run_shed`)."""
    from helpers import run_shed

    return run_shed
