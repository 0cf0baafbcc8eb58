"""Generate synthetic NDP-026B land-report files for the weather benchmark (paper §4.5 scale).

The paper's September 1985 and 1986 land files hold "just over a million tuples each". These files
imitate them: stations clustered like the real network (Europe, East Asia, North America dense,
the rest spread out), reports at the synoptic hours of one September, each day's reports in a
shuffled order (so the reader really has to sort), 2% ocean reports (left out by the land filter).
Written with :func:`shedding.datasets.ndp.write_ndp`, so the lines are format-exact.

    .venv/bin/python benchmarks/make_ndp.py [--records 1000000] [--out benchmarks/data] [--suffix ''|.gz|.Z]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shedding.datasets.ndp import write_ndp  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"
CLUSTERS = ((50.0, 10.0), (35.0, 110.0), (40.0, 265.0))


def stations(count: int, rng: np.random.Generator) -> pd.DataFrame:
    """Station numbers and positions: 60% around three dense clusters, 40% spread over land latitudes."""
    clustered = rng.random(count) < 0.6
    centre = np.array(CLUSTERS)[rng.integers(0, len(CLUSTERS), count)]
    lat = np.where(clustered, centre[:, 0] + rng.normal(0, 8, count), rng.uniform(-55, 75, count))
    lon = np.where(clustered, centre[:, 1] + rng.normal(0, 12, count), rng.uniform(0, 360, count))
    return pd.DataFrame({
        "station": rng.choice(np.arange(1000, 99000), count, replace=False),
        "lat": np.clip(np.round(lat, 2), -90, 90),
        "lon": np.round(np.mod(lon, 360), 2),
    })


def ndp_table(records: int, year: int, seed: int, n_stations: int = 7000, ocean: float = 0.02) -> pd.DataFrame:
    """``records`` reports of September ``year`` in file order (days in order, each day shuffled)."""
    rng = np.random.default_rng(seed)
    net = stations(n_stations, rng)
    which = rng.integers(0, n_stations, records)
    day = np.sort(rng.integers(1, 31, records))
    hour = rng.choice(np.arange(0, 24, 3), records, p=[0.17, 0.08, 0.17, 0.08, 0.17, 0.08, 0.17, 0.08])
    order = np.lexsort((rng.random(records), day))
    return pd.DataFrame({
        "year": year, "month": 9, "day": day[order], "hour": hour[order],
        "lat": net["lat"].to_numpy()[which], "lon": net["lon"].to_numpy()[which],
        "station": net["station"].to_numpy()[which], "land": rng.random(records) >= ocean,
    })


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--out", type=Path, default=DATA)
    parser.add_argument("--suffix", default="", choices=("", ".gz", ".Z"), help="compression of the files")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for year, seed in ((1985, 85), (1986, 86)):
        path = args.out / f"SEP{year % 100}L-{args.records}{args.suffix}"
        write_ndp(ndp_table(args.records, year, seed), path)
        print(f"wrote {path} ({path.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
