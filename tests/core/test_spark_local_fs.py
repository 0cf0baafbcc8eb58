"""The local file system embedded sessions use: Hadoop's, with permissions set by java.nio instead
of a chmod process (shedding.spark.local_fs)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from shedding.spark import local_fs as spark_fs
from shedding.spark.local_fs import NIO_FS, nio_fs_jar

needs_javac = pytest.mark.skipif(spark_fs._javac() is None, reason="no javac (a JRE only): Hadoop's file system stays")


@needs_javac
def test_the_jar_is_compiled_once_into_the_cache(tmp_path: Path) -> None:
    jar = nio_fs_jar(tmp_path)
    assert jar is not None and jar.parent == tmp_path and jar.stat().st_size > 0
    made = jar.stat().st_mtime_ns
    assert nio_fs_jar(tmp_path) == jar and jar.stat().st_mtime_ns == made  # found, not compiled again
    assert [p.name for p in tmp_path.iterdir()] == [jar.name]  # no work files left


def test_no_jdk_keeps_hadoops_file_system(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(spark_fs, "_javac", lambda: None)
    assert nio_fs_jar(tmp_path) is None


@needs_javac
def test_sessions_create_files_and_folders_with_hadoops_permissions(spark, tmp_path: Path) -> None:
    jvm = spark.sparkContext._jvm
    fs = jvm.org.apache.hadoop.fs.FileSystem.getLocal(spark.sparkContext._jsc.hadoopConfiguration())
    assert fs.getClass().getName() == NIO_FS
    perm = jvm.org.apache.hadoop.fs.permission.FsPermission
    folder = jvm.org.apache.hadoop.fs.Path(str(tmp_path / "a" / "b"))
    assert fs.mkdirs(folder, perm(0o751))
    assert stat.S_IMODE((tmp_path / "a" / "b").stat().st_mode) == 0o751
    out = fs.create(jvm.org.apache.hadoop.fs.Path(str(tmp_path / "a" / "f")), perm(0o640), True, 4096, 1, 1 << 20, None)
    out.write(b"x")
    out.close()
    assert stat.S_IMODE((tmp_path / "a" / "f").stat().st_mode) == 0o640
    assert (tmp_path / "a" / ".f.crc").exists()  # still Hadoop's checksummed file system
    fs.setPermission(jvm.org.apache.hadoop.fs.Path(str(tmp_path / "a" / "f")), perm(0o604))
    assert stat.S_IMODE((tmp_path / "a" / "f").stat().st_mode) == 0o604


def test_a_javac_that_fails_keeps_hadoops_file_system(tmp_path: Path, monkeypatch) -> None:
    broken = tmp_path / "javac"
    broken.write_text("#!/bin/sh\necho 'error: broken' >&2\nexit 1\n")
    broken.chmod(0o755)
    monkeypatch.setattr(spark_fs, "_javac", lambda: str(broken))
    assert nio_fs_jar(tmp_path / "cache") is None
    assert not any((tmp_path / "cache").iterdir())  # nothing half-made left in the cache
    monkeypatch.setattr(spark_fs, "_javac", lambda: str(tmp_path / "missing-javac"))
    assert nio_fs_jar(tmp_path / "cache") is None
