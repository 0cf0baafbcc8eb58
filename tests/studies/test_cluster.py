"""The quick suite on a real standalone Spark cluster on loopback equals the local run."""

from __future__ import annotations

import subprocess
import sys

import pandas as pd

from shedding.studies.registry import load_suite
from shedding.studies.runner import run_study


def test_quick_suite_on_a_standalone_cluster_equals_local(cluster, spark, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "shedding.cli", "compare", "--suite", "quick", "--master", cluster,
                           "--out", str(tmp_path / "cluster")], capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    remote = pd.read_parquet(tmp_path / "cluster" / "results.parquet")
    outcome = run_study(*load_suite("quick"), tmp_path / "local", spark=spark)
    local, complete = outcome.results, outcome.complete
    assert complete and len(remote) == len(local)
    cols = ["run_id", "policy", "outputs", "exact", "arm", "share_r"]
    # equal row for row; NaN (the arm of LIFE's other readings, which is not measured) equals NaN
    pd.testing.assert_frame_equal(remote.sort_values("run_id")[cols].reset_index(drop=True),
                                  local.sort_values("run_id")[cols].reset_index(drop=True), check_dtype=False)
    assert (tmp_path / "cluster" / "report.html").is_file()
