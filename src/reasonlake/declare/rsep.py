"""RSEP-QL's event patterns as an ``.rspql`` query writes them (the thesis, chapter 6):
``MATCH [policy] E`` is a graph pattern, where E is

    EVENT <w> { basic graph pattern }      # (EVENT w P), Definition 6.6: matched on each item
    FIRST E  |  LAST E                     # Definition 6.7
    E SEQ [policy] E                       # Definition 6.8, left to right, as written
    ( E )

A SEQ's selection policy (section 6.4) is UNRESTRICTED (the default, Equation 6.4),
CHRONOLOGICAL (6.10), RECENT (6.11) or NAIVE (C-SPARQL's SEQ, 6.9). The word after MATCH is
the consumption policy (section 6.5): UNRESTRICTED (the default, P^u: every evaluation reads
the whole window), CHRONOLOGICAL or RECENT (P^c, P^r: an item that contributed to an answer
is not read again). EP-SPARQL's chronological setting is ``MATCH CHRONOLOGICAL E1 SEQ
CHRONOLOGICAL E2`` over a window (Table 8.2). Braces around E are allowed: ``MATCH { E }``.

The thesis gives the algebra, not a syntax; this one spells its operators as it prints them.
Each MATCH is taken out of the SPARQL text and left as ``GRAPH <urn:reasonlake:match:k> {
... }``, a node the planner answers with the MATCH's solutions (``engine.jobs.rspql.matching``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Union

from reasonlake.errors import SparqlError

PLACEHOLDER = "urn:reasonlake:match:"
SELECTIONS = ("unrestricted", "chronological", "recent", "naive")
CONSUMPTIONS = ("unrestricted", "chronological", "recent")
_BINDS = f"<{PLACEHOLDER}binds>"


@dataclass(frozen=True)
class Event:
    """(EVENT w P): ``pattern`` is the basic graph pattern as written (SPARQL syntax), read
    with the query's prefixes; ``window`` the window's IRI in N-Triples form."""

    window: str
    pattern: str


@dataclass(frozen=True)
class First:
    pattern: EventPattern


@dataclass(frozen=True)
class Last:
    pattern: EventPattern


@dataclass(frozen=True)
class Seq:
    earlier: EventPattern
    later: EventPattern
    selection: str = "unrestricted"


EventPattern = Union[Event, First, Last, Seq]


@dataclass(frozen=True)
class Match:
    """One ``MATCH`` of the query: its pattern, its consumption policy, its placeholder IRI."""

    pattern: EventPattern
    consumption: str
    placeholder: str
    variables: tuple[str, ...]


def events_of(pattern: EventPattern) -> list[Event]:
    """The basic event patterns of a pattern, left to right."""
    if isinstance(pattern, Event):
        return [pattern]
    if isinstance(pattern, (First, Last)):
        return events_of(pattern.pattern)
    return events_of(pattern.earlier) + events_of(pattern.later)


_VARIABLE = re.compile(r"[?$]([A-Za-z0-9_]+)")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_IRI = re.compile(r"<[^<>\s]*>")
_IRI_TERM = re.compile(r"<[^<>\s]*>|[A-Za-z_][\w.-]*:[\w.-]*|:[\w.-]*")


def take_matches(text: str, masked: str, resolve, windows: set[str]) -> tuple[str, tuple[Match, ...]]:
    """``text`` with each ``MATCH`` replaced by its placeholder, and the matches read.
    ``masked``: the text with strings and comments blanked (same length); ``resolve``: a
    prefixed name or IRI to N-Triples; ``windows``: the query's named windows."""
    found = []
    at = 0
    while (start := _keyword(masked, "match", at)) is not None:
        reader = _Reader(text, masked, start + len("match"), resolve, windows)
        consumption = reader.policy(CONSUMPTIONS, "unrestricted")
        braced = reader.take("{")
        pattern = reader.pattern()
        if braced and not reader.take("}"):
            raise reader.error("the } closing MATCH { ... }")
        found.append((start, reader.at, pattern, consumption))
        at = reader.at
    matches = []
    for k, (start, end, pattern, consumption) in enumerate(found):
        variables = tuple(dict.fromkeys(v for e in events_of(pattern) for v in _VARIABLE.findall(_blanked(e.pattern))))
        matches.append(Match(pattern, consumption, f"<{PLACEHOLDER}{k}>", variables))
    for (start, end, _, _), match in reversed(list(zip(found, matches))):
        binds = " . ".join(f"?{v} {_BINDS} ?{v}" for v in match.variables)
        text = f"{text[:start]}GRAPH {match.placeholder} {{ {binds} }}{text[end:]}"
    return text, tuple(matches)


def _blanked(pattern: str) -> str:
    """A pattern with its strings and IRIs blanked, so that a ``?`` in them is no variable."""
    return re.sub(r'<[^<>\s]*>|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'', " ", pattern)


def _keyword(masked: str, word: str, at: int) -> int | None:
    """Where the keyword ``word`` next stands as a word of its own (not in a name or an IRI;
    a ``<`` between terms, which has a space after it, starts no IRI)."""
    plain = _IRI.sub(lambda iri: " " * len(iri.group()), masked)
    found = re.compile(rf"(?i)(?<![\w?$:.-]){word}(?![\w:-])").search(plain, at)
    return None if found is None else found.start()


class _Reader:
    """A recursive-descent reader of one MATCH's event pattern."""

    def __init__(self, text: str, masked: str, at: int, resolve, windows: set[str]):
        self.text, self.masked, self.at, self.resolve, self.windows = text, masked, at, resolve, windows

    def skip(self) -> None:
        while self.at < len(self.masked) and self.masked[self.at].isspace():
            self.at += 1

    def take(self, token: str) -> bool:
        self.skip()
        if self.masked.startswith(token, self.at):
            self.at += len(token)
            return True
        return False

    def word(self) -> str | None:
        """The next word, upper-cased, without taking it."""
        self.skip()
        found = _WORD.match(self.masked, self.at)
        return found.group().upper() if found and not self.masked.startswith(":", found.end()) else None

    def policy(self, allowed: tuple[str, ...], default: str) -> str:
        word = self.word()
        if word is not None and word.lower() in allowed:
            self.at += len(word)
            return word.lower()
        return default

    def error(self, expected: str) -> SparqlError:
        line = self.text.count("\n", 0, self.at) + 1
        shown = self.text[self.at:self.at + 30].split("\n")[0]
        return SparqlError(f"MATCH, line {line}: expected {expected} at {shown!r}; an event pattern is EVENT <window> "
                           "{ triples }, FIRST E, LAST E, E SEQ [UNRESTRICTED|CHRONOLOGICAL|RECENT|NAIVE] E or ( E )")

    def pattern(self) -> EventPattern:
        found = self.term()
        while self.word() == "SEQ":
            self.at += 3
            selection = self.policy(SELECTIONS, "unrestricted")
            found = Seq(found, self.term(), selection)
        return found

    def term(self) -> EventPattern:
        word = self.word()
        if word in ("FIRST", "LAST"):
            self.at += len(word)
            inner = self.term()
            return First(inner) if word == "FIRST" else Last(inner)
        if word == "EVENT":
            self.at += len(word)
            return self.event()
        if self.take("("):
            inner = self.pattern()
            if not self.take(")"):
                raise self.error("the ) closing ( E )")
            return inner
        raise self.error("an event pattern")

    def event(self) -> Event:
        self.skip()
        iri = _IRI_TERM.match(self.masked, self.at)
        if iri is None:
            raise self.error("the window's IRI after EVENT")
        window = self.resolve(iri.group())
        if window not in self.windows:
            raise SparqlError(f"EVENT {iri.group()} {{ ... }} reads a window the query does not declare: add FROM NAMED "
                              f"WINDOW {iri.group()} ON <stream> [RANGE ... STEP ...]")
        self.at = iri.end()
        if not self.take("{"):
            raise self.error(f"{{ after EVENT {iri.group()}")
        opened, depth = self.at, 1
        while depth and self.at < len(self.masked):
            iri_here = _IRI.match(self.masked, self.at)
            if iri_here:
                self.at = iri_here.end()
                continue
            depth += {"{": 1, "}": -1}.get(self.masked[self.at], 0)
            self.at += 1
        if depth:
            raise self.error(f"the }} closing EVENT {iri.group()} {{ ... }}")
        return Event(window, self.text[opened:self.at - 1].strip())
