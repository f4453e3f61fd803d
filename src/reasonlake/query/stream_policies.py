"""What a registered query streams out at a close, and at which closes it reports: named
apart from the operators (``streams``) so that a view's declaration reads them without
loading the frames."""
from __future__ import annotations

from enum import StrEnum


class StreamOperator(StrEnum):
    """RSP-QL's relation-to-stream operators (Dell'Aglio, definitions 5.9-5.11)."""

    RSTREAM = "rstream"  # the whole answer at each reported close
    ISTREAM = "istream"  # the solutions not in the answer at the previous reported close
    DSTREAM = "dstream"  # the solutions of the previous reported close no longer there


class ReportPolicy(StrEnum):
    """At which of the view's closes a query reports (SECRET's strategies, as RSP-QL takes them)."""

    ON_CLOSE = "on-close"  # every close the view publishes
    ON_CHANGE = "on-change"  # a close whose answer differs from the previous close's
    NON_EMPTY = "non-empty"  # a close where the view holds at least one triple
