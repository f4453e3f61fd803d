"""Term ids computed in the driver (ingest) equal those of Spark's expression (the program
tables, the rebuild and every Spark-path join): a difference would split one term in two."""
import polars as pl
from pyspark.sql import functions as F

from reasonlake.engine.store.dictionary import driver_term_id, driver_term_ids, term_id

TERMS = [
    "<http://example.org/a>", "<http://例え.jp/ü>", '"plain"', '"héllo"@en-GB',
    '"42"^^<http://www.w3.org/2001/XMLSchema#integer>', '"tab\\there"', "<urn:reasonlake:skolem:abc:1:b0>",
    '""', "<http://example.org/" + "x" * 300 + ">",
]


def test_driver_term_ids_equal_sparks(spark):
    rows = spark.createDataFrame([(t,) for t in TERMS], "term STRING").select(
        "term", term_id(F.col("term")).alias("id")).collect()
    spark_ids = {r.term: r.id for r in rows}
    assert {t: driver_term_id(t) for t in TERMS} == spark_ids
    assert all((spark_ids[t] < 0) == t.startswith('"') for t in TERMS)  # literals: the sign bit
    frame = driver_term_ids(pl.Series(TERMS + TERMS[:3] + [None]))
    assert dict(zip(frame["term"], frame["id"])) == spark_ids


def _many_terms() -> list[str]:
    """Enough terms of each byte length 0-140 (ASCII, and multi-byte UTF-8) that every
    length is hashed as one matrix (``xxh64_columns``), plus a few of rare lengths."""
    import random

    rng = random.Random(5)
    terms = {"<x>", '"y"'}
    for length in range(1, 141):
        for n in range(60):
            word = ""
            while len(word.encode()) < length - 3:
                word += rng.choice("abcXYZ09<>:/#\"éü例" if n % 2 else "abcXYZ09<>:/#\"")
            terms.add(word + "z" * (length - len(word.encode())))
    return sorted(terms)


def test_a_column_hashed_at_once_equals_xxhash_one_by_one():
    import numpy as np
    import xxhash

    from reasonlake.engine.store.xxh64_columns import xxh64

    terms = _many_terms()
    want = np.array([xxhash.xxh64_intdigest(t.encode(), seed=42) for t in terms], dtype=np.uint64).view(np.int64)
    assert (xxh64(pl.Series(terms), 42) == want).all()
    sliced = pl.Series(terms).slice(37, 500)  # a series that starts inside its buffers
    assert (xxh64(sliced, 42) == want[37:537]).all()
    assert len(xxh64(pl.Series([], dtype=pl.String), 42)) == 0


def test_many_driver_term_ids_equal_sparks(spark):
    terms = _many_terms()
    rows = spark.createDataFrame([(t,) for t in terms], "term STRING").select(
        "term", term_id(F.col("term")).alias("id")).collect()
    frame = driver_term_ids(pl.Series(terms))
    assert dict(zip(frame["term"], frame["id"])) == {r.term: r.id for r in rows}


def test_a_term_on_the_id_of_another_stops_the_ingest_and_writes_nothing(spark, tmp_path):
    import pytest

    from reasonlake.engine.store.dictionary import register_driver_terms
    from reasonlake.errors import TermCollisionError

    path = str(tmp_path / "terms")
    spark.createDataFrame([(1, "<http://example.org/one>")], "id BIGINT, term STRING").write.format("delta").save(path)

    def register(*terms):
        register_driver_terms(spark, path, driver_term_ids(pl.Series(list(terms))))

    def stored():
        return sorted(tuple(r) for r in spark.read.format("delta").load(path).collect())

    register("<http://example.org/a>", "<http://example.org/b>")
    register("<http://example.org/a>", "<http://example.org/c>")  # from the kept ids: a is known
    want = [(1, "<http://example.org/one>")] + sorted(
        (driver_term_id(t), t) for t in ("<http://example.org/a>", "<http://example.org/b>", "<http://example.org/c>"))
    assert stored() == want
    # another writer puts a different term on the id of d: the kept ids are stale, and the
    # ingest finds the clash in the table, writing nothing
    clashing = driver_term_id("<http://example.org/d>")
    spark.createDataFrame([(clashing, "<http://example.org/not-d>")], "id BIGINT, term STRING").write.format(
        "delta").mode("append").save(path)
    with pytest.raises(TermCollisionError, match=str(clashing)):
        register("<http://example.org/e>", "<http://example.org/d>")
    assert stored() == sorted(want + [(clashing, "<http://example.org/not-d>")])


def test_the_check_hash_of_the_driver_equals_sparks(spark):
    from reasonlake.engine.store.dictionary import _CHECK_PREFIX, _check

    rows = spark.createDataFrame([(t,) for t in TERMS], "term STRING").select(
        term_id(F.concat(F.lit(_CHECK_PREFIX), F.col("term"))).alias("check")).collect()
    assert _check(pl.Series(TERMS)).to_list() == [r.check for r in rows]


def test_a_small_batch_is_checked_against_the_ids_kept_in_the_driver(spark, tmp_path):
    from reasonlake.engine.store.dictionary import append_terms, few_unseen_terms

    path = str(tmp_path / "terms")
    known = "<http://example.org/known>"
    spark.createDataFrame([(driver_term_id(known), known)], "id BIGINT, term STRING").write.format("delta").save(path)
    batch = spark.createDataFrame([(known,), ('"new"',), ('"new"',), (None,)], "term STRING")
    unseen = few_unseen_terms(spark, path, batch)
    assert unseen.select("term", "id").rows() == [('"new"', driver_term_id('"new"'))]
    append_terms(spark, path, unseen)
    assert few_unseen_terms(spark, path, batch).is_empty()  # from the checks kept after the append
    assert sorted(r.term for r in spark.read.format("delta").load(path).collect()) == ['"new"', known]
