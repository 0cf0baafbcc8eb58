"""``shed stream-join`` under spark-submit, as docs/commands/stream-join.md shows it: with the
package's log4j configuration for the driver, the output is the summary (stdout) and no line of
Spark's log (stderr keeps pyspark's own Python-worker notes only)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from shedding.spark import LOG_OPTION


@pytest.mark.spark
@pytest.mark.slow  # a JVM of its own
def test_spark_submit_prints_the_summary_and_no_spark_log(tmp_path):
    submit = Path(sys.executable).with_name("spark-submit")
    import shedding.cli.submit as entry

    done = subprocess.run([str(submit), "--master", "local[2]", "--driver-java-options", LOG_OPTION, entry.__file__,
                           "--r", "zipf:1:40", "--s", "zipf:1:40", "--length", "400", "--files", "2", "--window", "40",
                           "--memory", "40", "--out", str(tmp_path / "out")], capture_output=True, text=True,
                          timeout=900, env=dict(os.environ, PYSPARK_PYTHON=sys.executable))
    assert done.returncode == 0, done.stderr[-3000:]
    assert "pairs out" in done.stdout and "PROB: w = 40, M = 40" in done.stdout
    log = [line for line in done.stderr.splitlines() if line.strip()]
    assert not [line for line in log if " INFO " in line or " WARN " in line], log[:5]
    # the JDK's one warning and pyspark's own notes, five per Python worker started: how many workers
    # start depends on how many micro-batches the files fall into, which the load sets (the bound of
    # 8 lines, one worker, failed at 16 under a loaded CI run); no other line may appear
    known = [line for line in log if line.startswith("WARNING: Using incubator modules")
             or "TransformWithStateInPandas Python worker" in line]
    assert known == log, [line for line in log if line not in known]
