"""Brick models as a reasonlake stream, and the independent reasoners' answers to compare with.

Shared by ``tests/brick/test_brick_models.py`` and ``bench/brick.py``. The choices made here
(what is TBox, what is stream, which triples are compared) are explained in the test
module's docstring; each function says which choice it implements.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from rdflib import BNode, Graph, Literal, URIRef

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
OWL = "http://www.w3.org/2002/07/owl#"
TYPE = URIRef(RDF + "type")
SAME_AS = URIRef(OWL + "sameAs")
OWL_THING = URIRef(OWL + "Thing")
XSD_STRING = URIRef("http://www.w3.org/2001/XMLSchema#string")

# IRIs under these prefixes are vocabulary (Brick 1.1, its tags, the Brick 1.0.2 / BrickFrame
# terms the models were converted from, RDF, RDFS, OWL, XSD): never renamed. Every other IRI
# in a model is a *building term* (an entity of that building), renamed per model.
ONTOLOGY_PREFIXES = ("https://brickschema.org/schema/", "http://www.w3.org/")
# A building term of model M becomes RENAME.format(M) + its IRI in the shared stream.
RENAME = "urn:x-brick-model:{}:"  # model names (file stems) hold no ':'
_RENAMED = re.compile(r"urn:x-brick-model:([^:]+):(.*)", re.DOTALL)

def is_building_term(term) -> bool:
    return isinstance(term, URIRef) and not str(term).startswith(ONTOLOGY_PREFIXES)


@dataclass
class Model:
    """One building model, split into what reasonlake takes as TBox and as stream."""

    name: str  # the file stem, e.g. "BRIG"
    path: Path
    size: int  # bytes of the .ttl file
    schema: set = field(default_factory=set)  # triples about vocabulary terms (class axioms)
    instances: set = field(default_factory=set)  # triples about building terms
    terms: set = field(default_factory=set)  # the model's building terms (IRIs)


def model_paths(folder: Path) -> list[Path]:
    """The building models, smallest file first (ties by name)."""
    return sorted(folder.glob("*.ttl"), key=lambda p: (p.stat().st_size, p.name))


def load_model(path: Path) -> Model:
    """A model's triples split by subject: a building term (stream) or a vocabulary term
    (schema). In the 108 models the schema part is 1.0.2-to-1.1 class and property axioms
    (``rdfs:subClassOf``, ``rdfs:domain``/``range``, ``owl:inverseOf``, declarations),
    which reasonlake's ingest rejects as TBox vocabulary: they go to the view's ontology."""
    graph = Graph()
    graph.parse(path, format="turtle")
    model = Model(path.stem, path, path.stat().st_size)
    for triple in graph:
        if isinstance(triple[0], BNode) or any(isinstance(t, BNode) for t in triple):
            raise ValueError(f"{path}: blank nodes are not expected in the Brick models")
        (model.instances if is_building_term(triple[0]) else model.schema).add(triple)
    model.terms = {t for triple in model.instances for t in triple if is_building_term(t)}
    for s, _, o in model.schema:
        if is_building_term(o):
            raise ValueError(f"{path}: a vocabulary subject with a building-term object: {s} {o}")
    return model


def load_brick(path: Path) -> Graph:
    graph = Graph()
    graph.parse(path, format="nt")  # N-Triples despite the .n3 suffix
    return graph


_SCHEMA_NAMESPACES = (RDF, RDFS, OWL)


def without_instance_assertions(brick: Graph) -> Graph:
    """Brick with only its axioms: triples whose predicate is RDF/RDFS/OWL vocabulary other
    than rdf:type, or rdf:type to an RDF/RDFS/OWL class. What goes (tags and their
    ``hasAssociatedTag`` links, punned ``brick:Air a brick:Air``, annotations such as
    ``skos:definition``) is what reasonlake reports as ignored instance assertions."""
    out = Graph()
    for s, p, o in brick:
        if p == TYPE:
            if str(o).startswith(_SCHEMA_NAMESPACES):
                out.add((s, p, o))
        elif str(p).startswith(_SCHEMA_NAMESPACES):
            out.add((s, p, o))
    return out


def rename(term, model: str):
    return URIRef(RENAME.format(model) + str(term)) if is_building_term(term) else term


def unrename(term) -> tuple[str | None, object]:
    """(model, original term) of a renamed building term; (None, term) otherwise."""
    if isinstance(term, URIRef):
        m = _RENAMED.fullmatch(str(term))
        if m:
            return m.group(1), URIRef(m.group(2))
    return None, term


def write_schema(models: list[Model], path: Path) -> int:
    """The union of the models' schema parts, as N-Triples (the view's second ontology)."""
    union = set().union(*(m.schema for m in models)) if models else set()
    lines = sorted(f"{s.n3()} {p.n3()} {o.n3()} ." for s, p, o in union)
    path.write_text("\n".join(lines) + "\n")
    return len(lines)


def nt_line(s, p, o) -> str:
    return f"{s.n3()} {p.n3()} {o.n3()} ."


def write_stream(models: list[Model], path: Path) -> int:
    """Every model's instance triples, building terms renamed per model, as N-Triples."""
    n = 0
    with path.open("w") as out:
        for m in models:
            for s, p, o in sorted(m.instances):
                out.write(nt_line(rename(s, m.name), p, rename(o, m.name)) + "\n")
                n += 1
    return n


# -- comparing ---------------------------------------------------------------------------------
def compared(triples, terms: set) -> set:
    """The triples a comparison looks at (the noise filter, the same on both sides).

    ``terms`` are the model's building terms. Kept: triples with at least one of them as
    subject or object (the model's own entailments), except
    - triples with a blank node (anonymous class expressions: reasonable and owlrl show
      them as blank nodes, reasonlake keeps them internal as <urn:reasonlake:anon:...>
      and never exports them; ``x rdf:type [restriction]`` is an intermediate step);
    - triples with a literal subject (generalized triples);
    - reflexive ``owl:sameAs`` (eq-ref holds for every term; reasonlake does not
      materialize it);
    - ``x rdf:type owl:Thing`` (reasonable types every individual so; no OWL 2 RL rule of
      Tables 4-9 derives it for individuals, and reasonlake does not materialize it).
    One spelling is normalised: ``"v"^^xsd:string`` is ``"v"`` (the same RDF 1.1 term;
    reasonable writes the datatype, reasonlake drops it)."""
    out = set()
    for s, p, o in triples:
        if isinstance(s, (BNode, Literal)) or isinstance(p, (BNode, Literal)) or isinstance(o, BNode):
            continue
        if s not in terms and o not in terms:
            continue
        if (p == SAME_AS and s == o) or (p == TYPE and o == OWL_THING):
            continue
        if isinstance(o, Literal) and o.datatype == XSD_STRING:
            o = Literal(str(o))
        out.add((s, p, o))
    return out


def parse_export(lines) -> dict[str, set]:
    """reasonlake's export (N-Triples lines over renamed terms) grouped by model, renaming
    undone. A triple naming two models, or a building term that is not renamed, goes under
    the key ``"?"`` (it would mean models leaked into each other)."""
    per_model: dict[str, set] = {}
    literal_lines = []
    for line in lines:
        if not line:
            continue
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[0][0] == "<" and parts[2].startswith("<") and parts[2].endswith("> .") \
                and " " not in parts[2][:-2]:
            _add(per_model, (URIRef(parts[0][1:-1]), URIRef(parts[1][1:-1]), URIRef(parts[2][1:-3])))
        else:
            literal_lines.append(line)
    if literal_lines:
        graph = Graph()
        graph.parse(data="\n".join(literal_lines) + "\n", format="nt")
        for triple in graph:
            _add(per_model, triple)
    return per_model


def _add(per_model: dict, triple) -> None:
    models = set()
    plain = []
    for term in triple:
        model, original = unrename(term)
        if model is not None:
            models.add(model)
        elif is_building_term(term):
            models.add("?")
        plain.append(original)
    key = models.pop() if len(models) == 1 else ("?" if models else "")
    per_model.setdefault(key, set()).add(tuple(plain))


def tbox_triples(brick: Graph, schema_path: Path) -> list:
    """Brick + the models' schema union: the references' TBox (and Brick's instance-like
    triples, which the reasoners keep as data)."""
    return list(brick) + list(Graph().parse(schema_path, format="nt"))


def run_reasonable(tbox: list, model: Model) -> list:
    """reasonable's OWL 2 RL closure of the TBox triples + this model (schema and instances)."""
    import reasonable

    reasoner = reasonable.PyReasoner()
    reasoner.from_graph(tbox + list(model.schema | model.instances))
    return reasoner.reason()


def run_owlrl(tbox: list, model: Model) -> Graph:
    """owlrl's OWL 2 RL closure (no RDFS closure, axiomatic or datatype triples)."""
    import owlrl

    graph = Graph()
    for t in tbox:
        graph.add(t)
    for t in model.schema | model.instances:
        graph.add(t)
    owlrl.DeductiveClosure(owlrl.OWLRL_Semantics, rdfs_closure=False, axiomatic_triples=False,
                           datatype_axioms=False).expand(graph)
    return graph


def describe(diff: set, limit: int = 8) -> str:
    shown = sorted(nt_line(*t) for t in diff)[:limit]
    more = f"\n  ... and {len(diff) - limit} more" if len(diff) > limit else ""
    return "\n  ".join([""] + shown) + more
