import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import pytest


@pytest.fixture(scope="session")
def spark():
    """One embedded Spark session for every test that needs one."""
    from shedding.spark import spark_session

    with spark_session("local[2]", "shedding-tests") as session:
        yield session
