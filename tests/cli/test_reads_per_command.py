"""A reading command reads each table of the home at most once: without the command server
each Delta table a fresh process resolves costs a read of its log (seconds in a cold JVM), so
`history`, `export`, `sql` and `violations` on the README's example may not come back to
one. Counted on the example, with the process's caches dropped before each command as a
fresh process has them; the reads pass through to Spark unchanged."""
from __future__ import annotations

import re
from collections import Counter

import pytest
from pyspark.sql import DataFrameReader, SparkSession

from tests.conftest import REPO

STREAM = str(REPO / "examples" / "streams" / "social.jsonl")
_DELTA_PATH = re.compile(r"delta\.`([^`]*)`")


class Reads(Counter):
    """Per table (the last part of its path): how many loads, SQL statements and reads in
    the driver (``small_tables``) named it; ``by_spark``: the first two alone."""

    def __init__(self):
        super().__init__()
        self.by_spark: Counter = Counter()

    def clear(self):
        super().clear()
        self.by_spark.clear()


@pytest.fixture
def reads(monkeypatch):
    from reasonlake.engine.store import small_tables

    seen = Reads()
    load, sql, rows = DataFrameReader.load, SparkSession.sql, small_tables.rows

    def table(path: str) -> str:
        return path.rstrip("/").rsplit("/", 1)[-1]

    def counted_load(self, path=None, *args, **kwargs):
        if isinstance(path, str):
            seen[table(path)] += 1
            seen.by_spark[table(path)] += 1
        return load(self, path, *args, **kwargs)

    def counted_sql(self, query, *args, **kwargs):
        # a statement reads a table once however often it names it (one snapshot per query)
        for name in {table(p) for p in _DELTA_PATH.findall(query)}:
            seen[name] += 1
            seen.by_spark[name] += 1
        return sql(self, query, *args, **kwargs)

    def counted_rows(folder, *args, **kwargs):
        found = rows(folder, *args, **kwargs)
        if found is not None:  # else the caller reads it through Spark, counted there
            seen[table(str(folder))] += 1
        return found

    monkeypatch.setattr(DataFrameReader, "load", counted_load)
    monkeypatch.setattr(SparkSession, "sql", counted_sql)
    monkeypatch.setattr(small_tables, "rows", counted_rows)
    return seen


def test_reading_commands_read_each_table_at_most_once(cli, spark, reads):
    from reasonlake.engine.store import process_cache

    cli("view", "create", str(REPO / "views" / "active_users.yaml"))
    cli("ingest", "social", STREAM)
    cli("slide", "active_users", "--until", "2026-11-22T10:08:00Z")
    commands = {
        "history": ("history", "active_users"),
        "export": ("export", "active_users"),
        "sql": ("sql", "SELECT count(*) AS n FROM active_users WHERE inferred"),
        "sql over a system table": ("sql", "SELECT count(*) AS n FROM rl_events"),
        "violations": ("violations", "active_users"),
    }
    for name, argv in commands.items():
        process_cache.of(spark).clear()
        reads.clear()
        out = cli(*argv)
        assert out.strip(), name
        assert reads["_migrations"] == 1, (name, reads)  # the one check that the home is current
        again = {table: n for table, n in reads.items() if n > 1}
        assert not again, f"{name} read {again} more than once: {dict(reads)}"
        # a local home's small system tables are read from their files, with no Spark job
        spark_read = {"_migrations", "views", "view_state", "settings"} & set(reads.by_spark)
        assert not spark_read, f"{name} read {spark_read} through Spark: {dict(reads.by_spark)}"
    # a query over one view resolves none of the tables it does not name
    process_cache.of(spark).clear()
    reads.clear()
    cli("sql", "SELECT count(*) AS n FROM active_users")
    assert not {"events", "quarantine", "late", "ingests", "expectations"} & set(reads), dict(reads)
    # a name the query does not know still lists every table it could have used
    cli("sql", "SELECT * FROM no_such_table", expect=1)
    assert "active_users" in cli.last_err and "rl_events" in cli.last_err, cli.last_err
