"""The rules of SPARQL 1.1 a query must keep beyond its grammar, which the parser does not
check: a query that breaks one is refused before it runs, as the W3C suite's negative
syntax tests ask (``syntax-query``, ``aggregates/agg08``-``agg12``, ``grouping/group06``-
``group07``).

* Grouping (11.4, 18.2.4.1): in a query that groups (GROUP BY, or an aggregate), a
  projected variable is a grouping key, and an expression reads other variables only
  inside an aggregate; ``SELECT *`` does not group.
* Scope (18.2.1): ``(expr AS ?v)`` and ``BIND(expr AS ?v)`` name a variable not in scope
  yet: not projected before in the same SELECT, not bound by the pattern a BIND follows in
  its group.
* VALUES (10.2): each row has one value per variable.
* Escapes (19.2): ``\\u`` escapes of surrogate code points name no character.
"""
from __future__ import annotations

import re

from rdflib import Variable
from rdflib.plugins.sparql.parserutils import CompValue

from reasonlake.errors import SparqlError

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def check_text(text: str) -> None:
    if _SURROGATE_ESCAPE.search(text):
        raise SparqlError("the query escapes a surrogate code point (\\uD800-\\uDFFF), which names no character: "
                          "write the character itself or its \\U escape")


def check(query: CompValue) -> None:
    """``query``: the parse tree's query (``parser.parseQuery(text)[1]``)."""
    for node in _nodes(query):
        if node.name in ("SelectQuery", "SubSelect"):
            _check_select(node)
        elif node.name == "GroupGraphPatternSub":
            _check_binds(node)
        elif node.name in ("InlineData", "ValuesClause"):
            _check_values(node)


def _check_select(select: CompValue) -> None:
    projection = select.get("projection") if "projection" in select else None
    seen = set()
    grouping = "groupby" in select and select["groupby"] is not None
    groups = grouping or bool(projection and any("evar" in i and _has_aggregate(i["expr"]) for i in projection))
    if projection:
        # after grouping only the keys are in scope: (MAX(?a) AS ?x) over a pattern of ?x is fine
        scope = _group_keys(select) if groups else _in_scope(select["where"]) if "where" in select else set()
        for item in projection:
            if "evar" in item:
                name = str(item["evar"])
                if name in seen or name in scope:
                    raise SparqlError(f"SELECT (... AS ?{name}): ?{name} is already in scope (projected before, or "
                                      f"bound by the pattern): name the expression's result with a new variable")
                seen.add(name)
            else:
                seen.add(str(item["var"]))
    if not groups and not ("having" in select and select["having"] is not None):
        return
    if not projection:
        raise SparqlError("SELECT * in a query that groups: project the grouping keys and aggregates by name")
    keys = _group_keys(select)
    for item in projection:
        if "evar" in item:
            loose = _outside_aggregates(item["expr"]) - keys - _earlier(projection, item)
            if loose:
                name = sorted(loose)[0]
                raise SparqlError(f"(... AS ?{item['evar']}) reads ?{name} outside an aggregate in a query that "
                                  f"groups: group by ?{name} or wrap it in an aggregate (SAMPLE(?{name}))")
        elif str(item["var"]) not in keys:
            name = item["var"]
            raise SparqlError(f"SELECT ?{name} in a query that groups: ?{name} is not a grouping key (GROUP BY ?{name},"
                              f" or project an aggregate of it such as (SAMPLE(?{name}) AS ?{name}_))")


def _group_keys(select: CompValue) -> set[str]:
    """The variables GROUP BY names: plain ones and those of its ``(expr AS ?v)``."""
    keys = set()
    if "groupby" in select and select["groupby"] is not None:
        for condition in select["groupby"]["condition"]:
            if isinstance(condition, Variable):
                keys.add(str(condition))
            elif isinstance(condition, CompValue) and "var" in condition and condition["var"] is not None:
                keys.add(str(condition["var"]))
    return keys


def _earlier(projection, item) -> set[str]:
    """The expressions' variables projected before ``item`` (a projection may use them)."""
    out = set()
    for other in projection:
        if other is item:
            break
        if "evar" in other:
            out.add(str(other["evar"]))
    return out


def _check_binds(group: CompValue) -> None:
    bound: set[str] = set()
    for part in group.get("part") or [] if "part" in group else []:
        if isinstance(part, CompValue) and part.name == "Bind":
            name = str(part["var"])
            if name in bound:
                raise SparqlError(f"BIND(... AS ?{name}): ?{name} is already bound by the pattern before it in its "
                                  f"group: bind a new variable")
            bound.add(name)
        elif isinstance(part, CompValue) and part.name in ("Filter", "MinusGraphPattern"):
            continue
        else:
            bound |= _in_scope(part)


def _check_values(data: CompValue) -> None:
    variables = data["var"] if "var" in data else []
    width = len(variables) if isinstance(variables, list) else 1
    for row in data["value"] if "value" in data else []:
        values = list(row) if type(row).__name__ == "ParseResults" else [row]  # a row, or one value of one variable
        if len(values) != width:
            raise SparqlError(f"VALUES of {width} variable(s) has a row of {len(values)} value(s): give each row "
                              f"one value (or UNDEF) per variable")


def _in_scope(pattern) -> set[str]:
    """The variables a pattern binds (18.2.1): a sub-query's projected ones only, a
    MINUS's or FILTER's none."""
    if isinstance(pattern, Variable):
        return {str(pattern)}
    if isinstance(pattern, CompValue):
        if pattern.name in ("Filter", "MinusGraphPattern"):
            return set()
        if pattern.name == "SubSelect":
            projection = pattern["projection"] if "projection" in pattern else None
            if not projection:
                return _in_scope(pattern["where"])
            return {str(i["evar"] if "evar" in i else i["var"]) for i in projection}
        if pattern.name == "Bind":
            return {str(pattern["var"])}
        found = set()
        for key, value in pattern.items():
            if key in ("_vars", "expr"):
                continue
            found |= _in_scope(value)
        return found
    if isinstance(pattern, (list, tuple)) or type(pattern).__name__ == "ParseResults":
        found = set()
        for value in pattern:
            found |= _in_scope(value)
        return found
    return set()


def _has_aggregate(expr) -> bool:
    return any(isinstance(n, CompValue) and n.name.startswith("Aggregate_") for n in _nodes(expr))


def _outside_aggregates(expr) -> set[str]:
    if isinstance(expr, Variable):
        return {str(expr)}
    if isinstance(expr, CompValue):
        if expr.name.startswith("Aggregate_") or expr.name in ("Builtin_EXISTS", "Builtin_NOTEXISTS"):
            return set()
        found = set()
        for value in expr.values():
            found |= _outside_aggregates(value)
        return found
    if isinstance(expr, (list, tuple)) or type(expr).__name__ == "ParseResults":
        found = set()
        for value in expr:
            found |= _outside_aggregates(value)
        return found
    return set()


def _nodes(tree):
    if isinstance(tree, CompValue):
        yield tree
        for value in tree.values():
            yield from _nodes(value)
    elif isinstance(tree, (list, tuple)) or type(tree).__name__ == "ParseResults":
        for value in tree:
            yield from _nodes(value)
