"""A query run over a triples frame, and its answer: solutions, a boolean or a graph."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone

import polars as pl
from rdflib import Variable
from rdflib.plugins.sparql.algebra import traverse
from rdflib.plugins.sparql.parserutils import CompValue

from reasonlake.errors import SparqlError
from reasonlake.query import bound as query_bound
from reasonlake.query import builtins, construct, events, parse
from reasonlake.query import terms as T
from reasonlake.query.dialects.polars_frames import PolarsFrames
from reasonlake.query.planner import Planner
from reasonlake.query.solutions import TIMES, UNIT


@dataclass
class Answer:
    """``form`` "SELECT": ``variables`` and ``frame`` (one String column each, N-Triples,
    null unbound), in the query's order; "ASK": ``boolean``; "CONSTRUCT": ``triples``
    (sorted N-Triples lines), ``graph`` (the same as columns), and ``frame``, the solutions
    the template was instantiated with."""

    form: str
    variables: list[str] = field(default_factory=list)
    frame: pl.DataFrame | None = None
    boolean: bool | None = None
    triples: list[str] = field(default_factory=list)
    graph: pl.DataFrame | None = None  # CONSTRUCT: the triples as subject, predicate, object
    template: list | None = None  # CONSTRUCT: the template (``frame``: the solutions it was given)
    close: int | None = None  # the close read, when the triples were a view's

    def to_spark(self, spark):
        """The solutions (or the constructed triples) as a Spark DataFrame of strings."""
        if self.form == "ASK":
            return spark.createDataFrame([(self.boolean,)], "boolean boolean")
        if self.form == "CONSTRUCT":
            return spark.createDataFrame([(line,) for line in self.triples], "line string")
        schema = ", ".join(f"`{v}` string" for v in self.variables) or "`_` string"
        return spark.createDataFrame(self.frame.to_arrow(), schema) if self.variables else \
            spark.createDataFrame([], schema)


def run(triples, text: str, frames=None, *, distinct: bool = False, occurrences=None, bound=None,
        named=None, matches=None) -> Answer:
    """``text`` answered over ``triples`` (subject, predicate, object), a frame of the dialect
    ``frames`` (default: a Polars frame, answered in the driver); ``distinct``: the caller's
    triples hold each triple once already (else they are made a set here). A query with
    event operators (EP-SPARQL, ``events``) reads ``occurrences`` instead, a function of its
    triple patterns (``read_patterns``) giving the frame of timed occurrences (subject,
    predicate, object, ``START``, ``END``). ``bound``:
    the most a step of the query may hold (``query.bound``; default: the settings).
    ``named``: the named graphs ``GRAPH`` reads, frames like ``triples`` by IRI (N-Triples).
    ``matches``: RSEP-QL MATCH solutions (Polars, terms in N-Triples) by the IRI of the GRAPH
    node that stands for each (``declare.rsep``)."""
    text, timed = events.translate(text)
    query = parse.algebra(text)
    root = query.algebra
    builtins.QUERY.set((datetime.now(timezone.utc), query.prologue.base))  # NOW() and IRI()'s base
    if root.name == "DescribeQuery":
        raise SparqlError("DESCRIBE is not supported yet (SELECT, ASK and CONSTRUCT are)")
    frames = (frames or PolarsFrames()).within(bound or query_bound.configured())
    if timed:
        if occurrences is None:
            raise SparqlError("event operators (SEQ, EQUALS, OPTIONALSEQ, EQUALSOPTIONAL) and getDURATION(), "
                              "getSTARTTIME(), getENDTIME() read a view's stream items with their times: "
                              "query a view for them")
        solutions = Planner(frames.source(occurrences(read_patterns(root)), timed=True), frames,
                            timed=True).solutions(root)
    else:
        graph = frames.source(triples)
        named = None if named is None else {iri: frames.unique(frames.source(t)) for iri, t in named.items()}
        solutions = Planner(graph if distinct else frames.unique(graph), frames, named=named,
                            matches=matches).solutions(root)
    if root.name == "AskQuery":
        return Answer("ASK", boolean=frames.any_row(solutions.frame))
    # a SELECT of no variable still counts its solutions (``{ :a :p* :b }`` has one): the
    # empty solution's column is kept where no other is, as a frame of no column has no rows
    shown = [c for c in frames.names(solutions.frame) if c not in (UNIT, *TIMES)] or [UNIT]
    frame = T.as_blank_nodes(frames.collect(frames.select(solutions.frame, {c: c for c in shown})))
    if root.name == "ConstructQuery":
        # CONSTRUCT WHERE { ... }: the template is the pattern (16.2.4)
        template = root.template if root.template is not None else root.p.p.triples
        missing = [v for v in _template_variables(template) if v not in frame.columns]
        frame = frame.with_columns([pl.lit(None, pl.String).alias(v) for v in missing])
        constructed = construct.graph(frame, template)
        return Answer("CONSTRUCT", frame=frame, triples=construct.lines(constructed), graph=constructed,
                      template=template)
    variables = [str(v) for v in root.PV]
    return Answer("SELECT", variables=variables, frame=frame.select(variables or [UNIT]))


def _template_variables(template) -> list[str]:

    return [str(t) for triple in template or [] for t in triple if isinstance(t, Variable)]


def read_patterns(root) -> list[tuple]:
    """The triple patterns of a query's algebra, those of its (NOT) EXISTS too
    (``terms.pattern_term``; a path as a 1-tuple: it may match anything)."""
    def term(t):
        try:
            return T.pattern_term(t)
        except TypeError:  # a path
            return (str(t),)

    found = []

    def visit(node):
        if isinstance(node, CompValue) and node.name == "BGP":
            found.extend(tuple(term(t) for t in triple) for triple in node.triples)
        elif isinstance(node, CompValue) and node.name == "TriplesBlock":  # (NOT) EXISTS keeps its parse tree
            flat = [t for triples in node.triples for t in triples]
            found.extend(tuple(term(t) for t in flat[i:i + 3]) for i in range(0, len(flat) - 2, 3))

    traverse(root, visitPost=visit)
    return found
