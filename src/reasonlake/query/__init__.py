"""One-off SPARQL queries over a view's content at a close, compiled onto a backend.

``run(triples, text, frames)``: the query parsed to rdflib's algebra (``parse``), compiled
(``planner``) onto the frames of a dialect over ``triples`` (subject, predicate, object in
N-Triples text): Polars LazyFrames by default (``polars_frames``), Spark DataFrames with
``query/dialects/spark_frames``; the answer collected. rdflib parses; it does not evaluate
(decisions 0035, 0045).
"""
from __future__ import annotations

from reasonlake.query.answer import Answer, run

__all__ = ["Answer", "run"]
