"""A Hadoop local file system that sets permissions without starting a process.

Without Hadoop's native library (a pip-installed pyspark has none), Hadoop's local file system sets
the permission of every file and folder it creates by running ``chmod`` in a new process: 3.6 ms per
call from the JVM on this 2-core machine (0.15 ms with java.nio), and a bounded run of ``shed
stream-join`` at 4 files per trigger started about 20 per micro-batch, 200 in all (the checkpoint's
offsets, commits, source logs and state files, the pairs' folders and files; counted with
``strace``). ``shedding/java/NioLocalFileSystem.java`` is Hadoop's own ``LocalFileSystem`` whose raw
layer sets the same nine permission bits with java.nio instead.

:func:`nio_fs_jar` compiles it once, with the JDK's ``javac`` against the Hadoop jar pyspark ships,
into the cache. Embedded (``local``) sessions then use it for ``file:`` paths
(:func:`~shedding.spark.spark_session`); with no ``javac`` (a JRE only) or a failed compile they
keep Hadoop's. A cluster keeps Hadoop's too: its executors would not have the class.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import zipfile
from importlib import resources
from pathlib import Path

from shedding.atomic import write_atomically

#: the class name for ``spark.hadoop.fs.file.impl``
NIO_FS = "shedding.hadoop.NioLocalFileSystem"


def _javac() -> str | None:
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "javac").is_file():
        return str(Path(home) / "bin" / "javac")
    return shutil.which("javac")


def _hadoop_jar() -> Path | None:
    import pyspark

    jars = sorted((Path(pyspark.__file__).parent / "jars").glob("hadoop-client-api-*.jar"))
    return jars[-1] if jars else None


def _jar(path: Path, classes: Path) -> None:
    """The compiled ``classes`` as a jar at ``path`` (a jar on a class path is a zip of them)."""
    with zipfile.ZipFile(path, "w") as jar:
        for cls in sorted(classes.rglob("*.class")):
            jar.write(cls, cls.relative_to(classes).as_posix())


def nio_fs_jar(cache: Path) -> Path | None:
    """The jar holding :data:`NIO_FS` (compiled into ``cache`` on first use), or None without a JDK."""
    javac, hadoop = _javac(), _hadoop_jar()
    if javac is None or hadoop is None:
        return None
    source = resources.files("shedding.spark").joinpath("java", "NioLocalFileSystem.java").read_text()
    key = hashlib.sha1(f"{source}\0{hadoop.name}\0{javac}".encode()).hexdigest()[:12]
    target = cache / f"shedding-nio-fs-{key}.jar"
    if target.is_file():
        return target
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as work:
        src = Path(work) / "NioLocalFileSystem.java"
        src.write_text(source)
        try:
            done = subprocess.run([javac, "--release", "17", "-nowarn", "-cp", str(hadoop), "-d",
                                   str(Path(work) / "classes"), str(src)], capture_output=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired):  # a broken or hanging javac: keep Hadoop's
            return None
        if done.returncode != 0:
            return None
        write_atomically(target, lambda tmp: _jar(tmp, Path(work) / "classes"))  # concurrent sessions: one whole jar
    return target
