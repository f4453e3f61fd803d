"""The published closes of a view (`view_state`): what readers may see, and where a slide resumes.

Rows are appended, one per processed close, each naming the Delta version of the
materialization that holds exactly that close. A rebuild at a close replaces everything
published at or after it, so the effective lineage is computed from the rows in order.
"""
from __future__ import annotations

from dataclasses import astuple, dataclass, fields

from reasonlake.engine.store import table_cache, table_writes
from reasonlake.engine.store.home import Home
from reasonlake.engine.store.schemas import RECORD_SCHEMA


@dataclass(frozen=True)
class Published:
    seq: int
    close: int
    version: int
    mode: str
    events_seq: int
    admitted: int
    expired: int
    derived: int
    renewed: int
    rounds: int
    late: int
    seconds: float
    violations: int | None = 0  # owl2rl: violations live at this close (None: not recorded)
    repairs: int | None = 0  # newest-wins: explicit items removed at this close
    violations_version: int | None = None  # the violations table's version holding this close's
    expectation_failures: int | None = None  # failed expectations after this close (None: none ran)
    withheld: bool | None = False  # on_failure: fail and one failed: readers keep an earlier close


# the record's fields, as view_state's columns name them
_COLUMNS = [f.name for f in fields(Published)]


def lineage(home: Home, view: str) -> list[Published]:
    return lineage_and_next_seq(home, view)[0]


def readable(home: Home, view: str) -> list[Published]:
    """The lineage readers see: a close withheld by a failed expectation is processed (the
    next slide goes on after it) but not shown; readers keep the last close that passed."""
    return [r for r in lineage(home, view) if not r.withheld]


def lineage_and_next_seq(home: Home, view: str) -> tuple[list[Published], int]:
    """The effective lineage and the seq the next record takes, from one read."""
    records = table_cache.read(home.spark, home.path("view_state"), ("records", view),
                               lambda: _records(home, view))
    effective: list[Published] = []
    for record in records:
        if record.mode in ("rebuild", "repair"):  # both replace the table at their close
            effective = [r for r in effective if r.close < record.close]
        effective.append(record)
    return effective, (records[-1].seq if records else 0) + 1


def _records(home: Home, view: str) -> list[Published]:
    """The view's records by seq; of two with one seq (two writers raced past ``append``'s
    check) the first written counts, as if the second had never been."""
    # sorted here: a few rows per close, and a Spark sort would add a shuffle stage
    rows = home.small_rows("view_state", ["view", *_COLUMNS, "at"], where=("view", view))
    first: dict = {}
    for row in sorted(rows, key=lambda r: (r.seq, r.at)):
        first.setdefault(row.seq, row)
    return [Published(**{k: getattr(row, k) for k in _COLUMNS}) for row in first.values()]




def append(home: Home, view: str, record: Published) -> None:
    """Record a processed close; a record whose seq is already there is not written again
    (a retried call), so the append is idempotent. The catalog's names follow it
    (``catalog.show``, the caller's next step).

    Checked here, against the records at the latest commit, rather than with Delta's
    ``txnAppId``: that asks the table's whole log state for its transactions, a Spark job
    on every close (1.5-1.8 s of a 7 s slide, measured), while the records are usually in
    this process already (``table_cache``)."""
    path = home.path("view_state")
    before = table_cache.latest_commit(home.spark, path)
    records = table_cache.read(home.spark, path, ("records", view), lambda: _records(home, view), commit=before)
    if any(r.seq == record.seq for r in records):
        return
    table_writes.append_rows(home.spark, path, [(view, *astuple(record))], RECORD_SCHEMA)
    # a job sliding close after close reads its lineage back without a Spark read
    table_cache.after_own_commit(home.spark, path, ("records", view), before,
                                 lambda records: [*records, record])


LATEST_SEQ = ("latest seq",)  # the question latest_ingest_seq asks of the cache


def latest_ingest_seq(home: Home) -> int:
    def read() -> int:
        # imported when called: it loads pyarrow, rdflib
        from reasonlake.engine.store import driver_reads

        found = driver_reads.answer(home.spark, {"ingests": (home.path("ingests"), None)},
                                    "SELECT max(seq) AS m FROM {ingests}")
        return found.column("m")[0].as_py() or 0

    return table_cache.read(home.spark, home.path("ingests"), LATEST_SEQ, read)
