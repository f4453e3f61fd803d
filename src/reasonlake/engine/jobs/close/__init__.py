"""One window close of a view, as an object with one method per step (decisions 0004, 0008).

``start`` decides once where the close runs. A ``DriverClose`` starts from the facts this
process kept in the driver after publishing the table's latest commit (``resident``) and
reasons there; a ``SparkClose`` reads the table and runs its rounds through Spark (which
still brings them to the driver when the table and the seed fit its budget:
``spark_rounds.run_fixpoint``). A driver close whose step outgrows the budget hands over to
a Spark close at the rounds (``DriverClose.reason``) and goes on from the table.

The slide job calls the steps in order (``slide.process_close``): expire, admit, repair,
reason, find violations, publish, record. Every step is idempotent, so a re-run after a
crash anywhere gives the table an uninterrupted run gives.
"""
from __future__ import annotations

from reasonlake.engine.jobs.close.common import Close
from reasonlake.engine.jobs.close.driver import DriverClose
from reasonlake.engine.jobs.close.spark import SparkClose
from reasonlake.engine.reason import budget, resident
from reasonlake.engine.steps.compiled import Compiled
from reasonlake.engine.store import state
from reasonlake.engine.store.home import Home

__all__ = ["Close", "DriverClose", "SparkClose", "start"]


def start(home: Home, compiled: Compiled, close: int, last: state.Published | None, upto_seq: int,
          seq: int) -> Close:
    """The close, run in the driver when this process holds the table's facts, or can read
    them itself, and they fit the driver's budget (``budget.enabled``), else on Spark. Repair views always read the
    table: their step changes it in several places."""
    decl = compiled.decl
    facts = None
    if compiled.repair is None:
        facts = resident.take(home, decl.name, decl.fingerprint())
        if facts is None and last is not None:
            facts = resident.load(home, decl.name)
    if facts is not None and budget.enabled(facts.height):
        return DriverClose(home, compiled, close, last, upto_seq, seq, facts=facts)
    return SparkClose(home, compiled, close, last, upto_seq, seq)

