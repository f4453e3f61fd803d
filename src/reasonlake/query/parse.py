"""A SPARQL query's text to rdflib's SPARQL algebra (SPARQL 1.1, 18.2), or one
``SparqlError`` saying where the text is wrong."""
from __future__ import annotations

from rdflib import URIRef
from rdflib.plugins.sparql import parser
from rdflib.plugins.sparql.algebra import translateQuery
from rdflib.plugins.sparql.sparql import Prologue

from reasonlake.errors import SparqlError
from reasonlake.query import validate
from reasonlake.query.events import translate


def _keep_every_prefix() -> None:
    """rdflib's SPARQL prologue keeps its prefixes in a graph store, which holds one prefix per
    namespace: ``PREFIX ex: <x> PREFIX : <x>`` forgot ``ex:`` and a legal query was refused
    ("Unknown namespace prefix"). The prologue rdflib makes is given a table of every prefix
    as declared (SPARQL 1.1, 4.1.1.1), read before the store's."""
    # imported when called: tests replace this name
    from rdflib.plugins.sparql import algebra as rdflib_algebra

    if getattr(rdflib_algebra.Prologue, "keeps_every_prefix", False):
        return

    class EveryPrefix(Prologue):
        keeps_every_prefix = True

        def __init__(self) -> None:
            super().__init__()
            self.declared: dict[str, str] = {}

        def bind(self, prefix, uri) -> None:
            super().bind(prefix, uri)
            self.declared[prefix or ""] = str(uri)

        def resolvePName(self, prefix, localname) -> URIRef:  # noqa: N802 (rdflib's name)
            namespace = self.declared.get(prefix or "")
            if namespace is None:
                return super().resolvePName(prefix, localname)
            return URIRef(namespace + (localname or ""))

    rdflib_algebra.Prologue = EveryPrefix


def algebra(text: str):
    """rdflib's translated query (``.algebra``: the root, a SelectQuery, AskQuery, ...);
    EP-SPARQL's operators are translated first (``events``: a text translated already is
    left as it is)."""
    # imported when called: it loads pyparsing
    from pyparsing import ParseException


    _keep_every_prefix()
    text, _ = translate(text)
    validate.check_text(text)
    try:
        parsed = parser.parseQuery(text)
    except ParseException as exc:
        raise SparqlError(f"the query does not parse at line {exc.lineno}, column {exc.col}: {exc.msg}: "
                          f"{exc.line.strip()!r}") from None
    validate.check(parsed[1])
    try:
        return translateQuery(parsed)
    except Exception as exc:  # an unknown prefix, a variable bound twice: rdflib's message says which
        raise SparqlError(f"the query is not valid SPARQL: {exc}") from None
