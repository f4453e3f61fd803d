"""The ingests table: which file went in as which ingest number, and the checks against it.

Both ingest paths (files parsed in the driver, ``ingest``; files and frames parsed on the
executors, ``spark_ingest``) read it through one cached answer, refuse content already
ingested with one message, and tell the cache what they appended.
"""
from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from reasonlake.engine.store import table_cache
from reasonlake.engine.store.home import Home
from reasonlake.engine.store.state import LATEST_SEQ
from reasonlake.errors import DuplicateFileError
from reasonlake.parse.formats import suffix_of


@dataclass(frozen=True)
class IngestReport:
    """What one file (or source) of an ingest became."""

    file: str
    seq: int
    items: int
    quarantined: int
    reasons: tuple[tuple[int, str, str], ...]  # (line, raw, reason) of quarantined rows
    notes: tuple[str, ...] = ()  # what the file held but a row does not keep (extra fields)
    already: int = 0  # items left out: ingested from a file of this name before (--only-new-items)
    nothing_new: bool = False  # its content went in before under its name: nothing written, ``seq`` is that ingest

    @property
    def advice(self) -> str | None:
        """What to do about a file's quarantined rows, and what doing it adds."""
        if not self.quarantined:
            return None
        rows = f"{self.quarantined} quarantined row{'s' if self.quarantined != 1 else ''}"
        ingested = self.items + self.already
        if not ingested:
            return f"to add the {rows} once fixed: correct them in {self.file} and ingest it again (nothing of it went in)"
        ts = " and the same --ts" if suffix_of(self.file) in (".nt", ".ttl") else ""
        return (f"to add the {rows} once fixed: correct them in {self.file} and ingest it again with "
                f"--only-new-items{ts}: the {ingested} items already ingested from it are left out and only "
                "the fixed rows' items are added")


ANSWER = ("ingests",)  # the cached question: (seq, stream, file, sha256) of every ingest


def ingests(home: Home) -> pl.DataFrame:
    """The ingests so far (seq, stream, file, sha256), kept per commit of their table."""
    def read() -> pl.DataFrame:
        # imported when called: it loads pyarrow, rdflib
        from reasonlake.engine.store import driver_reads

        # in this process where the home allows (a Spark read of a fresh process: 0.8 s of jobs)
        return pl.from_arrow(driver_reads.answer(home.spark, {"ingests": (home.path("ingests"), None)},
                                                 "SELECT seq, stream, file, sha256 FROM {ingests}"))

    return table_cache.read(home.spark, home.path("ingests"), ANSWER, read)


def earlier(ingested: pl.DataFrame, stream: str, sha: str) -> pl.DataFrame:
    """The ingests of this content into ``stream``, oldest first."""
    return ingested.filter((pl.col("stream") == stream) & (pl.col("sha256") == sha)).sort("seq")


def duplicate(file, stream: str, before: pl.DataFrame, *, meanwhile: bool = False,
              outcome: str = "nothing of this call was ingested") -> DuplicateFileError:
    """The error for content already in ``stream`` (``before``: its earlier ingests)."""
    first = before.row(0, named=True)
    how = "by another ingest while this one parsed it" if meanwhile else "already"
    return DuplicateFileError(
        f"{file}: this content was {how} ingested into stream '{stream}' "
        f"(as {first['file']}, ingest #{first['seq']}); {outcome}; "
        "leave the file out or pass --allow-duplicate-file to ingest it again")


def next_seq(ingested: pl.DataFrame) -> int:
    return (ingested.get_column("seq").max() or 0) + 1


def committed(home: Home, ingested: pl.DataFrame, before, records: list[tuple]) -> None:
    """Carry the cached answers over our append of ``records`` (seq, stream, file, sha256,
    ...) to the ingests table, made on top of its commit ``before``."""
    added = pl.DataFrame({"seq": [r[0] for r in records], "stream": [r[1] for r in records],
                          "file": [r[2] for r in records], "sha256": [r[3] for r in records]},
                         schema=ingested.schema)
    last = max(r[0] for r in records)
    path = home.path("ingests")
    after = table_cache.latest_commit(home.spark, path)
    table_cache.after_own_commit(home.spark, path, ANSWER, before, lambda kept: pl.concat([kept, added]),
                                 after=after)
    table_cache.after_own_commit(home.spark, path, LATEST_SEQ, before, lambda kept: max(kept, last), after=after)
