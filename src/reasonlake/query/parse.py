"""A SPARQL query's text to rdflib's SPARQL algebra (SPARQL 1.1, 18.2), or one
``SparqlError`` saying where the text is wrong."""
from __future__ import annotations

from reasonlake.errors import SparqlError
from reasonlake.query import validate


def algebra(text: str):
    """rdflib's translated query (``.algebra``: the root, a SelectQuery, AskQuery, ...);
    EP-SPARQL's operators are translated first (``events``: a text translated already is
    left as it is)."""
    from pyparsing import ParseException
    from rdflib.plugins.sparql import parser
    from rdflib.plugins.sparql.algebra import translateQuery

    from reasonlake.query.events import translate

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
