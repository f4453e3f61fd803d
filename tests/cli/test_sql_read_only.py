"""`reasonlake sql` as a query language only, through the command line in a process of its
own (the embedded session): a call into the JVM refused on the parsed plan, any result
column printed under the name it was written with, a query's mistake one line on stderr."""
from __future__ import annotations

from tests.cli.helpers import ex, jsonl, simple_view
from tests.conftest import ProcessCli


def test_sql_in_a_process_of_its_own_is_read_only_and_says_one_line(cli, tmp_path):
    cli("view", "create", str(simple_view(tmp_path)))
    cli("ingest", "s", str(jsonl(tmp_path / "s.jsonl", [(ex("a"), ex("knows"), ex("b"), 2000)])))
    cli("slide", "v", "--until", "5000")
    alone = ProcessCli(cli.home, memory="1g")

    alone("sql", "SELECT reflect('java.lang.System', 'getProperty', 'user.dir') AS x", expect=1)
    assert "RL190" in alone.last_err and "reflect() is not allowed" in alone.last_err
    assert len(alone.last_err.strip().splitlines()) == 1, alone.last_err

    out = alone("sql", "SELECT 1.5, 'x.y' AS `a.b`, regexp_extract(subject, 'example.org/(.*)', 1) AS name "
                       "FROM v WHERE predicate = '<http://example.org/knows>'", "--format", "csv")
    assert out.splitlines() == ["1.5,a.b,name", "1.5,x.y,a>"], out

    # a mistake in the data the query computes (a division by zero in a task): the query's, one line
    alone("sql", "SELECT 1 / (count(*) - count(*)) FROM v", expect=1)
    assert "RL190" in alone.last_err and "DIVIDE_BY_ZERO" in alone.last_err
    assert len(alone.last_err.strip().splitlines()) == 1, alone.last_err
