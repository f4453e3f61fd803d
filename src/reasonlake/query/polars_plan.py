"""rdflib's SPARQL algebra compiled onto Polars LazyFrames over a view's triples.

``triples`` is a frame of ``subject``, ``predicate``, ``object`` in N-Triples text (a
set: each triple once). Each algebra node (SPARQL 1.1, 18.2) becomes operators on
``Solutions`` (``solutions``); expressions become Polars expressions (``expressions``).
A node or function the compiler does not know raises ``SparqlError`` naming it.
"""
from __future__ import annotations

import polars as pl
from rdflib import BNode, Variable
from rdflib.plugins.sparql.parserutils import CompValue

from reasonlake.errors import SparqlError
from reasonlake.query import aggregates, paths
from reasonlake.query.expressions import Compiler
from reasonlake.query.ordering import sort_keys
from reasonlake.query.solutions import UNIT, Solutions, join, left_join, minus, numbered_rows, project, union
from reasonlake.query.terms import constant

_SHOWN = {"Graph": "GRAPH", "ServiceGraphPattern": "SERVICE", "DescribeQuery": "DESCRIBE"}


class Planner:
    def __init__(self, triples: pl.LazyFrame):
        self.triples = triples.select("subject", "predicate", "object")
        self._hidden = 0

    def hidden(self, what: str) -> str:
        self._hidden += 1
        return f"${what}{self._hidden}"

    def solutions(self, node) -> Solutions:
        if not isinstance(node, CompValue):
            raise SparqlError(f"the pattern {node!r} is not supported yet")
        handler = getattr(self, f"_{node.name}", None)
        if handler is None:
            raise SparqlError(f"{_SHOWN.get(node.name, repr(node.name))} is not supported yet in reasonlake's SPARQL")
        return handler(node)

    def compiler(self, solutions: Solutions) -> Compiler:
        return Compiler(solutions.variables)

    # -- graph patterns ---------------------------------------------------------------------
    def _BGP(self, node) -> Solutions:
        out = Solutions.unit()
        left = [self._pattern(t) for t in node.triples]
        # join the patterns that share a variable with what is joined so far first (no cross product)
        while left:
            sharing = [p for p in left if set(p.variables) & set(out.variables)]
            nxt = sharing[0] if sharing else left[0]
            left.remove(nxt)
            out = join(out, nxt)
        return out

    def _pattern(self, triple) -> Solutions:
        s, p, o = triple
        if paths.is_path(p):
            start = None if _is_variable(s) else constant(s)
            end = None if _is_variable(o) else constant(o)
            found = paths.pairs(p, self.triples, start, end)
            slots = [("start", s), ("end", o)]
        else:
            found = self.triples
            slots = [("subject", s), ("predicate", p), ("object", o)]
        tests, names = [], {}
        for column, term in slots:
            if not _is_variable(term):
                tests.append(pl.col(column) == constant(term))
                continue
            name = _name(term)
            if name in names.values():  # ?x ?p ?x: the same term in both places
                first = next(c for c, n in names.items() if n == name)
                tests.append(pl.col(column) == pl.col(first))
                continue
            names[column] = name
        if tests:
            found = found.filter(pl.all_horizontal(tests))
        frame = found.select([pl.lit(True).alias(UNIT), *(pl.col(c).alias(n) for c, n in names.items())])
        return Solutions.of(frame, names.values())

    def _Join(self, node) -> Solutions:
        return join(self.solutions(node.p1), self.solutions(node.p2))

    def _LeftJoin(self, node) -> Solutions:
        expr = node.get("expr")
        condition = None
        if expr is not None and not (isinstance(expr, CompValue) and expr.name == "TrueFilter"):
            def condition(joined: Solutions) -> pl.LazyFrame:
                compiler = self.compiler(joined)
                truth = compiler.truth(expr)
                return compiler.apply(joined.frame).filter(truth.fill_null(False)).drop(compiler.names)
        return left_join(self.solutions(node.p1), self.solutions(node.p2), condition)

    def _Union(self, node) -> Solutions:
        return union(self.solutions(node.p1), self.solutions(node.p2))

    def _Minus(self, node) -> Solutions:
        return minus(self.solutions(node.p1), self.solutions(node.p2))

    def _Filter(self, node) -> Solutions:
        inner = self.solutions(node.p)
        inner, exists = self._exists_columns(node.expr, inner)
        compiler = Compiler(inner.variables, exists)
        truth = compiler.truth(node.expr)
        hidden = [c for c in inner.frame.collect_schema().names() if c.startswith("$exists")]
        kept = compiler.apply(inner.frame).filter(truth.fill_null(False)).drop([*hidden, *compiler.names])
        return Solutions(kept, inner.variables, inner.bound)

    def _Extend(self, node) -> Solutions:
        inner = self.solutions(node.p)
        var = str(node.var)
        if var in inner.variables:
            raise SparqlError(f"BIND(... AS ?{var}): ?{var} is already bound in the pattern before it")
        compiler = self.compiler(inner)
        term = compiler.term(node.expr)
        frame = compiler.apply(inner.frame).with_columns(term.alias(var)).drop(compiler.names)
        return Solutions(frame, (*inner.variables, var), inner.bound)

    def _ToMultiSet(self, node) -> Solutions:
        return self.solutions(node.p)

    def _values(self, node) -> Solutions:
        rows = node.res
        variables = list(dict.fromkeys(str(v) for row in rows for v in row))
        data = {v: [None if row.get(Variable(v), "UNDEF") == "UNDEF" else constant(row[Variable(v)])
                    for row in rows] for v in variables}
        frame = pl.LazyFrame({UNIT: [True] * len(rows), **data},
                             schema={UNIT: pl.Boolean, **{v: pl.String for v in variables}})
        bound = [v for v in variables if all(x is not None for x in data[v])]
        return Solutions.of(frame, variables, bound)

    # -- solution modifiers -----------------------------------------------------------------
    def _Project(self, node) -> Solutions:
        return project(self.solutions(node.p), [str(v) for v in node.PV])

    def _Distinct(self, node) -> Solutions:
        inner = self.solutions(node.p)
        return Solutions(inner.frame.unique(maintain_order=True), inner.variables, inner.bound)

    _Reduced = _Distinct  # REDUCED may drop any duplicates: all of them is allowed

    def _Slice(self, node) -> Solutions:
        inner = self.solutions(node.p)
        return Solutions(inner.frame.slice(node.start or 0, node.length), inner.variables, inner.bound)

    def _OrderBy(self, node) -> Solutions:
        inner = self.solutions(node.p)
        compiler = self.compiler(inner)
        keys, descending = [], []
        for condition in node.expr:
            expr, down = condition, False
            if isinstance(condition, CompValue) and condition.name == "OrderCondition":
                expr, down = condition.expr, condition.order == "DESC"
            for key in sort_keys(compiler.term(expr)):
                keys.append(key)
                descending.append(down)
        frame = compiler.apply(inner.frame).sort(keys, descending=descending, nulls_last=False, maintain_order=True)
        return Solutions(frame.drop(compiler.names), inner.variables, inner.bound)

    # -- grouping ---------------------------------------------------------------------------
    def _AggregateJoin(self, node) -> Solutions:
        group = node.p
        inner = self.solutions(group.p)
        compiler = self.compiler(inner)
        keys, key_terms = [], []
        for expr in group.expr or []:
            keys.append(self.hidden("key"))
            key_terms.append(compiler.term(expr))
        made = [aggregates.aggregate(a, i, compiler.term, inner.variables) for i, a in enumerate(node.A)]
        frame = compiler.apply(inner.frame)
        if keys:
            frame = frame.with_columns([t.alias(k) for t, k in zip(key_terms, keys)])
        inputs = [e for a in made for e in a.inputs]
        if inputs:
            frame = frame.with_columns(inputs)
        aggregations = [e for a in made for e in a.aggregations]
        if keys:
            grouped = frame.group_by(keys).agg(aggregations) if aggregations else frame.select(keys).unique()
        else:  # no GROUP BY: one group, even of no rows (COUNT(*) is 0 there)
            grouped = frame.select(aggregations or [pl.len()])
        names = [str(a.res) for a in node.A]
        results = [a.result.alias(n) for a, n in zip(made, names)]
        # UNIT by with_columns: a literal alone in a select would make one row of no groups
        out = grouped.with_columns(pl.lit(True).alias(UNIT)).select([UNIT, *results])
        return Solutions(out, tuple(names), frozenset())

    # -- queries ----------------------------------------------------------------------------
    def _SelectQuery(self, node) -> Solutions:
        _no_dataset(node)
        return self.solutions(node.p)

    _AskQuery = _SelectQuery
    _ConstructQuery = _SelectQuery

    # EXISTS and NOT EXISTS (17.4.1.4) as a column per occurrence: whether the row has a
    # compatible solution of the pattern. The pattern is evaluated once, not per row, which is
    # the spec's substitution only for patterns without FILTER, BIND, OPTIONAL or MINUS (whose
    # expressions could see the row's variables): other patterns raise.
    def _exists_columns(self, expr, inner: Solutions):
        found: dict[int, str] = {}
        for node in _walk(expr):
            if isinstance(node, CompValue) and node.name in ("Builtin_EXISTS", "Builtin_NOTEXISTS"):
                pattern = _translated(node.graph)
                _check_exists_pattern(pattern)
                matches = self.solutions(pattern)
                column = self.hidden("exists")
                numbered = Solutions(numbered_rows(inner.frame, "$lid"), ("$lid", *inner.variables),
                                     inner.bound | {"$lid"})
                hit = join(numbered, matches).frame.select("$lid").unique().with_columns(pl.lit(True).alias(column))
                frame = numbered.frame.join(hit, on="$lid", how="left").with_columns(
                    pl.col(column).fill_null(False)).drop("$lid")
                inner = Solutions(frame, inner.variables, inner.bound)
                found[id(node)] = column

        def exists(node, negated: bool):
            if id(node) not in found:
                raise SparqlError("EXISTS is not supported yet outside a group's FILTER (in an OPTIONAL's FILTER, "
                              "BIND, SELECT or ORDER BY)")
            column = pl.col(found[id(node)])
            return ~column if negated else column

        return inner, exists


def _walk(expr):
    yield expr
    if isinstance(expr, CompValue):
        for key, value in expr.items():
            if key in ("_vars", "graph"):
                continue
            yield from _walk(value)
    elif isinstance(expr, (list, tuple)):
        for value in expr:
            yield from _walk(value)


def _translated(graph):
    from rdflib.plugins.sparql.algebra import translateGroupGraphPattern

    if isinstance(graph, CompValue) and graph.name.startswith("GroupGraphPattern"):
        return translateGroupGraphPattern(graph)
    return graph


_PLAIN_PATTERNS = {"BGP", "Join", "Union", "ToMultiSet", "values"}


def _check_exists_pattern(pattern) -> None:
    if isinstance(pattern, CompValue):
        if pattern.name not in _PLAIN_PATTERNS:
            raise SparqlError("EXISTS / NOT EXISTS over a pattern with FILTER, BIND, OPTIONAL, MINUS or a "
                              "sub-query is not supported yet (only triple patterns, paths, UNION and VALUES)")
        for key in ("p", "p1", "p2"):
            if key in pattern:
                _check_exists_pattern(pattern[key])


def _no_dataset(node) -> None:
    if node.get("datasetClause"):
        raise SparqlError("FROM / FROM NAMED is not supported: a query reads the view's one graph")


def _is_variable(term) -> bool:
    return isinstance(term, (Variable, BNode))


def _name(term) -> str:
    # a blank node of the query is a variable no one can select (4.1.4)
    return str(term) if isinstance(term, Variable) else f"$bnode.{term}"
