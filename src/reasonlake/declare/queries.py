"""A view's registered continuous queries: the ``queries:`` block of a view file.

Each entry is a SPARQL SELECT query answered after every close the view publishes, its rows
appended to the table ``<view>__<name>`` (decision 0036)::

    queries:
      - name: busy_people                 # the table is <view>__busy_people
        file: queries/busy_people.rq      # or text: "SELECT ... WHERE { ... }"
        stream: istream                   # rstream (default) | istream | dstream
        report: on-close                  # on-close (default) | on-change | non-empty

The query text is read and parsed when the view is created, like its ontology: a close never
depends on a file staying where it was, and a query that does not parse (or is not a SELECT,
or names a variable the table keeps for itself) stops ``view create`` naming the entry.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path

from reasonlake.errors import SparqlError, ViewDeclarationError
from reasonlake.query.stream_policies import ReportPolicy, StreamOperator

NAME_PATTERN = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
ENTRY_FIELDS = {"name", "file", "text", "stream", "report"}
# columns every row of a query's table has besides the query's variables
RESERVED_COLUMNS = ("close", "view_version")


@dataclass(frozen=True)
class QueryDecl:
    name: str
    text: str  # the SPARQL text (the file's content for ``file:``)
    stream: StreamOperator = StreamOperator.RSTREAM
    report: ReportPolicy = ReportPolicy.ON_CLOSE
    source: str | None = None  # the file as written in the view file, None: inline
    variables: tuple[str, ...] = ()  # the SELECT's variables, in its order: the table's columns

    def table(self, view: str) -> str:
        """The query's table and SQL name."""
        return f"{view}__{self.name}"

    def to_dict(self) -> dict:
        return asdict(self)

    @staticmethod
    def from_dict(raw: dict) -> QueryDecl:
        return QueryDecl(name=raw["name"], text=raw["text"], stream=StreamOperator(raw["stream"]),
                         report=ReportPolicy(raw["report"]), source=raw.get("source"),
                         variables=tuple(raw.get("variables", ())))


def parse_block(path: Path, value) -> tuple[QueryDecl, ...]:
    """The ``queries:`` block of the view file at ``path`` (None: no queries)."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise _fail(path, "queries", "must be a list of entries, e.g. queries: [{name: q, text: 'SELECT ...'}]")
    found: dict[str, QueryDecl] = {}
    for i, entry in enumerate(value):
        query = _entry(path, f"queries[{i}]", entry)
        clash = next((n for n in found if n.lower() == query.name.lower()), None)
        if clash is not None:
            raise _fail(path, f"queries[{i}].name", f"{query.name!r} is taken by another query ({clash!r}; "
                        "SQL names are case-insensitive); give each query its own name")
        found[query.name] = query
    return tuple(found.values())


def _entry(path: Path, where: str, entry) -> QueryDecl:
    if not isinstance(entry, dict):
        raise _fail(path, where, "must be a mapping with name and file or text")
    unknown = sorted(set(entry) - ENTRY_FIELDS)
    if unknown:
        raise _fail(path, f"{where}.{unknown[0]}", f"unknown; allowed: {', '.join(sorted(ENTRY_FIELDS))}")
    name = entry.get("name")
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise _fail(path, f"{where}.name", f"{name!r} is not a SQL-safe identifier (letters, digits, _; not "
                    "starting with a digit); the query's table is <view>__<name>")
    text, source = _text(path, where, entry)
    stream = _choice(path, f"{where}.stream", entry.get("stream", "rstream"), StreamOperator)
    report = _choice(path, f"{where}.report", entry.get("report", "on-close"), ReportPolicy)
    variables = _checked_variables(path, where, text)
    return QueryDecl(name, text, StreamOperator(stream), ReportPolicy(report), source, variables)


def _text(path: Path, where: str, entry: dict) -> tuple[str, str | None]:
    if ("file" in entry) == ("text" in entry):
        raise _fail(path, where, "give either file (a .rq file relative to the view file) or text (the query), "
                    "not both or neither")
    if "text" in entry:
        if not isinstance(entry["text"], str) or not entry["text"].strip():
            raise _fail(path, f"{where}.text", "must be the query's SPARQL text; use a YAML block (text: |)")
        return entry["text"], None
    item = entry["file"]
    if not isinstance(item, str):
        raise _fail(path, f"{where}.file", f"{item!r} is not a path; write file: queries/q.rq")
    file = (path.parent / item).resolve()
    if not file.is_file():
        raise _fail(path, f"{where}.file", f"{item}: no such file (looked at {file})")
    try:
        return file.read_text(encoding="utf-8-sig"), item
    except UnicodeDecodeError:
        raise _fail(path, f"{where}.file", f"{item}: not UTF-8 text; save the query as UTF-8") from None


def _choice(path: Path, where: str, value, kind) -> str:
    allowed = [k.value for k in kind]
    if value not in allowed:
        raise _fail(path, where, f"{value!r} is not allowed; allowed: {', '.join(allowed)}")
    return value


def _checked_variables(path: Path, where: str, text: str) -> tuple[str, ...]:
    """The query's variables, once it is known to parse, to be a SELECT and to have
    variables that fit a table's columns."""
    # imported when called: it loads rdflib
    from reasonlake.query import parse

    try:
        root = parse.algebra(text).algebra
    except SparqlError as exc:
        raise _fail(path, where, f"{exc}") from None
    if root.name != "SelectQuery":
        form = root.name.removesuffix("Query").upper()
        raise _fail(path, where, f"a registered query is a SELECT query (its rows are a table's rows); this one "
                    f"is {form}: rewrite it as SELECT")
    seen: dict[str, str] = {}
    for variable in map(str, root.PV):
        if variable.lower() in RESERVED_COLUMNS:
            raise _fail(path, where, f"variable ?{variable} would clash with the table's own column "
                        f"{variable.lower()!r} ({', '.join(RESERVED_COLUMNS)}); rename it, e.g. ?{variable}_")
        other = seen.setdefault(variable.lower(), variable)
        if other != variable:
            raise _fail(path, where, f"variables ?{other} and ?{variable} differ only in case, and a table's "
                        "column names do not; rename one")
    return tuple(seen.values())


def _fail(path: Path, field_name: str, message: str) -> ViewDeclarationError:
    return ViewDeclarationError(f"{path}: field '{field_name}': {message}")
