"""Weather workload preparation on local Spark: 2 x N NDP-026B records (paper §4.5 scale).

Parsing, validation, land filter, 10-degree gridding, ordering by observation time (ties in file
order), truncation and the frequency tables p_R, p_S, for two generated files of N records each
(``benchmarks/make_ndp.py``, made here if missing). Each run uses a fresh Parquet cache, so it
parses everything; the cache hit is timed too. Prints the medians.

    .venv/bin/python benchmarks/bench_weather.py [--records 1000000] [--reps 3] [--master local[*]] [--suffix ''|.gz|.Z]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from make_ndp import DATA, ndp_table  # noqa: E402

from shedding.datasets.ndp import write_ndp  # noqa: E402
from shedding.datasets.weather import weather_workload  # noqa: E402
from shedding.spark import spark_session  # noqa: E402


def ensure_files(records: int, suffix: str) -> tuple[Path, Path]:
    paths = []
    for year, seed in ((1985, 85), (1986, 86)):
        path = DATA / f"SEP{year % 100}L-{records}{suffix}"
        if not path.exists():
            DATA.mkdir(parents=True, exist_ok=True)
            write_ndp(ndp_table(records, year, seed), path)
        paths.append(path)
    return paths[0], paths[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--master", default="local[*]")
    parser.add_argument("--suffix", default="", choices=("", ".gz", ".Z"))
    args = parser.parse_args()
    r_path, s_path = ensure_files(args.records, args.suffix)
    start = time.perf_counter()
    with spark_session(args.master, "bench-weather") as spark:
        print(f"Spark {spark.version} on {args.master}: session started in {time.perf_counter() - start:.1f} s")
        times, hits = [], []
        with tempfile.TemporaryDirectory() as tmp:
            for rep in range(args.reps):
                cache = Path(tmp) / f"cache{rep}"
                start = time.perf_counter()
                wl = weather_workload(r_path, s_path, "ndp", window=5000, spark=spark, cache_dir=cache)
                times.append(time.perf_counter() - start)
                start = time.perf_counter()
                weather_workload(r_path, s_path, "ndp", window=5000, spark=spark, cache_dir=cache)
                hits.append(time.perf_counter() - start)
                print(f"run {rep + 1}: prepare {times[-1]:6.1f} s, cache hit {hits[-1]:5.2f} s")
    print(wl.meta["summary"])
    print(f"{len(wl):,} tuples, {wl.meta['distinct_keys']} distinct keys")
    print(f"prepare 2 x {args.records:,} NDP records: median {statistics.median(times):.1f} s over {args.reps} runs "
          f"(first run includes JVM warm-up); cache hit median {statistics.median(hits):.2f} s")


if __name__ == "__main__":
    main()
