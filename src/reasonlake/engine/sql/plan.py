"""`reasonlake sql` checked on Spark's parsed plan: every operator a query, every function on
the allow-list (``sql_functions``), every table read by path inside the home.

The lexical check (``sql_guard``) runs first, before Spark sees the statement (Spark runs a
command as it parses it); it cannot see what a name means: `reflect(...)` reads like any
function and called `System.exit` in the command server's JVM. Spark's parser can, and its
unresolved plan names each operator and function as written. On a classic session the plan
comes from the parser in this process's JVM (no analysis); over Spark Connect from
`EXPLAIN EXTENDED` on the server, whose analysis runs nothing for a statement the lexical
check let through (a query: no command, no `EXECUTE IMMEDIATE`).

The plan is read as Spark renders it: an unresolved function as `'name(`, a relation as
`'UnresolvedRelation [part, ...]`. A string literal renders bare, so text inside one can
only look like more to refuse, never hide a call; a plan cut short by Spark's rendering
limits is refused as a whole.
"""
from __future__ import annotations

import re

from reasonlake.engine.sql import functions as sql_functions
from reasonlake.engine.sql.guard import inside
from reasonlake.errors import SqlError
from reasonlake.spark import classic

# The operators of a query and of the SHOW / DESCRIBE statements that read the catalog; any
# other node (a command, a write, a variable, an IDENTIFIER() left to resolve) is refused.
QUERY_NODES = frozenset("""
Project Filter Aggregate Join LateralJoin Union Intersect Except Distinct Deduplicate Sort
GlobalLimit LocalLimit Limit Offset Tail SubqueryAlias CTE UnresolvedWith WithCTE Generate Window
WithWindowDefinition Pivot Unpivot Sample UnresolvedHint ResolvedHint RepartitionByExpression
Repartition RebalancePartitions OneRowRelation LocalRelation Range UnresolvedRelation
UnresolvedInlineTable UnresolvedTableValuedFunction UnresolvedTVFAliases UnresolvedSubqueryColumnAliases
UnresolvedHaving RelationTimeTravel PipeOperator Expand
ShowTables ShowTablesExtended ShowViews ShowColumns ShowCreateTable ShowTableProperties ShowPartitions
ShowFunctions ShowNamespacesCommand ShowNamespaces ShowCurrentNamespaceCommand ShowCatalogsCommand
DescribeRelation DescribeColumn DescribeFunction DescribeNamespace DescribeDeltaHistory
CurrentNamespace$ UnresolvedNamespace UnresolvedTable UnresolvedTableOrView UnresolvedView
UnresolvedFunctionName
""".split())

FILE_FORMATS = frozenset({"delta", "parquet", "json", "csv", "text", "orc", "avro", "binaryfile", "xml"})

_EXPLAIN = re.compile(r"^(?:\s|--[^\n]*(?:\n|$)|/\*.*?\*/)*EXPLAIN(?:\s+(?:EXTENDED|FORMATTED|CODEGEN|COST))?\b",
                      re.I | re.S)
_NODE = re.compile(r"^[\s:|+\-]*'?([A-Za-z][\w$]*)")
# `'name(`, `'ns.name(`, `'`quoted name`(`: an unresolved function call as Spark renders it
_CALL = re.compile(r"'((?:`(?:[^`]|``)*`|[\w$]+)(?:\.(?:`(?:[^`]|``)*`|[\w$]+))*)\(")
_RELATION = re.compile(r"'?Unresolved(?:Relation|Table|TableOrView|View) \[(.*?)\](?:,|$)")
_TABLE_FUNCTION = re.compile(r"'?UnresolvedTableValuedFunction \[(.*?)\]")
_CUT = re.compile(r"\.\.\. \d+ more fields|\.\.\. \d+ more|\[truncated", re.I)
_UNRESOLVED_NAME = re.compile(r"(?:expression|plan)withunresolvedidentifier", re.I)


def inner_statement(query: str) -> str:
    """The statement an `EXPLAIN` explains (the query itself when it is none): its plan is
    what is checked, as Spark renders an EXPLAIN's own plan one node deep."""
    explain = _EXPLAIN.match(query)
    return query[explain.end():] if explain else query


def parsed_plan(spark, statement: str) -> str:
    """Spark's unresolved plan of ``statement``, rendered as a tree."""
    plan = classic.parsed_plan(spark, statement)
    if plan is not None:
        return plan
    spark.conf.set("spark.sql.debug.maxToStringFields", "1000000")  # every field rendered, none cut
    text = spark.sql("EXPLAIN EXTENDED " + statement).collect()[0][0]
    parsed = text.split("== Parsed Logical Plan ==", 1)[-1]
    return parsed.split("== Analyzed Logical Plan ==", 1)[0].strip("\n")


def check_plan(plan: str, home_root: str) -> None:
    """Refuse the statement whose parsed ``plan`` is not a query over the home's tables, or
    calls a function off the allow-list; the error names what to change."""
    if _CUT.search(plan):
        raise SqlError("SQL: the query is too large for its plan to be checked; split it into smaller queries")
    if _UNRESOLVED_NAME.search(plan):
        raise SqlError("SQL: IDENTIFIER(...) with a name computed by the query is not allowed; write the name")
    for line in plan.splitlines():
        node = _NODE.match(line)
        if node and node.group(1) not in QUERY_NODES:
            raise SqlError(f"SQL: `reasonlake sql` runs queries only ({node.group(1)} is not one); "
                           "views change through slide, rebuild and repair")
    for name in _CALL.findall(plan):
        _check_function(_name_parts(name))
    for listed in _TABLE_FUNCTION.findall(plan):
        name = _name_parts(listed)[-1].lower()
        if name not in sql_functions.TABLE_FUNCTIONS:
            raise SqlError(f"SQL: the table function {name}() is not allowed in `reasonlake sql`; the allowed ones are "
                           f"{', '.join(sorted(sql_functions.TABLE_FUNCTIONS))}")
    for listed in _RELATION.findall(plan):
        parts = listed.split(", ", 1)
        if len(parts) == 2 and parts[0].lower() in FILE_FORMATS and not inside(parts[1], home_root):
            raise SqlError(f"SQL: {parts[0]}.`{parts[1]}` reads a path outside the home ({home_root}); query the "
                           "views and rl_* tables by name")


def _check_function(parts: list[str]) -> None:
    qualifier, name = [p.lower() for p in parts[:-1]], parts[-1].lower()
    written = ".".join(parts)
    if qualifier not in ([], ["builtin"], ["system", "builtin"]):
        raise SqlError(f"SQL: {written}() names a catalog's function; `reasonlake sql` calls Spark's built-in "
                       "functions only")
    if name in sql_functions.REFUSED:
        raise SqlError(f"SQL: {name}() is not allowed in `reasonlake sql`: it {sql_functions.REFUSED[name]}")
    if name not in sql_functions.FUNCTIONS:
        raise SqlError(f"SQL: {written}() is not a function `reasonlake sql` allows (Spark's built-in functions "
                       "are; user and catalog functions are not)")


def _name_parts(rendered: str) -> list[str]:
    """``a.`b c`.d`` as ['a', 'b c', 'd']."""
    return [p[1:-1].replace("``", "`") if p.startswith("`") else p
            for p in re.findall(r"`(?:[^`]|``)*`|[^.`]+", rendered)]
