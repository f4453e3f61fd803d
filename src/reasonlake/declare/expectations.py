"""A view's expectations: what a failure does, a bound on violations, and the user's suites.

The view file's optional block::

    expectations:
      on_failure: warn | fail       # fail: the close is withheld from readers, exit 1
      max_violations: 0             # owl2rl: at most this many violations live at a close
      suites: [../expectations/active_users.yml]   # default: expectations/<view>.yml

A suite file lists great-expectations expectations by their type name and arguments, each
on the view's decoded columns (subject, predicate, object, origin, expires, inferred, rule)
or on a SQL query over the view (``{view}`` names it)::

    expectations:
      - type: expect_column_values_to_not_be_null
        kwargs: {column: subject}
      - type: expect_table_row_count_to_be_between
        kwargs: {min_value: 1}
        query: SELECT * FROM {view} WHERE inferred

Suites are read when the view is created, like its ontology, so a close never depends on
a file staying where it was. Checking an expectation's type and arguments imports
great-expectations (seconds), so it is done only for views that have suites.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from reasonlake.errors import ViewDeclarationError

ON_FAILURE = ("warn", "fail")
_BLOCK_FIELDS = {"on_failure", "max_violations", "suites"}
_ENTRY_FIELDS = {"type", "kwargs", "query", "name"}


@dataclass(frozen=True)
class UserExpectation:
    type: str  # great-expectations' snake_case type, e.g. expect_column_values_to_not_be_null
    kwargs_json: str  # its arguments, JSON (a frozen, hashable form)
    query: str | None = None  # a SQL query over the view ({view}); None: the view itself
    name: str | None = None  # shown in messages; default: the type

    @property
    def kwargs(self) -> dict:
        return json.loads(self.kwargs_json)

    @property
    def label(self) -> str:
        return self.name or self.type


@dataclass(frozen=True)
class Suite:
    path: str  # as written (for messages)
    name: str
    expectations: tuple[UserExpectation, ...]


@dataclass(frozen=True)
class ExpectationsDecl:
    on_failure: str = "warn"
    max_violations: int | None = None
    suites: tuple[Suite, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict:
        return {
            "on_failure": self.on_failure,
            "max_violations": self.max_violations,
            "suites": [{"path": s.path, "name": s.name,
                        "expectations": [e.__dict__ for e in s.expectations]} for s in self.suites],
        }

    @staticmethod
    def from_dict(raw: dict | None) -> "ExpectationsDecl | None":
        if raw is None:
            return None
        return ExpectationsDecl(
            on_failure=raw["on_failure"], max_violations=raw.get("max_violations"),
            suites=tuple(Suite(s["path"], s["name"], tuple(UserExpectation(**e) for e in s["expectations"]))
                         for s in raw["suites"]))


def parse_block(view_path: Path, name: str, raw) -> ExpectationsDecl | None:
    """The view file's ``expectations`` block (``raw``, None when absent) with its suites
    read; a suite file ``expectations/<name>.yml`` beside the views folder counts without a
    block (on_failure: warn)."""
    where = f"{view_path}: field 'expectations'"
    if raw is None:
        found = _default_suite(view_path, name)
        return ExpectationsDecl(suites=(load_suite(found),)) if found else None
    if raw is True or raw == {}:
        raw = {}
    if not isinstance(raw, dict):
        raise ViewDeclarationError(f"{where}: a mapping (on_failure, max_violations, suites), not {raw!r}")
    unknown = sorted(set(raw) - _BLOCK_FIELDS)
    if unknown:
        raise ViewDeclarationError(f"{where}: unknown field '{unknown[0]}'; allowed: {', '.join(sorted(_BLOCK_FIELDS))}")
    on_failure = raw.get("on_failure", "warn")
    if on_failure not in ON_FAILURE:
        raise ViewDeclarationError(f"{where}: on_failure {on_failure!r}; allowed: warn, fail")
    bound = raw.get("max_violations")
    if bound is not None and (isinstance(bound, bool) or not isinstance(bound, int) or bound < 0):
        raise ViewDeclarationError(f"{where}: max_violations {bound!r} is not a count (0, 1, 2, ...)")
    listed = raw.get("suites")
    if listed is None:
        found = _default_suite(view_path, name)
        paths = [found] if found else []
    else:
        if not isinstance(listed, list) or not all(isinstance(p, str) for p in listed):
            raise ViewDeclarationError(f"{where}: suites is a list of suite file paths, relative to the view file")
        paths = [view_path.parent / p for p in listed]
    return ExpectationsDecl(on_failure=on_failure, max_violations=bound,
                            suites=tuple(load_suite(p) for p in paths))


def _default_suite(view_path: Path, name: str) -> Path | None:
    for folder in (view_path.parent.parent / "expectations", view_path.parent / "expectations"):
        for suffix in (".yml", ".yaml"):
            candidate = folder / f"{name}{suffix}"
            if candidate.is_file():
                return candidate
    return None


def load_suite(path: Path) -> Suite:
    """A suite file, each entry checked against great-expectations' own classes so that a
    misspelt type or argument fails at `view create`, not at the first close."""
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8-sig"))
    except FileNotFoundError:
        raise ViewDeclarationError(f"{path}: no such expectation suite file") from None
    except yaml.YAMLError as exc:
        raise ViewDeclarationError(f"{path}: malformed YAML ({str(exc).splitlines()[0]})") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("expectations"), list):
        raise ViewDeclarationError(f"{path}: a suite file is a mapping with a list 'expectations' "
                                   "(each: type, kwargs, optional query)")
    entries = tuple(_entry(path, i, e) for i, e in enumerate(raw["expectations"], start=1))
    return Suite(str(path), str(raw.get("name") or path.stem), entries)


def _entry(path: Path, index: int, raw) -> UserExpectation:
    where = f"{path}: expectation {index}"
    if not isinstance(raw, dict) or "type" not in raw:
        raise ViewDeclarationError(f"{where}: a mapping with 'type' (e.g. expect_column_values_to_not_be_null) "
                                   "and 'kwargs'")
    unknown = sorted(set(raw) - _ENTRY_FIELDS)
    if unknown:
        raise ViewDeclarationError(f"{where}: unknown field '{unknown[0]}'; allowed: {', '.join(sorted(_ENTRY_FIELDS))}")
    kwargs = raw.get("kwargs") or {}
    if not isinstance(kwargs, dict):
        raise ViewDeclarationError(f"{where}: kwargs is a mapping of the expectation's arguments")
    query = raw.get("query")
    if query is not None and (not isinstance(query, str) or "{view}" not in query):
        raise ViewDeclarationError(f"{where}: query is SQL over the view, naming it {{view}} "
                                   "(e.g. SELECT * FROM {view} WHERE inferred)")
    expectation = UserExpectation(str(raw["type"]), json.dumps(kwargs, sort_keys=True, default=str), query,
                                  raw.get("name"))
    try:
        build(expectation)
    except ViewDeclarationError as exc:
        raise ViewDeclarationError(f"{where}: {exc}") from None
    return expectation


def build(expectation: UserExpectation):
    """The great-expectations object of an entry, or an error saying what is wrong."""
    # imported when called: it loads great_expectations
    from great_expectations.expectations.registry import get_expectation_impl

    try:
        cls = get_expectation_impl(expectation.type)
    except Exception:
        raise ViewDeclarationError(f"{expectation.type!r} is not a great-expectations expectation type "
                                   "(e.g. expect_column_values_to_not_be_null)") from None
    try:
        return cls(**expectation.kwargs)
    except Exception as exc:  # pydantic's validation error lists each wrong argument
        said = " ".join(line.strip() for line in str(exc).strip().splitlines())
        raise ViewDeclarationError(f"arguments of {expectation.type}: {said[:300]}") from None
