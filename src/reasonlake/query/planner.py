"""rdflib's SPARQL algebra compiled onto a dialect's frames over a view's triples.

``triples`` is a frame of ``subject``, ``predicate``, ``object`` in N-Triples text (a
set: each triple once; for a query with event operators, ``events``, the timed occurrences
with their interval, ``START`` and ``END``, and the same triple once per occurrence), in
the dialect ``frames`` speaks: Polars LazyFrames in the driver
(``polars_frames``), Spark DataFrames (``query/dialects/spark_frames``). Each algebra node (SPARQL
1.1, 18.2) becomes operators on ``Solutions`` (``solutions``); expressions become Polars
expressions (``expressions``), applied to the rows by the dialect (``frames.rows``). A node
or function the compiler does not know raises ``SparqlError`` naming it.

A row-wise step is built by a module-level function (``_filtered``, ``_extended``, ...) of
the Polars expressions alone: Spark ships it to its executors, and a step that closed over
the planner would carry the whole plan with it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl
from rdflib import BNode, Variable
from rdflib.plugins.sparql.algebra import translateGroupGraphPattern
from rdflib.plugins.sparql.parserutils import CompValue

from reasonlake.errors import SparqlError
from reasonlake.query import aggregates, builtins, paths
from reasonlake.query.events import EVENT
from reasonlake.query.expressions import Compiler
from reasonlake.query.ordering import sort_keys
from reasonlake.query.solutions import ROW, TIMES, UNIT, Solutions, join, left_join, minus, project, union
from reasonlake.query.terms import constant

_PATH_END = "$path.end"
_SHOWN = {"Graph": "GRAPH", "ServiceGraphPattern": "SERVICE", "DescribeQuery": "DESCRIBE"}


class Planner:
    def __init__(self, triples, frames, timed: bool = False, named=None, matches=None):
        """``named``: the dataset's named graphs (SPARQL 13.2; RSP-QL's named windows), each a
        frame of triples like ``triples`` (the default graph), by its IRI in N-Triples;
        ``matches``: RSEP-QL MATCH solutions by the IRI of the GRAPH node standing for each."""
        self.frames = frames
        self.matches = matches or {}
        self.timed = timed
        columns = ("subject", "predicate", "object", *(TIMES if timed else ()))
        self.triples = frames.select(triples, {c: c for c in columns})
        self.named = None if named is None else {iri: frames.select(graph, {c: c for c in columns})
                                                  for iri, graph in named.items()}
        self._hidden = 0
        self._counted: set[str] = set()  # the aggregates' variables with an integer column beside them

    def hidden(self, what: str) -> str:
        self._hidden += 1
        return f"${what}{self._hidden}"

    def solutions(self, node, seed: Solutions | None = None) -> Solutions:
        """``node``'s solutions; with a ``seed`` (distinct rows of variables ``node`` binds in
        every solution, ``_certain``), only those that agree with one of its rows, the seed
        joined in where it cuts the most work (an OPTIONAL's side restricted to what its left
        side can join: sideways information passing)."""
        if not isinstance(node, CompValue):
            raise SparqlError(f"the pattern {node!r} is not supported yet")
        handler = getattr(self, f"_{node.name}", None)
        if handler is None:
            raise SparqlError(f"{_SHOWN.get(node.name, repr(node.name))} is not supported yet in reasonlake's SPARQL")
        if seed is None:
            return handler(node)
        if node.name in _SEEDED:
            return handler(node, seed)
        return _semi_joined(handler(node), seed)

    def compiler(self, solutions: Solutions) -> Compiler:
        return Compiler(solutions.variables, timed=solutions.timed, integers=self._integers(solutions))

    def _integers(self, solutions: Solutions) -> dict[str, str]:
        """The variables whose integer value a column beside them holds (a COUNT's), by column.
        Only an aggregate's variables are looked for (a frame's columns are a round trip on
        Spark Connect)."""
        counted = [v for v in solutions.variables if v in self._counted]
        columns = set(self.frames.names(solutions.frame)) if counted else set()
        return {v: aggregates.integer_column(v) for v in counted if aggregates.integer_column(v) in columns}

    # -- graph patterns ---------------------------------------------------------------------
    def _BGP(self, node, seed: Solutions | None = None, conditions=()) -> Solutions:
        # a seed binds only variables of the patterns, each row once: joined first, it keeps
        # the matches that agree with it, each once, and every later join reads only those
        left = [self._pattern(t, [c for c in conditions if c.pattern is t]) for t in node.triples]
        # not seeded: the first pattern's matches are the start (a join with the one empty
        # solution would be a cross join: on Spark a cartesian product over every match),
        # a pattern a FILTER was taken to before the others (decision 0066)
        few = False  # a filtered start counted few rows: each join of it is held and counted too
        if seed is not None:
            out = seed
        elif left and not self.timed:  # an event query's one empty solution starts its interval
            filtered = {id(c.pattern) for c in conditions}
            first = next((i for i, t in enumerate(node.triples) if id(t) in filtered), None)
            out = left.pop(first or 0)
            if first is not None and left:  # few rows, likely: held so that the joins can broadcast them
                out, few = self._held(out)
        else:
            out = Solutions.unit(self.frames)
        # join the patterns that share a variable with what is joined so far first (no cross product)
        while left:
            sharing = [p for p in left if set(p.variables) & set(out.variables)]
            nxt = sharing[0] if sharing else left[0]
            left.remove(nxt)
            out = join(out, nxt)
            if few and left:  # grown from few rows, likely still few: held so that the next join can broadcast them
                out, few = self._held(out)
        return out

    def _held(self, solutions: Solutions) -> tuple[Solutions, bool]:
        """``solutions`` held by the dialect for the joins that read them (``frames.held``),
        and whether they are known to be few."""
        frame, few = self.frames.held(solutions.frame)
        return solutions.but(frame), few

    def _pattern(self, triple, conditions=()) -> Solutions:
        """The solutions of one triple pattern, filtered by the FILTER ``conditions`` pushed down
        to it (``_pushed_down``)."""
        s, p, o = triple
        if paths.is_path(p) and self.timed:
            raise SparqlError("a property path in a query with event operators is not supported yet (the "
                              "interval of a path's occurrences is not defined)")
        if paths.is_path(p):
            start = None if _is_variable(s) else constant(s)
            end = None if _is_variable(o) else constant(o)
            # a condition on the path's start alone also narrows where a transitive path
            # starts its search (a start that fails it has no pair that passes)
            on_start = [c.expr for c in conditions if _is_variable(s) and c.variables == {_name(s)} and s != o]
            starts = None if not on_start else (lambda pairs_: self._starts(pairs_, _name(s), on_start))
            found = paths.pairs(self.frames, p, self.triples, start, end, starts)
            slots = [("start", s), ("end", o)]
        else:
            found = self.triples
            slots = [("subject", s), ("predicate", p), ("object", o)]
        tests, names = [], {}
        for column, term in slots:
            if not _is_variable(term):
                tests.append((column, constant(term), False))
                continue
            name = _name(term)
            if name in names.values():  # ?x ?p ?x: the same term in both places
                first = next(c for c, n in names.items() if n == name)
                tests.append((column, first, True))
                continue
            names[column] = name
        found = self.frames.where_equal(found, tests)
        # UNIT added before the projection: a pattern of constants keeps a row per match
        times = {t: t for t in TIMES} if self.timed else {}
        frame = self.frames.select(self.frames.flag(found, UNIT),
                                   {UNIT: UNIT, **times, **{n: c for c, n in names.items()}})
        out = Solutions.of(self.frames, frame, names.values(), timed=self.timed)
        for condition in conditions:
            out = self._filter(out, condition.expr)
        return out

    def _starts(self, pairs_frame, name: str, exprs) -> Any:
        """The (start, end) pairs whose start passes ``exprs`` (FILTER conditions on ``name``,
        the path's start variable, alone)."""
        frames = self.frames
        named = Solutions.of(frames, frames.select(frames.flag(pairs_frame, UNIT),
                                                   {UNIT: UNIT, name: paths.START, _PATH_END: paths.END}), [name])
        for expr in exprs:
            named = self._filter(named, expr)
        return frames.select(named.frame, {paths.START: name, paths.END: _PATH_END})

    def _Join(self, node, seed: Solutions | None = None) -> Solutions:
        if seed is not None and set(seed.variables) <= _certain(node.p1):
            return join(self.solutions(node.p1, seed), self.solutions(node.p2))
        if seed is not None and set(seed.variables) <= _certain(node.p2):
            return join(self.solutions(node.p1), self.solutions(node.p2, seed))
        return _semi_joined(join(self.solutions(node.p1), self.solutions(node.p2)), seed)

    def _LeftJoin(self, node, seed: Solutions | None = None) -> Solutions:
        return self._left_join(node, self._left_side(node.p1, seed))

    def _left_side(self, pattern, seed: Solutions | None) -> Solutions:
        """An OPTIONAL's left side (its rows are the OPTIONAL's, so a seed on what it binds
        in every row restricts both alike)."""
        if seed is not None and set(seed.variables) <= _certain(pattern):
            return self.solutions(pattern, seed)
        return _semi_joined(self.solutions(pattern), seed)

    def _left_join(self, node, left: Solutions) -> Solutions:
        """OPTIONAL ``node`` with its left side's solutions given; the optional side is
        computed only for the left rows' values of the variables both bind in every row."""
        expr = node.get("expr")
        if isinstance(expr, CompValue) and expr.name == "TrueFilter":
            expr = None
        keys = sorted((left.bound & _certain(node.p2)) - {ROW}) if not self.timed else []
        if not keys:
            return left_join(left, self.solutions(node.p2), self._condition(expr))

        def optional_side(numbered: Solutions) -> Solutions:
            frames = self.frames
            seed = frames.seed(numbered.frame, [UNIT, *keys], self.triples)
            return self.solutions(node.p2, None if seed is None else Solutions.of(frames, seed, keys))
        return left_join(left, optional_side, self._condition(expr))

    def _Graph(self, node) -> Solutions:
        """``GRAPH g { P }`` over the named graphs (SPARQL 18.6: ``P`` matched in each graph
        ``g`` names, a variable ``g`` bound to the graph's IRI), or an event operator."""
        term = str(node.term)
        if term.startswith(EVENT) and not isinstance(node.term, Variable) and node.p.name == "Union":
            return self._event(node, term[len(EVENT):])
        if not isinstance(node.term, Variable) and constant(node.term) in self.matches:
            return self._matched(self.matches[constant(node.term)])
        if self.named is None:  # silently empty would hide the mistake
            raise SparqlError("GRAPH is not supported over a view: a view holds one default graph (named graphs are "
                              "a dataset's, given with them)")
        if isinstance(node.term, Variable):
            return self._in_each_graph(node.p, str(node.term))
        return self._in_graph(constant(node.term), node.p)

    def _matched(self, found: pl.DataFrame) -> Solutions:
        """A MATCH's solutions (RSEP-QL, Definition 6.9), each variable bound in every row."""
        variables = list(found.columns)
        frame = self.frames.constant({UNIT: [True] * found.height, **{v: found.get_column(v).to_list()
                                                                       for v in variables}},
                                     {UNIT: pl.Boolean, **{v: pl.String for v in variables}})
        return Solutions.of(self.frames, frame, variables, variables)

    def _in_graph(self, iri: str, pattern, evaluate=None) -> Solutions:
        """``pattern``'s solutions over the named graph ``iri`` (none: a graph the dataset
        lacks matches nothing, 13.3.4); ``evaluate``: how (default ``solutions``)."""
        graph = self.named.get(iri)
        if graph is None:
            graph = self.frames.constant({c: [] for c in ("subject", "predicate", "object")},
                                         {c: pl.String for c in ("subject", "predicate", "object")})
        default, self.triples = self.triples, graph
        try:
            return (evaluate or self.solutions)(pattern)
        finally:
            self.triples = default

    def _in_each_graph(self, pattern, variable: str) -> Solutions:
        """``GRAPH ?g { P }``: the union over the named graphs of ``P``'s solutions there
        joined with ?g bound to the graph's IRI (a ``P`` that binds ?g itself must agree)."""
        found = None
        for iri in sorted(self.named):
            named = Solutions.of(self.frames, self.frames.constant({UNIT: [True], variable: [iri]},
                                                                   {UNIT: pl.Boolean, variable: pl.String}),
                                 [variable])
            inner = join(self._in_graph(iri, pattern), named)
            found = inner if found is None else union(found, inner)
        if found is None:  # no named graph: no solution, with the variables a solution would bind
            found = Solutions.of(self.frames, self.frames.constant({UNIT: [], variable: []},
                                                                   {UNIT: pl.Boolean, variable: pl.String}),
                                 [variable])
        return found

    def _event(self, node, operator: str) -> Solutions:
        """An event operator (``events``): ``{P1} SEQ {P2}`` and the others, as SeqJoin,
        EqJoin, SeqRightJoin and EqLeftJoin of the paper; the optional side's top FILTER is
        the condition of the two optional ones, as OPTIONAL's is."""
        if operator == "seq":
            return join(self.solutions(node.p.p1), self.solutions(node.p.p2), "seq")
        if operator == "equals":
            return join(self.solutions(node.p.p1), self.solutions(node.p.p2), "equals")
        if operator == "optionalseq":  # the right side is kept; the left, earlier, joins where it is
            optional, expr = _top_filter(node.p.p1)
            kept = self.solutions(node.p.p2)
            return left_join(kept, self.solutions(optional), self._condition(expr), "after")
        if operator == "equalsoptional":
            optional, expr = _top_filter(node.p.p2)
            kept = self.solutions(node.p.p1)
            return left_join(kept, self.solutions(optional), self._condition(expr), "equals")
        raise SparqlError(f"the event operator {operator.upper()} is not known")

    def _condition(self, expr):
        if expr is None:
            return None

        def condition(joined: Solutions):
            compiler = self.compiler(joined)
            truth = compiler.truth(expr)
            return self.frames.rows(joined.frame, _filtered(list(compiler.prepared), truth, compiler.names))
        return condition

    def _Union(self, node, seed: Solutions | None = None) -> Solutions:
        # a seed is given only on variables both sides bind in every row (_certain)
        return union(self.solutions(node.p1, seed), self.solutions(node.p2, seed))

    def _Minus(self, node, seed: Solutions | None = None) -> Solutions:
        return minus(self._left_side(node.p1, seed), self.solutions(node.p2))

    def _Filter(self, node, seed: Solutions | None = None) -> Solutions:
        named = _variables_of(node.expr)
        if named is not None and not self.timed and isinstance(node.p, CompValue) and node.p.name == "LeftJoin":
            # A group's FILTER over its OPTIONAL, on variables the optional's left side binds
            # in every row: a joined row has the left row's bindings of them, so filtering the
            # left side first keeps the same rows, and the join reads only the left rows that
            # pass (the IMaRS "optional" query at 3M facts: every Post joined, then 1% kept)
            left = self._left_side(node.p.p1, seed)
            if named <= left.bound:
                return self._left_join(node.p, self._filter(left, node.expr))
            return self._filter(self._left_join(node.p, left), node.expr)
        if named is not None and not self.timed and isinstance(node.p, CompValue) and node.p.name == "BGP":
            pushed, kept = _pushed_down(node.expr, node.p.triples)
            inner = self._BGP(node.p, seed, pushed)
            return inner if kept is None else self._filter(inner, kept)
        return self._filter(self.solutions(node.p, seed), node.expr)

    def _filter(self, inner: Solutions, expr) -> Solutions:
        inner, exists = self._exists_columns(expr, inner)
        integers = self._integers(inner)
        compiler = Compiler(inner.variables, exists, timed=inner.timed, integers=integers)
        truth = compiler.truth(expr)
        hidden = [c for c in self.frames.names(inner.frame) if c.startswith("$exists")]
        step = _filtered(list(compiler.prepared), truth, [*hidden, *compiler.names])
        return inner.but(self.frames.filtered(inner.frame, step, expr, inner.variables, integers))

    def _Extend(self, node, seed: Solutions | None = None) -> Solutions:
        # a seed is never on the variable BIND makes (_certain)
        return self._extend(node, self.solutions(node.p, seed))

    def _extend(self, node, inner: Solutions) -> Solutions:
        var = str(node.var)
        if var in inner.variables:
            raise SparqlError(f"BIND(... AS ?{var}): ?{var} is already bound in the pattern before it")
        if isinstance(node.expr, Variable):  # BIND(?x AS ?y), as rdflib writes a SELECT of an aggregate: a copy
            source = str(node.expr)
            frame = self.frames.copied(inner.frame, var, source if source in inner.variables else None)
            bound = inner.bound | {var} if source in inner.bound else inner.bound
            return inner.but(frame, (*inner.variables, var), bound)
        if builtins.makes_blank_nodes(node.expr) and builtins.ROW_TOKEN not in inner.variables:
            inner = inner.but(self.frames.rows(inner.frame, _extended([], [builtins.row_token()], [])),
                              (*inner.variables, builtins.ROW_TOKEN))
        compiler = self.compiler(inner)
        term = compiler.term(node.expr)
        frame = self.frames.rows(inner.frame, _extended(list(compiler.prepared), [term.alias(var)], compiler.names))
        return inner.but(frame, (*inner.variables, var))

    def _ToMultiSet(self, node, seed: Solutions | None = None) -> Solutions:
        return self.solutions(node.p, seed)

    def _values(self, node) -> Solutions:
        rows = node.res
        variables = list(dict.fromkeys(str(v) for row in rows for v in row))
        data = {v: [None if row.get(Variable(v), "UNDEF") == "UNDEF" else constant(row[Variable(v)])
                    for row in rows] for v in variables}
        frame = self.frames.constant({UNIT: [True] * len(rows), **data},
                                     {UNIT: pl.Boolean, **{v: pl.String for v in variables}})
        bound = [v for v in variables if all(x is not None for x in data[v])]
        return Solutions.of(self.frames, frame, variables, bound)

    # -- solution modifiers -----------------------------------------------------------------
    def _Project(self, node) -> Solutions:
        return project(self.solutions(node.p), [str(v) for v in node.PV])

    def _Distinct(self, node) -> Solutions:
        inner = self.solutions(node.p)
        return inner.but(self.frames.unique(inner.frame))

    _Reduced = _Distinct  # REDUCED may drop any duplicates: all of them is allowed

    def _Slice(self, node) -> Solutions:
        inner = self.solutions(node.p)
        return inner.but(self.frames.slice(inner.frame, node.start or 0, node.length))

    def _OrderBy(self, node) -> Solutions:
        inner = self.solutions(node.p)
        compiler = self.compiler(inner)
        keys, names, descending = [], [], []
        for condition in node.expr:
            expr, down = condition, False
            if isinstance(condition, CompValue) and condition.name == "OrderCondition":
                expr, down = condition.expr, condition.order == "DESC"
            for key in sort_keys(compiler.term(expr)):
                names.append(self.hidden("order"))
                keys.append(key.alias(names[-1]))
                descending.append(down)
        frame = self.frames.sort(inner.frame, _extended(list(compiler.prepared), keys, compiler.names), names, descending)
        return inner.but(frame)

    # -- grouping ---------------------------------------------------------------------------
    def _AggregateJoin(self, node) -> Solutions:
        group = node.p
        inner = self.solutions(group.p)
        names = [str(a.res) for a in node.A]
        counts = aggregates.counts_only(group.expr, node.A, inner.variables)
        out = None if counts is None else self.frames.counted_groups(inner.frame, *counts, names)
        if out is not None:  # the dialect counts in its own terms
            self._counted.update(n for n, (kind, _, _) in zip(names, counts[1]) if kind == "count")
            return Solutions(out, tuple(names), frozenset(), self.frames)
        compiler = self.compiler(inner)
        keys, key_terms = [], []
        for expr in group.expr or []:
            keys.append(self.hidden("key"))
            key_terms.append(compiler.term(expr))
        made = [aggregates.aggregate(a, i, compiler.term, inner.variables) for i, a in enumerate(node.A)]
        inputs = [t.alias(k) for t, k in zip(key_terms, keys)] + [e for a in made for e in a.inputs]
        frame = self.frames.rows(inner.frame, _extended(list(compiler.prepared), inputs, compiler.names))
        aggregations = [e for a in made for e in a.aggregations]
        results = [a.result.alias(n) for a, n in zip(made, names)]
        results += [a.integer.alias(aggregates.integer_column(n)) for a, n in zip(made, names) if a.integer is not None]
        self._counted.update(n for a, n in zip(made, names) if a.integer is not None)
        out = self.frames.group(frame, keys, _grouped(keys, aggregations, results))
        return Solutions(out, tuple(names), frozenset(), self.frames)  # a group has no one interval

    # -- queries ----------------------------------------------------------------------------
    def _SelectQuery(self, node) -> Solutions:
        _no_dataset(node)
        return self.solutions(node.p)

    _AskQuery = _SelectQuery
    _ConstructQuery = _SelectQuery

    # EXISTS and NOT EXISTS (17.4.1.4) as a column per occurrence: whether the row has a
    # compatible solution of the pattern. A pattern without FILTER, BIND, OPTIONAL or MINUS
    # (no expression that could read the row's variables) is evaluated once, for every row;
    # another is evaluated for the rows, each row's values substituted (``_correlated``).
    def _exists_columns(self, expr, inner: Solutions):
        found: dict[int, str] = {}
        for node in _walk(expr):
            if isinstance(node, CompValue) and node.name in ("Builtin_EXISTS", "Builtin_NOTEXISTS"):
                pattern = _translated(node.graph)
                column = self.hidden("exists")
                frames = self.frames
                lid = self.hidden("lid")  # one name per EXISTS: they nest
                numbered = inner.but(frames.numbered(inner.frame, lid), (lid, *inner.variables), inner.bound | {lid})
                if _is_plain_pattern(pattern):
                    matches = self.solutions(pattern)
                else:
                    # a FILTER, BIND, OPTIONAL or MINUS inside sees the row's variables: the
                    # pattern is evaluated with each row's bindings of the variables it shares
                    # (the spec's substitution), the rows joined in below its expressions
                    shared = sorted(_pattern_variables(pattern) & inner.bound)
                    matches = self._correlated(pattern, project(numbered, [lid, *shared]))
                hit = frames.flag(frames.unique(frames.select(join(numbered, matches).frame, {lid: lid})), column)
                frame = frames.fill_false(frames.join(numbered.frame, hit, [lid], "left"), column)
                kept = [c for c in frames.names(frame) if c != lid]
                inner = inner.but(frames.select(frame, {c: c for c in kept}))
                found[id(node)] = column

        def exists(node, negated: bool):
            if id(node) not in found:
                raise SparqlError("EXISTS is not supported yet outside a group's FILTER (in an OPTIONAL's FILTER, "
                              "BIND, SELECT or ORDER BY)")
            column = pl.col(found[id(node)])
            return ~column if negated else column

        return inner, exists


    def _correlated(self, pattern, rows: Solutions) -> Solutions:
        """``pattern``'s solutions for each of ``rows`` (a row number and the row's values of
        the variables the pattern shares), with the row's values substituted (17.4.1.4,
        18.6's substitute): the rows are joined in below every expression that could read them
        (a FILTER, a BIND, an OPTIONAL's condition), so that those see the row's values, as a
        seed that only narrows (``solutions``) would not make them (a FILTER comparing with the
        row's variable then read it unbound, and NOT EXISTS kept rows it must drop)."""
        name = pattern.name if isinstance(pattern, CompValue) else None
        if name == "Filter":
            return self._filter(self._correlated(pattern.p, rows), pattern.expr)
        if name == "Extend":
            return self._extend(pattern, self._correlated(pattern.p, rows))
        if name in ("Join", "Union"):
            combine = join if name == "Join" else union
            return combine(self._correlated(pattern.p1, rows), self._correlated(pattern.p2, rows))
        if name == "LeftJoin":
            expr = pattern.get("expr")
            expr = None if isinstance(expr, CompValue) and expr.name == "TrueFilter" else expr
            return left_join(self._correlated(pattern.p1, rows), self._correlated(pattern.p2, rows),
                             self._condition(expr))
        if name == "Minus":  # its right side alone: substituted, the two would share the row's variables
            return minus(self._correlated(pattern.p1, rows), self.solutions(pattern.p2))
        if name == "ToMultiSet":
            return self._correlated(pattern.p, rows)
        if name == "Graph" and self.named is not None and not isinstance(pattern.term, Variable) \
                and not str(pattern.term).startswith(EVENT):
            return self._in_graph(constant(pattern.term), pattern.p, lambda inner: self._correlated(inner, rows))
        return join(rows, self.solutions(pattern))


_SEEDED = {"BGP", "Join", "LeftJoin", "Union", "Minus", "Filter", "Extend", "ToMultiSet"}


def _semi_joined(solutions: Solutions, seed: Solutions | None) -> Solutions:
    """The solutions that agree with a row of ``seed``, when it binds only variables they
    bind in every row (a join with its distinct rows then keeps each solution at most once);
    all of them otherwise, which a seed only ever narrows."""
    if seed is None or not set(seed.variables) <= solutions.bound:
        return solutions
    return join(solutions, seed)


def _certain(node) -> frozenset[str]:
    """Variables ``node`` binds in every solution, known before it is compiled (fewer where
    unsure: a seed on them is only joined where the compiled solutions bind them too)."""
    if not isinstance(node, CompValue):
        return frozenset()
    name = node.name
    if name == "BGP":
        return frozenset(str(t) for triple in node.triples for t in triple[::2] if isinstance(t, Variable)) | \
            frozenset(str(p) for _, p, _ in node.triples if isinstance(p, Variable))
    if name == "Join":
        return _certain(node.p1) | _certain(node.p2)
    if name == "Union":
        return _certain(node.p1) & _certain(node.p2)
    if name in ("LeftJoin", "Minus"):
        return _certain(node.p1)
    if name in ("Filter", "ToMultiSet", "Distinct", "Reduced", "OrderBy"):
        return _certain(node.p)
    if name == "Extend":
        return _certain(node.p) - {str(node.var)}
    if name == "Project":
        return _certain(node.p) & frozenset(str(v) for v in node.PV)
    return frozenset()


def _filtered(prepared: list[pl.Expr], truth: pl.Expr, dropped: list[str]):
    """The rows whose ``truth`` is true, without the ``dropped`` columns after."""
    def step(frame: pl.LazyFrame) -> pl.LazyFrame:
        for column in prepared:
            frame = frame.with_columns(column)
        return frame.filter(truth.fill_null(False)).drop(dropped)
    return step


def _extended(prepared: list[pl.Expr], made: list[pl.Expr], dropped: list[str]):
    """The rows with the columns ``made`` (computed over the ``prepared`` ones, then dropped)."""
    def step(frame: pl.LazyFrame) -> pl.LazyFrame:
        for column in prepared:
            frame = frame.with_columns(column)
        return frame.with_columns(made).drop(dropped)
    return step


def _grouped(keys: list[str], aggregations: list[pl.Expr], results: list[pl.Expr]):
    """GROUP BY ``keys`` (none: one group, even of no rows, where COUNT(*) is 0) and the
    aggregates' terms made of each group's aggregations."""
    def step(frame: pl.LazyFrame) -> pl.LazyFrame:
        if keys:
            grouped = frame.group_by(keys).agg(aggregations) if aggregations else frame.select(keys).unique()
        else:
            grouped = frame.select(aggregations or [pl.len()])
        # UNIT by with_columns: a literal alone in a select would make one row of no groups
        return grouped.with_columns(pl.lit(True).alias(UNIT)).select([UNIT, *results])
    return step


def _top_filter(pattern):
    """A pattern's own FILTER taken off it, to be an optional join's condition: (pattern, expr)."""
    if isinstance(pattern, CompValue) and pattern.name == "Filter":
        return pattern.p, pattern.expr
    return pattern, None


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


@dataclass(frozen=True)
class _Pushed:
    """A FILTER condition taken to the one triple pattern that binds all it reads."""
    expr: Any
    variables: frozenset[str]
    pattern: Any


def _pushed_down(expr, triples):
    """A basic graph pattern's FILTER split into its ``&&`` conditions (a row passes when each
    is true: ``&&`` is true only then, error or false otherwise), each taken to the first
    triple pattern that binds every variable it reads: (the conditions taken, the rest
    joined again by ``&&``, or None). A pattern binds its variables in every match, so a
    condition on them alone is true or not of a joined row as of the pattern's part of it;
    filtered first, the joins read only the matches that pass (on Spark the IMaRS "join"
    query's FILTER ran over 555k joined rows, its pattern's 2.1M matches are filtered
    before the shuffles instead)."""
    conditions = [expr.expr, *(expr.other or [])] if getattr(expr, "name", None) == "ConditionalAndExpression" \
        else [expr]
    pushed, kept = [], []
    for condition in conditions:
        named = _variables_of(condition)
        home = None if not named else next(
            (t for t in triples if named <= {_name(x) for x in t if _is_variable(x)}), None)
        if home is None:
            kept.append(condition)
        else:
            pushed.append(_Pushed(condition, named, home))
    if not kept:
        return pushed, None
    rest = kept[0] if len(kept) == 1 else CompValue("ConditionalAndExpression", expr=kept[0], other=kept[1:])
    return pushed, rest


def _variables_of(expr) -> frozenset[str] | None:
    """The variables ``expr`` reads; None when it holds a pattern (EXISTS) or an aggregate,
    whose rows are not the row's own."""
    names = set()
    for node in _walk(expr):
        if isinstance(node, CompValue) and (node.name in ("Builtin_EXISTS", "Builtin_NOTEXISTS")
                                            or node.name.startswith("Aggregate")):
            return None
        if isinstance(node, Variable):
            names.add(str(node))
    return frozenset(names)


def _translated(graph):
    if isinstance(graph, CompValue) and graph.name.startswith("GroupGraphPattern"):
        return translateGroupGraphPattern(graph)
    return graph


_PLAIN_PATTERNS = {"BGP", "Join", "Union", "ToMultiSet", "values"}


def _is_plain_pattern(pattern) -> bool:
    """A pattern whose solutions do not depend on the row an EXISTS tests (no expression
    inside that could read the row's variables): evaluated once for every row."""
    if not isinstance(pattern, CompValue):
        return True
    return pattern.name in _PLAIN_PATTERNS and all(_is_plain_pattern(pattern[k]) for k in ("p", "p1", "p2")
                                                   if k in pattern)


def _pattern_variables(pattern) -> set[str]:
    """The variables a pattern mentions, in the patterns of EXISTS inside it too."""
    found = set()
    for node in _walk(pattern):
        if isinstance(node, Variable):
            found.add(str(node))
        elif isinstance(node, CompValue) and node.name in ("Builtin_EXISTS", "Builtin_NOTEXISTS"):
            found |= _pattern_variables(_translated(node.graph))
    return found


def _no_dataset(node) -> None:
    if node.get("datasetClause"):
        raise SparqlError("FROM / FROM NAMED is not supported: a query reads the view's one graph")


def _is_variable(term) -> bool:
    return isinstance(term, (Variable, BNode))


def _name(term) -> str:
    # a blank node of the query is a variable no one can select (4.1.4)
    return str(term) if isinstance(term, Variable) else f"$bnode.{term}"
