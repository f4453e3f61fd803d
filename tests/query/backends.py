"""A view's triples at a close as one backend reads them: the driver's, or Spark's (the view
then does not fit the driver: ``REASONLAKE_DRIVER_READ_MB=0``)."""
from __future__ import annotations

from reasonlake.engine.reads import query_read


def view_triples(home, view: str, close: int, backend: str, monkeypatch):
    if backend == "spark":
        monkeypatch.setenv("REASONLAKE_DRIVER_READ_MB", "0")
    else:
        monkeypatch.delenv("REASONLAKE_DRIVER_READ_MB", raising=False)
    triples, at = query_read.triples(home, view, close)
    assert (at, triples.backend) == (close, backend)
    return triples
