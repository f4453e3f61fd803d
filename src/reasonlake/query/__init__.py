"""One-off SPARQL queries over a view's content at a close, compiled onto Polars.

``run(triples, text)``: the query parsed to rdflib's algebra (``parse``), compiled onto
LazyFrames over ``triples`` (``polars_plan``: subject, predicate, object in N-Triples
text) and collected. rdflib parses; it does not evaluate (decision 0035).
"""
from __future__ import annotations

from reasonlake.query.answer import Answer, run

__all__ = ["Answer", "run"]
