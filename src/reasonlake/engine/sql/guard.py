"""`reasonlake sql` reads: a statement that writes, or reads files outside the home, is refused.

A `DELETE` on a view's table made the next slide publish an empty view; `ADD JAR` runs code;
`text.`/etc/passwd`` reads any file the process can. Views change through their commands
only (slide, rebuild, repair), so the SQL entry point answers queries and nothing else. The
check is lexical (comments and string literals blanked first) and runs before Spark sees
the statement, because Spark runs a command when it parses it.
"""
from __future__ import annotations

import re

from reasonlake.errors import SqlError

_READING = {"SELECT", "WITH", "SHOW", "DESCRIBE", "DESC", "EXPLAIN", "VALUES", "TABLE", "FROM"}
# The statements a query may carry after a WITH or FROM clause; function names such as
# replace() must not count, so only the verbs that start a write are listed.
_WRITING = re.compile(r"\b(INSERT|DELETE|UPDATE|MERGE|DROP|CREATE|ALTER|TRUNCATE)\b", re.I)
# A table named by its path (delta.`/x`); a backquoted column (v.`subject`) is not one.
_PATH_READ = re.compile(
    r"\b(delta|parquet|json|csv|text|orc|avro|binaryFile|xml)\s*\.\s*`([^`]*)`", re.I)


def check_read_only(query: str, home_root: str) -> None:
    text = _blanked(query).strip().rstrip(";").strip()
    if ";" in text:
        raise SqlError("SQL: one statement at a time; remove the ';' between statements")
    first = re.match(r"[(\s]*(\w+)", text)
    keyword = first.group(1).upper() if first else ""
    if keyword not in _READING:
        raise SqlError(f"SQL: `reasonlake sql` runs queries only ({keyword or 'an empty statement'} is not "
                        "one); views change through slide, rebuild and repair")
    writing = _WRITING.search(text)
    if writing and keyword in ("WITH", "FROM", "EXPLAIN"):
        raise SqlError(f"SQL: `reasonlake sql` runs queries only; {writing.group(1).upper()} writes")
    for fmt, path in _PATH_READ.findall(query):
        if not inside(path, home_root):
            raise SqlError(f"SQL: {fmt}.`{path}` reads a path outside the home ({home_root}); query the "
                            "views and rl_* tables by name")


def inside(path: str, root: str) -> bool:
    """Whether ``path`` (a table read by path) lies within the home ``root``."""
    norm = re.sub(r"^file:(//)?", "", path).rstrip("/")
    base = re.sub(r"^file:(//)?", "", root).rstrip("/")
    return norm == base or norm.startswith(base + "/") and "/../" not in norm[len(base):] + "/"


def _blanked(query: str) -> str:
    """The query with comments and string literals replaced by spaces (keywords inside them
    are data, not statements)."""
    out, i, n = [], 0, len(query)
    while i < n:
        char = query[i]
        if query.startswith("--", i):
            end = query.find("\n", i)
            i = n if end == -1 else end
            continue
        if query.startswith("/*", i):
            end = query.find("*/", i + 2)
            i = n if end == -1 else end + 2
            out.append(" ")
            continue
        if char in "'\"":
            j = i + 1
            while j < n and query[j] != char:
                j += 2 if query[j] == "\\" else 1
            out.append(" ")
            i = j + 1
            continue
        if char == "`":
            end = query.find("`", i + 1)
            out.append(" x ")
            i = n if end == -1 else end + 1
            continue
        out.append(char)
        i += 1
    return "".join(out)
