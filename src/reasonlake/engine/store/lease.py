"""One writer per view: a lease row in the home's ``leases`` table, taken by a Delta MERGE.

Two slides of one view that overlap (a scheduled slide still running when the next starts,
a rebuild during a slide) would each publish from the state it read, and one would undo
the other. Object stores have no file locks, so the lock is a Delta row: a command that
writes a view's tables (slide, rebuild, repair, ``view create`` of a changed view, the
runner's closes) first takes the view's lease with a MERGE that succeeds only where the
row is free, expired or already its own, then reads the row back: whoever's name is there
holds it. Two MERGEs racing for the row both read its file, so Delta lets one commit and
the other fail with a concurrent-modification error; that one retries and finds the row
taken. Where the driver can commit to the table itself (the home's access mode: a local home, on
a classic session or a Spark Connect one whose server shares this machine's files) the
same compare-and-set runs without a Spark job: the driver reads the few rows, decides, and
commits their replacement in a transaction that read the whole table (or, through
delta-rs, only as the very next version), so a commit by anyone since conflicts the same.

A lease lasts ``REASONLAKE_LEASE_SECONDS`` (default 60) and the holder renews it from a
background thread while it writes, so a killed holder blocks the view for at most that
long, and at once on the same machine (a holder whose process is gone is free to take).
A process keeps the lease between its commands while it is fresh (a loop of ``slide``
calls pays for one MERGE, not one per call); the CLI hands it back when a command ends.
A holder that finds at renewal that someone else took the row (it was stopped longer than
the lease, e.g. a suspended machine) stops before its next publish.

Ingests take a lease of their own, the home's (``INGESTS``), only while they commit: each
reads the next ingest number and the term dictionary and appends to both, so they commit
one at a time and wait for each other (``REASONLAKE_INGEST_WAIT``). Waiters (an ingest, a
command with ``--wait``) queue with a ticket row each and take a free lease in turn
(``_decide``; where the driver commits the table). Threads of one process
share its name in the row, so each key also has a lock that keeps them apart.

The machines' clocks are trusted to agree within a few seconds of the lease's length.
"""
from __future__ import annotations

import os
import socket
import threading
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, replace

import polars as pl

from reasonlake import settings
from reasonlake.engine.store import access, session_marks
from reasonlake.engine.store.home import Home
from reasonlake.errors import ConcurrentWriteError, WriterBusyError
from reasonlake.plan.durations import format_time

TABLE = "leases"
# who this process is in the leases table: host, process id, and a token (pids are reused)
HOLDER = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def lease_ms() -> int:
    return int(settings.number("REASONLAKE_LEASE_SECONDS") * 1000)


@dataclass
class _Held:
    home: Home
    until: int  # epoch ms the row says the lease ends
    depth: int = 0  # nested writing() blocks (a view create that rebuilds)
    lost: str | None = None  # who took the row from us, seen at a renewal
    stop: threading.Event | None = None  # set: the renewing thread ends


# (home root, view) -> the lease this process holds there
_HELD: dict[tuple[str, str], _Held] = {}
_LOCK = threading.Lock()
# (home root, view) -> the lock one thread of this process holds while it writes there: the
# lease row names the process, so it alone cannot keep two threads apart
_THREADS: dict[tuple[str, str], threading.RLock] = {}

# The lease of the home's ingests, under a name no view can have: an ingest reads the next
# ingest number and the term dictionary, then appends to both, so two at once would give
# two files one number and a term two rows. It is held only while an ingest commits.
INGESTS = "(ingests)"


def ingest_wait_s() -> float:
    """How long an ingest waits for another one's commit: REASONLAKE_INGEST_WAIT, default 600."""
    return settings.number("REASONLAKE_INGEST_WAIT")


@dataclass(frozen=True)
class Holder:
    holder: str
    since: int
    until: int
    command: str

    @property
    def host(self) -> str:
        return self.holder.split(":", 1)[0]

    @property
    def pid(self) -> int | None:
        parts = self.holder.split(":")
        return int(parts[1]) if len(parts) >= 2 and parts[1].isdigit() else None

    def gone(self) -> bool:
        """Whether the holder is a process of this machine that no longer runs."""
        if self.host != socket.gethostname() or self.pid is None or self.holder == HOLDER:
            return False
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            return False
        return False


def _now() -> int:
    return int(time.time() * 1000)


def _quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def holders(home: Home, view: str) -> list[Holder]:
    rows = home.spark.sql(
        f"SELECT holder, since, until, command FROM {home.sql_name(TABLE)} WHERE view = {_quote(view)}").collect()
    return [Holder(r.holder, r.since, r.until, r.command) for r in rows]


def _row(view: str, since: int, until: int, command: str) -> pl.DataFrame:
    return pl.DataFrame({"view": [view], "holder": [HOLDER], "since": [since], "until": [until],
                         "command": [command]})


def _live(rows: pl.DataFrame, key: str, now: int) -> list[Holder]:
    """The rows of ``key`` held by another process that runs (not ended, not gone)."""
    found = [Holder(r["holder"], r["since"], r["until"], r["command"])
             for r in rows.filter(pl.col("view") == key).iter_rows(named=True)]
    return [h for h in found if h.holder != HOLDER and h.until >= now and not h.gone()]


def _decide(rows: pl.DataFrame, view: str, command: str,
            waiting_since: int | None = None) -> tuple[pl.DataFrame | None, Holder | None]:
    """The table's rows once this process holds the view's lease (None: it cannot), and who
    holds it otherwise: a row of someone else that runs and whose process is not gone.

    ``waiting_since``: this process waits for the lease since then (``take`` with a wait).
    It then keeps a ticket row (``_queue``) while it waits, and a free lease goes to the
    longest waiter: without the queue, whoever asks first after a release takes it, and a
    process that ingests in a loop takes it again and again before the others' next poll."""
    now = _now()
    mine = rows.filter(pl.col("view") == view)
    ours = [r["since"] for r in mine.iter_rows(named=True) if r["holder"] == HOLDER and r["until"] >= now]
    holder = None if ours else next(iter(_live(rows, view, now)), None)
    first = (waiting_since if waiting_since is not None else now, HOLDER)
    # the longest waiter first, whatever order the table's files give its rows in
    ahead = [] if ours else sorted((h for h in _live(rows, _queue(view), now) if (h.since, h.holder) < first),
                                   key=lambda h: (h.since, h.holder))
    if holder is not None or ahead:
        waiter = None if holder is not None else replace(ahead[0], command=f"{ahead[0].command} (waiting for it)")
        return _ticket(rows, view, command, waiting_since, now), holder or waiter
    taken = _row(view, ours[0] if ours else now, now + lease_ms(), command)
    rest = rows.filter((pl.col("view") != view) & ~((pl.col("view") == _queue(view)) & (pl.col("holder") == HOLDER)))
    return pl.concat([rest, taken]), None


def _queue(view: str) -> str:
    """The key of the tickets of those waiting for ``view``'s lease (no view name has a space)."""
    return f"{view} (waiting)"


def _ticket(rows: pl.DataFrame, view: str, command: str, waiting_since: int | None, now: int) -> pl.DataFrame | None:
    """The rows with this process's ticket for ``view`` made or renewed (None: nothing to
    commit: it does not wait, or its ticket runs for more than half a lease yet). A ticket
    lasts a lease, so one left by a waiter killed on another machine holds the queue up for
    at most that long."""
    if waiting_since is None:
        return None
    key = _queue(view)
    ticket = (pl.col("view") == key) & (pl.col("holder") == HOLDER)
    held = rows.filter(ticket)
    if not held.is_empty() and held["until"][0] - now > lease_ms() // 2:
        return None
    return pl.concat([rows.filter(~ticket), _row(key, waiting_since, now + lease_ms(), command)])


def _merge(home: Home, view: str, command: str, free: tuple[str, ...]) -> bool:
    """The same as ``_decide`` through Spark (a session or a path the driver cannot commit
    to): take or renew the row where it is free (none, expired, ours, or held by one of
    ``free``, holders known to be gone). Whether it is ours now."""
    now = _now()
    frees = "".join(f" OR t.holder = {_quote(h)}" for h in free)
    row = home.spark.sql(f"""
        MERGE INTO {home.sql_name(TABLE)} t
        USING (SELECT {_quote(view)} AS view, {_quote(HOLDER)} AS holder, {now} AS since,
                      {now + lease_ms()} AS until, {_quote(command)} AS command) s
        ON t.view = s.view
        WHEN MATCHED AND (t.holder = s.holder OR t.until < {now}{frees}) THEN UPDATE SET
            since = CASE WHEN t.holder = s.holder AND t.until >= {now} THEN t.since ELSE s.since END,
            holder = s.holder, until = s.until, command = s.command
        WHEN NOT MATCHED THEN INSERT *""").first()
    # Delta answers with the rows it updated or inserted: one when the row is ours now
    return row is not None and row["num_affected_rows"] > 0


def _attempt_through_spark(home: Home, view: str, command: str, free: tuple[str, ...]):
    """(holder, free): None when the lease is ours now; else who holds it, and the holders
    found gone (try again with them) or the same ``free`` (busy)."""
    if _merge(home, view, command, free):
        return None, free
    now = _now()
    others = [h for h in holders(home, view) if h.holder != HOLDER and h.until >= now]
    gone = tuple(h.holder for h in others if h.gone())
    if not others or (gone and not set(gone) <= set(free)):
        return _AGAIN, gone  # it ended meanwhile, or a holder of this machine is gone: again
    return others[0], free


_AGAIN = object()


def _attempt(home: Home, view: str, command: str, waiting_since: int | None = None) -> Holder | None:
    """One try at the lease; None when this process holds it now, else who does (or waits
    for it ahead of this process: ``_decide``)."""
    free: tuple[str, ...] = ()
    for _ in range(20):
        try:
            try:  # a compare-and-set commit from the driver: no Spark job
                return home.access.rewrite_small(
                    home.path(TABLE), lambda rows: _decide(rows, view, command, waiting_since))
            except access.Unusable:
                other, free = _attempt_through_spark(home, view, command, free)
                if other is not _AGAIN:
                    return other
        except Exception as exc:  # lost a race: another taker committed since our read
            if not ConcurrentWriteError.race_in(exc):
                raise
            time.sleep(0.05 + 0.2 * (uuid.uuid4().int % 100) / 100)
    raise ConcurrentWriteError(f"could not take the lease of view '{view}': other commands kept taking it "
                               "at the same moment; run this again")


def _hand_back(home: Home, view: str) -> None:
    """Our row for the view, if it is still ours, ended (until = 0)."""
    def change(rows: pl.DataFrame):
        ours = (pl.col("view") == view) & (pl.col("holder") == HOLDER)
        if rows.filter(ours).is_empty():
            return None, None
        return rows.with_columns(pl.when(ours).then(0).otherwise(pl.col("until")).alias("until")), None

    try:
        home.access.rewrite_small(home.path(TABLE), change)
    except access.Unusable:
        home.spark.sql(f"UPDATE {home.sql_name(TABLE)} SET until = 0 "
                       f"WHERE view = {_quote(view)} AND holder = {_quote(HOLDER)}")


def take(home: Home, view: str, command: str, wait_s: float = 0) -> int:
    """Take the view's lease for this process, waiting up to ``wait_s`` seconds for
    another holder (in turn with other waiters: ``_decide``); returns the epoch ms it lasts
    until. Raises WriterBusyError."""
    deadline = time.monotonic() + wait_s
    waiting_since = _now() if wait_s > 0 else None
    while True:
        started = _now()  # the row's lease runs from a moment after this
        other = _attempt(home, view, command, waiting_since)
        if other is None:
            return started + lease_ms()
        if time.monotonic() >= deadline:
            if waiting_since is not None:
                _leave_queue(home, view)
            raise _busy(view, other, wait_s)
        # a waiter's poll is a read of a few rows in the driver (no commit): often, so a
        # released lease is taken soon, and by the longest waiter
        time.sleep(min(0.5, max(0.1, deadline - time.monotonic())))


def _leave_queue(home: Home, view: str) -> None:
    """Drop this process's ticket for ``view`` (it stopped waiting); left, it would end by
    itself within a lease."""
    def change(rows: pl.DataFrame):
        ticket = (pl.col("view") == _queue(view)) & (pl.col("holder") == HOLDER)
        return (None if rows.filter(ticket).is_empty() else rows.filter(~ticket)), None

    try:
        home.access.rewrite_small(home.path(TABLE), change)
    except Exception:  # access.Unusable (no tickets there) or a race: it ends by itself
        pass


def _busy(view: str, other: Holder, waited: float) -> WriterBusyError:
    where = f"process {other.pid} on {other.host}" if other.pid is not None else other.holder
    after = f" after waiting {waited:g}s" if waited else ""
    if view == INGESTS:
        return WriterBusyError(
            f"another ingest into this home was still committing{after}: {where}, since "
            f"{format_time(other.since)} (its lease runs to {format_time(other.until)} unless renewed); run "
            "this again, or raise REASONLAKE_INGEST_WAIT. Ingests commit one at a time: a lease whose "
            "holder is gone ends by itself")
    return WriterBusyError(
        f"view '{view}' is being written by another command{after}: {other.command or 'a writer'} in {where}, "
        f"since {format_time(other.since)} (its lease runs to {format_time(other.until)} unless renewed); "
        "run this again once it has finished, or add --wait SECONDS to wait for it. One writer per view "
        "at a time: a lease whose holder is gone ends by itself")


@contextmanager
def writing(home: Home, view: str, command: str, *, sticky: bool = True, wait_s: float | None = None):
    """Hold the view's lease around a command that writes its tables (re-entrant); waits up
    to ``wait_s`` (default ``home.writer_wait``) seconds for another holder. ``sticky``: the
    process keeps the lease after the command while it is fresh (a loop of slides pays for
    one take); else it hands it back as the outermost block ends."""
    key = (home.root, view)
    with _LOCK:
        thread_lock = _THREADS.setdefault(key, threading.RLock())
    with thread_lock:
        with _LOCK:
            held = _HELD.get(key)
        if held is None or held.lost or held.until - _now() < lease_ms() // 2:
            until = take(home, view, command, home.writer_wait if wait_s is None else wait_s)
            with _LOCK:
                held = _HELD.setdefault(key, _Held(home, until))
                held.home, held.until, held.lost = home, until, None
        with _LOCK:
            held.depth += 1
            if held.stop is None:
                held.stop = threading.Event()
                threading.Thread(target=_renew, args=(view, command, held, held.stop), daemon=True,
                                 name=f"reasonlake-lease-{view}").start()
        try:
            with session_marks.marked(home.spark):  # the writer's commits say whose they are
                yield
        finally:
            with _LOCK:
                held.depth -= 1
                ended = held.depth == 0
                if ended and held.stop is not None:  # kept while fresh; renewed only while writing
                    held.stop.set()
                    held.stop = None
                if ended and not sticky:
                    _HELD.pop(key, None)
            if ended and not sticky and not held.lost:
                try:
                    _hand_back(home, view)
                except Exception:  # the lease then ends by itself within its length
                    pass


def ingesting(home: Home):
    """Hold the home's ingest lease while an ingest reads the next number and the term
    dictionary and commits (``INGESTS``); waits for another ingest's commit."""
    return writing(home, INGESTS, "ingest", sticky=False, wait_s=ingest_wait_s())


def check(home: Home, view: str) -> None:
    """Before a publish: stop if another writer took the lease meanwhile."""
    held = _HELD.get((home.root, view))
    if held is not None and held.lost:
        raise WriterBusyError(f"view '{view}': this process lost its writer lease to {held.lost} (it was "
                              "stopped longer than the lease lasts), so it stopped before publishing; run "
                              "the command again once the other writer has finished")


def _renew(view: str, command: str, held: _Held, stop: threading.Event) -> None:
    while not stop.wait(lease_ms() / 3000):
        try:
            other = _attempt(held.home, view, command)
        except Exception:  # tried again at the next tick; the lease still runs until then
            continue
        if other is not None:
            held.lost = other.holder
            return
        held.until = _now() + lease_ms()


def release_all() -> None:
    """Hand back every lease this process holds (the end of a CLI command, or of a job)."""
    with _LOCK:
        mine = list(_HELD.items())
        _HELD.clear()
    for (_, view), held in mine:
        if held.stop is not None:
            held.stop.set()
        if held.lost:
            continue
        try:
            _hand_back(held.home, view)
        except Exception:  # the lease then ends by itself within its length
            pass
