"""The files an ingest names: paths, folders and globs on this machine, or URIs that the
session's Hadoop file systems read (``file:``, ``s3a:``, ``abfss:``, ``dbfs:`` ...).

A plain path is read by this process; a URI is listed and read by Spark, so a cluster
ingests from where the data is without copying it through the driver. A folder stands for
the files under it (recursively) of a supported type; names starting with ``.`` or ``_``
are skipped there, as Spark's own readers skip them.
"""
from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass
from pathlib import Path

from reasonlake.errors import IngestError
from reasonlake.parse.formats import SUPPORTED_SUFFIXES, suffix_of

# A URI scheme of two letters or more (one letter would be a Windows drive).
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]+:")
_GLOB = re.compile(r"[*?\[{]")


@dataclass(frozen=True)
class InputFile:
    name: str  # the path, or the URI as Spark qualifies it (file:/..., s3a://...)
    uri: bool  # read by Spark (the executors) rather than by this process


def is_uri(arg: str) -> bool:
    return bool(_SCHEME.match(arg))


def resolve(spark, args: list[str]) -> list[InputFile]:
    """Every file the arguments name, in order, each once; an argument naming nothing is an
    error that names it (nothing is read before all are resolved)."""
    found: list[InputFile] = []
    for arg in args:
        files = _uri_files(spark, arg) if is_uri(arg) else local_files(arg)
        found.extend(files)
    seen: set[str] = set()
    return [f for f in found if not (f.name in seen or seen.add(f.name))]


def _supported(name: str) -> bool:
    return suffix_of(name) in SUPPORTED_SUFFIXES


def _hidden(name: str) -> bool:
    return name.startswith((".", "_"))


def local_files(arg: str) -> list[InputFile]:
    """The files a plain path, folder or glob names (no Spark needed)."""
    if _GLOB.search(arg) and not os.path.exists(arg):
        matches = sorted(glob.glob(arg, recursive=True))
        if not matches:
            raise IngestError(f"{arg}: no file matches this pattern")
        files = [f for m in matches for f in (_folder_files(m) if os.path.isdir(m) else [m])]
        if not files:
            raise IngestError(f"{arg}: the pattern matches only folders without {_TYPES}")
        return [InputFile(f, False) for f in files]
    if os.path.isdir(arg):
        files = _folder_files(arg)
        if not files:
            raise IngestError(f"{arg}: the folder holds no file of a supported type ({_TYPES})")
        return [InputFile(f, False) for f in files]
    if not os.path.isfile(arg):
        raise IngestError(f"{arg}: no such file or folder")
    return [InputFile(arg, False)]


_TYPES = ", ".join(SUPPORTED_SUFFIXES)


def _folder_files(folder: str) -> list[str]:
    files = []
    for root, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not _hidden(d))
        files.extend(str(Path(root) / n) for n in sorted(names) if not _hidden(n) and _supported(n))
    return files


def _uri_files(spark, arg: str) -> list[InputFile]:
    """Spark lists the URI (a file, a folder or a glob) on whatever file system serves it;
    only the paths are read here, not the contents."""
    # imported when called: it loads pyspark (the JVM)
    from pyspark.errors import AnalysisException

    try:
        listed = (spark.read.format("binaryFile").option("recursiveFileLookup", "true").load(arg)
                  .select("path").collect())
    except AnalysisException as exc:
        if "PATH_NOT_FOUND" in str(exc) or "Path does not exist" in str(exc):
            raise IngestError(f"{arg}: no such file, folder or match") from None
        raise IngestError(f"{arg}: cannot list it: {str(exc).splitlines()[0]}") from None
    paths = sorted(r.path for r in listed)
    if len(paths) == 1 and not _GLOB.search(arg):
        return [InputFile(paths[0], True)]  # one file named: its type is checked when read
    files = [p for p in paths if _supported(p)]
    if not files:
        raise IngestError(f"{arg}: holds no file of a supported type ({_TYPES})")
    return [InputFile(p, True) for p in files]
