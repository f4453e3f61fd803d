"""`reasonlake sql` answers queries; statements that write or read outside the home are refused
before Spark sees them (Spark runs a command as it parses it)."""
from __future__ import annotations

import pytest

from reasonlake.engine.sql_guard import check_read_only
from reasonlake.errors import SqlError

HOME = "/data/lake"


@pytest.mark.parametrize("query", [
    "SELECT * FROM v", "  with x as (select 1) select * from x", "SHOW TABLES", "DESCRIBE v",
    "EXPLAIN SELECT 1", "(SELECT 1)", "SELECT 'DELETE FROM v' AS text", "SELECT 1 -- drop table v",
    f"DESCRIBE HISTORY delta.`{HOME}/mat_v`", f"SELECT * FROM delta.`file:{HOME}/events`", "SELECT 1;",
    "WITH x AS (SELECT replace(subject, 'a', 'b') AS s FROM v) SELECT * FROM x", "SELECT v.`subject` FROM v",
])
def test_queries_pass(query):
    check_read_only(query, HOME)


@pytest.mark.parametrize("query, says", [
    (f"DELETE FROM delta.`{HOME}/mat_v` WHERE 1=1", "queries only (DELETE"),
    ("ADD JAR /tmp/x.jar", "queries only (ADD"),
    ("WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x", "INSERT writes"),
    ("SELECT * FROM text.`/etc/passwd`", "outside the home"),
    (f"SELECT * FROM parquet.`{HOME}/../other`", "outside the home"),
    ("SELECT 1; DROP TABLE v", "one statement at a time"),
    ("", "an empty statement"),
])
def test_writes_and_outside_reads_are_refused(query, says):
    with pytest.raises(SqlError) as err:
        check_read_only(query, HOME)
    assert says in str(err.value) and err.value.code == "RL190"
