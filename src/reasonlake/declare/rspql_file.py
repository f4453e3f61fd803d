"""An RSP-QL query file (``.rspql``) read into what a home keeps of it: the query's name,
its text, what ``declare.rspql`` reads from it, the files its ENTAILMENT and its static
graphs name, and the view each of its named windows is (decision 0074).

Like a view file's ontology, every file the query names is read when it is registered: an
evaluation never depends on a file staying where it was.

- *Names.* The query's name is its output stream's local name (``REGISTER RSTREAM :trending``:
  ``trending``) unless given; its answers are the table of that name, and a CONSTRUCT's
  triples are the items of the home's stream of that name. A window ``ON :in`` reads the
  home's stream ``in``. Each is a SQL-safe identifier, as a view's stream is.
- *Static graphs.* ``FROM GRAPH <g>`` / ``FROM NAMED GRAPH <g>``: a relative IRI (no scheme) is
  a file beside the query file; any other IRI is given its file with ``--graph IRI=FILE``.
- *Windows.* Each named window is a view over its stream with the window's RANGE, STEP and
  FROM and the query's entailment regime (profile and ontology; no ENTAILMENT clause:
  ``rdfs`` over no ontology, which entails nothing from a stream's items alone).
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass, replace
from functools import cached_property
from pathlib import Path

from reasonlake.declare import rspql
from reasonlake.declare.view import NAME_PATTERN, OntologySource, Profile, ViewDecl, read_sources
from reasonlake.errors import SparqlError, ViewDeclarationError
from reasonlake.plan.windows import Window

_LOCAL = re.compile(r"[^/#:]*$")


@dataclass(frozen=True)
class StaticGraph:
    iri: str  # N-Triples form
    named: bool  # FROM NAMED GRAPH (else merged into the default graph)
    source: OntologySource  # the file, as read at registration


@dataclass(frozen=True)
class RspqlDecl:
    name: str
    text: str  # the query file as written
    source: str  # the file's path as given
    profile: Profile
    ontology: tuple[OntologySource, ...]
    graphs: tuple[StaticGraph, ...]
    # each window's IRI and the view that keeps it, set at registration (``engine.jobs.rspql``)
    views: tuple[tuple[str, str], ...] = ()

    @cached_property  # read once: each evaluation asks for its windows and SPARQL
    def registration(self) -> rspql.Registration:
        return rspql.parse(self.text)

    @property
    def output_stream(self) -> str:
        return self.name

    @property
    def form(self) -> str:
        """SELECT or CONSTRUCT: what its answers are (solutions, or triples a stream can hold)."""
        return self._parsed.name.removesuffix("Query").upper()

    def variables(self) -> list[str]:
        """A SELECT's variables, in its order: its answer table's columns before ``close``."""
        return [str(v) for v in self._parsed.PV]

    @cached_property
    def _parsed(self):
        # imported when called: it loads rdflib
        from reasonlake.query.parse import algebra

        return algebra(self.registration.sparql).algebra

    def input_streams(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(stream_name(w.stream) for w in self.registration.windows))

    def window_views(self) -> list[tuple[rspql.NamedWindow, ViewDecl]]:
        """Each named window and the view that keeps it, named ``<query>_<window>`` (a view
        already in the home with the same content is used instead: ``engine.jobs.rspql``)."""
        return [(w, ViewDecl(name=f"{self.name}_{stream_name(w.name, what='window')}"[:64],
                             stream=stream_name(w.stream), profile=self.profile,
                             window=Window(w.width_ms, w.slide_ms, w.start_ms or 0), ontology=self.ontology,
                             description=f"window {w.name} of RSP-QL query {self.name}"))
                for w in self.registration.windows]

    def fingerprint(self) -> str:
        """Identity of what the query answers (the views it was given are not part of it)."""
        return hashlib.sha256(replace(self, views=()).to_json().encode()).hexdigest()[:16]

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @staticmethod
    def from_json(text: str) -> RspqlDecl:
        raw = json.loads(text)
        return RspqlDecl(
            name=raw["name"], text=raw["text"], source=raw["source"], profile=Profile(raw["profile"]),
            ontology=tuple(OntologySource(**o) for o in raw["ontology"]),
            graphs=tuple(StaticGraph(g["iri"], g["named"], OntologySource(**g["source"])) for g in raw["graphs"]),
            views=tuple(tuple(v) for v in raw.get("views", ())))


def stream_name(iri: str, *, what: str = "stream") -> str:
    """The home's name for a stream (or window) IRI: its local name."""
    local = _LOCAL.search(iri.strip("<>")).group()
    if not NAME_PATTERN.fullmatch(local):
        raise SparqlError(f"{what} {iri}: its local name {local!r} is not a name the home can give a {what} "
                          "(letters, digits and _, not starting with a digit); name it e.g. <http://example.org/in>")
    return local


def load_rspql(path: str | Path, *, name: str | None = None, graph_files: dict[str, str] | None = None,
               allowed_dirs: tuple[str, ...] | None = None) -> RspqlDecl:
    """The query file at ``path``, read and checked; ``graph_files``: a file per static
    graph IRI (``--graph IRI=FILE``), relative to the working folder."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise ViewDeclarationError(f"{path}: no such RSP-QL query file") from None
    except UnicodeDecodeError:
        raise ViewDeclarationError(f"{path}: not UTF-8 text; save the query as UTF-8") from None
    try:
        read = rspql.parse(text)
        name = name or stream_name(read.output, what="output stream")
        if not NAME_PATTERN.fullmatch(name):
            raise SparqlError(f"--name {name!r}: a query's name is a SQL-safe identifier (letters, digits, _)")
        for window in read.windows:
            stream_name(window.stream)
            stream_name(window.name, what="window")
    except SparqlError as exc:
        raise SparqlError(f"{path}: {exc}") from None
    ontology = read_sources(path, list(read.ontologies), "ENTAILMENT ONTOLOGY", allowed_dirs)
    graphs = _static_graphs(path, read, dict(graph_files or {}), allowed_dirs)
    decl = RspqlDecl(name, text, str(path), Profile(read.profile or Profile.RDFS), ontology, graphs)
    _check_form(path, decl)
    return decl


def _static_graphs(path: Path, read: rspql.Registration, given: dict[str, str],
                   allowed_dirs: tuple[str, ...] | None) -> tuple[StaticGraph, ...]:
    given = {(k if k.startswith("<") else f"<{k}>"): v for k, v in given.items()}
    graphs = []
    for iri, named in [(g, False) for g in read.graphs] + [(g, True) for g in read.named_graphs]:
        clause = f"FROM {'NAMED ' if named else ''}GRAPH {iri}"
        allowed = allowed_dirs
        if iri in given:  # named on the command line: the caller's own choice of file
            file, allowed = str(Path(given.pop(iri)).resolve()), None
        elif ":" not in iri.strip("<>"):  # a relative IRI: a file beside the query
            file = iri.strip("<>")
        else:
            raise ViewDeclarationError(f"{path}: {clause}: give the graph's file with --graph {iri.strip('<>')}=FILE "
                                       "(a relative IRI such as <shops.ttl> names a file beside the query)")
        source = read_sources(path, [file], clause, allowed)[0]
        graphs.append(StaticGraph(iri, named, replace(source, path=file)))
    if given:
        raise ViewDeclarationError(f"{path}: --graph {next(iter(given)).strip('<>')}=...: the query has no FROM GRAPH "
                                   "or FROM NAMED GRAPH of that IRI")
    return tuple(graphs)


def _check_form(path: Path, decl: RspqlDecl) -> None:
    form = decl.form
    if form not in ("SELECT", "CONSTRUCT"):
        raise SparqlError(f"{path}: an RSP-QL query is a SELECT or a CONSTRUCT (its answers are a stream of "
                          f"solutions or of triples); this one is {form}")
    seen: dict[str, str] = {}
    for variable in decl.variables() if form == "SELECT" else ():
        if variable.lower() == "close":
            raise SparqlError(f"{path}: variable ?{variable} would clash with the answer table's column 'close' "
                              f"(the evaluation time); rename it, e.g. ?{variable}_")
        other = seen.setdefault(variable.lower(), variable)
        if other != variable:
            raise SparqlError(f"{path}: variables ?{other} and ?{variable} differ only in case, and a table's "
                              "column names do not; rename one")
