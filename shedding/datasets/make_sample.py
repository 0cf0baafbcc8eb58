"""Regenerate the bundled SYNOP sample ``data/synop_2013_01_02.parquet`` from Météo-France's files.

The sample keeps what the §4.5-style workload needs (Das, Gehrke, Riedewald 2003): for every valid
report of January and February 2013, in file order, its month, file line, station, observation
time and the station's latitude and longitude; the read reports (records, drops, first bad lines)
go into the Parquet metadata. Source: Météo-France (Etalab Licence Ouverte), see
``data/SYNOP-ATTRIBUTION.md``. ``--source`` is a folder with the two monthly files
(``synop.201301.csv.gz``, ``synop.201302.csv.gz``) and the station table ``postesSynop.csv``, as
Météo-France publishes them.

    .venv/bin/python -m shedding.datasets.make_sample --source DIR [--out PATH]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pyarrow as pa

from shedding.atomic import write_parquet
from shedding.errors import ShedError
from shedding.spark import spark_session
from shedding.datasets.synop import read_stations, read_synop, station_table
from shedding.datasets.weather import SAMPLE_FILE, SAMPLE_META_KEY

MONTHS = ((1, "synop.201301.csv.gz"), (2, "synop.201302.csv.gz"))
ATTRIBUTION = ("Source: Météo-France, données publiques SYNOP (Etalab Licence Ouverte); derived copy: "
               "station, time, latitude, longitude of each report")


def make_sample(source: Path, out: Path, master: str = "local[*]") -> Path:
    """Read both months on Spark and write the compact sample to ``out``."""
    if not source.is_dir():
        raise ShedError(f"SYNOP data folder not found: {source}; pass {{param}} DIR", param="source")
    parts, reports = [], {}
    station_path = station_table(None, source)
    with spark_session(master, "make-sample") as spark:
        stations = read_stations(spark, station_path)
        for side, (month, name) in zip(("R", "S"), MONTHS, strict=True):
            parsed = read_synop(spark, source / name, stations)
            table = parsed.frame.orderBy("line").select("line", "station", "time", "lat", "lon").toArrow()
            parts.append(pa.table({
                "month": pa.array([month] * table.num_rows, pa.int8()),
                "line": table.column("line").cast(pa.int32()),
                "station": table.column("station"),
                "time": table.column("time"),
                "lat": table.column("lat"),
                "lon": table.column("lon"),
            }))
            reports[side] = parsed.report.as_dict() | {"path": name}
    meta = {"files": [name for _, name in MONTHS], "reports": reports, "attribution": ATTRIBUTION}
    table = pa.concat_tables(parts).replace_schema_metadata({SAMPLE_META_KEY: json.dumps(meta).encode()})
    out.parent.mkdir(parents=True, exist_ok=True)
    write_parquet(out, table, compression="zstd", compression_level=19)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, required=True, help="folder with the two monthly SYNOP files and "
                        "postesSynop.csv")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "data" / SAMPLE_FILE)
    args = parser.parse_args()
    try:
        out = make_sample(args.source, args.out)
    except ShedError as exc:  # name this script's flag
        parser.error(exc.naming(f"--{exc.param}"))
    print(f"wrote {out} ({out.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
