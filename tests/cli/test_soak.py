"""Soak: four ingest processes and two slide processes on two views of one stream, in a
loop for a few minutes, each its own Python and JVM. Afterwards ``rl_events`` holds exactly
the items every ingest reported, each term has one id, every view equals a rebuild of it,
and no command exited other than 0."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections import Counter

import pytest

from tests.cli import soak_worker as worker
from tests.cli.helpers import TYPE, ex, simple_view
from tests.conftest import REPO

# How long the workers loop (their JVMs start within it); the default keeps the slow suite
# bounded, REASONLAKE_SOAK_SECONDS soaks longer by hand.
SECONDS = float(os.environ.get("REASONLAKE_SOAK_SECONDS", "200"))
REPORT = re.compile(r"^(?P<file>\S+): (?P<items>\d+) items, (?P<q>\d+) quarantined \(ingest #(?P<seq>\d+)\)$")


@pytest.mark.slow
@pytest.mark.long
@pytest.mark.minutes(9)
def test_ingests_and_slides_at_once_lose_nothing_and_match_a_rebuild(cli, spark, tmp_path):
    folder = tmp_path / "soak"
    folder.mkdir()
    views = ("soak_a", "soak_b")
    for name, profile in zip(views, ("rdfs-plus", "owl2rl")):
        cli("view", "create", str(simple_view(tmp_path, name=name, profile=profile)))
    deadline = time.time() + SECONDS
    env = dict(os.environ, REASONLAKE_DRIVER_MEMORY="1g")
    roles = [("ingest", str(k)) for k in range(worker.INGESTERS)] + [("slide", v) for v in views]
    procs = [subprocess.Popen([sys.executable, "-m", "tests.cli.soak_worker", role, str(cli.home), str(folder),
                               who, str(deadline)], cwd=REPO, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT)
             for role, who in roles]
    for (role, who), proc in zip(roles, procs):
        out, _ = proc.communicate(timeout=SECONDS + 900)
        assert proc.returncode == 0, f"{role} worker {who} failed:\n{out.decode()[-3000:]}"

    commands = {(role, who): [json.loads(line) for line in (folder / f"log-{role}-{who}.jsonl").read_text()
                              .splitlines()] for role, who in roles}
    failed = [(c["args"], c["code"], c["err"][-500:]) for log in commands.values() for c in log if c["code"] != 0]
    assert not failed, f"commands that did not exit 0: {failed}"
    # the soak overlapped work rather than waited it out (on two cores six JVMs share them)
    for (role, who), log in commands.items():
        assert len(log) >= (2 if role == "ingest" else 1), f"{role} worker {who} ran only {len(log)} command(s)"

    reported = {}
    for k in range(worker.INGESTERS):
        for c in commands[("ingest", str(k))]:
            match = REPORT.match(c["out"].splitlines()[0])
            assert match, f"no ingest report in {c['out']!r}"
            reported[match["file"]] = (int(match["seq"]), int(match["items"]))
    assert reported and all(items == worker.ITEMS for _, items in reported.values())
    assert len({seq for seq, _ in reported.values()}) == len(reported), "two ingests got one number"
    in_events = {r.file: (r.ingest_seq, r.n) for r in cli_rows(
        spark, cli, "SELECT file, ingest_seq, count(*) AS n FROM rl_events GROUP BY file, ingest_seq")}
    assert in_events == reported

    terms = spark.read.format("delta").load(str(cli.home / "terms")).selectExpr(
        "count(*) AS n", "count(DISTINCT id) AS ids", "count(DISTINCT term) AS terms").first()
    assert terms.n == terms.ids == terms.terms, f"a term or an id twice in the dictionary: {terms}"

    until = worker.safe_close(folder)
    for view in views:
        cli("slide", view, "--until", str(until))
        slid = Counter(cli("export", view).splitlines())
        assert f"{ex('p0')} {TYPE} {ex('Agent')} ." in slid  # derived, so the comparison means something
        cli("rebuild", view)
        assert Counter(cli("export", view).splitlines()) == slid, f"view {view} differs from its rebuild"


def cli_rows(spark, cli, query: str):
    """The rows of ``query`` over the home's SQL names (those `reasonlake sql` resolves)."""
    from reasonlake.api import Lakehouse

    return Lakehouse(str(cli.home), spark=spark).sql(query).collect()
