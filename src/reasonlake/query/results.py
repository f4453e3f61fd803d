"""An answer written in the W3C SPARQL 1.1 results formats, or as a plain table.

* JSON: "SPARQL 1.1 Query Results JSON Format" (``application/sparql-results+json``):
  ``{"head": {"vars": [...]}, "results": {"bindings": [...]}}``, each bound term as
  ``{"type": "uri"|"literal"|"bnode", "value": ..., "xml:lang"|"datatype": ...}``; ASK as
  ``{"head": {}, "boolean": true}``.
* CSV and TSV: "SPARQL 1.1 Query Results CSV and TSV Formats". CSV gives plain values (an
  IRI without brackets, a literal's lexical form, a blank node as ``_:b``), a header of the
  variable names, CRLF line ends and RFC 4180 quoting; TSV a header of ``?name``s and the
  terms in N-Triples/Turtle syntax, tabs and newlines in them escaped.
* table: the terms as N-Triples in aligned columns, for a terminal.
CONSTRUCT answers are N-Triples lines in every format; ASK is ``true``/``false`` but in JSON.
"""
from __future__ import annotations

import csv
import io
import json

from reasonlake.parse.terms import literal_parts
from reasonlake.query.answer import Answer

FORMATS = ("table", "json", "csv", "tsv")


def write(answer: Answer, form: str) -> str:
    if answer.form == "CONSTRUCT":
        return "".join(line + "\n" for line in answer.triples)
    if answer.form == "ASK":
        if form == "json":
            return json.dumps({"head": {}, "boolean": answer.boolean}) + "\n"
        return ("true" if answer.boolean else "false") + "\n"
    # a SELECT of no variable has a row per solution and no value in it
    rows = answer.frame.select(answer.variables).rows() if answer.variables else [()] * answer.frame.height
    return {"json": _json, "csv": _csv, "tsv": _tsv, "table": _table}[form](answer.variables, rows)


def json_term(term: str) -> dict:
    """One bound term as the JSON format's object."""
    if term.startswith("<"):
        return {"type": "uri", "value": term[1:-1]}
    if term.startswith("_:"):
        return {"type": "bnode", "value": term[2:]}
    lexical, language, datatype = literal_parts(term)
    out = {"type": "literal", "value": lexical}
    if language:
        out["xml:lang"] = language
    elif datatype:
        out["datatype"] = datatype
    return out


def _json(variables, rows) -> str:
    bindings = [{v: json_term(t) for v, t in zip(variables, row) if t is not None} for row in rows]
    return json.dumps({"head": {"vars": variables}, "results": {"bindings": bindings}}, ensure_ascii=False) + "\n"


def csv_value(term: str | None) -> str:
    if term is None:
        return ""
    if term.startswith("<"):
        return term[1:-1]
    if term.startswith("_:"):
        return term
    return literal_parts(term)[0]


def _csv(variables, rows) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(variables)
    for row in rows:
        writer.writerow([csv_value(t) for t in row])
    return out.getvalue()


def _tsv(variables, rows) -> str:
    # canonical N-Triples escapes tabs and newlines inside literals already; an unbound cell is empty
    lines = ["\t".join(f"?{v}" for v in variables)]
    lines += ["\t".join("" if t is None else t for t in row) for row in rows]
    return "\n".join(lines) + "\n"


def _table(variables, rows) -> str:
    cells = [["" if t is None else t for t in row] for row in rows]
    widths = [max([len(v)] + [len(r[i]) for r in cells]) for i, v in enumerate(variables)]
    lines = [" | ".join(v.ljust(w) for v, w in zip(variables, widths)), "-+-".join("-" * w for w in widths)]
    lines += [" | ".join(c.ljust(w) for c, w in zip(r, widths)) for r in cells]
    lines.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    return "\n".join(lines) + "\n"
