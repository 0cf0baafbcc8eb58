"""The public names of :mod:`shedding.streaming`: imported on first use (the package itself loads
no Spark, so ``shed --help`` stays fast), and the progress totals read by name from a classic and a
Spark Connect report alike."""

from __future__ import annotations

import subprocess
import sys

from pyspark.sql import Row


def test_the_public_names_load_spark_only_when_used():
    code = ("import sys, shedding.streaming as s; assert 'pyspark' not in sys.modules; "
            "from shedding.streaming import semantic_window_join, EndOfInput, observed, configure_session; "
            "assert semantic_window_join.__module__ == 'shedding.streaming.spark_join'; "
            "import shedding.streaming.spark_join as j; assert s.semantic_window_join is j.semantic_window_join")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    proc = subprocess.run([sys.executable, "-c", "import shedding.streaming as s; s.nothing"], capture_output=True,
                          text=True, timeout=120)
    assert "has no attribute 'nothing'" in proc.stderr


def test_observed_reads_classic_and_connect_reports_by_name():
    from shedding.streaming import observed

    classic = {"observedMetrics": {"shedding": Row(outputs=7, late=None)}}
    connect = {"observedMetrics": {"shedding": Row(values=[7, None], schema={"fields": [{"name": "outputs"},
                                                                                       {"name": "late"}]})}}
    assert observed(classic) == observed(connect) == {"outputs": 7, "late": 0}
    assert observed({"observedMetrics": {}}) == {}
