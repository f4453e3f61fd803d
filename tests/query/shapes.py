"""The shapes the generated queries must reach with a non-empty answer, and the tally of
those they did (``test_matches_rdflib``'s coverage guard): a generator that quietly
stopped drawing one, or drew it only where nothing matches, fails the guard.

A shape is reached by a query that an engine judged (``oracles``) and whose answer is not
empty:
* an algebra node kind (SPARQL 1.1, 18.2) anywhere in the query, read from rdflib's algebra
  of its text, or three OPTIONALs nested in each other whose innermost one bound a
  variable of an answer row;
* a property path's form with its two ends (a variable, a constant the graph holds, one
  it does not), read from the algebra where the path must match for the query to answer
  anything (not in an OPTIONAL's, a UNION's, a MINUS's or an EXISTS's pattern);
* an aggregate over groups of which one holds an unbound value of its argument, or over
  the one group of no rows (no GROUP BY), as Oxigraph finds the pattern it groups;
* an expression form (a BIND's) over an input bound in some answer row, and unbound in
  some;
* a blank node in an answer row, and a string that N-Triples escapes (a quote, a
  backslash, a line break): the graphs hold some (``generated.graph``, ``literal``).
An aggregate without GROUP BY answers one row whatever matched: such a query reaches the
GROUP BY node and its aggregates' shapes, not its pattern's.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from rdflib import BNode, URIRef, Variable
from rdflib.paths import AlternativePath, InvPath, MulPath, NegatedPath, Path, SequencePath
from rdflib.plugins.sparql.parserutils import CompValue

from reasonlake.query import parse
from tests.query import generated
from tests.query.oracles import Found, by_oxigraph, every_node

NODE_KINDS = ("BGP", "Join", "LeftJoin", "Filter", "Union", "Minus", "Extend", "VALUES", "GROUP BY", "ORDER BY",
              "LIMIT/OFFSET", "DISTINCT", "REDUCED", "sub-query", "EXISTS", "NOT EXISTS", "ASK",
              "OPTIONAL nested 3 deep")
REQUIRED = tuple(
    [("node", kind) for kind in NODE_KINDS]
    + [("path", *shape) for shape in generated.PATH_SHAPES]
    + [("aggregate", name, over) for name in generated.AGGREGATES for over in ("unbound values", "empty group")]
    + [("expression", form, input_) for form in generated.EXPRESSIONS for input_ in ("bound", "unbound")]
    + [("term", "blank node"), ("term", "escaped string")])
_NAMED = {"values": "VALUES", "AggregateJoin": "GROUP BY", "OrderBy": "ORDER BY", "Slice": "LIMIT/OFFSET",
          "Distinct": "DISTINCT", "Reduced": "REDUCED"}
_PASS_THROUGH = ("Project", "Extend", "OrderBy", "Slice", "Distinct", "Reduced", "ToMultiSet", "Filter", "Group")


@dataclass
class Tally:
    """The shapes reached so far, and how many queries reached each; how many cases each
    engine judged (``judged``: "rdflib", "oxigraph", and "both" where the two agreed)."""

    reached: dict = field(default_factory=dict)
    judged: Counter = field(default_factory=Counter)

    def add(self, shapes) -> None:
        for shape in shapes:
            self.reached[shape] = self.reached.get(shape, 0) + 1

    def missing(self) -> list[tuple]:
        return [shape for shape in REQUIRED if shape not in self.reached]


def reached(text: str, drawn: generated.Query, answer: Found, triples, store) -> set[tuple]:
    """The shapes ``text`` reached with ``answer`` (ours, equal to an engine's) over
    ``triples`` (also in Oxigraph's ``store``, for the aggregates' patterns)."""
    held = {t for s, _, o in triples for t in (s, o)}
    root = parse.algebra(text).algebra
    grouped_alone = _ungrouped_aggregate(root)
    out: set[tuple] = set()
    if not answer.empty and not grouped_alone:
        out |= {("node", kind) for kind in _node_kinds(root)}
        out |= {("path", form, start, end) for form, start, end in _mandatory_paths(root, held)}
    if grouped_alone:  # one row whatever matched: the aggregates' node, not the pattern's
        out.add(("node", "GROUP BY"))
    rows = [dict(zip((f"?{v}" for v in answer.variables), row)) for row in answer.rows] if answer.form == "SELECT" else []
    terms = [term for row in rows for term in row.values() if term is not None]
    if ("bnode",) in terms:
        out.add(("term", "blank node"))
    if any(term[0] == "literal" and any(c in term[1] for c in '"\\\n') for term in terms):
        out.add(("term", "escaped string"))
    for claim in drawn.claims:
        if claim.kind == "optional" and any(row.get(claim.variable) is not None for row in rows):
            out.add(("node", claim.form))
        elif claim.kind == "expression" and claim.variable[1:] in answer.variables:
            if any(row[claim.variable] is not None for row in rows):
                out.add(("expression", claim.form, "bound"))
            if any(row[claim.variable] is None for row in rows):
                out.add(("expression", claim.form, "unbound"))
        elif claim.kind == "aggregate":
            out |= _aggregate_shapes(claim, grouped_alone, answer, store)
    return out


def _aggregate_shapes(claim: generated.Claim, grouped_alone: bool, answer: Found, store) -> set[tuple]:
    prefixes = generated.PREFIXES
    if grouped_alone and not _ask(store, f"{prefixes}ASK {{ {claim.body} }}"):
        return {("aggregate", claim.form, "empty group")}
    if not answer.empty and _ask(store, f"{prefixes}ASK {{ {claim.body} FILTER(!bound({claim.variable})) }}"):
        return {("aggregate", claim.form, "unbound values")}
    return set()


def _ask(store, text: str) -> bool:
    found = by_oxigraph(store, text)
    assert isinstance(found, Found), f"Oxigraph cannot answer the probe {text}: {found}"
    return bool(found.boolean)


def _ungrouped_aggregate(root) -> bool:
    """Whether the query's answer is one group of every solution (an aggregate, no GROUP BY)."""
    return any(isinstance(n, CompValue) and n.name == "Group" and not n.get("expr") for n in _patterns(root.p))


def _patterns(node):
    """The algebra's pattern and modifier nodes below ``node``, not into sub-queries."""
    if not isinstance(node, CompValue):
        return
    yield node
    for key in ("p", "p1", "p2"):
        child = node.get(key) if key in node else None
        if child is not None and not (node.name == "ToMultiSet" and _is_project(child)):
            yield from _patterns(child)


def _is_project(node) -> bool:
    return isinstance(node, CompValue) and node.name == "Project"


def _node_kinds(root) -> set[str]:
    kinds = {"ASK"} if root.name == "AskQuery" else set()
    for node in every_node(root.p):
        name = node.name
        if name == "ToMultiSet" and _is_project(node.p):
            kinds.add("sub-query")
        elif name in ("Builtin_EXISTS", "Builtin_NOTEXISTS"):
            kinds.add("EXISTS" if name == "Builtin_EXISTS" else "NOT EXISTS")
        else:
            kinds.add(_NAMED.get(name, name))
    return kinds


def _mandatory_paths(root, held: set) -> set[tuple[str, str, str]]:
    """(form, start kind, end kind) of each property path the query's answer rests on."""
    found = set()

    def walk(node):
        if not isinstance(node, CompValue):
            return
        if node.name == "BGP":
            for s, p, o in node.triples:
                if isinstance(p, Path):
                    found.update((form, _end(s, held), _end(o, held)) for form in _forms(p))
        elif node.name == "Join":
            walk(node.p1)
            walk(node.p2)
        elif node.name in ("LeftJoin", "Minus"):
            walk(node.p1)
        elif node.name == "AggregateJoin":
            walk(node.p)
        elif node.name in _PASS_THROUGH and node.get("p") is not None:
            walk(node.p)
    walk(root.p)
    return found


def _forms(path) -> list[str]:
    """The path's form (``generated.PATH_FORMS``): its operator over IRIs (and inverse IRIs
    in a sequence, an alternative or a negated set), else "nested"."""
    simple = lambda p: isinstance(p, URIRef) or (isinstance(p, InvPath) and isinstance(p.arg, URIRef))  # noqa: E731
    if isinstance(path, InvPath):
        return ["^p"] if isinstance(path.arg, URIRef) else ["nested"]
    if isinstance(path, SequencePath):
        return ["p/q"] if all(simple(a) for a in path.args) else ["nested"]
    if isinstance(path, AlternativePath):
        return ["p|q"] if all(simple(a) for a in path.args) else ["nested"]
    if isinstance(path, NegatedPath):
        return ["!p"] if all(isinstance(a, URIRef) for a in path.args) else ["!(p|^q)"]
    if isinstance(path, MulPath):
        return [f"p{path.mod}"] if isinstance(path.path, URIRef) else ["nested"]
    return []


def _end(term, held: set) -> str:
    if isinstance(term, (Variable, BNode)):
        return "var"
    return "in" if term in held else "out"
