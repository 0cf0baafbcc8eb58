"""Throughput of the semantic join with timestamp times and string keys against integer times and keys.

Workload: ``bench_stream_join``'s (two Zipf(1) streams of 200,000 tuples each, domain 650, w = M =
500, PROB, P = 1, 40 CSV files per stream), written twice: as integers (``time,key``), and the
same tuples with ``time`` a timestamp (2024-01-01 plus t seconds, step ``1 second``) and ``key``
the text ``k<key>``, so both runs join the same pairs. The two runs alternate in one embedded
Spark session (local[2]) after a warm-up of each; input rows per second over the whole bounded
run, medians of ``--repeat`` runs, and their ratio.

    .venv/bin/python benchmarks/bench_event_time.py [--triggers 4,40] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

import pandas as pd
from bench_stream_join import DOMAIN, FILES, LENGTH, semantic

from shedding.spark import spark_session
from shedding.streaming.sources import inspect_source, write_zipf_sources


def stamped_copy(src: Path, dst: Path) -> Path:
    """The files of ``src`` with timestamp times and text keys, in the same file order."""
    dst.mkdir(parents=True)
    for path in sorted(src.iterdir()):
        frame = pd.read_csv(path)
        frame["time"] = pd.Timestamp("2024-01-01") + pd.to_timedelta(frame["time"], unit="s")
        frame["key"] = "k" + frame["key"].astype(str)
        frame.to_csv(dst / path.name, index=False)
        stamp = path.stat().st_mtime
        os.utime(dst / path.name, (stamp, stamp))
    return dst


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--triggers", default="4,40", help="files per trigger to measure")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each variant per trigger size (medians reported)")
    args = ap.parse_args()
    base = Path(tempfile.mkdtemp(prefix="bench-event-time-"))
    try:
        r_dir, s_dir = write_zipf_sources(f"zipf:1:{DOMAIN}", f"zipf:1:{DOMAIN}", base / "int", LENGTH, FILES, 0)
        sources = {"integers": (inspect_source(r_dir, "csv", "R"), inspect_source(s_dir, "csv", "S")),
                   "timestamps + strings": (inspect_source(stamped_copy(r_dir, base / "stamped" / "r"), "csv", "R"),
                                            inspect_source(stamped_copy(s_dir, base / "stamped" / "s"), "csv", "S"))}
        print(f"2 x {LENGTH:,} tuples, domain {DOMAIN}, w = M = 500, PROB, P = 1, {FILES} CSV files per stream; "
              f"types: {', '.join(f'{n}: {s[0].types}' for n, s in sources.items())}", flush=True)
        with spark_session("local[2]", "bench-event-time") as spark:
            for src in sources.values():
                semantic(spark, src, base, FILES)  # warm-up: JVM, Python workers, numba cache
            for k in map(int, args.triggers.split(",")):
                runs: dict[str, list[dict]] = {name: [] for name in sources}
                for _ in range(args.repeat):
                    for name, src in sources.items():
                        runs[name].append(semantic(spark, src, base, k))
                rate = {name: statistics.median(r["rows_per_s"] for r in rs) for name, rs in runs.items()}
                print(f"\n{k} file(s) per trigger (medians of {args.repeat} alternating runs)", flush=True)
                for name, rs in runs.items():
                    each = ", ".join(f"{r['rows_per_s']:,.0f}" for r in rs)
                    print(f"  {name}: {rate[name]:,.0f} rows/s (runs: {each}), outputs {rs[-1]['outputs']:,}, "
                          f"{rs[-1]['batches']} batches", flush=True)
                ratio = rate["timestamps + strings"] / rate["integers"]
                print(f"  timestamps + strings / integers: {ratio:.3f}", flush=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
