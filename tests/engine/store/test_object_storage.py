"""A home on object storage, end to end: every command of the CLI on ``--home s3a://bucket/lake``
against a real S3-API server (moto's, on this machine), with an input by s3a:// URI, a crash
and its re-run, the runner, an RSEP-QL query, a vacuum and time travel; each answer the same multiset a local
home gives for the same steps (decision 0038).

The s3a home's commands run in processes of their own: the test session's Spark has no
hadoop-aws, and an s3a home is what makes a fresh session add it. The local home's run in
this process. Marked long: a fresh JVM a command, each resolving its jars and reaching S3.
"""
from __future__ import annotations

import csv
import io
import json
import socket
from collections import Counter

import pytest

from tests.cli.helpers import simple_view
from tests.conftest import CliRunner, ProcessCli

EX = "http://example.org/"
BUCKET = "lake"

pytestmark = [pytest.mark.slow, pytest.mark.long, pytest.mark.minutes(40)]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def s3(monkeypatch):
    """moto's S3 server on a free port of the loopback address, a bucket made, and the AWS
    variables set the standard way for the commands' processes; stopped afterwards."""
    boto3 = pytest.importorskip("boto3")
    server_module = pytest.importorskip("moto.server")
    port = _free_port()
    server = server_module.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    for name, value in (("AWS_ENDPOINT_URL", endpoint), ("AWS_ENDPOINT_URL_S3", endpoint),
                        ("AWS_ACCESS_KEY_ID", "testing"), ("AWS_SECRET_ACCESS_KEY", "testing"),
                        ("AWS_REGION", "us-east-1"), ("AWS_DEFAULT_REGION", "us-east-1")):
        monkeypatch.setenv(name, value)
    client = boto3.client("s3", endpoint_url=endpoint, aws_access_key_id="testing",
                          aws_secret_access_key="testing", region_name="us-east-1")
    client.create_bucket(Bucket=BUCKET)
    try:
        yield client
    finally:
        server.stop()


def _items(prefix: str, first: int, count: int) -> str:
    return "".join(json.dumps({"s": f"<{EX}{prefix}{i}>", "p": f"<{EX}knows>", "o": f"<{EX}{prefix}{i + 1}>",
                               "ts": 1000 * i + 500}) + "\n" for i in range(first, first + count))


def _lines(text: str) -> Counter:
    return Counter(line for line in text.splitlines() if line.strip())


def _history(text: str) -> list[tuple[str, ...]]:
    """history's close, mode, admitted, expired, derived, renewed per close (not the
    versions: a crashed close undone adds versions the uninterrupted run has not)."""
    rows = [line.split() for line in text.splitlines()[1:] if line.strip()]
    return [(r[0], r[2], r[3], r[4], r[5], r[6]) for r in rows]


def _csv(text: str) -> Counter:
    return Counter(tuple(row) for row in csv.reader(io.StringIO(text)))


def test_an_s3a_home_answers_as_a_local_home(s3, spark, tmp_path, capsys, monkeypatch):
    work = tmp_path / "work"
    view = simple_view(work)
    view.write_text(view.read_text() + "readable_copy: true\n")  # its copy for readers outside Spark, on S3 too
    (work / "a.jsonl").write_text(_items("p", 0, 6))  # into the s3a home by its s3a:// URI
    (work / "b.jsonl").write_text(_items("q", 6, 4))  # by its local path, into both homes
    (work / "landing").mkdir()
    (work / "landing" / "c.jsonl").write_text(_items("r", 10, 3))  # for the runner
    s3.put_object(Bucket=BUCKET, Key="incoming/a.jsonl", Body=(work / "a.jsonl").read_bytes())
    s3.put_object(Bucket=BUCKET, Key="landing/c.jsonl", Body=(work / "landing" / "c.jsonl").read_bytes())

    remote = ProcessCli(f"s3a://{BUCKET}/lake", memory="2g")
    local = CliRunner(tmp_path / "lake", capsys)

    def both(*args: str, s3a_args: tuple[str, ...] | None = None) -> tuple[str, str]:
        return remote(*(s3a_args or args)), local(*args)

    assert "applied migrations" in remote("init")
    local("init")
    both("view", "create", str(view))
    on_s3, here = both("ingest", "s", str(work / "a.jsonl"), s3a_args=("ingest", "s", f"s3a://{BUCKET}/incoming/a.jsonl"))
    assert "6 items, 0 quarantined (ingest #1)" in on_s3 and "6 items, 0 quarantined (ingest #1)" in here
    on_s3, here = both("ingest", "s", str(work / "b.jsonl"))
    assert "4 items, 0 quarantined (ingest #2)" in on_s3
    both("slide", "v", "--until", "6000")

    # killed after publishing close 7000, before recording it; the re-run redoes it
    monkeypatch.setenv("REASONLAKE_CRASH_AFTER", "publish")
    remote("slide", "v", "--until", "9000", expect=70)
    monkeypatch.delenv("REASONLAKE_CRASH_AFTER")
    both("slide", "v", "--until", "9000")

    # the runner: a folder of landing files on S3 (a local folder for the local home)
    on_s3, here = both("run", "v", "--source", str(work / "landing"),
                       s3a_args=("run", "v", "--source", f"s3a://{BUCKET}/landing/"))
    assert on_s3 == here and "1 files, 3 items, 0 quarantined" in here, (on_s3, here)

    on_s3, here = both("history", "v")
    assert _history(on_s3) == _history(here) and len(_history(here)) >= 8
    versions = {line.split()[0]: line.split()[1] for line in on_s3.splitlines()[1:] if line.strip()}

    on_s3, here = both("export", "v")
    assert _lines(on_s3) == _lines(here) and _lines(here)
    on_s3, here = both("export", "v", "--close", "1970-01-01T00:00:06Z")
    assert _lines(on_s3) == _lines(here) and _lines(here)
    early = remote("export", "v", "--version", versions["1970-01-01T00:00:06.000Z"])
    assert _lines(early) == _lines(here)

    query = "SELECT subject, predicate, object, inferred FROM v"
    on_s3, here = both("sql", query, "--format", "csv")
    assert _csv(on_s3) == _csv(here) and len(_csv(here)) > 1

    on_s3, here = both("changes", "v", "--from", "1970-01-01T00:00:04Z", "--to", "1970-01-01T00:00:12Z")
    assert _lines(on_s3) == _lines(here) and _lines(here)

    both("vacuum", "--retain", "0s")
    gone = remote("export", "v", "--close", "1970-01-01T00:00:06Z", expect=1)
    assert gone == "" and "RL180" in remote.last_err and "vacuum" in remote.last_err, remote.last_err
    local("export", "v", "--close", "1970-01-01T00:00:06Z", expect=1)
    on_s3, here = both("export", "v")
    assert _lines(on_s3) == _lines(here)

    # an RSEP-QL query consuming what it matched, evaluated in two runs (processes, on S3):
    # its answers and what it consumed are tables of the home
    from tests.rspql import test_event_patterns as rsep

    query, stream = rsep.consuming(work / "rsep", "CHRONOLOGICAL", stream="offers")
    both("register", str(query))
    both("ingest", "offers", str(stream))
    both("slide", "out", "--until", "5000")
    both("slide", "out", "--until", "8000")
    on_s3, here = both("sql", "SELECT * FROM out", "--format", "csv")
    assert _csv(on_s3) == _csv(here) and len(_csv(here)) == 1 + len(rsep.CONSUMED["CHRONOLOGICAL"]), (on_s3, here)

    # what the home holds on S3: its tables, the writer claim, the runner's checkpoint
    listed = s3.list_objects_v2(Bucket=BUCKET, Prefix="lake/", Delimiter="/")
    folders = {p["Prefix"].split("/")[1] for p in listed.get("CommonPrefixes", [])}
    assert {"events", "mat_v", "view_state", "leases", "_writer", "_runs", "readable_v", "rspql_out",
            "rspql_consumed"} <= folders, folders

    # the view's readable copy, written through Spark on S3, read by delta-rs with the standard
    # AWS settings: what the local home's copy and `sql` show
    import deltalake

    from reasonlake.engine.store import object_store

    shown = ("subject", "predicate", "object", "inferred")
    on_s3 = deltalake.DeltaTable(f"s3://{BUCKET}/lake/readable_v",
                                 storage_options=object_store.storage_options(object_store.settings()))
    here = deltalake.DeltaTable(str(tmp_path / "lake" / "readable_v"))
    copies = [Counter((r["subject"], r["predicate"], r["object"], str(r["inferred"]).lower())
                      for r in t.to_pyarrow_table().to_pylist()) for t in (on_s3, here)]
    want = _csv(local("sql", f"SELECT {', '.join(shown)} FROM v", "--format", "csv"))
    del want[shown]  # the header
    assert copies[0] == copies[1] == Counter((a, b, c, d.lower()) for a, b, c, d in want) and want, copies
