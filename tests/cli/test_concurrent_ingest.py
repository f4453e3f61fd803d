"""Ingests at the same time, into one home: every file gets a number of its own, every term
one row in the dictionary, every item one event, and the view holds each item once."""
from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections import Counter

import pytest

from tests.cli.helpers import TYPE, ex, jsonl, simple_view

FILES = 3
ITEMS = 200


def _files(tmp_path):
    """Files that share most of their terms (so two ingests would add the same new term) and
    each have some of their own."""
    out = []
    for k in range(FILES):
        events = [(ex(f"p{i}"), ex("knows"), ex(f"p{i + 1}"), 1000 + i) for i in range(ITEMS)]
        events += [(ex(f"own{k}_{i}"), TYPE, ex("Person"), 2000 + k) for i in range(20)]
        out.append(jsonl(tmp_path / f"in{k}.jsonl", events))
    return out


def _check_home(spark, home, files, view_rows=None):
    from reasonlake.api import Lakehouse

    lake = Lakehouse(str(home), spark=spark)
    ingests = lake.home.table("ingests").collect()
    assert sorted(r.file for r in ingests) == sorted(str(f) for f in files)
    seqs = Counter(r.seq for r in ingests)
    assert all(n == 1 for n in seqs.values()), f"two ingests got one number: {seqs}"
    ids = Counter(r.id for r in lake.home.table("terms").select("id").collect())
    twice = [i for i, n in ids.items() if n > 1]
    assert not twice, f"{len(twice)} term(s) have two rows in the dictionary"
    events = lake.home.table("events").groupBy("file", "ingest_seq").count().collect()
    by_file = {r.file: (r.ingest_seq, r["count"]) for r in events}
    assert by_file == {r.file: (r.seq, r["items"]) for r in ingests}
    assert all(r["items"] == ITEMS + 20 for r in ingests)


def test_threads_of_one_process_ingest_one_at_a_time(cli, spark, tmp_path):
    """The lease names the process, so threads of one (an application calling the API from
    several) are kept apart by a lock of their own."""
    from reasonlake.api import Lakehouse

    files = _files(tmp_path)
    lake = Lakehouse(str(cli.home), spark=spark)
    failures = []

    def one(path):
        try:
            lake.ingest("s", [path])
        except Exception as exc:  # reported below, with the others
            failures.append(exc)

    threads = [threading.Thread(target=one, args=(f,)) for f in files]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures
    _check_home(spark, cli.home, files)


@pytest.mark.slow
@pytest.mark.long
@pytest.mark.minutes(3)
def test_ingest_processes_at_once_number_files_apart_and_add_each_term_once(cli, spark, tmp_path):
    """Separate processes (each its own Spark and JVM) ingest at the same moment into one
    stream a view reads: they queue on the home's ingest lease, and the view at the close
    holds every item once (a term with two dictionary rows would repeat its triples)."""
    cli("view", "create", str(simple_view(tmp_path)))
    files = _files(tmp_path)
    env = dict(os.environ, REASONLAKE_DRIVER_MEMORY="1g")
    procs = [subprocess.Popen([sys.executable, "-m", "reasonlake.cli", "--home", str(cli.home), "ingest", "s",
                               str(f)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for f in files]
    outputs = [p.communicate(timeout=600) for p in procs]
    for p, (out, err) in zip(procs, outputs):
        assert p.returncode == 0, f"exit {p.returncode}\n{out}\n{err[-3000:]}"
    _check_home(spark, cli.home, files)
    cli("slide", "v", "--until", "1970-01-01T00:00:04Z")
    lines = Counter(cli("export", "v").splitlines())
    assert lines and max(lines.values()) == 1, [line for line, n in lines.items() if n > 1][:5]
    # the window (0, 4s] holds every item: ITEMS links, 20 typed individuals a file, their types
    assert sum(1 for line in lines if ex("knows") in line) == ITEMS
    assert sum(1 for line in lines if "/own" in line and ex("Agent") in line) == 20 * FILES
