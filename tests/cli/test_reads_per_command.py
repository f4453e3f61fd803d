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


@pytest.fixture
def reads(monkeypatch):
    """Per table (the last part of its path): how many loads and SQL statements named it."""
    seen: Counter = Counter()
    load, sql = DataFrameReader.load, SparkSession.sql

    def counted_load(self, path=None, *args, **kwargs):
        if isinstance(path, str):
            seen[path.rstrip("/").rsplit("/", 1)[-1]] += 1
        return load(self, path, *args, **kwargs)

    def counted_sql(self, query, *args, **kwargs):
        # a statement reads a table once however often it names it (one snapshot per query)
        for table in {p.rstrip("/").rsplit("/", 1)[-1] for p in _DELTA_PATH.findall(query)}:
            seen[table] += 1
        return sql(self, query, *args, **kwargs)

    monkeypatch.setattr(DataFrameReader, "load", counted_load)
    monkeypatch.setattr(SparkSession, "sql", counted_sql)
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
    # a query over one view resolves none of the tables it does not name
    process_cache.of(spark).clear()
    reads.clear()
    cli("sql", "SELECT count(*) AS n FROM active_users")
    assert not {"events", "quarantine", "late", "ingests", "expectations"} & set(reads), dict(reads)
    # a name the query does not know still lists every table it could have used
    cli("sql", "SELECT * FROM no_such_table", expect=1)
    assert "active_users" in cli.last_err and "rl_events" in cli.last_err, cli.last_err
