"""View declarations: YAML files parsed into frozen dataclasses.

Errors name the file, the field and what is allowed. Ontology paths are relative to the
view file; their content is read here so that a view's definition (and its fingerprint)
does not depend on files staying where they were.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from pathlib import Path

import yaml

from reasonlake.plan.durations import parse_duration, parse_time
from reasonlake.declare.expectations import ExpectationsDecl, parse_block
from reasonlake.declare.queries import QueryDecl
from reasonlake.declare.queries import parse_block as parse_queries
from reasonlake.errors import TimeFormatError, ViewDeclarationError
from reasonlake.plan.windows import LANDMARK, Window



class Profile(StrEnum):
    """A view's rule profile (a string as written in the view file)."""

    RDFS = "rdfs"
    RDFS_PLUS = "rdfs-plus"
    OWL2RL = "owl2rl"


class RepairPolicy(StrEnum):
    """What a view does with an inconsistency: report it, or repair it newest-wins."""

    NONE = "none"
    NEWEST_WINS = "newest-wins"


PROFILES = tuple(Profile)
SUPPORTED_PROFILES = PROFILES
# fullmatch only: "$" would also match before a trailing newline ("name\n").
NAME_PATTERN = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
KNOWN_FIELDS = {
    "name", "stream", "ontology", "profile", "window", "description", "unique_names", "background",
    "repair", "repair_depth", "retain", "expectations", "queries", "readable_copy",
}
REPAIR_POLICIES = tuple(RepairPolicy)


@dataclass(frozen=True)
class OntologySource:
    path: str  # as written in the view file (for messages)
    text: str  # the file content
    format: str  # rdflib format name


@dataclass(frozen=True)
class ViewDecl:
    name: str
    stream: str
    profile: Profile
    window: Window
    ontology: tuple[OntologySource, ...] = field(default_factory=tuple)
    description: str = ""
    # owl2rl: two different names never denote the same individual (Proost & Bonte).
    unique_names: bool = True
    # Static instance data: facts that never expire and take part in every derivation.
    background: tuple[OntologySource, ...] = field(default_factory=tuple)
    # Inconsistency repair (Proost & Bonte): none (report violations) or newest-wins.
    repair: RepairPolicy = RepairPolicy.NONE
    # How deep recursive negative inclusions are rewritten; None: recursion is an error.
    repair_depth: int | None = None
    # How long closes stay readable after `reasonlake vacuum` (ms); None: Delta's default.
    # Not part of the content: a changed retain is saved without a rebuild.
    retain: int | None = None
    # Checks run after every close and what a failure does; None: the built-in suite runs
    # only on demand (`reasonlake validate`). Not part of the content, like retain.
    expectations: ExpectationsDecl | None = None
    # Continuous queries answered after every close (declare.queries). Not part of the
    # content either: they read the view, they do not change it.
    queries: tuple[QueryDecl, ...] = field(default_factory=tuple)
    # A decoded copy of the view at its last published close for readers outside Spark
    # (engine.store.readable_copy). Not part of the content: it shows the view, as SQL does.
    readable_copy: bool = False

    def fingerprint(self) -> str:
        """Identity of everything that changes the view's content."""
        payload = {
            "stream": self.stream,
            "profile": self.profile,
            "window": asdict(self.window),
            "ontology": [hashlib.sha256(o.text.encode()).hexdigest() for o in self.ontology],
        }
        # Fields added after the first release enter the fingerprint only when they differ
        # from their default, so existing views keep their identity.
        if not self.unique_names:
            payload["unique_names"] = False
        if self.background:
            payload["background"] = [hashlib.sha256(o.text.encode()).hexdigest() for o in self.background]
        if self.repair != "none":
            payload["repair"] = self.repair
        if self.repair_depth is not None:
            payload["repair_depth"] = self.repair_depth
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]

    def to_json(self) -> str:
        return json.dumps(
            {
                "name": self.name,
                "stream": self.stream,
                "profile": self.profile,
                "window": asdict(self.window),
                "ontology": [asdict(o) for o in self.ontology],
                "description": self.description,
                "unique_names": self.unique_names,
                "background": [asdict(o) for o in self.background],
                "repair": self.repair,
                "repair_depth": self.repair_depth,
                "retain": self.retain,
                "expectations": self.expectations.to_dict() if self.expectations else None,
                "queries": [q.to_dict() for q in self.queries],
                "readable_copy": self.readable_copy,
            }
        )

    @staticmethod
    def from_json(text: str) -> "ViewDecl":
        raw = json.loads(text)
        return ViewDecl(
            name=raw["name"],
            stream=raw["stream"],
            profile=Profile(raw["profile"]),
            window=Window(**raw["window"]),
            ontology=tuple(OntologySource(**o) for o in raw["ontology"]),
            description=raw.get("description", ""),
            unique_names=raw.get("unique_names", True),
            background=tuple(OntologySource(**o) for o in raw.get("background", [])),
            repair=RepairPolicy(raw.get("repair", "none")),
            repair_depth=raw.get("repair_depth"),
            retain=raw.get("retain"),
            expectations=ExpectationsDecl.from_dict(raw.get("expectations")),
            queries=tuple(QueryDecl.from_dict(q) for q in raw.get("queries", [])),
            readable_copy=raw.get("readable_copy", False),
        )


_FORMATS = {
    ".ttl": "turtle",
    ".n3": "n3",
    ".nt": "nt",
    ".owl": "xml",
    ".rdf": "xml",
    ".xml": "xml",
    ".jsonld": "json-ld",
    ".trig": "trig",
}


class _RepeatedKey(Exception):
    def __init__(self, key: str, line: int):
        super().__init__(key)
        self.key, self.line = key, line


class _Alias(Exception):
    def __init__(self, line: int):
        super().__init__(line)
        self.line = line


class _StrictLoader(yaml.SafeLoader):
    """YAML's safe loader, except that a key given twice in a mapping is an error (YAML
    keeps the last silently, so an edited window could be ignored without a word), and
    aliases (*name) are refused: a view file needs none, and nested aliases expand to
    billions of nodes (a few hundred bytes can take the machine's memory)."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            raise _Alias(self.peek_event().start_mark.line + 1)
        return super().compose_node(parent, index)

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if isinstance(key, str) and key in seen:
                raise _RepeatedKey(key, key_node.start_mark.line + 1)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _text(path: Path, what: str) -> str:
    """A declaration file's UTF-8 text (a BOM is allowed), or an error naming the file."""
    if path.is_dir():
        raise ViewDeclarationError(f"{path}: is a folder; give the {what} file itself (e.g. {path}/*.yaml)")
    try:
        data = path.read_bytes()
    except PermissionError:
        raise ViewDeclarationError(f"{path}: cannot be read (permission denied)") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise ViewDeclarationError(
            f"{path}: line {line}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            f"save the {what} as UTF-8") from None


def _fail(path: Path, field_name: str, message: str) -> ViewDeclarationError:
    return ViewDeclarationError(f"{path}: field '{field_name}': {message}")


def load_view(path: str | Path, allowed_dirs: tuple[str, ...] | None = None) -> ViewDecl:
    """The view file's declaration. ``allowed_dirs``: where its ontology files may be besides
    the view file's folder (the home's setting); None checks no place (a file read for a
    look, such as `rules FILE`: nothing of it goes into a home)."""
    path = Path(path)
    try:
        raw = yaml.load(_text(path, "view file"), Loader=_StrictLoader)  # noqa: S506 - a SafeLoader
    except FileNotFoundError:
        raise ViewDeclarationError(f"{path}: no such view file") from None
    except _Alias as exc:
        raise ViewDeclarationError(f"{path}: line {exc.line}: YAML aliases (*name) are not allowed in a view "
                                   "file; write the value out") from None
    except _RepeatedKey as exc:
        raise ViewDeclarationError(f"{path}: line {exc.line}: field '{exc.key}' is given twice; keep one") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ViewDeclarationError(
            f"{path}:{where}: malformed YAML ({problem}); a view file is a YAML mapping "
            "with name, stream, ontology, profile and window"
        ) from None
    if not isinstance(raw, dict):
        raise ViewDeclarationError(
            f"{path}: a view file must be a YAML mapping with name, stream, ontology, "
            "profile and window"
        )
    unknown = sorted(set(raw) - KNOWN_FIELDS)
    if unknown:
        raise _fail(path, unknown[0], f"unknown field; allowed: {', '.join(sorted(KNOWN_FIELDS))}")
    decl = ViewDecl(
        name=_identifier(path, raw, "name"),
        stream=_identifier(path, raw, "stream"),
        profile=_profile(path, raw),
        window=_window(path, raw),
        ontology=_ontology(path, raw, allowed=allowed_dirs),
        description=_description(path, raw),
        unique_names=_flag(path, raw, "unique_names", True),
        background=_ontology(path, raw, "background", allowed=allowed_dirs),
        repair=_repair(path, raw),
        repair_depth=_repair_depth(path, raw),
        retain=_retain(path, raw),
        queries=parse_queries(path, raw.get("queries")),
        readable_copy=_flag(path, raw, "readable_copy", False),
    )
    decl = replace(decl, expectations=parse_block(path, decl.name, raw.get("expectations")))
    if decl.repair != "none" and decl.profile != "owl2rl":
        raise _fail(path, "repair", f"the {decl.profile} profile has no negative rules to repair; "
                    "use profile: owl2rl or remove repair")
    if decl.repair != "none" and not decl.unique_names:
        raise _fail(path, "repair", "newest-wins needs unique_names: true (with owl:sameAs "
                    "substitution every negative inclusion is recursive)")
    return decl


def _description(path: Path, raw: dict) -> str:
    value = raw.get("description", "")
    if value is None:
        return ""
    if not isinstance(value, str):
        raise _fail(path, "description", f"expected text, got {type(value).__name__} {value!r}; "
                    "quote it or use a YAML block (description: |)")
    return value


def _repair(path: Path, raw: dict) -> str:
    value = raw.get("repair", "none")
    if value not in REPAIR_POLICIES:
        raise _fail(path, "repair", f"{value!r} is not a repair policy; allowed: {', '.join(REPAIR_POLICIES)}")
    return RepairPolicy(value)


def _repair_depth(path: Path, raw: dict) -> int | None:
    value = raw.get("repair_depth")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise _fail(path, "repair_depth", f"{value!r} is not a positive integer; write repair_depth: 2")
    if raw.get("repair", "none") == "none":
        raise _fail(path, "repair_depth", "only applies with repair: newest-wins")
    return value


def _retain(path: Path, raw: dict) -> int | None:
    value = raw.get("retain")
    if value is None:
        return None
    try:
        return parse_retention(value, what="retain")
    except TimeFormatError as exc:
        raise _fail(path, "retain", str(exc).split(": ", 1)[1]) from None


def parse_retention(value, *, what: str) -> int:
    """A retention in ms: a duration, or zero in any spelling (only the latest close stays readable)."""
    return parse_duration(value, what=what, zero=RETAIN_ZERO)


RETAIN_ZERO = "only the latest close stays readable"


def _flag(path: Path, raw: dict, key: str, default: bool) -> bool:
    value = raw.get(key, default)
    if not isinstance(value, bool):
        raise _fail(path, key, f"{value!r} is not a boolean; write {key}: true or {key}: false")
    return value


def _identifier(path: Path, raw: dict, key: str) -> str:
    value = raw.get(key)
    if value is None:
        raise _fail(path, key, "missing; give a SQL-safe identifier such as active_users")
    if not isinstance(value, str) or not NAME_PATTERN.fullmatch(value):
        raise _fail(
            path, key, f"{value!r} is not a SQL-safe identifier (letters, digits, _; not starting with a digit)"
        )
    return value


def _profile(path: Path, raw: dict) -> str:
    value = raw.get("profile", "rdfs-plus")
    if value not in PROFILES:
        raise _fail(path, "profile", f"{value!r} is not a profile; allowed: {', '.join(PROFILES)}")
    if value not in SUPPORTED_PROFILES:
        raise _fail(
            path, "profile", f"{value!r} is not available yet; allowed: {', '.join(SUPPORTED_PROFILES)}"
        )
    return value


def _window(path: Path, raw: dict) -> Window:
    value = raw.get("window")
    if not isinstance(value, dict):
        raise _fail(path, "window", "missing or not a mapping; write window: {width: 5m, slide: 1m}")
    extra = sorted(set(value) - {"width", "slide", "start"})
    if extra:
        raise _fail(path, f"window.{extra[0]}", "unknown; allowed: width, slide, start")
    parsed = {}
    for key in ("width", "slide"):
        if key not in value:
            raise _fail(path, f"window.{key}", "missing; give a duration such as 5m")
        if key == "width" and str(value[key]).strip().lower() == "unbounded":
            parsed[key] = LANDMARK  # a landmark window: everything since its start (decision 0074)
            continue
        try:
            parsed[key] = parse_duration(value[key], what=f"window.{key}")
        except TimeFormatError as exc:
            raise _fail(path, f"window.{key}", str(exc).split(": ", 1)[1]) from None
    start = 0  # epoch: aligned to every slide
    if value.get("start") is not None:
        try:
            start = parse_time(value["start"], what="window.start")
        except TimeFormatError as exc:
            raise _fail(path, "window.start", str(exc).split(": ", 1)[1]) from None
    if parsed["slide"] > parsed["width"]:
        raise _fail(
            path, "window.slide", "is wider than window.width; items between windows would be lost"
        )
    return Window(width=parsed["width"], slide=parsed["slide"], start=start)


def _ontology(path: Path, raw: dict, key: str = "ontology", *,
              allowed: tuple[str, ...] | None = None) -> tuple[OntologySource, ...]:
    value = raw.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _fail(path, key, "must be a list of file paths relative to the view file")
    return read_sources(path, value, key, allowed)


def read_sources(path: Path, items: list[str], key: str,
                 allowed: tuple[str, ...] | None = None) -> tuple[OntologySource, ...]:
    """The RDF files ``items`` (relative to the file at ``path``, which names them under
    ``key``) read, each checked for its suffix, its place and its content."""
    sources = []
    for item in items:
        file = (path.parent / item).resolve()
        fmt = _FORMATS.get(file.suffix.lower())
        if fmt is None:
            raise _fail(
                path, key, f"{item}: unknown suffix; allowed: {', '.join(sorted(_FORMATS))}"
            )
        if not file.is_file():
            raise _fail(path, key, f"{item}: no such file (looked at {file})")
        if allowed is not None:
            _check_place(path, key, item, file, allowed)
        text = _text(file, "ontology")
        if fmt == "json-ld":
            _refuse_remote_contexts(path, key, item, text)
        sources.append(OntologySource(path=item, text=text, format=fmt))
    return tuple(sources)


def _check_place(path: Path, key: str, item: str, file: Path, allowed: tuple[str, ...]) -> None:
    """An ontology file (symbolic links followed) is under the view file's folder or a folder
    the home allows: a view file handed to a shared home cannot make it read any file."""
    places = [path.resolve().parent, *(Path(d).resolve() for d in allowed)]
    if any(file.is_relative_to(place) for place in places):
        return
    raise _fail(path, key, f"{item}: {file} is outside the view file's folder ({places[0]}); move it "
                "there, or allow its folder for this home: `reasonlake init --allow-ontologies "
                f"{file.parent}`")


def _refuse_remote_contexts(path: Path, key: str, item: str, text: str) -> None:
    """A JSON-LD ontology's contexts must be inline objects: a context named by URL (or path)
    would be fetched at every compile, over the network, with no timeout, and the remote
    document could change the ontology under an unchanged fingerprint."""
    try:
        document = json.loads(text)
    except ValueError:
        return  # not JSON: the compile names the parse error
    todo = [document]
    while todo:  # iterative: a deeply nested document must not exhaust the stack
        node = todo.pop()
        if isinstance(node, list):
            todo.extend(node)
        elif isinstance(node, dict):
            for name, value in node.items():
                if name in ("@context", "@import"):
                    named = [v for v in (value if isinstance(value, list) else [value]) if isinstance(v, str)]
                    if named:
                        raise _fail(path, key, f"{item}: JSON-LD {name} {named[0]!r} names a document to fetch; "
                                    "nothing is fetched over the network: put the context's object inline "
                                    "in the file")
                todo.append(value)
