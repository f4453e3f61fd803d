"""A query over a small Turtle text, answered by reasonlake's compiler (the driver's
dialect) and by rdflib's own engine, each as a multiset of rows of N-Triples terms."""
from __future__ import annotations

from collections import Counter

import polars as pl
import rdflib

from reasonlake.query import run


def triples_of(graph: rdflib.Graph) -> pl.DataFrame:
    return pl.DataFrame([(s.n3(), p.n3(), o.n3()) for s, p, o in graph],
                        schema=["subject", "predicate", "object"], orient="row")


def ours(turtle: str, query: str) -> Counter:
    return Counter(run(triples_of(rdflib.Graph().parse(data=turtle, format="turtle")), query).frame.rows())


def rdflibs(turtle: str, query: str) -> Counter:
    graph = rdflib.Graph().parse(data=turtle, format="turtle")
    return Counter(tuple(None if v is None else v.n3() for v in row) for row in graph.query(query))


def on_spark(spark, turtle: str, query: str) -> Counter:
    """The same as ``ours``, answered by Spark's dialect (``query/dialects/spark_frames``)."""
    from reasonlake.query.dialects.spark_frames import SparkFrames

    frame = triples_of(rdflib.Graph().parse(data=turtle, format="turtle"))
    return Counter(run(spark.createDataFrame(frame.to_arrow()), query, SparkFrames(spark)).frame.rows())
