from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import write

EX = "http://example.org/"
TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"


def ex(name: str) -> str:
    return f"<{EX}{name}>"


def jsonl(path: Path, events) -> Path:
    return write(path, "".join(json.dumps({"s": s, "p": p, "o": o, "ts": ts}) + "\n" for s, p, o, ts in events))


def simple_view(tmp: Path, name="v", stream="s", width="4s", slide="1s", profile="rdfs-plus",
                tbox: str | None = None) -> Path:
    ttl = tbox if tbox is not None else (
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
        f"<{EX}knows> rdfs:domain <{EX}Person> .\n<{EX}Person> rdfs:subClassOf <{EX}Agent> .\n"
    )
    write(tmp / f"{name}.ttl", ttl)
    return write(
        tmp / f"{name}.yaml",
        f"name: {name}\nstream: {stream}\nontology: [{name}.ttl]\nprofile: {profile}\n"
        f"window: {{width: {width}, slide: {slide}, start: 0}}\n",
    )


def run_without_java(home: Path, tmp: Path, *args: str) -> subprocess.CompletedProcess:
    """``reasonlake --home HOME ARGS`` in a process of its own where no JVM can start
    (JAVA_HOME points nowhere, no ``java`` on the PATH): a command that needs Spark fails
    there, one answered from the home's files does not."""
    paths = os.environ["PATH"].split(os.pathsep)
    env = dict(os.environ, JAVA_HOME=str(tmp / "no-java"),
               PATH=os.pathsep.join(p for p in paths if not os.path.exists(os.path.join(p, "java"))))
    env.pop("SPARK_REMOTE", None)
    return subprocess.run([sys.executable, "-m", "reasonlake.cli", "--home", str(home), *args],
                          env=env, capture_output=True, text=True, timeout=300)


def violations(cli, view: str, *args: str) -> set[tuple[str, frozenset[tuple[str, str | None]]]]:
    """``reasonlake violations VIEW ARGS --format json`` as the exact set of its violations:
    (rule, the triples with their origins); a violation listed twice fails."""
    rows = [json.loads(line) for line in cli("violations", view, *args, "--format", "json").splitlines()]
    found = {(r["rule"], frozenset((t["triple"], t["origin"]) for t in r["triples"])) for r in rows}
    assert len(found) == len(rows), f"a violation listed twice: {rows}"
    return found


def violations_status(cli, view: str, *args: str) -> str:
    """The first line of the text report: ``view V at CLOSE: consistent`` or ``...: inconsistent: N violation(s)``."""
    return cli("violations", view, *args).splitlines()[0]


def sql_names_show_what_the_readers_show(spark, home: Path, view: str) -> None:
    """`reasonlake sql`'s tables of a view (made from the SQL its catalog names use) hold
    the rows of the readers' DataFrames (export, `violations`, `explain --removed`), as
    multisets."""
    from collections import Counter

    from reasonlake.api import Lakehouse
    from reasonlake.engine.reads import read
    from reasonlake.engine.store import repair_tables
    from reasonlake.engine.store import state, table_log
    from reasonlake.engine.store import violations_table as violations

    lake = Lakehouse(str(home), spark=spark)
    lake.sql("SELECT 1")  # registers the tables
    close = state.lineage(lake.home, view)[-1].close
    pairs = [(view, read.decoded(lake.home, view).drop("rule"))]
    if table_log.is_delta(spark, violations.path(lake.home, view)):
        pairs.append((f"{view}_violations", violations.decoded(lake.home, view, close)))
    if table_log.is_delta(spark, repair_tables.repairs_path(lake.home, view)):
        pairs.append((f"{view}_repairs", read.repairs_decoded(lake.home, view)))

    def rows(frame) -> Counter:
        return Counter(json.dumps(r.asDict(recursive=True), default=str, sort_keys=True) for r in frame.collect())

    for name, frame in pairs:
        table = spark.table(name)
        assert table.columns == frame.columns, (name, table.columns, frame.columns)
        assert rows(table) == rows(frame), name
