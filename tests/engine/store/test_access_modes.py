"""One access mode per session and kind of place (engine/store/access): which mode each
session and path gets, that the modes give the same answers about the same table each their
own way, and that the switches turn off a local mode's reads or commits and nothing else."""
from __future__ import annotations

from pathlib import Path

import polars as pl

from reasonlake.engine.store import access, arrow_commit, process_cache, rs_commit
from reasonlake.engine.store.access.classic_session import ClassicSession
from reasonlake.engine.store.access.local_folder import LocalFolder
from reasonlake.engine.store.access.spark_sql import SparkSql
from reasonlake.engine.store.session import DeferredSession


def _never_started():
    raise AssertionError("choosing a mode started the session")


def test_each_session_and_place_gets_its_mode_chosen_once(spark, tmp_path):
    process_cache.of(spark).access.clear()
    local = access.of(spark, str(tmp_path / "a"))
    assert isinstance(local, LocalFolder) and local.reads_here and local.writes_here
    assert access.of(spark, f"file:{tmp_path}/b") is local  # any table of a local place: the same mode
    assert local.folder(f"file:{tmp_path}/b") == Path(tmp_path / "b")
    elsewhere = access.of(spark, "s3a://bucket/home/events")
    assert type(elsewhere) is ClassicSession and elsewhere.folder("s3a://bucket/home/events") is None
    assert access.of(spark, "dbfs:/home/events") is elsewhere

    # Spark Connect, known from the session's address before it starts: a server on this
    # machine shares a local home's files, a remote one does not
    near = DeferredSession(_never_started, "sc://localhost:15002")
    far = DeferredSession(_never_started, "sc://203.0.113.5:15002")
    assert access.of(near, str(tmp_path)).name == "local-over-connect"
    assert type(access.of(far, str(tmp_path))) is SparkSql
    assert type(access.of(near, "s3a://bucket/home")) is SparkSql


def test_the_modes_answer_alike_about_one_table(spark, tmp_path):
    path = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE delta.`{path}` (name STRING, n BIGINT) USING DELTA")
    spark.sql(f"INSERT INTO delta.`{path}` VALUES ('a', 1), ('b', 2)")
    spark.sql(f"DELETE FROM delta.`{path}` WHERE name = 'a'")
    modes = [LocalFolder(spark), ClassicSession(spark), SparkSql(spark)]
    latest = {m.name: m.latest_commit(path) for m in modes}
    assert {v[0] for v in latest.values()} == {2}, latest
    stamps = [v[1] for v in latest.values()]
    assert max(stamps) - min(stamps) < 1000, latest  # each the commit file's time, as Delta takes it
    assert all(m.is_delta(path) for m in modes)
    assert not any(m.is_delta(str(tmp_path / "none")) for m in modes)

    commits = {m.name: m.commits(path, 0, None) for m in modes}
    assert commits["local-folder"] == commits["classic-session"]  # the commit files, and Delta's classes
    assert [c[2] > 0 for c in commits["local-folder"]] == [True] * 3
    assert [c[1] for c in commits["local-folder"]] == ["CREATE TABLE", "WRITE", "DELETE"]
    assert [c[4] for c in commits["local-folder"]] == [False, True, True]  # rows changed, from the actions
    assert [(c[0], c[1], c[3]) for c in commits["spark-sql"]] == [(c[0], c[1], c[3]) for c in commits["local-folder"]]
    local = modes[0]
    described = spark.sql(f"DESCRIBE HISTORY delta.`{path}`").collect()
    assert [(r.version, r.operation) for r in local.history(path)] == [(r.version, r.operation) for r in described]
    assert [r.version for r in local.history(path, 1)] == [2]
    assert modes[1].history(path) is None and modes[2].history(path) is None  # asked of Spark by the caller
    read = local.rows(path, ["name", "n"])
    if read is not None:  # None: this Delta build hid the row with a deletion vector (Spark reads it)
        expected = spark.read.format("delta").load(path).collect()
        assert sorted(map(tuple, read)) == sorted(map(tuple, expected)) == [("b", 2)]
    queried = local.query({"t": (path, None)}, "SELECT name FROM t", 1 << 30)
    assert queried is not None and queried.column("name").to_pylist() == ["b"]
    assert local.query({"t": (path, None)}, "SELECT name FROM t", 1) is None  # over the budget: Spark reads
    assert modes[1].query({"t": (path, None)}, "SELECT name FROM t", 1 << 30) is None


def test_the_switches_turn_off_reads_or_commits_alone(spark, tmp_path, monkeypatch):
    path = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE delta.`{path}` (seq BIGINT, at TIMESTAMP) USING DELTA")

    monkeypatch.setenv("REASONLAKE_SMALL_TABLES", "0")
    quiet = access.of(spark, path)
    assert isinstance(quiet, LocalFolder) and not quiet.reads_here and quiet.writes_here
    assert quiet.folder(path) is None and quiet.rows(path) is None
    quiet.append(path, pl.DataFrame({"seq": [1], "at": [None]}, schema={"seq": pl.Int64, "at": pl.Datetime("us", "UTC")}),
                 schema="seq BIGINT, at TIMESTAMP")
    assert quiet.latest_commit(path)[0] == 1  # from Delta's classes

    monkeypatch.delenv("REASONLAKE_SMALL_TABLES")
    monkeypatch.setenv("REASONLAKE_ARROW_COMMIT", "0")
    spark_writes = access.of(spark, path)
    assert spark_writes.reads_here and not spark_writes.writes_here
    def refused(*args, **kwargs):
        raise AssertionError("the driver committed with its commits turned off")

    monkeypatch.setattr(arrow_commit, "append", refused)
    monkeypatch.setattr(rs_commit, "append", refused)
    # the one call lands all the same: the mode defers to the base, which writes through Spark
    spark_writes.append(path, pl.DataFrame({"seq": [2]}), schema="seq BIGINT")
    history = spark.sql(f"DESCRIBE HISTORY delta.`{path}`").collect()
    assert [r.operation for r in history][:2] == ["WRITE", "WRITE"]
    assert sorted(r.seq for r in spark.read.format("delta").load(path).collect()) == [1, 2]
