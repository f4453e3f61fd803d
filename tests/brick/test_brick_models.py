"""The owl2rl profile on real data: the Brick ontology as the TBox, building models as a stream.

What runs. The 108 Brick building models of ``../shared/data/brick/buildings`` (the inputs
of the published ``reasonable`` benchmark) go into ONE reasonlake stream as ONE event,
and ONE owl2rl view (``unique_names: false``, standard OWL equality) materializes them at
ONE slide (a slide has a fixed Spark cost of a minute or more on 2 cores, whatever its
size; Brick's TBox compiles in seconds). Each model's exported triples are compared, as sets, with the OWL 2 RL closure
that ``reasonable`` (Rust, PyPI) computes for Brick + that model alone; for the smallest
models ``owlrl`` (the W3C reference implementation in Python, slow on Brick) is a second
reference.

Keeping models apart. Models share namespaces (two use ``http://xbos.io/ontologies/ciee#``)
and Brick terms. Every *building term* (an IRI outside ``https://brickschema.org/schema/``
and ``http://www.w3.org/``) of model M is renamed ``urn:x-brick-model:M:<IRI>`` in the
stream; Brick, Brick 1.0.2/BrickFrame, RDF, RDFS, OWL and XSD IRIs are never renamed. The
exported triples are grouped by the model their renamed terms belong to and the renaming
is undone; a triple naming building terms of two models would be reported as a leak.

What is TBox. Besides instance data, every model carries a few axioms about vocabulary
terms (66 distinct triples over the 108 models: ``brick1.0.2:RTU rdfs:subClassOf
brick:AHU``, ``bf:hasSite rdfs:range brick1.0.2:Site``, ``bf:isSiteOf owl:inverseOf
bf:hasSite`` and their declarations). reasonlake's ingest rejects TBox vocabulary in a
stream, so the triples whose subject is a vocabulary term go to the view's ontology
(``Brick.n3`` + the union of the models' schema parts); the triples whose subject is a
building term are the stream. The references reason over the same TBox (Brick + the same
union) + the whole model, so the comparison is like for like. The union never contradicts
a model, but it is not neutral: a few axioms are stated by one model only (e.g.
``brick1.0.2:Chilled_Water_Flow_Sensor rdfs:subClassOf brick:Sensor``) while 51 models use
those classes, so there the union adds 3-9 building-level triples per model (``x a
brick:Sensor``, ``x brick:hasTag tag:Sensor``, ``tag:Sensor brick:isTagOf x``) to what the
model's own axioms give (measured with reasonable when this test was written).

Brick's own instance-like triples. ``Brick.n3`` also states facts about individuals:
``brick:AHU brick:hasAssociatedTag tag:AHU`` (2,722), ``tag:AHU a brick:Tag`` (248),
punned substances and quantities (``brick:Air a brick:Air``), annotations. reasonlake
compiles an ontology into rules and reports these as ignored axioms ("an instance
assertion ... declare instance data as the view's background"); the reasoners keep them
as data. They can only reach a building-level triple through a rule with a premise about
such an individual (cls-svf1, cls-avf, prp-fp, eq-rep-*, ...) and Brick 1.1 has no such
axiom over them (its restrictions are ``owl:hasValue`` on ``brick:hasTag`` and
``brick:measures``). ``test_brick_instance_assertions_do_not_reach_buildings`` checks it
on reasonable: the same building-level triples with these triples removed from Brick (for
10 models; for all 108 when this test was written).

Noise filter, applied identically to both sides (``reference.compared``): keep the
triples with a building term of the model as subject or object; then drop
- triples with a blank node: Brick's anonymous class expressions (``owl:Restriction``,
  ``owl:intersectionOf``) are blank nodes in the reasoners' output, while reasonlake names
  them ``<urn:reasonlake:anon:...>`` and hides them from export (``x a [restriction]`` is an
  intermediate step; the named classes it leads to are compared);
- triples with a literal subject (generalized triples);
- reflexive ``owl:sameAs`` (eq-ref, true of every term, not materialized by reasonlake);
- ``x rdf:type owl:Thing``: reasonable types every individual so; no OWL 2 RL rule
  derives it for an individual and reasonlake does not materialize it.
and normalise ``"v"^^xsd:string`` to ``"v"`` (one RDF 1.1 term, two spellings: reasonable
writes the datatype). Triples that name no building term (``brick:Air a
brick:Measurable``, ``tag:AHU a brick:Tag``: vocabulary-level consequences shared by all
models in the one view) are not compared: no model owns them.

Violations. reasonable does not check consistency, reasonlake does: the view reports 4
``prp-asyp`` violations, all in ``sutardja_dai_hall`` (two chillers and their cooling
towers feed each other, and are fed by each other; Brick 1.1 makes ``brick:feeds`` and
``brick:isFedBy`` asymmetric). Each reported violation is confirmed independently: its
premises are in reasonable's closure of one model and its property is an
``owl:AsymmetricProperty`` in Brick; another kind of violation fails the test.

Outcome when written: all 108 models agree with reasonable (741,664 compared triples;
135 exported triples name no building term), and the 3 smallest models with at least
20 stream triples agree with owlrl. The full 108 are ``slow`` (about 18 min on 2 busy
cores); ``REASONLAKE_BRICK=quick`` checks 10 models spread over the size range, one of them
against owlrl (about 8 min). Without ``../shared`` every test skips with the reason.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from tests.brick import reference as ref
from tests.conftest import ProcessCli, shared_or_skip, write

# rdflib's Turtle parser warns about its own deprecated API once per parsed statement
pytestmark = pytest.mark.filterwarnings("ignore:Dataset.default_context is deprecated:DeprecationWarning")

VIEW = "brick"
STREAM = "buildings"
QUICK_MODELS = 10
# owlrl takes 1.5 min per model on Brick's TBox (2 busy cores), whatever the model's size:
# it checks the smallest selected models that have some content (>= 20 stream triples).
OWLRL_MODELS = {"quick": 1, "all": 3}
OWLRL_MIN_TRIPLES = 20


def _brick_paths() -> tuple[Path, list[Path]]:
    brick = shared_or_skip("data", "brick", "Brick.n3")
    folder = shared_or_skip("data", "brick", "buildings")
    paths = ref.model_paths(folder)
    if len(paths) != 108:
        pytest.skip(f"{folder} holds {len(paths)} models, not the 108 of the Brick benchmark")
    return brick, paths


def _spread(paths: list[Path], n: int) -> list[Path]:
    """n models evenly spread over the size order (smallest first, never the largest)."""
    step = len(paths) / n
    return [paths[int(i * step)] for i in range(n)]


def _materialize(cli, tmp_path: Path, brick: Path, models: list[ref.Model]):
    """One view, one stream, one event holding every model: the exported triples per model,
    and the violations found (rule, {model: triples})."""
    schema = tmp_path / "models-schema.nt"
    ref.write_schema(models, schema)
    stream = tmp_path / "buildings.nt"
    items = ref.write_stream(models, stream)
    view = write(tmp_path / f"{VIEW}.yaml", (
        f"name: {VIEW}\nstream: {STREAM}\nontology: [{brick}, {schema.name}]\nprofile: owl2rl\n"
        "unique_names: false\nwindow: {width: 1h, slide: 1h, start: 0}\n"
    ))
    cli("init", "--allow-ontologies", str(brick.parent))  # Brick's file stays where the data set keeps it
    cli("view", "create", str(view))
    out = cli("ingest", STREAM, str(stream), "--ts", "1970-01-01T00:30:00Z")
    assert f"{items} items, 0 quarantined" in out, out[:2000]
    out = cli("slide", VIEW, "--until", "1970-01-01T01:00:00Z")
    assert len(out.splitlines()) == 2, out  # the header and exactly one close
    export = tmp_path / "export.nt"
    cli("export", VIEW, "-o", str(export))
    per_model = ref.parse_export(export.read_text().splitlines())
    leaks = per_model.get("?", set())
    assert not leaks, f"triples mixing models or with un-renamed building terms:{ref.describe(leaks)}"
    violations = []
    for line in cli("violations", VIEW, "--format", "json").splitlines():
        found = json.loads(line)
        violations.append((found["rule"], ref.parse_export(t["triple"] for t in found["triples"])))
    return per_model, violations


def _compare(cli, tmp_path, paths: list[Path], brick_path: Path, owlrl_models: int) -> None:
    started = time.perf_counter()
    models = [ref.load_model(p) for p in paths]
    exported, violations = _materialize(cli, tmp_path, brick_path, models)
    reasonlake_s = time.perf_counter() - started
    tbox = ref.tbox_triples(ref.load_brick(brick_path), tmp_path / "models-schema.nt")
    failures, compared = [], 0
    closures = {}
    for m in models:
        got = ref.compared(exported.get(m.name, set()), m.terms)
        want = ref.compared(ref.run_reasonable(tbox, m), m.terms)
        closures[m.name] = want
        compared += len(want)
        if got != want:
            failures.append(
                f"{m.name}: reasonable {len(want)} triples, reasonlake {len(got)}\n"
                f" missing (reasonable only):{ref.describe(want - got)}\n"
                f" extra (reasonlake only):{ref.describe(got - want)}"
            )
    # reasonable does not check consistency: a violation is confirmed when its premises are
    # in reasonable's closure of one model and its rule's axiom is in Brick.
    asymmetric = {p for p, _, _ in _typed(tbox, ref.OWL + "AsymmetricProperty")}
    for rule, triples in violations:
        (model, premises), = triples.items()  # one model, no leak
        assert premises <= closures[model], (rule, model, premises - closures[model])
        if rule == "prp-asyp":
            (x, p, y), (y2, p2, x2) = sorted(premises)
            assert p == p2 and p in asymmetric and (x, y) == (x2, y2), (rule, premises)
        else:
            failures.append(f"{model}: unexpected violation {rule}:{ref.describe(premises)}")
    sized = sorted((m for m in models if len(m.instances) >= OWLRL_MIN_TRIPLES), key=lambda m: m.size)
    for m in sized[:owlrl_models]:
        got = ref.compared(exported.get(m.name, set()), m.terms)
        want = ref.compared(ref.run_owlrl(tbox, m), m.terms)
        if got != want:
            failures.append(
                f"{m.name} vs owlrl: owlrl {len(want)} triples, reasonlake {len(got)}\n"
                f" missing (owlrl only):{ref.describe(want - got)}\n"
                f" extra (reasonlake only):{ref.describe(got - want)}"
            )
    print(f"{len(models)} models, {sum(len(m.instances) for m in models)} stream triples, "
          f"{compared} compared triples, {len(violations)} violations confirmed; reasonlake {reasonlake_s:.0f}s, "
          f"references {time.perf_counter() - started - reasonlake_s:.0f}s")
    assert not failures, f"{len(failures)} disagreement(s):\n" + "\n".join(failures)


def _typed(triples, cls: str) -> list:
    return [t for t in triples if t[1] == ref.TYPE and str(t[2]) == cls]


@pytest.mark.skipif(
    os.environ.get("REASONLAKE_BRICK") != "quick",
    reason="the 108-model test of the slow suite covers these models; REASONLAKE_BRICK=quick runs "
           "this 10-model check alone",
)
def test_brick_models_agree_with_reasonable(tmp_path):
    brick, paths = _brick_paths()
    _compare(_own_processes(tmp_path), tmp_path, _spread(paths, QUICK_MODELS), brick, OWLRL_MODELS["quick"])


@pytest.mark.slow
@pytest.mark.long
@pytest.mark.minutes(20)
def test_all_108_brick_models_agree_with_reasonable(tmp_path):
    brick, paths = _brick_paths()
    _compare(_own_processes(tmp_path), tmp_path, paths, brick, OWLRL_MODELS["all"])


def _own_processes(tmp_path: Path) -> ProcessCli:
    """A home driven by CLI processes of their own: the last test of the slow suite must not
    depend on the heap the suite's long-lived session has reached by then (the quick check
    takes the same path)."""
    cli = ProcessCli(tmp_path / "lake")
    cli("init")
    return cli


def test_brick_instance_assertions_do_not_reach_buildings(tmp_path):
    """Brick's instance-like triples (tags, punned individuals, annotations), which
    reasonlake reports as ignored axioms, change no building-level triple of reasonable's
    closure, for models spread over the size range (no Spark: reasonable only)."""
    brick_path, paths = _brick_paths()
    brick = ref.load_brick(brick_path)
    axioms_only = ref.without_instance_assertions(brick)
    assert len(brick) - len(axioms_only) > 3000  # 2,722 hasAssociatedTag, 248 tags, ...
    models = [ref.load_model(p) for p in paths]
    union = tmp_path / "models-schema.nt"
    ref.write_schema(models, union)
    with_them = ref.tbox_triples(brick, union)
    without = ref.tbox_triples(axioms_only, union)
    for m in _spread(models, QUICK_MODELS):
        full = ref.compared(ref.run_reasonable(with_them, m), m.terms)
        assert ref.compared(ref.run_reasonable(without, m), m.terms) == full, m.name
