"""Property paths (SPARQL 1.1, 9 and 18.4) as frames of (start, end) pairs over the triples,
in the plan's dialect (``polars_frames``, ``query/dialects/spark_frames``).

``p1/p2`` and ``p1|p2`` keep duplicates (they are joins and unions of triple patterns);
``p*``, ``p+`` and ``p?`` are sets of pairs (the ALP function's visited sets). ``p+`` is a
semi-naive fixpoint: each round joins only the pairs found in the round before to the
edges, and stops when a round finds none that is new. The zero-length pairs of ``p*`` and
``p?`` are every node of the graph, and a constant end of the pattern even when the graph
does not hold it (18.4: ZeroLengthPath).

A negated property set may hold inverse IRIs (``!^ex:p``, ``!(ex:p|^ex:q)``): rdflib's
parser drops the IRI after ``^`` there (its ``InversePath`` keeps no parameter), so the
grammar is mended once, on import, to keep it as the ``InversePath``'s ``part``
(``_keep_inverse_iris``); ``_negated`` reads it back.
"""
from __future__ import annotations

import polars as pl
from rdflib import URIRef
from rdflib.paths import AlternativePath, InvPath, MulPath, NegatedPath, Path, SequencePath
from rdflib.plugins.sparql import parser
from rdflib.plugins.sparql.parserutils import CompValue

from reasonlake.errors import SparqlError
from reasonlake.query.terms import constant

START, END = "start", "end"
_MID = "$mid"


def pairs(frames, path, triples, start: str | None = None, end: str | None = None, starts=None):
    """The (start, end) pairs ``path`` connects; ``start``/``end``: constant ends of the
    pattern (N-Triples), which narrow a transitive path's search and are zero-length nodes.
    ``starts``: a function keeping the pairs whose start can be in the answer (a FILTER on
    the start variable), which a transitive path's search starts from alone; the pairs
    returned are not all narrowed by it (the caller filters them again)."""
    if isinstance(path, URIRef):
        edges = frames.where_equal(triples, [("predicate", constant(path), False)])
        return frames.select(edges, {START: "subject", END: "object"})
    if isinstance(path, InvPath):
        return _flipped(frames, pairs(frames, path.arg, triples, end, start))
    if isinstance(path, SequencePath):
        out = pairs(frames, path.args[0], triples, start, None)
        for i, step in enumerate(path.args[1:], 1):
            nxt = pairs(frames, step, triples, None, end if i == len(path.args) - 1 else None)
            out = _then(frames, out, nxt)
        return out
    if isinstance(path, AlternativePath):
        return frames.concat([pairs(frames, a, triples, start, end) for a in path.args])
    if isinstance(path, NegatedPath):
        return _negated(frames, path, triples)
    if isinstance(path, MulPath):
        return _repeated(frames, path, triples, start, end, starts)
    raise SparqlError(f"the property path {path!r} is not supported yet")


def _flipped(frames, found):
    return frames.select(found, {START: END, END: START})


def _then(frames, first, second):
    """The pairs (a, c) of a pair (a, b) of ``first`` and (b, c) of ``second``, with duplicates."""
    joined = frames.join(frames.select(first, {START: START, _MID: END}),
                         frames.select(second, {_MID: START, END: END}), [_MID])
    return frames.select(joined, {START: START, END: END})


def _negated(frames, path: NegatedPath, triples):
    """``!(iri|...|^iri|...)``: the triples of no forward IRI, and the inverse of those of no
    inverse IRI (18.2.2.4: NPS(forward) | ^NPS(inverse), each part only where it has IRIs)."""
    forward = [constant(a) for a in path.args if isinstance(a, URIRef)]
    backward = [constant(a) for a in map(_inverse_iri, path.args) if a is not None]
    if len(forward) + len(backward) != len(path.args):
        raise SparqlError(f"the negated property set {_shown(path)} is not supported: give IRIs and ^IRIs")
    parts = []
    if forward or not backward:
        parts.append(frames.select(frames.where_not_in(triples, "predicate", forward), {START: "subject", END: "object"}))
    if backward:
        parts.append(frames.select(frames.where_not_in(triples, "predicate", backward), {START: "object", END: "subject"}))
    return frames.concat(parts)


def _inverse_iri(member) -> URIRef | None:
    """The IRI of a negated set's ``^iri`` member (an rdflib ``InvPath``, or the parser's
    ``InversePath`` as ``_keep_inverse_iris`` mends it); None for any other member."""
    if isinstance(member, InvPath) and isinstance(member.arg, URIRef):
        return member.arg
    if isinstance(member, CompValue) and member.name == "InversePath" and isinstance(member.get("part"), URIRef):
        return member["part"]
    return None


def _shown(path: NegatedPath) -> str:
    """The set as written, where rdflib's own ``n3`` fails on a member it did not make."""
    members = [f"^{_inverse_iri(a).n3()}" if _inverse_iri(a) is not None else
               (a.n3() if hasattr(a, "n3") else repr(a)) for a in path.args]
    return f"!({'|'.join(members)})"


def _repeated(frames, path: MulPath, triples, start: str | None, end: str | None, starts=None):
    edges = pairs(frames, path.path, triples)
    # the triples are a set, so one predicate's pairs are too: on Spark their distinct was a
    # shuffle of every match (the IMaRS path query's 2.1M, 1.9 s of its 5.8 s; decision 0066)
    one = _one_predicate(path.path)
    edges = edges if one else frames.unique(edges)
    if path.mod not in ("+", "*", "?"):
        raise SparqlError(f"the path modifier {path.mod!r} is not supported")
    part = edges if path.mod == "?" else _closure(frames, edges, start, end, starts, scanned=one)
    if path.mod == "+":  # the closure is a set already: its distinct was a shuffle of every pair found
        return part
    # the zero-length pairs of * and ?: every node with itself
    nodes = [frames.select(triples, {START: "subject"}), frames.select(triples, {START: "object"})]
    given = [c for c in (start, end) if c is not None]
    if given:
        nodes.append(frames.constant({START: given}, {START: pl.String}))
    nodes = frames.unique(frames.concat(nodes))
    return frames.unique(frames.concat([part, frames.select(nodes, {START: START, END: START})]))


def _closure(frames, edges, start: str | None, end: str | None, starts=None, scanned: bool = False):
    """The transitive closure of ``edges`` (a set), from ``start`` only when it is given (else
    to ``end`` only, searched backwards, when that is), from the edges ``starts`` keeps when
    it is given; a set. ``scanned``: the edges are one predicate's triples, a scan of them."""
    if start is None and end is not None:
        return _flipped(frames, _closure(frames, _flipped(frames, edges), end, None, scanned=scanned))
    edges = frames.kept_for_rounds(edges, scanned)  # read once a round
    first = edges if start is None else frames.where_equal(edges, [(START, start, False)])
    if starts is not None:
        first = starts(first)
    return frames.fixpoint(first, lambda newest: _then(frames, newest, edges), [START, END])


def _one_predicate(path) -> bool:
    """Whether ``path`` is an IRI or its inverse, whose pairs over a set of triples are a set."""
    return isinstance(path, URIRef) or (isinstance(path, InvPath) and isinstance(path.arg, URIRef))


def is_path(predicate) -> bool:
    return isinstance(predicate, Path)


def _keep_inverse_iris() -> None:
    """Mend rdflib's grammar of a negated property set's member ``'^' (iri | 'a')``: its
    ``InversePath`` node keeps only named parameters, and the IRI has none, so ``!^ex:p``
    parsed to an empty node (and ``_negated`` failed on it). The node made here keeps the
    IRI as ``part``, where the prefixed-name pass resolves it like any other term."""
    member = parser.PathOneInPropertySet.exprs[-1]
    if getattr(member, "name", None) != "InversePath" or getattr(member, "_keeps_iri", False):
        return

    def kept(instring, loc, tokens):
        return CompValue("InversePath", part=tokens[-1])
    member.postParse = kept
    member._keeps_iri = True


_keep_inverse_iris()
