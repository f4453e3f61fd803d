"""The embedded session's local file system without a process per file.

pyspark ships Hadoop without its native library, and then Hadoop's local file system runs
`chmod` for every file it creates and `readlink` for every rename. A Delta commit creates
its data files, the log entry, the checksum file (each with a `.crc` beside it) and renames
two of them: a close of a resident view spawned about 65 processes, 0.3-1 s of a 3-4 s
slide on 2 cores (decision 0010). Three small classes (``reasonlake/jvm``) do both calls
with Java NIO and leave everything else to Hadoop's own local file system, checksum files
included, so the files written are the same.

They are compiled once per machine against the Hadoop jars pyspark ships, with the JDK's
``javac``, into ``~/.cache/reasonlake``. Without ``javac``, or if compiling fails (another
Hadoop API), the session keeps Hadoop's classes: slower, nothing else changes.
``REASONLAKE_LOCAL_FS=hadoop`` keeps them too. Only a local master uses this (a cluster's
executors would not have the jar on their class path).
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

from reasonlake import settings

SOURCES = Path(__file__).resolve().parents[2] / "jvm"
FILE_SYSTEM = "io.reasonlake.fs.InProcessLocalFileSystem"
ABSTRACT_FILE_SYSTEM = "io.reasonlake.fs.InProcessLocalFs"


def spark_conf(master: str, cache: Path) -> dict[str, str]:
    """Session settings that swap in the in-process local file system, or {} to keep Hadoop's.

    Only for a master whose executors run in the driver's JVM (``local``, ``local[N]``):
    ``local-cluster[...]`` and real clusters start executors in JVMs of their own, which
    would not find the classes."""
    in_process = master == "local" or master.startswith("local[")
    if not in_process or settings.is_set("REASONLAKE_LOCAL_FS", "hadoop"):
        return {}
    jar = compiled_jar(cache)
    if jar is None:
        return {}
    return {
        "spark.driver.extraClassPath": str(jar),
        "spark.hadoop.fs.file.impl": FILE_SYSTEM,
        "spark.hadoop.fs.AbstractFileSystem.file.impl": ABSTRACT_FILE_SYSTEM,
    }


def compiled_jar(cache: Path) -> Path | None:
    """The classes' jar for this pyspark's Hadoop, compiled on first use; None if it cannot be."""
    javac = _javac()
    jars = _pyspark_jars()
    sources = sorted(SOURCES.rglob("*.java"))
    if javac is None or jars is None or not sources:
        return None
    digest = hashlib.sha256()
    for path in sources + sorted(jars.glob("hadoop-client-api-*.jar")):
        digest.update(path.name.encode())
        if path.suffix == ".java":
            digest.update(path.read_bytes())
    jar = cache / f"local-fs-{digest.hexdigest()[:16]}.jar"
    failed = jar.with_suffix(".failed")  # tried once on this machine: not at every session
    if jar.is_file():
        return jar
    if failed.is_file():
        return None
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as work:
        classes = Path(work) / "classes"
        try:
            subprocess.run(
                [javac, "--release", "17", "-nowarn", "-cp", str(jars / "*"), "-d", str(classes),
                 *map(str, sources)],
                check=True, capture_output=True, timeout=300,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            failed.write_text(str(getattr(exc, "stderr", b"") or exc))  # delete it to retry
            return None
        built = Path(work) / "classes.jar"
        with zipfile.ZipFile(built, "w") as out:
            for path in sorted(classes.rglob("*.class")):
                out.write(path, path.relative_to(classes).as_posix())
        os.replace(built, jar)  # atomic: processes starting together each build, one wins
    return jar


def _javac() -> str | None:
    home = settings.environment("JAVA_HOME")
    if home and (Path(home) / "bin" / "javac").is_file():
        return str(Path(home) / "bin" / "javac")
    found = shutil.which("javac")
    if found:
        return found
    java = shutil.which("java")  # a JDK's java sits beside its javac, often behind a link
    if java:
        beside = Path(java).resolve().parent / "javac"
        if beside.is_file():
            return str(beside)
    return None


def _pyspark_jars() -> Path | None:
    # imported when called: it loads pyspark (the JVM)
    import pyspark

    jars = Path(pyspark.__file__).resolve().parent / "jars"
    return jars if any(jars.glob("hadoop-client-api-*.jar")) else None
