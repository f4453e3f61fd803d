"""Small random graphs and SPARQL queries over them, for comparing the compiled queries with
two engines (``test_matches_rdflib``): rdflib's own SPARQL and Oxigraph's (``oracles``).

The queries reach every shape the coverage guard lists (``shapes``): each algebra node
(OPTIONAL nested three deep too), property paths of every form with a variable, a
constant the graph holds or one it does not at either end, every aggregate over groups
with unbound values and over no rows, every expression form over inputs unbound in some
rows. ``Query(rng, triples, case, wanted=...)`` takes the graph (its constants are then
nodes it holds, or ``ABSENT`` ones, a path's picked among the pairs it connects), the
case's number, which turns the shapes in turn, and the shapes no case has reached yet,
which it draws first; ``Query(rng)`` alone draws only what rdflib judges right (the other
suites compare with rdflib alone).

Each engine departs from SPARQL 1.1 somewhere; a query that draws such a shape is not
compared with that engine (``Query.rdflib_ok``, ``Query.oxigraph_ok``), or compared as a
set of solutions; a query both judge is compared with both, and they must agree (each
disagreement is decided by the W3C text and kept in ``test_where_the_oracles_disagree``).
rdflib:
* compares literals of different types (``"x" < 1``, ``"x" != 1`` are true there; SPARQL
  makes them type errors, which drop the solution) and takes the effective boolean value
  of any literal, and takes isNumeric(?v), isIRI(?v) ... of an unbound ?v as false
  (SPARQL: an error, which ``!`` and IF pass on): its filters are guarded by type tests
  and ``bound(?v) && ...``, and the expression cases' BINDs are judged by Oxigraph;
* rdflib makes ``datatype(?v) = xsd:boolean && ?v = false`` an error where ?v is an IRI
  (SPARQL: the error and the false right side make false, 17.2): a test of a datatype is
  guarded by ``isLiteral(?v) && ...``;
* rdflib's ``*`` gives xsd:decimal for integers and doubles (SPARQL: the wider operand's
  type): numbers are compared by value, not by datatype (``oracles.normal``);
* rdflib raises on SUM / AVG over a value that is not a number, and on SUM, AVG,
  GROUP_CONCAT (DISTINCT ...) over a group with an unbound value (not compared there);
* rdflib answers ``p?`` and ``p*`` twice where a node reaches itself both by zero steps and
  by more, and repeats or drops solutions of ``p1/p2`` when an end is bound by the patterns
  before: such queries are compared with rdflib as sets (``rdflib_as_set``), and rdflib
  does not judge their counts;
* rdflib evaluates ``?x p+ ?y`` with ``?x`` bound to a literal as if ``?x`` were unbound (a
  zero-length path binds nodes to literals), binds ``?a`` of ``?a p? ?b . ?a q? ?c`` to
  literals the graph does not hold, and matches ``(p/^q)+`` with a bound end to terms it
  cannot reach: zero-length paths between two variables, zero-length and one-or-more
  paths in one query, and repeated compound paths are judged by Oxigraph;
* rdflib raises on a negated property set with an inverse IRI (``!^ex:p``), answers MIN and
  MAX of IRIs as strings, joins a grouped sub-query of no groups as one empty solution,
  orders an ORDER BY's unbound keys and errors its own way: judged by Oxigraph;
* rdflib leaves out the solutions that bind none of the selected variables (an OPTIONAL
  that matched nothing): those are not compared with it;
* rdflib joins a VALUES block whose rows repeat once, not twice, when a UNION or a
  sub-query comes before it in the group (its evalJoin reads a join's right side into a
  set): judged by Oxigraph;
* rdflib reads an OPTIONAL after a VALUES block in its group as if the block's variables
  were unbound, and keeps a row only where the OPTIONAL matches (its evalLeftJoin
  forgets the left side's variables, and a VALUES block lists none): judged by Oxigraph,
  and rdflib's aggregated patterns draw no VALUES;
* rdflib's STR of a blank node is its label (SPARQL: an error, 17.4.2.5): ``oracles.
  by_rdflib`` evaluates STR by SPARQL's rule, so rdflib judges the graphs with blank nodes.
Oxigraph:
* gives nothing for a zero-length path whose constant end the graph does not hold
  (``ex:gone ex:link* ?x``: SPARQL 18.4 gives ``ex:gone``, as rdflib and reasonlake do),
  and judges such queries nowhere;
* answers an alternative's pairs (``p|q``) and a negated set's once each, where SPARQL
  keeps each branch's (18.4's Union): compared as sets, and not where they are counted
  (aggregates, a grouped sub-query, a LIMIT);
* stores literals in another form ("7.0"^^xsd:decimal as "7", "-2.0"^^xsd:double as
  "-2", xsd:int as xsd:integer), which STR and DATATYPE then read: most graphs are drawn
  in its forms (``graph(canonical=True)``), the others judged by rdflib alone;
* makes SUM, AVG, MIN, MAX and GROUP_CONCAT an error over a group with an unbound value,
  where rdflib and reasonlake read only the bound values (``tests/query/
  test_aggregates_of_groups_with_unbound_values.py``), and GROUP_CONCAT an error over a
  value that is not a string: such aggregates are judged by rdflib, and GROUP_CONCAT reads
  strings (``STR``);
* (as rdflib) answers ``=`` and ``!=`` between literals of different types (false, true),
  where reasonlake keeps to 17.4.1.7 (an error): the drawn expressions compare like with
  like; a cast of a language-tagged string to xsd:string, which 17.5 leaves open, is not
  drawn.
Orders SPARQL leaves open are not compared: GROUP_CONCAT's values are compared as a
multiset (``Query.concatenated``), SAMPLE reads a value that is the same in every row of
its group that binds it, and LIMIT comes only after an ORDER BY of every selected
variable's string, language and datatype (a total order of the rows).
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from rdflib import RDF, BNode, Literal, URIRef
from rdflib.namespace import XSD

from tests.query.oracles import oxigraph_store, rdflib_graph  # noqa: F401 (rdflib_graph: the suites' graph)

EX = "http://example.org/"
OTHER = "http://other.example/"
PREFIXES = f"PREFIX ex: <{EX}>\nPREFIX o: <{OTHER}>\nPREFIX xsd: <{XSD}>\n"
LINKS = ("ex:link", "ex:next")  # between IRIs: the paths walk them
VALUES = ("ex:value", "ex:label", "o:size")  # to literals
KINDS = ("ex:Thing", "ex:Place")  # the classes of ``a`` (rdf:type) triples
ABSENT = ("ex:gone", "o:nowhere")  # IRIs no generated graph holds
BLANKS = ("b0", "b1")  # the labels of the blank nodes a case's graph may hold
CASE_INSENSITIVE = ', "i"'

PATH_FORMS = ("^p", "p/q", "p|q", "!p", "!(p|^q)", "p?", "p*", "p+", "nested")
ZERO_LENGTH_FORMS = ("p?", "p*")  # whose pairs hold every node with itself, a constant end too
END_KINDS = ("var", "in", "out")  # a variable, a constant the graph holds, one it does not
# each form between variables and constants the graph holds; a zero-length one also from or
# to a constant it does not hold (the only paths that match there)
PATH_SHAPES = tuple([(form, s, o) for form in PATH_FORMS for s in ("var", "in") for o in ("var", "in")]
                    + [(form, s, o) for form in ZERO_LENGTH_FORMS for s, o in (("out", "var"), ("var", "out"))])

# one form per entry, over an input ``{v}`` (a variable, unbound in some rows)
EXPRESSIONS = {
    "&&": "(isNumeric({v}) && {v} > 2)",
    "||": "(isIRI({v}) || STRLEN(STR({v})) > 3)",
    "!": "(!isLiteral({v}))",
    # = and != between literals of other types are errors (17.4.1.7; Oxigraph answers them:
    # test_where_the_oracles_disagree): each side of these IFs compares like with like
    "=": "IF(isNumeric({v}), {v} = 3, STR({v}) = \"cat\")",
    "!=": "IF(isNumeric({v}), {v} != 0.5, STR({v}) != \"alpha\")",
    "<": "({v} < 5)",
    ">": "({v} > \"b\")",
    "<=": "({v} <= \"2020-01-03T00:00:00Z\"^^xsd:dateTime)",
    ">=": "({v} >= 2.5)",
    "IN": "(STR({v}) IN (\"1\", \"cat\"))",
    "NOT IN": "(STR({v}) NOT IN (\"2\", \"beta\"))",
    "+": "({v} + 1)",
    "-": "({v} - 2.5)",
    "*": "({v} * 2)",
    "/": "({v} / 4)",
    "unary -": "(-{v})",
    "BOUND": "BOUND({v})",
    "IF": "IF(isNumeric({v}), {v}, \"no\")",
    "COALESCE": "COALESCE({v}, \"none\")",
    "sameTerm": "sameTerm({v}, \"cat\"@en)",
    "isIRI": "isIRI({v})",
    "isLiteral": "isLiteral({v})",
    "isNumeric": "isNumeric({v})",
    "isBlank": "isBlank({v})",
    "STR": "STR({v})",
    "LANG": "LANG({v})",
    "DATATYPE": "DATATYPE({v})",
    "LANGMATCHES": "LANGMATCHES(LANG({v}), \"en\")",
    "STRLEN": "STRLEN({v})",
    "UCASE": "UCASE({v})",
    "LCASE": "LCASE({v})",
    "CONTAINS": "CONTAINS({v}, \"a\")",
    "STRSTARTS": "STRSTARTS({v}, \"c\")",
    "STRENDS": "STRENDS({v}, \"a\")",
    "CONCAT": "CONCAT({v}, \"!\")",
    "REGEX": "REGEX({v}, \"^c\", \"i\")",
    "SUBSTR": "SUBSTR({v}, 2, 2)",
    "STRBEFORE": "STRBEFORE({v}, \"a\")",
    "STRAFTER": "STRAFTER({v}, \"a\")",
    "REPLACE": "REPLACE({v}, \"a\", \"o\")",
    "ENCODE_FOR_URI": "ENCODE_FOR_URI({v})",
    "ABS": "ABS({v})",
    "CEIL": "CEIL({v})",
    "FLOOR": "FLOOR({v})",
    "ROUND": "ROUND({v})",
    "YEAR": "YEAR({v})",
    "MONTH": "MONTH({v})",
    "DAY": "DAY({v})",
    "HOURS": "HOURS({v})",
    "MINUTES": "MINUTES({v})",
    "SECONDS": "SECONDS({v})",
    "TIMEZONE": "TIMEZONE({v})",
    "TZ": "TZ({v})",
    "MD5": "MD5({v})",
    "SHA1": "SHA1({v})",
    "SHA256": "SHA256({v})",
    "STRLANG": "STRLANG(STR({v}), \"en\")",
    "STRDT": "STRDT(STR({v}), xsd:string)",
    "IRI": "IRI(CONCAT(\"http://example.org/\", ENCODE_FOR_URI(STR({v}))))",
    "xsd:integer": "xsd:integer({v})",
    "xsd:decimal": "xsd:decimal({v})",
    "xsd:double": "xsd:double({v})",
    "xsd:boolean": "xsd:boolean({v})",
    # a language-tagged string's cast is open (17.5 lists none; Oxigraph gives its string)
    "xsd:string": "IF(LANGMATCHES(LANG({v}), \"*\"), \"tagged\", xsd:string({v}))",
    "xsd:dateTime": "xsd:dateTime({v})",
}
AGGREGATES = ("COUNT", "COUNT(*)", "COUNT DISTINCT", "SUM", "AVG", "MIN", "MAX", "SAMPLE", "GROUP_CONCAT")
# Oxigraph makes these an error over a group with an unbound value (see the notes above)
_ERROR_ON_UNBOUND = ("SUM", "AVG", "MIN", "MAX", "GROUP_CONCAT")
FOCUS_BINDS = 8  # expression forms an expression case draws as BINDs, taken in turn
EXPRESSION_CASES = 4  # every fourth case draws expressions over a light pattern (their plans cost)


def graph(rng: random.Random, canonical: bool = False, blank: bool = False) -> list[tuple]:
    """A graph of rdflib terms: a few nodes in two namespaces, links between them (a cycle
    now and then, ``ex:link`` both ways in some), values, classes. ``canonical``: its
    literals written as Oxigraph writes them (``literal``); ``blank``: one or two of its
    nodes are blank nodes in half the graphs (a query never names them: ``Query.node``)."""
    nodes = [URIRef(f"{EX}n{i}") for i in range(rng.randint(3, 6))] + \
            [URIRef(f"{OTHER}m{i}") for i in range(rng.randint(1, 3))]
    if blank and rng.random() < 0.5:
        nodes += [BNode(label) for label in BLANKS[:rng.randint(1, 2)]]
    found = set()
    for _ in range(rng.randint(4, 14)):
        found.add((rng.choice(nodes), _iri(rng.choice(LINKS)), rng.choice(nodes)))
    if rng.random() < 0.4:  # a cycle through a few nodes
        ring = rng.sample(nodes, rng.randint(1, 3))
        link = _iri(rng.choice(LINKS))
        found |= {(a, link, b) for a, b in zip(ring, ring[1:] + ring[:1])}
    if rng.random() < 0.25:  # ex:link symmetric
        found |= {(o, p, s) for s, p, o in found if p == _iri("ex:link")}
    for _ in range(rng.randint(4, 14)):
        found.add((rng.choice(nodes), _iri(rng.choice(VALUES)), literal(rng, canonical)))
    for _ in range(rng.randint(0, 3)):
        found.add((rng.choice(nodes), RDF.type, _iri(rng.choice(KINDS))))
    return sorted(found)


def case_graph(rng: random.Random, case: int) -> list[tuple]:
    """The graph of a generated case (``test_matches_rdflib``): most in Oxigraph's forms of
    literals, one in five in rdflib's (only rdflib judges those: ``Query`` draws for it);
    an expression case's in Oxigraph's (only Oxigraph judges its expressions); blank nodes
    in half of them."""
    return graph(rng, canonical=case % EXPRESSION_CASES == 0 or rng.random() < 0.8, blank=True)


def literal(rng: random.Random, canonical: bool = False) -> Literal:
    """A literal of one of eight kinds. ``canonical``: in the form Oxigraph stores (it
    rewrites "7.0"^^xsd:decimal as "7", "-2.0"^^xsd:double as "-2", xsd:int as
    xsd:integer: STR and DATATYPE read the rewritten term there), else as rdflib writes it."""
    kind = rng.randrange(8)
    if kind == 0:
        return Literal(rng.randint(-3, 12), datatype=XSD.integer)
    if kind == 1:
        decimal = rng.choice(["2.5", "0.5", "-1.25", "7" if canonical else "7.0"])
        return Literal(decimal, datatype=XSD.decimal, normalize=not canonical)
    if kind == 2:
        if canonical:
            return Literal(rng.choice(["1.5", "-2", "10", "0.25"]), datatype=XSD.double, normalize=False)
        return Literal(rng.choice([1.5, -2.0, 10.0, 0.25]), datatype=XSD.double)
    if kind == 3:
        return Literal(rng.choice([True, False]))
    if kind == 4:  # as written (rdflib would write "+00:00", Oxigraph "Z": STR and TZ read the form)
        return Literal(f"2020-01-0{rng.randint(1, 5)}T1{rng.randint(0, 3)}:00:00Z", datatype=XSD.dateTime,
                       normalize=False)
    if kind == 5:
        # quotes, a backslash and a line break are escaped in N-Triples (Spark leaves such terms
        # to the driver's step: decision 0055); non-ASCII ones, one outside the BMP (STRLEN)
        return Literal(rng.choice(["alpha", "beta", "Gamma", "a b", "", 'say "cat"', "back\\slash", "two\nlines",
                                   "café", "clef 𝄞"]))
    if kind == 6:
        return Literal(rng.choice(["cat", "Cat", "chat"]), lang=rng.choice(["en", "en-GB", "fr"]))
    return Literal(rng.randint(0, 5), datatype=XSD.integer if canonical else XSD.int)


def rewritten_by_oxigraph(term) -> bool:
    """Whether Oxigraph stores ``term`` as another term (see ``literal``)."""
    if not isinstance(term, Literal) or term.datatype is None:
        return False
    lexical = str(term)
    if term.datatype == XSD.int:
        return True
    if term.datatype in (XSD.double, XSD.decimal):
        return lexical.endswith(".0") or "e" in lexical.lower()
    return term.datatype == XSD.dateTime and not lexical.endswith("Z")


def _iri(short: str) -> URIRef:
    prefix, name = short.split(":")
    return URIRef((EX if prefix == "ex" else OTHER) + name)


def _short(term) -> str | None:
    """An IRI of the generated graphs in the queries' prefixed form."""
    text = str(term)
    if text.startswith(EX):
        return "ex:" + text[len(EX):]
    if text.startswith(OTHER):
        return "o:" + text[len(OTHER):]
    return None


@dataclass(frozen=True)
class Claim:
    """A shape the query was drawn to reach, for the coverage guard to confirm over the
    answer (``shapes``): ``kind`` "expression" (``form`` over ``variable``: reached bound
    and unbound where answer rows hold it so), "aggregate" (``form`` over ``variable``,
    or None for COUNT(*), of the solutions of ``body``), "optional" (``variable`` bound by
    the innermost of three nested OPTIONALs)."""

    kind: str
    form: str
    variable: str | None = None
    body: str | None = None


@dataclass
class Scope:
    """The variables of a group graph pattern: bound to nodes, to literals, and those an
    OPTIONAL binds in some rows only."""

    nodes: list[str]
    values: list[str]
    maybe: list[str]

    @property
    def every(self) -> list[str]:
        return list(dict.fromkeys(self.nodes + self.values + self.maybe))


class Query:
    """A random query over the generated graphs' vocabulary. ``triples``: the graph it runs
    over (its constants are then nodes it holds); ``case``: the case's number, which picks
    the shapes drawn in turn; ``oxigraph``: draw the shapes only Oxigraph judges too."""

    def __init__(self, rng: random.Random, triples=None, case: int | None = None, oxigraph: bool | None = None,
                 store=None, wanted=()):
        self.rng = rng
        # the coverage guard's shapes no case has reached yet (``shapes``): drawn first
        self.wanted = set(wanted)
        # the graph in Oxigraph, to pick a path's constant ends among the pairs it connects
        self.store = store if store is not None or triples is None else oxigraph_store(triples)
        self.full = (triples is not None) if oxigraph is None else oxigraph
        self.case = case
        self.count = 0
        self.held = sorted({_short(t) for s, p, o in triples or () for t in (s, o)
                            if isinstance(t, URIRef) and p != RDF.type and _short(t)})
        self.edges = [(_short(s), _short(p), _short(o)) for s, p, o in triples or ()
                      if isinstance(o, URIRef) and p != RDF.type]
        self.rdflib_deviates: set[str] = set()
        self.oxigraph_deviates: set[str] = set()
        # only rdflib judges a graph of literals Oxigraph rewrites: the query draws what it judges
        self.rdflib_only = any(rewritten_by_oxigraph(o) for _, _, o in triples or ())
        if self.rdflib_only:
            self.oxigraph_deviates.add("a literal Oxigraph stores as another term")
        self.rdflib_as_set = False  # ``?``, ``*``, ``/``: rdflib repeats or drops some solutions
        self.oxigraph_as_set = False  # ``!(p|^q)``: Oxigraph matches a loop once (see the notes)
        self.as_set_only = False  # REDUCED: how many of a solution is open
        self.concatenated: dict[str, str] = {}  # GROUP_CONCAT's variable (no "?") -> its separator
        self.claims: list[Claim] = []
        self.kept: list[str] = []  # variables the SELECT must show (the claims read them)
        self.zero_length = rng.random() < 0.5  # rdflib's mode: */? or +, not both (see the notes)
        self.repeated: set[str] = set()  # the repetition operators drawn: "+", "*?"
        self.counted = False  # the solutions are counted (aggregated): paths rdflib answers as multisets
        self.counted_by_oxigraph = False  # ... and Oxigraph judges: no alternatives, no negated sets
        self.joined_group = False  # a UNION or a sub-query in the group before a VALUES (see the notes)

    # -- what judges it ---------------------------------------------------------------------
    @property
    def rdflib_ok(self) -> bool:
        return not self.rdflib_deviates

    @property
    def oxigraph_ok(self) -> bool:
        return not self.oxigraph_deviates

    @property
    def as_set(self) -> bool:
        """Whether rdflib's answer is compared as a set (the other suites' comparison)."""
        return self.rdflib_as_set or self.as_set_only

    def _rdflib_deviates(self, why: str) -> bool:
        """Mark the query as one rdflib does not judge; False where only rdflib may judge it
        (``full`` off): the caller draws something else then."""
        if not self.full:
            return False
        self.rdflib_deviates.add(why)
        return True

    # -- terms ------------------------------------------------------------------------------
    def var(self) -> str:
        self.count += 1
        return f"?v{self.count}"

    def node(self) -> str:
        """A constant node: one the graph holds where it is known."""
        if self.held and self.rng.random() < 0.9:
            return self.rng.choice(self.held)
        return self.rng.choice(["ex:n0", "ex:n1", "ex:n2", "o:m0"])

    def absent(self) -> str:
        return self.rng.choice(ABSENT)

    def _turn(self, items, every: int = 1):
        """The case's items of ``items`` in turn (``every`` a case), else random ones. Each
        round through them starts one further, so that an item is not always drawn by the
        cases of one kind (an expression case is every ``EXPRESSION_CASES``-th)."""
        if self.case is None:
            return [self.rng.choice(items) for _ in range(every)]
        turned = self.case * every + self.case * every // len(items)
        return [items[(turned + k) % len(items)] for k in range(every)]

    def _chance(self, p: float, kind: str | None = None) -> bool:
        """True with probability ``p``, or mostly while no case has reached the node ``kind``."""
        return self.rng.random() < (0.8 if ("node", kind) in self.wanted else p)

    def _first_wanted(self, kind: str, drawn: list) -> list:
        """``drawn`` (the items in turn) with the still wanted items of ``kind`` first (the
        shapes' parts after the kind), rotated by the case so that each gets its turn."""
        wanted = sorted(shape[1:] for shape in self.wanted if shape[0] == kind)
        if not wanted:
            return drawn
        at = (self.case or 0) % len(wanted)
        return wanted[at:] + wanted[:at] + drawn

    # -- property paths -----------------------------------------------------------------------
    def path(self, form: str | None = None) -> str:
        if form is None and self.counted_by_oxigraph:  # Oxigraph gives these pairs once (see the notes)
            form = self.rng.choice(["^p", "p/q", "p?", "p*", "p+"] if self.full else ["^p", "p+"])
        path = self._path(form)
        # Oxigraph answers an alternative's or a negated set's pair once (see the notes)
        self.oxigraph_as_set |= "|" in path or "!" in path
        return path

    def _path(self, form: str | None) -> str:
        rng = self.rng
        a, b = rng.choice(LINKS), rng.choice(LINKS)
        if form is None:
            if self.full and rng.random() < 0.3:
                form = rng.choice(PATH_FORMS)
            elif self.counted:  # rdflib repeats or drops solutions of the others (see the notes)
                form = rng.choice(["^p", "p|q", *(["!p"] if self.zero_length else ["p+"])])
            else:  # paths that bind a node to a literal, or one-or-more paths: not both (see the notes)
                form = rng.choice(["^p", "p/q", "p|q", *(["!p", "p?", "p*"] if self.zero_length else ["p+"])])
        if form == "^p":
            return f"^{a}"
        if form == "p/q":
            self.rdflib_as_set = True
            return rng.choice([f"{a}/{b}", f"{a}/^{b}"])
        if form == "p|q":
            return rng.choice([f"{a}|{b}", f"{a}|^{b}"])
        if form == "!p":  # (its pairs end at literals too)
            self._repeat("*")
            return rng.choice([f"!{a}", f"!({a}|{b})", "!a"])
        if form == "!(p|^q)":
            self._rdflib_deviates("a negated property set with an inverse IRI")
            self._repeat("*")
            return rng.choice([f"!^{a}", f"!({a}|^{b})", "!^a", f"!(a|^{a})"])
        if form in ("p?", "p*"):
            self.rdflib_as_set = True
            self._repeat("*?")
            return f"{a}{form[-1]}"
        if form == "p+":
            self._repeat("+")
            return f"{a}+"
        # nested: a repetition of a compound path, or the inverse of a repetition
        self._rdflib_deviates("a repeated compound path")
        self.rdflib_as_set = True
        self._repeat("*?+")
        return rng.choice([f"^({a}+)", f"^({a}*)", f"({a}|^{b})+", f"({a}/{b})*", f"(^{a})+", f"({a}|{b})?",
                           f"(!{a})+", f"({a}/^{b})+"])

    def _repeat(self, operators: str) -> None:
        """Note the paths drawn: "+" one-or-more, "*" one that binds a node to a literal (a
        zero-length path, a negated set); rdflib judges no query of both (see the notes)."""
        self.repeated |= set(operators.replace("*?", "*"))
        if "+" in self.repeated and "*" in self.repeated:
            self._rdflib_deviates("a one-or-more path and a path that binds nodes to literals")

    def path_pattern(self, form: str, start: str, end: str, scope: Scope) -> str:
        """A triple pattern of ``form`` from ``start`` to ``end`` ("var", "in", "out"), the
        ends bound in ``scope`` (a variable end a node variable of it, or a new one). A
        constant end the graph holds is, in most, an end of a pair the path connects (so
        that the pattern matches); a variable bound to a constant it does not hold is left
        out of ``scope`` (a pattern joined on it could match nothing)."""
        rng = self.rng
        as_set = self.rdflib_as_set
        path = self.path(form)
        if "out" in (start, end):  # no node of the graph reaches a constant it lacks: no repeated pairs
            self.rdflib_as_set = as_set
        pair = self._connected(path) if "in" in (start, end) and rng.random() < 0.85 else None
        ends = []
        for k, kind in enumerate((start, end)):
            if kind == "var":  # (a new one beside a constant the graph lacks: it binds that constant)
                # a zero-length path's end is never one the patterns before bind: rdflib matches
                # it from "" or 0 as if unbound (a falsy term: tests/query/
                # test_where_the_oracles_disagree.py), and a negated set binds ends to literals
                joined = scope.nodes and "out" not in (start, end) and rng.random() < 0.3 and \
                    not ("*" in path or "?" in path)
                ends.append(rng.choice(scope.nodes) if joined else self.var())
            elif kind == "in":
                ends.append(pair[k] if pair else self.node())
            else:
                ends.append(self.absent())
        if "*" in path or "?" in path:
            if start == "var" and end == "var":
                self._rdflib_deviates("a zero-length path between two variables")
            if "out" in (start, end):
                self.oxigraph_deviates.add("a zero-length path from a constant the graph does not hold")
        if "out" not in (start, end):
            scope.nodes.extend(t for t in ends if t.startswith("?") and t not in scope.nodes)
        return f"{ends[0]} {path} {ends[1]} ."

    def _connected(self, path: str) -> tuple[str, str] | None:
        """A pair of IRIs of the graph that ``path`` connects (Oxigraph's answer), if any."""
        if self.store is None:
            return None
        found = self.store.query(f"{PREFIXES}SELECT ?s ?o WHERE {{ ?s {path} ?o }} LIMIT 200")
        pairs = [(_short(str(row["s"].value)), _short(str(row["o"].value))) for row in found
                 if all(hasattr(row[v], "value") and _short(row[v].value) for v in ("s", "o"))]
        steps = [(s, o) for s, o in pairs if s != o]  # a zero-length path's pairs: every node with itself
        return self.rng.choice(steps if steps and self.rng.random() < 0.8 else pairs) if pairs else None

    # -- triple patterns ----------------------------------------------------------------------
    def triples(self, subject: str, size: int, scope: Scope | None = None) -> tuple[str, Scope]:
        """``size`` triple patterns joined from ``subject``."""
        rng = self.rng
        scope = scope or Scope([subject], [], [])
        if subject not in scope.nodes:
            scope.nodes.append(subject)
        parts = []
        for _ in range(size):
            at = rng.choice(scope.nodes)
            kind = rng.random()
            if kind < 0.45:
                path = self.path()
                zero = path.endswith(("*", "?"))
                if zero and at.startswith("?"):
                    # rdflib, joining a group lazily, matches a zero-length path from a joined
                    # "" or 0 as if unbound (tests/query/test_where_the_oracles_disagree.py)
                    at = self.node()
                if zero and not self.full:  # rdflib: a zero-length path ends at a constant (see the notes)
                    other = self.node()
                else:
                    other = self.node() if rng.random() < 0.15 else self.var()
                    if zero and at.startswith("?") and other.startswith("?"):
                        self._rdflib_deviates("a zero-length path between two variables")
                parts.append(f"{at} {path} {other} .")
                if other.startswith("?") and other not in scope.nodes:
                    scope.nodes.append(other)
            elif kind < 0.55 and self.full:
                parts.append(f"{at} a {rng.choice(KINDS)} .")
            else:
                value = self.var()
                parts.append(f"{at} {rng.choice(VALUES)} {value} .")
                scope.values.append(value)
        return " ".join(parts), scope

    # -- filters ------------------------------------------------------------------------------
    def filter(self, scope: Scope) -> str:
        atoms = [self.atom(scope) for _ in range(self.rng.randint(1, 2))]
        joined = atoms[0] if len(atoms) == 1 else f"({atoms[0]} {self.rng.choice(['&&', '||'])} {atoms[1]})"
        return f"!({joined})" if self.rng.random() < 0.2 else joined

    def atom(self, scope: Scope) -> str:
        """A test of one variable, false where it is unbound (rdflib's way; unguarded, an
        error there, in some of Oxigraph's queries)."""
        rng = self.rng
        values = scope.values + [v for v in scope.maybe if v not in scope.nodes]
        if values and rng.random() < 0.7:
            v = rng.choice(values)
            if rng.random() < 0.1:
                return f"bound({v})"
            if rng.random() < 0.25 and self._rdflib_deviates("a test of a value of another type, or unbound"):
                return self.value_test(v)
            return f"(bound({v}) && {self.value_test(v)})"
        v = rng.choice(scope.nodes)
        return f"(bound({v}) && {self.node_test(v)})"

    def value_test(self, v: str) -> str:
        rng = self.rng
        number = rng.choice(["3", "2.5", "1.0e1", "0", "-1"])
        return rng.choice([
            f"(isNumeric({v}) && {v} {rng.choice(['<', '>', '<=', '>=', '=', '!='])} {number})",
            f"(isLiteral({v}) && datatype({v}) = xsd:string && {v} {rng.choice(['<', '>', '=', '!='])} "
            f"\"{rng.choice(['alpha', 'b', 'Gamma'])}\")",
            f"(isLiteral({v}) && datatype({v}) = xsd:dateTime && {v} > \"2020-01-03T00:00:00Z\"^^xsd:dateTime)",
            f"(isLiteral({v}) && datatype({v}) = xsd:boolean && {v} = {rng.choice(['true', 'false'])})",
            f"lang({v}) = \"{rng.choice(['en', 'fr', ''])}\"",
            f"langMatches(lang({v}), \"{rng.choice(['en', '*', 'fr'])}\")",
            f"regex(str({v}), \"{rng.choice(['a', '^c', 'A'])}\"{rng.choice(['', CASE_INSENSITIVE])})",
            f"contains(lcase(str({v})), \"{rng.choice(['a', 'at'])}\")",
            f"strlen(str({v})) > {rng.randint(0, 4)}",
            f"isNumeric({v})",
            f"sameTerm({v}, \"cat\"@en)",
            f"(isNumeric({v}) && {v} + 1 > {rng.randint(0, 6)})",
        ])

    def node_test(self, v: str) -> str:
        rng = self.rng
        return rng.choice([
            f"isIRI({v})",
            f"isBlank({v})",
            f"strstarts(str({v}), \"{OTHER}\")",
            f"{v} {rng.choice(['IN', 'NOT IN'])} ({self.node()}, {self.node()})",
            f"sameTerm({v}, {self.node()})",
            f"(isIRI({v}) && {v} != {self.node()})",
            f"strends(str({v}), \"{rng.randint(0, 2)}\")",
        ])

    # -- group graph patterns -------------------------------------------------------------------
    def group(self, size: int, foci=()) -> tuple[str, Scope]:
        """A group graph pattern: triples (the paths of ``foci`` first, each (form, start, end)),
        maybe OPTIONAL (nested three deep in some), UNION, MINUS, a sub-query, VALUES,
        BIND, FILTER and FILTER (NOT) EXISTS."""
        rng = self.rng
        start = self.var()
        scope = Scope([start], [], [])
        parts = []
        for focus in foci:
            parts.append(self.path_pattern(*focus, scope))
        # the rest from the group's own start, beside the paths (joined on their ends, it
        # could leave nothing of pairs the paths found)
        text, scope = self.triples(start, max(size - len(parts), 1), scope)
        parts.append(text)
        if self._chance(0.4, "LeftJoin") or ("node", "OPTIONAL nested 3 deep") in self.wanted:
            parts.append(self.optional(scope))
        if self._chance(0.2, "Union"):
            parts.append(self.union_of(scope))
        if self._chance(0.2, "Minus"):
            m_text, _ = self.triples(rng.choice(scope.nodes + [self.var()]), 1, Scope([], [], []))
            parts.append(f"MINUS {{ {m_text} }}")
        if self.full and self._chance(0.2, "sub-query"):
            parts.append(self.sub_query(scope))
        # counted by rdflib, the aggregates' OPTIONALs follow the pattern: no VALUES (see the notes)
        if not self.counted and self._chance(0.12, "VALUES"):
            parts.append(self.values_block(scope, start))
        if scope.values + scope.maybe and self._chance(0.2, "Extend"):
            parts.append(self.plain_bind(scope))
        if self._chance(0.4, "Filter"):
            parts.append(f"FILTER({self.filter(scope)})")
        exists = [k for k in ("EXISTS", "NOT EXISTS") if ("node", k) in self.wanted]
        if self._chance(0.25 if self.full else 0.1, exists[0] if exists else None):
            e_text, _ = self.triples(rng.choice(scope.nodes), 1, Scope([], [], []))
            if self.full and rng.random() < 0.3:
                other, _ = self.triples(rng.choice(scope.nodes), 1, Scope([], [], []))
                e_text = f"{{ {e_text} }} UNION {{ {other} }}"
            parts.append(f"FILTER({exists[0] if exists else rng.choice(['EXISTS', 'NOT EXISTS'])} {{ {e_text} }})")
        return " ".join(p for p in parts if p), scope

    def optional(self, scope: Scope) -> str:
        """OPTIONAL from a node of ``scope``; in some, three nested each in the one before,
        along links to a value (the innermost one's variable shown: ``Claim`` "optional")."""
        rng = self.rng
        at = rng.choice(scope.nodes)
        if self.full and self._chance(0.5, "OPTIONAL nested 3 deep"):
            b, c, d = self.var(), self.var(), self.var()
            scope.maybe.extend([b, c, d])
            self.claims.append(Claim("optional", "OPTIONAL nested 3 deep", d))
            self.kept.append(d)
            return (f"OPTIONAL {{ {at} {rng.choice(LINKS)} {b} OPTIONAL {{ {b} {rng.choice(LINKS)} {c} "
                    f"OPTIONAL {{ {c} {rng.choice(VALUES)} {d} }} }} }}")
        text, inner = self.triples(at, rng.randint(1, 2), Scope([at], [], []))
        if rng.random() < 0.3:
            text += f" FILTER({self.filter(inner)})"
        scope.maybe.extend(v for v in inner.every if v not in scope.every)
        return f"OPTIONAL {{ {text} }}"

    def union_of(self, scope: Scope) -> str:
        rng = self.rng
        u_text, u_scope = self.triples(rng.choice(scope.nodes), 1, Scope([], [], []))
        w_text, w_scope = self.triples(rng.choice(scope.nodes), 1, Scope([], [], []))
        scope.maybe.extend(v for v in u_scope.every + w_scope.every if v not in scope.every)
        self.joined_group = True
        return f"{{ {u_text} }} UNION {{ {w_text} }}"

    def values_block(self, scope: Scope, start: str) -> str:
        rng = self.rng
        rows = [self.node(), self.node()]
        if self.full and rng.random() < 0.5:
            rows.append("UNDEF")
        if self.joined_group and len(set(rows)) < len(rows) \
                and not self._rdflib_deviates("VALUES rows repeated after a UNION or a sub-query"):
            rows = list(dict.fromkeys(rows))  # rdflib joins a repeated row once after those (see the notes)
        return f"VALUES {start} {{ {' '.join(rows)} }}"

    def plain_bind(self, scope: Scope) -> str:
        """One of the BINDs both engines judge alike."""
        v, w = self.rng.choice(scope.values + scope.maybe), self.var()
        scope.maybe.append(w)
        return self.rng.choice([
            f"BIND(IF(bound({v}) && isNumeric({v}), {v} * 2, 0) AS {w})",
            f"BIND(STRLEN(STR({v})) AS {w})",
            f"BIND(CONCAT(UCASE(STR({v})), \"!\") AS {w})",
            f"BIND(COALESCE({v}, \"none\") AS {w})",
        ])

    def sub_query(self, scope: Scope) -> str:
        """A sub-query joined on a node of ``scope``: a projection, or a GROUP BY of it."""
        rng = self.rng
        self.joined_group = True
        at = rng.choice(scope.nodes)
        text, inner = self.triples(at, rng.randint(1, 2), Scope([at], [], []))
        if rng.random() < 0.5 and not self.oxigraph_as_set:  # (Oxigraph judges the count)
            counted = self.var()
            scope.values.append(counted)
            self._rdflib_deviates("a grouped sub-query (rdflib joins one of no groups as one empty solution)")
            return f"{{ SELECT {at} (COUNT(*) AS {counted}) WHERE {{ {text} }} GROUP BY {at} }}"
        shown = [at] + rng.sample(inner.every, min(len(inner.every), rng.randint(0, 2)))
        shown = list(dict.fromkeys(shown))
        scope.maybe.extend(v for v in shown if v not in scope.every)
        distinct = "DISTINCT " if rng.random() < 0.3 else ""
        return f"{{ SELECT {distinct}{' '.join(shown)} WHERE {{ {text} }} }}"

    def expressions(self, foci=()) -> str:
        """An expression case: a light pattern (the case's path, a value, an OPTIONAL value
        that some nodes lack) and BINDs of the case's expression forms in turn, each over the
        OPTIONAL's value (or another variable now and then), every one shown."""
        rng = self.rng
        start = self.var()
        scope = Scope([start], [], [])
        parts = [self.path_pattern(*focus, scope) for focus in foci]
        at = rng.choice(scope.nodes)
        value, optional = self.var(), self.var()
        parts.append(f"{at} {rng.choice(VALUES + LINKS)} {value} .")
        # the OPTIONAL keeps one kind of value: a node with values of other kinds only is unbound
        kind = rng.choice(["isNumeric({o})", "(isLiteral({o}) && LANG({o}) = \"\")", "(LANG({o}) != \"\")",
                           "true", "true", "true", "true"])
        parts.append(f"OPTIONAL {{ {at} {rng.choice(VALUES)} {optional} FILTER({kind.format(o=optional)}) }}")
        scope.values.append(value)
        names = list(EXPRESSIONS)
        if self.case is None:
            forms = rng.sample(names, FOCUS_BINDS)
        else:  # the expression cases' forms in turn, FOCUS_BINDS a case, those still wanted first
            at_case = self.case // EXPRESSION_CASES * FOCUS_BINDS
            turned = [(names[(at_case + k) % len(names)], None) for k in range(FOCUS_BINDS)]
            forms = list(dict.fromkeys(form for form, _ in self._first_wanted("expression", turned)))[:FOCUS_BINDS]
        shown = [at, value, optional]
        for form in forms:
            v = optional if rng.random() < 0.9 else rng.choice([value, at])
            w = self.var()
            parts.append(f"BIND({EXPRESSIONS[form].format(v=v)} AS {w})")
            self.claims.append(Claim("expression", form, v))
            shown.append(w)
        self._rdflib_deviates("expressions over values of other types, or unbound")
        if rng.random() < 0.15:
            parts.append(f"FILTER({self.filter(scope)})")
        return f"{PREFIXES}SELECT {' '.join(dict.fromkeys(shown))} WHERE {{ {' '.join(parts)} }}"

    # -- queries ----------------------------------------------------------------------------
    def query(self) -> str:
        rng = self.rng
        # the case's paths in turn: one, and another half the shapes further on
        turned = self._turn(PATH_SHAPES)[0]
        turns = [turned, PATH_SHAPES[(PATH_SHAPES.index(turned) + len(PATH_SHAPES) // 2) % len(PATH_SHAPES)]]
        foci = self._first_wanted("path", turns)[:2] if self.full else []
        if self.full and self.case is not None and self.case % EXPRESSION_CASES == 0:
            # a path to or from a constant the graph does not hold only rdflib judges: not here
            return self.expressions([f for f in foci[:1] if "out" not in f])
        wanted_aggregates = any(shape[0] == "aggregate" for shape in self.wanted)
        aggregate = self._chance(0.5 if wanted_aggregates else (0.3 if self.full else 0.2), "GROUP BY")
        if aggregate and self.full:
            return self.aggregated(foci)
        if self.rdflib_only or any("out" in focus for focus in foci):  # (only rdflib judges the path)
            body, scope = self._judged_by_rdflib(rng.randint(1, 3), foci)
        else:
            body, scope = self.group(rng.randint(1, 3) if self.full else rng.randint(1, 5), foci)
        if aggregate and not self.as_set:  # rdflib: not over paths it repeats solutions of
            return self._rdflib_aggregated(body, scope)
        if self._chance(0.12 if self.full else 0.1, "ASK"):
            return f"{PREFIXES}ASK {{ {body} }}"
        variables = scope.every
        chosen = rng.sample(variables, rng.randint(1, min(len(variables), 4)))
        chosen = list(dict.fromkeys(chosen + [v for v in self.kept if v in variables]))
        modifier = rng.random()
        if ("node", "REDUCED") in self.wanted and self.full:
            modifier = 0.25
        elif ("node", "DISTINCT") in self.wanted:
            modifier = 0.1
        distinct = "DISTINCT " if modifier < 0.2 else ("REDUCED " if self.full and modifier < 0.27 else "")
        if distinct == "REDUCED ":
            self.as_set_only = True
        if not self.full and rng.random() < 0.1:
            return f"{PREFIXES}SELECT {distinct}* WHERE {{ {{ SELECT {' '.join(chosen)} WHERE {{ {body} }} }} }}"
        tail = ""
        ordering = ("node", "ORDER BY") in self.wanted or ("node", "LIMIT/OFFSET") in self.wanted
        if self.full and rng.random() < (0.8 if ordering else 0.3) and self.oxigraph_ok and not self.oxigraph_as_set:
            tail = self.ordered(chosen)
        if self.full and rng.random() < 0.05:
            tail += f" VALUES {chosen[0]} {{ {self.node()} UNDEF }}"
        return f"{PREFIXES}SELECT {distinct}{' '.join(chosen)} WHERE {{ {body} }}{tail}"

    def ordered(self, chosen: list[str]) -> str:
        """ORDER BY every selected variable's string, language and datatype, and whether
        it is a blank node (whose STR is an error, as an unbound one's): a total order of
        the solutions up to which blank node is which, so that a LIMIT keeps the same ones;
        LIMIT and OFFSET."""
        keys = []
        for v in chosen:
            down = self.rng.random() < 0.3
            for key in (f"STR({v})", f"LANG({v})", f"STR(DATATYPE({v}))", f"isBlank({v})"):
                keys.append(f"DESC({key})" if down else key)
        self._rdflib_deviates("ORDER BY over unbound keys and errors")
        if self.oxigraph_as_set:  # a LIMIT keeps a repeated solution's copies, or other solutions
            self.oxigraph_deviates.add("a slice of solutions of an alternative or a negated set")
        offset = f" OFFSET {self.rng.randint(1, 2)}" if self.rng.random() < 0.4 else ""
        return f" ORDER BY {' '.join(keys)} LIMIT {self.rng.randint(1, 4)}{offset}"

    def aggregated(self, foci) -> str:
        """A GROUP BY of a node (or none: one group, of no rows in most) with the case's
        aggregates in turn, over values an OPTIONAL binds in some rows. Where Oxigraph
        departs from SPARQL on them (an unbound value in a group of SUM, AVG, MIN, MAX,
        GROUP_CONCAT), the pattern is one rdflib judges."""
        rng = self.rng
        wanted = self._first_wanted("aggregate", [])
        names = list(dict.fromkeys([name for name, _ in wanted] + self._turn(AGGREGATES, 3)))[:3]
        keys_drawn = rng.random() >= 0.5
        empty = not keys_drawn and rng.random() < 0.7  # no rows: the one group is empty
        if wanted:  # the first wanted aggregate's groups: of an unbound value, or one of no rows
            empty = wanted[0][1] == "empty group"
            keys_drawn = not empty and rng.random() < 0.5
        # rdflib judges an unbound value in a group of SUM, AVG, MIN, MAX, GROUP_CONCAT, and
        # counts an alternative's or a negated set's pairs, and a path from a constant not held
        sets = any(focus[0] in ("p|q", "!p", "!(p|^q)") or "out" in focus for focus in foci)
        by_rdflib = self.rdflib_only or (not empty and (sets or any(name in _ERROR_ON_UNBOUND for name in names)))
        if by_rdflib:
            body, scope = self._judged_by_rdflib(rng.randint(1, 3), foci, counted=True)
        else:
            self.counted_by_oxigraph = not empty
            body, scope = self.group(rng.randint(1, 3), foci)
            if "VALUES" in body:  # the aggregates' OPTIONALs follow it (see the notes)
                self._rdflib_deviates("an OPTIONAL after a VALUES block")
        key = rng.choice(scope.nodes)
        keys = key if keys_drawn else ""
        if empty:
            body += f" {key} ex:missing {self.var()} ."
        number = self.var()
        optionals = {number: f"OPTIONAL {{ {key} {rng.choice(VALUES)} {number} FILTER(isNumeric({number})) }}"}
        made = []
        for i, name in enumerate(names):
            out = f"?a{i}"
            argument = self._aggregated_value(name, key, keys, scope, optionals, number, by_rdflib)
            if name == "COUNT(*)":
                made.append(f"(COUNT(*) AS {out})")
            elif name == "COUNT DISTINCT":
                made.append(f"(COUNT(DISTINCT {argument}) AS {out})")
            elif name == "GROUP_CONCAT":
                separator = rng.choice([None, ", "])
                written = "" if separator is None else f'; separator="{separator}"'
                made.append(f"(GROUP_CONCAT({argument}{written}) AS {out})")
                self.concatenated[out[1:]] = " " if separator is None else separator
            else:
                made.append(f"({name}({argument}) AS {out})")
            if name in _ERROR_ON_UNBOUND and argument in optionals and not empty:
                self.oxigraph_deviates.add("an aggregate over a group with an unbound value")
        body += " " + " ".join(optionals.values())
        # counted, the solutions an engine repeats or drops are wrong counts, not the same set
        if self.oxigraph_as_set and not empty:
            self.oxigraph_deviates.add("counted solutions of an alternative or a negated set")
        if self.rdflib_as_set and not empty:
            self._rdflib_deviates("counted solutions of a zero-length or sequence path")
        for name in names:  # COUNT(*) reads every row: its rows with an unbound value are the numbers'
            self.claims.append(Claim("aggregate", name, self._arguments.get(name, number), body))
        having = f" HAVING (COUNT(*) > {rng.randint(0, 2)})" if keys and rng.random() < 0.25 else ""
        head = " ".join(([keys] if keys else []) + made)
        group_by = f" GROUP BY {keys}" if keys else ""
        return f"{PREFIXES}SELECT {head} WHERE {{ {body} }}{group_by}{having}"

    def _aggregated_value(self, name: str, key: str, keys: str, scope: Scope, optionals: dict, number: str,
                          by_rdflib: bool) -> str | None:
        """The variable ``name`` aggregates, its OPTIONAL added to ``optionals`` (the number's
        is there): a number, the string of a value, a link, a value one per group (SAMPLE
        reads it: any of a group's values is a right answer), or for MIN and MAX now and
        then a node every row binds (rdflib answers MIN and MAX of IRIs as strings)."""
        rng = self.rng
        if not hasattr(self, "_arguments"):
            self._arguments = {}
        if name == "COUNT(*)":
            return None
        if name in ("MIN", "MAX") and not by_rdflib and rng.random() < 0.4:
            node = rng.choice(scope.nodes)
            self._rdflib_deviates("MIN or MAX of IRIs")
            self._arguments[name] = node
            return node
        kind = {"SUM": "number", "AVG": "number", "MIN": "number", "MAX": "number", "SAMPLE": "same",
                "GROUP_CONCAT": "text"}.get(name) or rng.choice(["number", "text", "link"])
        if kind == "number":
            made = number
        else:
            made = self.var()
            if kind == "text":
                string = self.var()
                optionals[made] = f"OPTIONAL {{ {key} {rng.choice(VALUES)} {string} BIND(STR({string}) AS {made}) }}"
            elif kind == "link":
                optionals[made] = f"OPTIONAL {{ {key} {rng.choice(LINKS)} {made} }}"
            else:
                same = f"STR({key})" if keys else '"k"'
                optionals[made] = f"OPTIONAL {{ {key} {rng.choice(VALUES)} {self.var()} BIND({same} AS {made}) }}"
        self._arguments[name] = made
        return made

    def _judged_by_rdflib(self, size: int, foci, counted: bool = False) -> tuple[str, Scope]:
        """A group graph pattern of the shapes rdflib judges right (``full`` off while it is
        drawn); the case's path only where rdflib judges it too. ``counted``: its solutions
        are aggregated, so only paths whose solutions rdflib neither repeats nor drops."""
        self.counted = counted
        kept = []
        for form, start, end in foci:
            # counted, rdflib's repeated pairs of p?, p*, p/q count (none from a constant it lacks)
            if form in ("nested", "!(p|^q)") or (form in ZERO_LENGTH_FORMS and start == end == "var") or \
                    (counted and form in ("p/q", "p?", "p*") and "out" not in (start, end)):
                continue
            if form in ("p?", "p*", "p+", "!p"):  # paths to literals or one-or-more, not both (see the notes)
                if any(f in ("p?", "p*", "p+", "!p") and (f == "p+") != (form == "p+") for f, _, _ in kept):
                    continue
                self.zero_length = form != "p+"
            kept.append((form, start, end))
        full, self.full = self.full, False
        try:
            return self.group(size, kept)
        finally:
            self.full = full

    def _rdflib_aggregated(self, body: str, scope: Scope) -> str:
        """The aggregates rdflib judges: counts, and SUM, AVG, MIN, MAX of numbers."""
        rng = self.rng
        keys = "" if rng.random() < 0.15 else rng.choice(scope.nodes)
        aggregates = ["(COUNT(*) AS ?count)", f"(COUNT(DISTINCT {rng.choice(scope.every)}) AS ?distinct)"]
        having = f" HAVING (COUNT(*) > {rng.randint(0, 2)})" if rng.random() < 0.3 else ""
        if scope.values and rng.random() < 0.6:
            v = rng.choice(scope.values)
            body += f" FILTER(isNumeric({v}))"
            aggregates += [f"(SUM({v}) AS ?sum)", f"(AVG({v}) AS ?avg)", f"(MIN({v}) AS ?min)", f"(MAX({v}) AS ?max)"]
        head = " ".join(([keys] if keys else []) + aggregates)
        return f"{PREFIXES}SELECT {head} WHERE {{ {body} }}{' GROUP BY ' + keys if keys else ''}{having}"
