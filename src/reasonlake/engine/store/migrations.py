"""Versioned migrations of the system tables, recorded in the `_migrations` table.

The migration files live in the repository's top-level `migrations/` folder; a wheel carries
them inside the package (see pyproject.toml).
"""
from __future__ import annotations

import re
from pathlib import Path

from reasonlake.engine.process import faults
from reasonlake.engine.store import log_upkeep
from reasonlake.engine.store.locations import local_path
from reasonlake.errors import ReasonlakeError

# a table's checkpoint interval where the store writes its checkpoints (``log_upkeep``)
LOCAL_INTERVAL = "${local_checkpoint_interval}"
_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


def migrations_dir() -> Path:
    packaged = Path(__file__).resolve().parents[2] / "migrations"
    if packaged.is_dir():
        return packaged
    checkout = Path(__file__).resolve().parents[4] / "migrations"
    if checkout.is_dir():
        return checkout
    raise ReasonlakeError("the migrations folder is missing from this installation")


def available() -> list[tuple[int, Path]]:
    found = []
    for file in sorted(migrations_dir().iterdir()):
        match = _NAME.match(file.name)
        if match:
            found.append((int(match.group(1)), file))
    return found


def statements(sql: str) -> list[str]:
    body = "\n".join(line for line in sql.splitlines() if not line.strip().startswith("--"))
    return [s.strip() for s in body.split(";") if s.strip()]


def apply_pending(spark, home: str) -> list[str]:
    """Apply the migrations not yet recorded; returns the names applied."""
    log = f"delta.`{home}/_migrations`"
    spark.sql(
        f"CREATE TABLE IF NOT EXISTS {log} (version INT, name STRING, applied_at TIMESTAMP) USING DELTA"
    )
    done = {row.version for row in spark.sql(f"SELECT version FROM {log}").collect()}
    applied = []
    for version, file in available():
        if version in done:
            continue
        for statement in statements(file.read_text()):
            statement = statement.replace("${home}", home)
            if LOCAL_INTERVAL in statement:
                if local_path(home) is None:  # a setting for the local home's upkeep only
                    continue
                statement = statement.replace(LOCAL_INTERVAL, str(log_upkeep.OURS_FROM))
            if not _columns_there(spark, statement):
                spark.sql(statement)
        faults.reached(f"init: migration {version}")  # ran, not recorded: a re-run runs it again safely
        spark.sql(f"INSERT INTO {log} VALUES ({version}, '{file.name}', current_timestamp())")
        applied.append(file.name)
    return applied


_ADD_COLUMNS = re.compile(r"ALTER\s+TABLE\s+(\S+)\s+ADD\s+COLUMNS\s*\((.*)\)\s*$", re.I | re.S)


def _columns_there(spark, statement: str) -> bool:
    """Whether ``statement`` adds columns the table has already: a migration that ran but
    was not recorded (a crash between the two) is then recorded without running again."""
    match = _ADD_COLUMNS.match(statement.strip())
    if not match:
        return False
    wanted = {part.split()[0].strip("`").lower() for part in match.group(2).split(",") if part.strip()}
    have = {name.lower() for name in spark.table(match.group(1)).columns}
    return wanted <= have

