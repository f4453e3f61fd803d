"""The streaming runner over a Kafka topic, through `reasonlake run --source kafka` in a
process of its own (the embedded session adds Spark's Kafka connector) against a real broker
(tests/engine/kafka/broker.py): messages arriving between runs give the same events,
quarantine, closes and view as `ingest` + `slide` of the same rows as files, and each
rejected message is named by its offset."""
from __future__ import annotations

import json

import pytest
from tests.conftest import ProcessCli, write
from tests.engine.jobs.test_runner import TBOX, TYPE, VIEW, ex, lakehouse, same

BAD = "{bad row"
# a row spread over lines (valid JSON: taken), and a broken one (quarantined as one message)
SPREAD = '{"s": "<http://example.org/spread>",\n "p": "<http://example.org/knows>",\n "o": "<http://example.org/x>", "ts": 2900}'
BROKEN = '{"s": "<http://example.org/broken>",\n "p": '


def messages(n: int) -> list[str]:
    rows = [{"s": ex(f"p{n}{i}"), "p": ex("knows"), "o": ex(f"p{n}{i + 1}"), "ts": 1000 * n + 200 * i}
            for i in range(3)]
    rows.append({"s": ex(f"s{n}"), "p": TYPE, "o": ex("Student"), "ts": 1000 * n + 500})
    return [json.dumps(r) for r in rows] + [BAD]


@pytest.fixture
def broker(tmp_path):
    from tests.engine.kafka.broker import Broker

    folder = tmp_path / "kafka"
    folder.mkdir()
    running = Broker(folder)
    yield running
    running.stop()


@pytest.mark.slow
@pytest.mark.long
@pytest.mark.minutes(4)
def test_runner_over_kafka_equals_ingest_and_slide(spark, tmp_path, broker):
    write(tmp_path / "v.ttl", TBOX)
    write(tmp_path / "v.yaml", VIEW)
    lake = lakehouse(spark, tmp_path, "run")
    run = ProcessCli(tmp_path / "run")
    args = ("run", "v", "--source", "kafka", "--kafka-bootstrap", broker.bootstrap, "--topic", "s")

    first = messages(1) + messages(2) + [SPREAD, BROKEN]  # offsets 0-11
    broker.produce("s", first)
    out = run(*args)
    assert "1 partition ranges, 9 items, 3 quarantined; closes processed: v 2" in out, out
    second = messages(3) + messages(4)  # offsets 12-21
    broker.produce("s", second)
    assert "closes processed: v 2" in run(*args)
    assert "0 partition ranges, 0 items" in run(*args)  # nothing new: nothing read twice

    # each rejected message is named by its partition, the run's offsets and its line in
    # them (line n is offset first + n - 1)
    bad = spark.read.format("delta").load(lake.home.path("quarantine"))
    found = sorted((r.file, r.line, r.raw) for r in bad.collect())
    assert found == sorted([("kafka:s/0/0-11", 5, BAD), ("kafka:s/0/0-11", 10, BAD),
                            ("kafka:s/0/0-11", 12, BROKEN),
                            ("kafka:s/0/12-21", 5, BAD), ("kafka:s/0/12-21", 10, BAD)]), found
    events = spark.read.format("delta").load(lake.home.path("events"))
    spread = events.where("s = '<http://example.org/spread>'").select("file", "line").collect()
    assert [(r.file, r.line) for r in spread] == [("kafka:s/0/0-11", 11)], spread

    reference = lakehouse(spark, tmp_path, "reference")
    rows = [first[:-1], second]  # the broken message has no file equivalent
    files = [write(tmp_path / "files" / f"part-{n}.jsonl", "\n".join(m.replace("\n", " ") for m in batch) + "\n")
             for n, batch in enumerate(rows)]
    reference.ingest("s", files)
    reference.slide("v", until=4600)
    keep = ("stream", "s", "p", "o", "s_id", "p_id", "o_id", "ts", "ts_day")
    same(events.select(*keep), reference.spark.read.format("delta").load(reference.home.path("events"))
         .select(*keep), "events")
    assert [(h.close, h.admitted, h.derived) for h in lake.history("v")] == \
        [(h.close, h.admitted, h.derived) for h in reference.history("v")] != []
    exported = list(lake.export("v"))
    assert f"{ex('p40')} {TYPE} {ex('Person')} ." in exported
    assert exported == list(reference.export("v"))


def test_messages_are_named_by_their_offsets_across_gaps():
    """Offsets skip (transaction markers, compaction): line n of a partition range is still the
    record at offset first + n - 1, for items read as columns, items read row by row, JSON
    errors and messages that span lines."""
    import pyarrow as pa

    from reasonlake.engine.ingest.spark_ingest import _parse_messages

    good = [json.dumps({"s": ex(f"a{i}"), "p": ex("knows"), "o": ex("b"), "ts": 1000 + i}) for i in range(3)]
    values = [good[0], BAD, SPREAD, good[1], "", BROKEN, good[2] + "  "]
    offsets = [100, 103, 104, 110, 111, 115, 120]
    batch = pa.RecordBatch.from_pydict({"topic": ["t"] * 7, "partition": [3] * 7, "offset": offsets,
                                        "value": [v.encode() for v in values]})
    rows = [r for out in _parse_messages()([batch]) for r in out.to_pylist()]
    assert {r["file"] for r in rows} == {"kafka:t/3/100-120"}
    items = sorted((r["line"], r["s"]) for r in rows if r["kind"] == "item")
    assert items == [(1, ex("a0")), (5, "<http://example.org/spread>"), (11, ex("a1")), (21, ex("a2"))], items
    rejected = sorted((r["line"], r["raw"]) for r in rows if r["kind"] == "rejected")
    assert rejected == [(4, BAD), (16, BROKEN)], rejected
    summary = [(r["line"], r["event"], r["ts"]) for r in rows if r["kind"] == "file"]
    assert summary == [(4, 2, 2900)], summary  # items, rejected, the newest time (SPREAD's)
