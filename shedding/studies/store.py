"""The results store of a suite: one folder that ``shed compare`` writes and ``shed report`` reads.

``parts/`` holds the finished runs, one Parquet file per batch, so an interrupted suite loses
nothing and a resumed one skips what is there. Every file here is written whole or not at all
(:mod:`shedding.atomic`: a temporary file, then a rename), so a crash never leaves a part cut
short; a part is named by the runs it holds (``part-00003-<id>.parquet``: the order it was written
in, then a hash of its run ids), never by a count of the files, so a resumed suite never writes
over a stored part. A part that cannot be read (damaged by hand or by a disk) is set aside as
``*.damaged`` when the suite resumes, and its runs run again. ``suite.json`` holds the suite as run
(its kind, grid, seeds, run ids) with its provenance (the command and its folder, versions,
commit, the machine, start and end time, wall time); ``results.parquet`` and ``results.csv`` hold every run's rows, sorted stably. Every study
keeps its results here; a run may have several rows (all with its ``run_id``).
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import subprocess
from collections.abc import Callable
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

import pandas as pd

from shedding.atomic import write_atomically, write_json
from shedding.errors import ShedError

#: a part's name: its place in the order of writing, then the id of the runs it holds
PART = re.compile(r"part-(\d+)(?:-[0-9a-f]+)?\.parquet")


class ResultsStore:
    """The results folder ``out`` of one suite."""

    def __init__(self, out: Path | str) -> None:
        self.out = Path(out)
        self.parts = self.out / "parts"
        self.suite_json = self.out / "suite.json"

    def prepare(self, name: str, resume: bool) -> None:
        """Make the folder for suite ``name``: writable, and holding no results unless ``resume``
        continues the same suite's."""
        out = self.out
        if out.exists() and not out.is_dir():
            raise ShedError(f"{{param}} {out} is a file; give a folder (it will hold report.html and the results)",
                            param="out")
        self.check_files()
        if resume and self.suite_json.is_file():
            stored = self._suite_data().get("name")
            if stored != name:
                raise ShedError(f"{out} holds the results of suite {stored!r}, not {name!r}; "
                                "resume that suite or choose another {param}", param="out")
        try:
            out.mkdir(parents=True, exist_ok=True)
            probe = out / ".write-test"
            probe.write_text("")
            probe.unlink()
        except OSError as exc:
            raise ShedError(f"cannot write to {out} ({exc.strerror}); choose a writable {{param}} folder",
                            param="out") from None
        if (self.has_parts() or (out / "results.parquet").exists()) and not resume:
            raise ShedError(f"{out} already holds results; go on with them ({{resume}}) or choose another {{param}}",
                            param="out", names={"resume": "resume=True"})

    #: the files of a results folder, written whole (a folder in their place could never be replaced)
    FILES = ("suite.json", "results.parquet", "results.csv", "report.html")

    def check_files(self) -> None:
        """Every file the store writes can be written: no folder stands where one goes (and
        ``parts`` is a folder), checked before any run."""
        for name in self.FILES:
            if (self.out / name).is_dir():
                raise ShedError(f"{{param}} {self.out}: {name} is a folder where the file {name} goes; move it away "
                                "or choose another folder", param="out")
        if self.parts.exists() and not self.parts.is_dir():
            raise ShedError(f"{{param}} {self.out}: parts is a file where the folder of finished runs goes; move it "
                            "away or choose another folder", param="out")

    def has_parts(self) -> bool:
        """Whether some finished runs are stored."""
        return bool(self.part_paths())

    def part_paths(self) -> list[Path]:
        """The stored parts in the order they were written."""
        found = [(int(m.group(1)), p) for p in self.parts.glob("part-*.parquet") if (m := PART.fullmatch(p.name))]
        return [p for _, p in sorted(found)]

    def read_part(self, path: Path) -> pd.DataFrame:
        """One part; a part that cannot be read is a one-line error naming the file."""
        try:
            return pd.read_parquet(path)
        except Exception:  # pyarrow's errors come in many types: all mean the file is damaged
            raise ShedError(f"{path} is damaged (not a whole Parquet file); resume the suite to set it aside and "
                            "run its runs again") from None

    def set_aside_damaged(self) -> list[Path]:
        """Rename every part that cannot be read to ``*.damaged`` (its runs are then not done, so
        a resumed suite runs them again); the paths set aside."""
        aside = []
        for path in self.part_paths():
            try:
                self.read_part(path)
            except ShedError:
                target = path.with_name(path.name + ".damaged")
                os.replace(path, target)
                aside.append(path)
        return aside

    def part_frames(self) -> list[pd.DataFrame]:
        """Every part as written, less the rows of runs an earlier part already holds."""
        frames, seen = [], set[str]()
        for path in self.part_paths():
            frame = self.read_part(path)
            if "run_id" in frame:
                frame = frame[~frame["run_id"].isin(seen)].reset_index(drop=True)
                seen |= set(frame["run_id"])
            frames.append(frame)
        return frames

    def read_parts(self) -> pd.DataFrame:
        """Every run finished so far (a column a part leaves empty, as the runs of another
        experiment may, takes its type from the parts that fill it)."""
        frames = self.part_frames()
        if not frames:
            return pd.DataFrame()
        columns = list(dict.fromkeys(c for f in frames for c in f.columns))
        return pd.concat([f.dropna(axis=1, how="all") for f in frames], ignore_index=True).reindex(columns=columns)

    def done(self) -> set[str]:
        """The run ids finished so far."""
        return set(self.read_parts().get("run_id", pd.Series(dtype=str)))

    def write_part(self, rows: list[dict]) -> Path:
        """Store a batch of finished runs' rows whole, as the next part: named by its place after
        every part stored (damaged ones set aside included), then by a hash of its run ids."""
        self.parts.mkdir(exist_ok=True)
        numbers = [int(m.group(1)) for p in self.parts.iterdir() if (m := PART.match(p.name))]
        ids = sorted({str(row.get("run_id", "")) for row in rows})
        run = hashlib.sha1("\n".join(ids).encode()).hexdigest()[:12]
        frame = pd.DataFrame(rows)
        path = self.parts / f"part-{max(numbers, default=-1) + 1:05d}-{run}.parquet"
        return write_atomically(path, lambda tmp: frame.to_parquet(tmp, index=False))

    def write_suite(self, data: dict) -> None:
        """``suite.json``: the suite as run and its provenance."""
        write_json(self.suite_json, data, indent=1)

    def read_suite(self) -> dict:
        """The stored ``suite.json``, with the run ids and the total a page needs."""
        if not self.suite_json.is_file():
            raise ShedError(f"{self.out} holds no suite results (no suite.json); run shed compare --out {self.out} "
                            "first")
        data = self._suite_data()
        if not isinstance(data.get("run_ids"), list) or not isinstance(data.get("total_runs"), int):
            raise ShedError(f"{self.suite_json} is damaged (no run_ids or total_runs); run shed compare again")
        shapes = {"run_ids": (list, str), "experiments": (list, dict), "name": (str, None), "kind": (str, None),
                  "description": (str, None), "provenance": (dict, None), "seeds_by_experiment": (dict, None)}
        for key, (kind, item) in shapes.items():
            value = data.get(key)
            if value is not None and (not isinstance(value, kind) or
                                      (item is not None and not all(isinstance(x, item) for x in value))):
                what = f"a list of {'texts' if item is str else 'objects'}" if item else \
                    "a JSON object" if kind is dict else "a text"
                raise ShedError(f"{self.suite_json} is damaged ({key} is not {what}); run shed compare again")
        return data

    def _suite_data(self) -> dict:
        """The JSON object in ``suite.json``."""
        try:
            data = json.loads(self.suite_json.read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ShedError(f"{self.suite_json} is damaged ({exc}); run shed compare again") from None
        if not isinstance(data, dict):
            raise ShedError(f"{self.suite_json} is damaged (not a JSON object); run shed compare again")
        return data

    def write_results(self, results: pd.DataFrame, sort: tuple[str, ...] = ()) -> None:
        """``results.parquet`` and ``results.csv``, sorted stably by ``sort``."""
        if not results.empty and sort:
            results = results.sort_values(list(sort), kind="stable").reset_index(drop=True)
        write_atomically(self.out / "results.parquet", lambda tmp: results.to_parquet(tmp, index=False))
        write_atomically(self.out / "results.csv", lambda tmp: results.to_csv(tmp, index=False))

    def read_results(self, finish: Callable[[pd.DataFrame], pd.DataFrame] | None = None) -> pd.DataFrame:
        """The stored rows: the parts as written (with the columns ``finish`` derives from them),
        or without them ``results.parquet``."""
        if self.parts.is_dir():
            return self.read_parts() if finish is None else finish(self.read_parts())
        if (self.out / "results.parquet").is_file():
            return pd.read_parquet(self.out / "results.parquet")
        return pd.DataFrame()


def select(results: pd.DataFrame, run_ids: set[str]) -> pd.DataFrame:
    """The rows of ``results`` whose run is one of ``run_ids`` (runs of other suites may share a folder)."""
    return results if results.empty else results[results.run_id.isin(run_ids)].reset_index(drop=True)


def runs_in(results: pd.DataFrame) -> int:
    """How many runs ``results`` holds (a run may have several rows)."""
    return int(results["run_id"].nunique()) if len(results) else 0


def provenance(command: str) -> dict:
    """What produced a suite's results: the command and the folder it ran in, shedding's version
    and git commit (when run from a checkout), the Python, Spark, numba, plotly, pandas and numpy
    versions, the machine (:func:`machine`) and the start time (UTC)."""
    def version(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "not installed"

    try:
        here = Path(__file__).resolve().parent
        commit = subprocess.run(["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True, text=True,
                                timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(here), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
        commit = commit + (" (with uncommitted changes)" if commit and dirty else "")
    except (OSError, subprocess.SubprocessError):
        commit = ""
    return {"command": command, "shedding": version("shedding"), "commit": commit or "unknown (not a git checkout)",
            "python": platform.python_version(), "spark": version("pyspark"), "numba": version("numba"),
            "plotly": version("plotly"), "pandas": version("pandas"), "numpy": version("numpy"),
            "working_folder": os.getcwd(), "started": now(), **machine()}


def now() -> str:
    """The time now, UTC, to the second."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def machine() -> dict:
    """The machine the runs execute on: ``cpu`` (the model, from /proc/cpuinfo where there is one),
    ``cores``, ``memory_gib`` and ``platform``."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            cpu = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), cpu)
    except OSError:
        pass
    try:
        memory = round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)
    except (AttributeError, ValueError, OSError):  # pragma: no cover - platforms without sysconf
        memory = None
    return {"cpu": cpu, "cores": os.cpu_count() or 1, "memory_gib": memory, "platform": platform.platform()}


def load_average() -> list[float]:
    """The 1, 5 and 15 minute load averages (timings are only comparable at similar load)."""
    try:
        return [round(v, 2) for v in os.getloadavg()]
    except OSError:  # pragma: no cover - platforms without it
        return []
