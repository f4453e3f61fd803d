"""Terms as 64-bit ids: xxhash64 of the N-Triples form, computed by Spark's built-in.

The sign bit says what a term is: literals are negative, IRIs and blank nodes are not, so
rules that must not put a literal in subject position filter on ``id >= 0`` without a
dictionary look-up. The `terms` table stays authoritative: a new term whose id is already
taken by another term is a collision and stops the job (never merged silently).
"""
from __future__ import annotations

import numpy as np
import polars as pl
import xxhash
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from reasonlake.engine.store import access, table_cache, table_writes
from reasonlake.engine.store.xxh64_columns import xxh64
from reasonlake.errors import TermCollisionError

_SIGN = -(2**63)
_MAGNITUDE = 2**63 - 1


def term_id(term: Column) -> Column:
    hashed = F.xxhash64(term)
    return (
        F.when(term.isNull(), F.lit(None).cast("long"))
        .when(term.startswith('"'), hashed.bitwiseOR(F.lit(_SIGN)))
        .otherwise(hashed.bitwiseAND(F.lit(_MAGNITUDE)))
    )


# Spark's xxhash64 is XXH64 of the UTF-8 bytes with seed 42, as a signed long.
_SEED = 42
_WRAP = 2**64


def driver_term_id(term: str) -> int:
    """term_id in the driver: the same id Spark's expression gives (tests hold them equal)."""
    hashed = xxhash.xxh64_intdigest(term.encode("utf-8"), seed=_SEED)
    if hashed > _MAGNITUDE:
        hashed -= _WRAP
    return hashed | _SIGN if term.startswith('"') else hashed & _MAGNITUDE


def driver_term_ids(terms: pl.Series) -> pl.DataFrame:
    """Distinct terms of a series with their ids: columns term, id."""
    distinct = terms.drop_nulls().unique().cast(pl.String)
    return pl.DataFrame({"term": distinct, "id": _signed_ids(distinct)},
                        schema={"term": pl.String, "id": pl.Int64})


def _signed_ids(terms: pl.Series) -> pl.Series:
    """driver_term_id over a column of terms, hashed at once (``xxh64_columns``)."""
    ids = xxh64(terms, _SEED)
    literal = terms.str.starts_with('"').to_numpy()
    return pl.Series("id", np.where(literal, ids | np.int64(_SIGN), ids & np.int64(_MAGNITUDE)), dtype=pl.Int64)


def _check(terms: pl.Series) -> pl.Series:
    """A second 64-bit hash of each term, from different bytes than its id: a term on the id
    of a known one is the known term when their checks agree too (else a collision)."""
    terms = terms.cast(pl.String)
    return _signed_ids(_CHECK_PREFIX + terms).alias("check")


_CHECK_PREFIX = "check:"


def _known_terms(spark, terms_path: str) -> pl.DataFrame:
    """(id, check) of every term of the dictionary, kept with the commit it was read at
    (16 bytes a term, no string leaves the JVM): a process that ingests file after file
    asks the table nothing while nobody else writes it."""
    def read() -> pl.DataFrame:
        small = _small_dictionary(spark, terms_path)
        if small is not None:
            return small
        table = spark.read.format("delta").load(terms_path).select(
            "id", term_id(F.concat(F.lit(_CHECK_PREFIX), F.col("term"))).alias("check")).toArrow()
        return pl.from_arrow(table)

    return table_cache.read(spark, terms_path, ("term checks",), read)


# a dictionary of at most this many bytes of Parquet (some 4M terms) is read in this
# process and its checks hashed here a column at a time (``xxh64_columns``): 1.5M terms in
# about 2 s where Spark's read and hash took 22.8 s in a fresh process (a scheduled job's
# first ingest); a larger one stays in the JVM but for its (id, check) pairs
_SMALL_DICTIONARY_BYTES = 64 * 1024 * 1024


def _small_dictionary(spark, terms_path: str) -> pl.DataFrame | None:
    """(id, check) of a small dictionary on a local home, read by delta-rs; None else."""
    # imported when called: it loads rdflib, yaml
    from reasonlake.engine.store import driver_reads

    found = driver_reads.query(spark, {"terms": (terms_path, None)}, "SELECT id, term FROM terms",
                               max_bytes=min(_SMALL_DICTIONARY_BYTES, driver_reads.limit_bytes()))
    if found is None:
        return None
    rows = pl.from_arrow(found)
    return pl.DataFrame({"id": rows.get_column("id"), "check": _check(rows.get_column("term"))},
                        schema={"id": pl.Int64, "check": pl.Int64})


def terms_read_here(spark, terms_path: str, ids: pl.Series) -> pl.DataFrame | None:
    """(id, term) of the dictionary's terms among ``ids``, read in this process (the whole
    dictionary is scanned: a list of ids in the query costs more past a few thousand);
    None where Spark must read it (``driver_reads``). In a folder of this machine the
    dictionary is kept in the process between calls and only its new files are read
    (``_kept_dictionary``); elsewhere delta-rs reads it whole."""
    # imported when called: it loads rdflib, yaml
    from reasonlake.engine.store import driver_reads

    wanted = pl.DataFrame({"id": ids}, schema={"id": pl.Int64}).unique()
    kept = _kept_dictionary(spark, terms_path)
    if kept is not None:
        return kept.join(wanted, on="id", how="semi").unique("id")
    found = driver_reads.query(spark, {"terms": (terms_path, None)}, "SELECT id, term FROM terms")
    if found is None:
        return None
    return pl.from_arrow(found).join(wanted, on="id", how="semi").unique("id")


def _kept_dictionary(spark, terms_path: str) -> pl.DataFrame | None:
    """Every (id, term) of the dictionary, kept on the session's cache by the set of data
    files it was read from. The dictionary only grows by appends, so a later call reads just
    the files added since (a registered query's close looks up its new items' terms: at 1M
    terms a whole read was 0.08-0.24 s of it). Read again whole when a file it read is gone
    (a table rewritten); None (the caller reads as before) outside a folder of this
    machine, for a table whose readers need more than its Parquet files
    (``delta_rs_reads.data_files``), or past the driver's read budget."""
    # imported when called: it loads rdflib, yaml
    from reasonlake.engine.store import delta_rs_reads, driver_reads, process_cache

    folder = access.of(spark, terms_path).folder(terms_path)
    files = None if folder is None else delta_rs_reads.data_files(folder)
    if files is None or sum(files.values()) > driver_reads.limit_bytes():
        return None
    cache = process_cache.of(spark).dictionaries
    known, frame = cache.get(terms_path, (frozenset(), None))
    if frame is None or not known <= files.keys():
        known, frame = frozenset(), pl.DataFrame(schema={"id": pl.Int64, "term": pl.String})
    new = [path for path in files if path not in known]
    if new:
        try:
            read = delta_rs_reads.read_files(folder, new, ["id", "term"])
        except OSError:  # a file cleaned up under the listing: read as before
            return None
        frame = pl.concat([frame, *(pl.from_arrow(t).select(pl.col("id").cast(pl.Int64), pl.col("term").cast(pl.String))
                                    for t in read)])
        cache[terms_path] = (frozenset(files), frame)
    return frame


def register_driver_terms(spark, terms_path: str, fresh: pl.DataFrame) -> None:
    """register_terms for terms whose ids the driver computed (columns term, id): the ones
    the dictionary lacks are found in the driver and appended in one commit."""
    append_terms(spark, terms_path, unseen_terms(spark, terms_path, fresh))


def unseen_terms(spark, terms_path: str, fresh: pl.DataFrame) -> pl.DataFrame:
    """The terms (columns term, id) the dictionary lacks, with their checks; raises on a
    collision, before anything is written.

    A term on the id of a known term is that term when a second hash agrees too; two
    different terms agreeing on both 64-bit hashes would pass unseen (odds of about 2^-128
    a pair; decision 0013)."""
    if fresh.is_empty():
        return fresh.with_columns(pl.lit(None, pl.Int64).alias("check"))
    fresh = fresh.unique()
    # two terms of this file on one id
    clash = fresh.group_by("id").agg(pl.col("term").min().alias("term"), pl.col("term").max().alias("known")).filter(
        pl.col("term") != pl.col("known"))
    fresh = fresh.with_columns(_check(fresh.get_column("term")))
    known = _known_terms(spark, terms_path)
    found = fresh.join(known.rename({"check": "known_check"}), on="id", how="left")
    if clash.is_empty():
        # a term of this file on the id of a known one: the stored term, for the message
        other = found.filter(pl.col("known_check").is_not_null() & (pl.col("known_check") != pl.col("check")))
        if not other.is_empty():
            row = other.row(0, named=True)
            stored = spark.read.format("delta").load(terms_path).where(F.col("id") == row["id"]).first()
            clash = pl.DataFrame({"id": [row["id"]], "term": [row["term"]], "known": [stored.term]})
    if not clash.is_empty():
        row = clash.row(0, named=True)
        raise TermCollisionError(
            f"64-bit term id {row['id']} is shared by different terms {sorted({row['term'], row['known']})}; "
            "nothing was written. Report this: the dictionary needs a wider id"
        )
    return found.filter(pl.col("known_check").is_null()).select("term", "id", "check")


def append_terms(spark, terms_path: str, unseen: pl.DataFrame) -> None:
    """Append what unseen_terms found (one commit), keeping the process's checks current."""
    if unseen.is_empty():
        return
    before = table_cache.latest_commit(spark, terms_path)
    table_writes.append_frame(spark, terms_path, unseen.select("id", "term"), "id BIGINT, term STRING")
    added = unseen.select("id", "check")
    table_cache.after_own_commit(spark, terms_path, ("term checks",), before, lambda kept: pl.concat([kept, added]))


# The dictionary's (id, check) pairs a process keeps in the driver for register_few_terms:
# 16 bytes a term, 320 MB at this size; a larger dictionary is checked by a join in Spark.
DRIVER_CHECKED_TERMS = 20_000_000


def few_unseen_terms(spark, terms_path: str, terms: DataFrame) -> pl.DataFrame | None:
    """unseen_terms of a small batch's terms (a one-column DataFrame, ``term``), in a process
    that registers batch after batch (a runner): the distinct terms come to the driver and
    are checked against the dictionary's (id, check) pairs kept there (one Spark job), not
    joined with the whole dictionary. None when the dictionary is too large to keep there
    (use register_terms)."""
    if not _checks_fit_in_driver(spark, terms_path):
        return None
    distinct = pl.from_arrow(terms.where(F.col("term").isNotNull()).distinct().toArrow())
    return unseen_terms(spark, terms_path, driver_term_ids(distinct.get_column("term")))


def _checks_fit_in_driver(spark, terms_path: str) -> bool:
    """Whether the dictionary's (id, check) pairs are kept in this process already, or are
    few enough to be (``DRIVER_CHECKED_TERMS``)."""
    return table_cache.peek(spark, terms_path, ("term checks",)) is not None or \
        spark.read.format("delta").load(terms_path).count() <= DRIVER_CHECKED_TERMS


def register_vocabulary(spark, terms_path: str, terms: list[str]) -> None:
    """Register a few terms held in this process (a view's TBox vocabulary): checked in the
    driver against the dictionary's (id, check) pairs where it is small enough to keep them
    (as ``few_unseen_terms``), else joined with it in Spark."""
    if _checks_fit_in_driver(spark, terms_path):
        register_driver_terms(spark, terms_path, driver_term_ids(pl.Series("term", terms, dtype=pl.String)))
    else:
        register_terms(spark, terms_path, spark.createDataFrame([(t,) for t in terms], "term STRING"))


def register_terms(spark, terms_path: str, terms: DataFrame) -> None:
    """Add the distinct terms of a one-column DataFrame (`term`) to the dictionary."""
    fresh = terms.where(F.col("term").isNotNull()).distinct().select(
        term_id(F.col("term")).alias("id"), "term"
    )
    known = spark.read.format("delta").load(terms_path).select("id", F.col("term").alias("known"))
    # One pass: a term is new (no row with its id), known (same term), or a collision.
    unseen = fresh.join(known, "id", "left").where(
        F.col("known").isNull() | (F.col("known") != F.col("term"))
    ).localCheckpoint()
    clash = unseen.where(F.col("known").isNotNull()).union(
        unseen.groupBy("id").agg(F.min("term").alias("term"), F.max("term").alias("known"))
        .where(F.col("term") != F.col("known")).select("id", "term", "known")
    ).limit(1).collect()
    if clash:
        row = clash[0]
        raise TermCollisionError(
            f"64-bit term id {row.id} is shared by different terms {sorted({row.term, row.known})}; "
            "nothing was written. Report this: the dictionary needs a wider id"
        )
    new = unseen.select("id", "term")
    if not new.isEmpty():
        new.write.format("delta").mode("append").save(terms_path)
        access.of(spark, terms_path).after_write(terms_path)
