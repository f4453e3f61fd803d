"""A view's materialization changed outside reasonlake (a DELETE by hand) stops the next
slide with RL420 naming the commit, until a rebuild; maintenance that changes no rows (a
table property) does not stop it; every commit reasonlake makes on the table carries its mark."""
from __future__ import annotations

from tests.cli.helpers import ex, jsonl, simple_view


def test_a_slide_stops_at_a_change_made_outside_reasonlake_until_a_rebuild(cli, spark, tmp_path):
    cli("view", "create", str(simple_view(tmp_path)))
    cli("ingest", "s", str(jsonl(tmp_path / "a.jsonl", [(ex("a"), ex("knows"), ex("b"), 500),
                                                        (ex("c"), ex("knows"), ex("d"), 3500)])))
    cli("slide", "v", "--until", "4000")
    table = f"delta.`{cli.home}/mat_v`"
    spark.sql(f"OPTIMIZE {table}")  # maintenance: no row changes (nothing to compact here: no commit)
    spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('owner.team' = 'platform')")
    cli("slide", "v", "--until", "5000")
    history = spark.sql(f"DESCRIBE HISTORY {table}").collect()
    ours = [(r.version, r.operation, r.userMetadata) for r in history if r.operation not in ("CREATE TABLE", "SET TBLPROPERTIES")]
    assert "SET TBLPROPERTIES" in [r.operation for r in history]
    assert len(ours) >= 2 and all((mark or "").startswith("reasonlake") for _, _, mark in ours), ours

    spark.sql(f"DELETE FROM {table} WHERE origin = 3500")  # someone's hand on the table
    deleted_at = spark.sql(f"DESCRIBE HISTORY {table} LIMIT 1").first().version
    cli("slide", "v", "--until", "6000", expect=1)
    assert "RL420" in cli.last_err and f"version {deleted_at}, DELETE" in cli.last_err, cli.last_err
    assert "reasonlake rebuild v" in cli.last_err
    cli("slide", "v", "--until", "6000", expect=1)  # it stays stopped: nothing was written
    from reasonlake.engine.store.access.classic_session import ClassicSession
    from reasonlake.engine.store.access.local_folder import LocalFolder
    from reasonlake.engine.store.access.spark_sql import SparkSql
    from reasonlake.engine.store.foreign_commits import Commit

    # the commit files read here, the log read by Delta's classes, and the history as a table
    # (Spark Connect): the same verdict, and the same commits but for how a change is told
    path = f"{cli.home}/mat_v"
    read = {mode.name: [Commit(*info) for info in mode.commits(path, 1, None)]
            for mode in (LocalFolder(spark), ClassicSession(spark), SparkSql(spark))}
    for name, commits in read.items():
        assert [c.version for c in commits if c.foreign] == [deleted_at], name
    assert read["local-folder"] == read["classic-session"]
    assert [(c.version, c.operation, c.mark) for c in read["local-folder"]] == \
        [(c.version, c.operation, c.mark) for c in read["spark-sql"]]

    cli("rebuild", "v")
    cli("slide", "v", "--until", "6000")
    exported = cli("export", "v")
    assert f"{ex('c')} {ex('knows')} {ex('d')}" in exported
