"""One root error class with stable codes.

User errors (exit 1) are mistakes the user can fix: the message names the file, row or field
and the fix. Internal errors (exit 2) are bugs or broken environments.
"""
from __future__ import annotations

import re


class ReasonlakeError(Exception):
    """Root of every error reasonlake raises on purpose."""

    code = "RL000"
    exit_code = 2

    def __init__(self, message: str, *, code: str | None = None):
        super().__init__(message)
        if code is not None:
            self.code = code

    @property
    def message(self) -> str:
        return str(self)


class UserError(ReasonlakeError):
    """Bad input or a request that cannot be honoured as given."""

    code = "RL100"
    exit_code = 1


class ViewDeclarationError(UserError):
    code = "RL110"


class UnknownViewError(UserError):
    code = "RL120"


class IngestError(UserError):
    code = "RL130"


class DuplicateFileError(IngestError):
    code = "RL131"


class QuarantinedRowsError(IngestError):
    """Raised after ingest under --strict when rows went to quarantine (nothing is lost)."""

    code = "RL132"


class TermError(UserError, ValueError):
    """A term that is not valid N-Triples, or is valid but in a position it may not take
    (a ValueError too: parsers catch it per row and keep the row as a rejection)."""

    code = "RL135"

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class TimeFormatError(UserError):
    code = "RL140"


class ViewChangedError(UserError):
    code = "RL150"


class UsageError(UserError):
    """A command's arguments: an option's value, an output path, a triple to explain."""

    code = "RL101"


class HomeError(UserError):
    """The home: not a folder, not writable, not initialised, migrations pending."""

    code = "RL170"


class CloseError(UserError):
    """A close, version or time the view cannot give: not a close, not processed (yet)."""

    code = "RL180"


class SqlError(UserError):
    """`reasonlake sql`: a statement that is not a query, or a mistake in the query."""

    code = "RL190"


class SparqlError(UserError):
    """`reasonlake query`: a SPARQL query that does not parse, or uses a construct the
    compiler does not support yet (named, never answered wrongly)."""

    code = "RL195"


class ConcurrentWriteError(UserError):
    """Another command committed to the same table first (Delta's optimistic concurrency)."""

    code = "RL400"
    # the exceptions Delta raises for a commit that lost a race with another writer's (and
    # delta-rs's, for the driver's commits over Spark Connect: ``rs_commit``)
    RACE = re.compile(r"\b(Concurrent\w+Exception|ProtocolChangedException|MetadataChangedException|CommitFailedError)\b")

    @classmethod
    def race_in(cls, exc: BaseException) -> str | None:
        """The name of the Delta race ``exc`` reports (a Py4J or Spark Connect error), if any."""
        java = getattr(exc, "java_exception", None)  # py4j; pyspark's own classes carry Delta's name
        text = f"{type(exc).__name__} {exc} {java.toString() if java is not None else ''}"
        found = cls.RACE.search(text)
        return found.group(0) if found else None


class WriterBusyError(UserError):
    """Another command holds the view's writer lease (one writer per view)."""

    code = "RL410"


class ForeignCommitError(UserError):
    """A view's materialization was written outside reasonlake since its last close."""

    code = "RL420"


class ExpectationFailedError(UserError):
    """A view with ``on_failure: fail`` published a close whose expectations failed: the
    close is recorded but withheld, readers keep the last close that passed."""

    code = "RL500"


class EnvironmentSetupError(ReasonlakeError):
    """Java missing, jars unresolvable: says what to install."""

    code = "RL200"
    exit_code = 1


class TermCollisionError(ReasonlakeError):
    """Two different RDF terms hashed to one 64-bit id: never merged silently."""

    code = "RL300"


class RecursiveRepairError(ViewDeclarationError):
    """A negative inclusion whose inconsistency-normal form is infinite, and no repair_depth."""

    code = "RL160"
