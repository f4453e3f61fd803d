"""Every setting reasonlake reads from its environment, in one place: its name, its default,
what it changes, and whether only the tests need it. The README's table of them is made
from this list (``python -m reasonlake.settings``; a test holds the README to it), and no
other module reads the environment: the variables of other programs (Java's, Spark's,
AWS's) are read through ``environment`` here too.

A setting is read when it is asked for, not once at import: a scheduled job sets its
environment before it starts, and the tests change one between two commands of one process.
These are a process's settings; a home's own (its catalog, the folders its ontologies may
come from), which every process writing it shares, are a table of the home
(``engine/store/settings.py``).
"""
from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Setting:
    name: str
    default: str | None  # None: unset (the meaning says what that does)
    meaning: str
    tests_only: bool = False  # a knob the tests turn (a fault to inject, a backend to force)


SETTINGS = (
    Setting("REASONLAKE_HOME", "./lakehouse", "The home (a folder or an `s3://` URL) when a command has no `--home`."),
    Setting("REASONLAKE_DRIVER_BUDGET", None, "Bytes a close may take in the driver (`4g`); unset: a quarter of "
            "the machine's memory, at 512 bytes a fact."),
    Setting("REASONLAKE_LOCAL_ROWS", None, "Facts a close may hold in the driver, outright; `0` runs every close "
            "on Spark. Unset: from `REASONLAKE_DRIVER_BUDGET`."),
    Setting("REASONLAKE_NEIGHBOURHOOD_ROWS", None, "Facts a close on Spark may fetch into the driver to run its "
            "rounds there; `0`: its rounds on Spark. Unset: as `REASONLAKE_LOCAL_ROWS`."),
    Setting("REASONLAKE_DRIVER_READ_MB", "128", "MB of a table the driver reads itself (delta-rs) before it asks "
            "Spark; `0`: Spark reads every table."),
    Setting("REASONLAKE_SMALL_TABLES", None, "`0` reads a local home's small tables through Spark, not delta-rs."),
    Setting("REASONLAKE_ARROW_COMMIT", None, "`0` commits a local home's writes through Spark, not delta-rs."),
    Setting("REASONLAKE_LOCAL_FS", None, "`hadoop` keeps Hadoop's local file system in an embedded session "
            "(default: a faster in-process one)."),
    Setting("REASONLAKE_SPARK_MASTER", "local[*]", "The master of the session a command starts."),
    Setting("REASONLAKE_DRIVER_MEMORY", "4g", "`spark.driver.memory` of the session a command starts."),
    Setting("REASONLAKE_SPARK_LOG_LEVEL", "ERROR", "Spark's log level in the session a command starts."),
    Setting("REASONLAKE_SERVER", "terminal", "When a command may start the home's command server: `terminal` "
            "(from a terminal only), `auto` (from scripts too), `off` (never)."),
    Setting("REASONLAKE_QUERY_MAX_ROWS", "10000000", "Rows a query may hold at any step."),
    Setting("REASONLAKE_QUERY_MAX_MB", "2048", "MB (estimated) a query may hold at any step."),
    Setting("REASONLAKE_LEASE_SECONDS", "60", "How long a writer's lease lasts unless renewed."),
    Setting("REASONLAKE_INGEST_WAIT", "600", "Seconds an ingest waits for the others' commits."),
    Setting("REASONLAKE_SATURATE_PAIRS", "1000000", "(sub, super) pairs a hierarchy is compiled into one rule "
            "instance each; past it, as jumps."),
    Setting("REASONLAKE_MAX_SCHEMA_PAIRS", "5000000", "Rule instances a hierarchy may compile to; past it "
            "`view create` names the limit."),
    Setting("REASONLAKE_S3_INSTANCE_ROLE", None, "`1`: the machine's instance role provides the S3 keys."),
    Setting("REASONLAKE_PROFILE", None, "Set: each step of a close prints its time."),
    Setting("REASONLAKE_CRASH_AFTER", None, "Exit at this fault point (`engine/process/faults.py`).", tests_only=True),
    Setting("REASONLAKE_FAULT_POINT", None, "Block at this fault point until killed.", tests_only=True),
    Setting("REASONLAKE_FAULT_MARK", None, "File a blocked process writes its fault point to (else stderr).",
            tests_only=True),
    Setting("REASONLAKE_FAULT_HOLD", "600", "Seconds a process blocks at its fault point.", tests_only=True),
)

_BY_NAME = {setting.name: setting for setting in SETTINGS}


def text(name: str) -> str | None:
    """The setting's value: as set in the environment, else its default."""
    value = os.environ.get(name)
    return _BY_NAME[name].default if value is None else value


def is_set(name: str, value: str | None = None) -> bool:
    """Whether the setting is set (to ``value``, when given)."""
    found = os.environ.get(_BY_NAME[name].name)
    return bool(found) if value is None else found == value


def number(name: str) -> float:
    return float(text(name))


def environment(name: str) -> str | None:
    """Another program's variable (``JAVA_HOME``, ``SPARK_REMOTE``, ``AWS_REGION``, ...)."""
    if name in _BY_NAME:
        raise KeyError(f"{name} is one of reasonlake's settings: read it with text()")
    return os.environ.get(name)


def environment_default(name: str, value: str) -> None:
    """Set another program's variable unless it is set (what a child process inherits)."""
    os.environ.setdefault(name, value)


def environment_without(*names: str) -> dict[str, str]:
    """The whole environment less ``names``: what a child process is started with."""
    return {k: v for k, v in os.environ.items() if k not in names}


def markdown_table() -> str:
    """The README's table of the settings."""
    rows = ["| Setting | Default | What it changes |", "| --- | --- | --- |"]
    for setting in SETTINGS:
        default = "unset" if setting.default is None else f"`{setting.default}`"
        meaning = setting.meaning + (" Tests only." if setting.tests_only else "")
        rows.append(f"| `{setting.name}` | {default} | {meaning} |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    print(markdown_table(), end="")
