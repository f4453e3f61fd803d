"""Migrations: a column migration that ran but was not recorded (a crash between the two)
is recorded by the next `init` instead of failing it for good."""
from __future__ import annotations

from reasonlake.engine.store import migrations


def test_init_after_a_migration_ran_but_was_not_recorded(cli, spark):
    home = str(cli.home)
    # the latest migration of the kind this test is about (ALTER ... ADD COLUMNS)
    last = max(v for v, file in migrations.available() if "ADD COLUMNS" in file.read_text())
    spark.sql(f"DELETE FROM delta.`{home}/_migrations` WHERE version = {last}")
    cli("history", "v", expect=1)  # the home now looks one migration behind
    assert "run `reasonlake init`" in cli.last_err
    cli("init")
    versions = [r.version for r in spark.sql(f"SELECT version FROM delta.`{home}/_migrations`").collect()]
    assert sorted(versions) == [v for v, _ in migrations.available()]
