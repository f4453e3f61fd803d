"""`reasonlake sql` answers queries; statements that write or read outside the home are refused
before Spark sees them (Spark runs a command as it parses it)."""
from __future__ import annotations

import pytest

from reasonlake.engine.sql.guard import check_read_only
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


# --- the check on Spark's parsed plan (sql_plan): what the text cannot tell ---

from reasonlake.engine.sql import functions as sql_functions, plan as sql_plan


def _checked(spark, query: str) -> None:
    statement = sql_plan.inner_statement(query)
    sql_plan.check_plan(sql_plan.parsed_plan(spark, statement), HOME)


@pytest.mark.parametrize("query", [
    "SELECT upper(subject), count(*) FROM v GROUP BY 1 HAVING count(*) > 1 ORDER BY 2 DESC LIMIT 3 OFFSET 1",
    "SELECT 1.5, 'x.y', regexp_extract('ex.org/a', 'ex.org/(.*)', 1)",
    "WITH a AS (SELECT explode(array(1, 2)) AS e) SELECT e, (SELECT max(e) FROM a) FROM a",
    "SELECT * FROM v JOIN w USING (s) WHERE s IN (SELECT s FROM x) AND EXISTS (SELECT 1 FROM x)",
    "SELECT s, row_number() OVER (PARTITION BY s ORDER BY o) FROM v",
    "SELECT * FROM v UNION SELECT * FROM w EXCEPT SELECT * FROM x",
    "SELECT * FROM range(3) LATERAL VIEW explode(array(1)) t AS z",
    "SELECT transform(array(1, 2), x -> x + 1), CAST('1' AS INT), CASE WHEN true THEN 1 END",
    "SELECT system.builtin.upper('a'), `lower`('B')",
    f"SELECT * FROM delta.`{HOME}/mat_v` VERSION AS OF 1",
    "SHOW TABLES", "DESCRIBE v", "SHOW FUNCTIONS", "DESCRIBE FUNCTION upper", "VALUES (1), (2)",
    "EXPLAIN SELECT upper('a')", f"DESCRIBE HISTORY delta.`{HOME}/mat_v`",
    "SELECT 'reflect is a word' AS text",
])
def test_plans_of_queries_pass(spark, query):
    _checked(spark, query)


@pytest.mark.parametrize("query, says", [
    ("SELECT reflect('java.lang.System', 'getProperty', 'user.dir') AS x", "reflect() is not allowed"),
    ("SELECT java_method('java.lang.System', 'exit', 7)", "java_method() is not allowed"),
    ("SELECT system.builtin.try_reflect('java.lang.System', 'exit', 7)", "try_reflect() is not allowed"),
    ("SELECT `reflect`('java.lang.System', 'exit', 7)", "reflect() is not allowed"),
    ("SELECT IDENTIFIER('reflect')('java.lang.System', 'exit', 7)", "IDENTIFIER"),
    ("EXPLAIN SELECT java_method('java.lang.System', 'exit', 7)", "java_method() is not allowed"),
    ("SELECT my_udf(1)", "my_udf() is not a function"),
    ("SELECT main.default.f(1)", "catalog's function"),
    ("SELECT xpath_string('<a/>', 'a')", "xpath_string() is not allowed"),
    # past Spark's 25 rendered fields: a call there is seen all the same
    ("SELECT " + ", ".join(f"{i} AS c{i}" for i in range(40)) + ", reflect('a', 'b', 'c')", "reflect() is not allowed"),
    ("SELECT * FROM IDENTIFIER('text.`/etc/passwd`')", "outside the home"),
    ("SELECT * FROM python_worker_logs()", "table function python_worker_logs()"),
    ("CACHE TABLE v", "CacheTable is not one"),
    ("SHOW TABLES; DROP TABLE v".split(";")[1], "DropTable"),
])
def test_plans_that_reach_past_the_data_are_refused(spark, query, says):
    with pytest.raises(SqlError) as err:
        _checked(spark, query)
    assert says in str(err.value) and err.value.code == "RL190"


def test_the_allow_list_is_within_sparks_own_functions(spark):
    builtin = {r[0] for r in spark.sql("SHOW SYSTEM FUNCTIONS").collect()}
    assert sql_functions.FUNCTIONS <= builtin, sorted(sql_functions.FUNCTIONS - builtin)
    assert not sql_functions.FUNCTIONS & set(sql_functions.REFUSED)
    assert {"reflect", "java_method", "try_reflect"} <= set(sql_functions.REFUSED) & builtin
    assert {"upper", "count", "regexp_extract", "date_format"} <= sql_functions.FUNCTIONS
