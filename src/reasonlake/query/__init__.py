"""One-off SPARQL queries over a view's content at a close, compiled onto a backend.

``run(triples, text, frames)``: the query parsed to rdflib's algebra (``parse``), compiled
(``planner``) onto the frames of a dialect over ``triples`` (subject, predicate, object in
N-Triples text): Polars LazyFrames by default (``polars_frames``), Spark DataFrames with
``query/dialects/spark_frames``; the answer collected. rdflib parses; it does not evaluate
(decisions 0035, 0045).
"""
from __future__ import annotations

__all__ = ["Answer", "run"]


def __getattr__(name: str):
    # the package's face loads the planner on first use: a view's declaration reads the
    # stream policies (``stream_policies``) without it
    if name in __all__:
        # imported when called: it loads polars, rdflib
        from reasonlake.query import answer

        return getattr(answer, name)
    raise AttributeError(name)
