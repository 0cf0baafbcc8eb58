"""Spark settings that make the file-source job fast on a small machine; none changes a result."""

from __future__ import annotations

#: the checkpoint's file manager. Spark's default goes through Hadoop's FileContext, whose rename on
#: the local file system starts a ``readlink`` process per renamed file and per checksum file (80
#: processes of 3-4 ms each in a one-batch run of ``bench_stream_join``, as a pip-installed pyspark
#: has no Hadoop native library); the FileSystem one renames with one system call. Both rename
#: atomically on a local or HDFS checkpoint.
CHECKPOINT_FILES = "org.apache.spark.sql.execution.streaming.checkpointing.FileSystemBasedCheckpointFileManager"


def tune_file_sources(spark) -> None:
    """List a micro-batch's files on the driver: beyond 32 paths Spark otherwise runs a distributed
    listing job per source and micro-batch, which costs more than the listing (1 to 2 s for 40
    local files on two cores)."""
    spark.conf.set("spark.sql.sources.parallelPartitionDiscovery.threshold", "100000")


def tune_checkpoint(spark) -> None:
    """Write the checkpoint (offsets, commits, state) through :data:`CHECKPOINT_FILES`."""
    spark.conf.set("spark.sql.streaming.checkpointFileManagerClass", CHECKPOINT_FILES)
