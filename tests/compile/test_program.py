"""The rule compiler: saturation folds hierarchies into one rule row per (premise, consequence)."""
from __future__ import annotations

import pytest

from reasonlake.compile.program import FROM_OBJECT, FROM_SUBJECT, compile_program
from reasonlake.compile.rules import CATALOGUE, PROFILE_RULES
from reasonlake.vocab import TYPE

RDFS = "http://www.w3.org/2000/01/rdf-schema#"
OWL = "http://www.w3.org/2002/07/owl#"


def c(name):
    return f"<http://example.org/{name}>"


def sub(a, b):
    return (c(a), f"<{RDFS}subClassOf>", c(b))


def test_a_deep_class_hierarchy_is_one_rule_row_per_ancestor():
    chain = frozenset(sub(f"C{i}", f"C{i + 1}") for i in range(10))
    program = compile_program(chain, "rdfs-plus")
    rows = [r for r in program.linear if r.in_o == c("C0")]
    assert sorted(r.out_o for r in rows) == sorted(c(f"C{i}") for i in range(1, 11))
    assert all(r.rule == "cax-sco" and r.in_p == TYPE and r.out_p == TYPE for r in rows)


def test_rdfs_profile_uses_rdfs_rule_ids():
    tbox = frozenset({sub("A", "B"), (c("p"), f"<{RDFS}domain>", c("A")), (c("p"), f"<{RDFS}subPropertyOf>", c("q"))})
    ids = set(compile_program(tbox, "rdfs").active_rules())
    assert ids == {"rdfs9", "rdfs2", "rdfs7"}


def test_domain_through_property_and_class_hierarchy():
    tbox = frozenset({
        (c("p"), f"<{RDFS}subPropertyOf>", c("q")),
        (c("q"), f"<{RDFS}domain>", c("A")),
        sub("A", "B"),
    })
    program = compile_program(tbox, "rdfs-plus")
    typed = {(r.in_p, r.out_o) for r in program.linear if r.rule == "prp-dom"}
    assert typed == {(c("p"), c("A")), (c("p"), c("B")), (c("q"), c("A")), (c("q"), c("B"))}


def test_inverse_symmetric_transitive_and_equivalences():
    tbox = frozenset({
        (c("p"), f"<{OWL}inverseOf>", c("q")),
        (c("s"), TYPE, f"<{OWL}SymmetricProperty>"),
        (c("t"), TYPE, f"<{OWL}TransitiveProperty>"),
        (c("A"), f"<{OWL}equivalentClass>", c("B")),
        (c("e"), f"<{OWL}equivalentProperty>", c("f")),
    })
    program = compile_program(tbox, "rdfs-plus")
    active = program.active_rules()
    for rule in ("prp-inv1", "prp-inv2", "prp-symp", "prp-trp", "cax-eqc1", "cax-eqc2", "prp-eqp1", "prp-eqp2", "eq-sym"):
        assert rule in active, rule
    inv = [r for r in program.linear if r.rule == "prp-inv1"]
    assert inv[0].out_s == FROM_OBJECT and inv[0].out_o == FROM_SUBJECT and inv[0].out_p == c("q")
    assert program.transitive == (c("t"),)


def test_owl_axioms_outside_the_profile_are_reported_not_silently_dropped():
    tbox = frozenset({(c("A"), f"<{OWL}disjointWith>", c("B")), (c("p"), f"<{OWL}inverseOf>", c("q"))})
    ignored = compile_program(tbox, "rdfs").ignored
    assert {axiom.split()[1] for axiom, _ in ignored} == {f"<{OWL}disjointWith>", f"<{OWL}inverseOf>"}
    assert all("rdfs" in reason for _, reason in ignored)


@pytest.mark.parametrize("profile", sorted(PROFILE_RULES))
def test_every_profile_rule_is_in_the_catalogue(profile):
    for rule in PROFILE_RULES[profile]:
        assert rule in CATALOGUE


def test_a_hierarchy_past_the_pair_budget_is_kept_as_jumps_then_fails_with_the_limit_and_the_fix(monkeypatch):
    from reasonlake.errors import ViewDeclarationError

    sub = "<http://www.w3.org/2000/01/rdf-schema#subClassOf>"
    chain = frozenset((f"<http://e/C{i}>", sub, f"<http://e/C{i + 1}>") for i in range(60))
    assert len(compile_program(chain, "rdfs").linear) == 60 * 61 // 2  # every (sub, super) pair
    monkeypatch.setenv("REASONLAKE_MAX_SCHEMA_PAIRS", "1000")
    jumps = compile_program(chain, "rdfs").linear  # ancestors 1, 2, 4, 8, 16, 32 steps away
    assert len(jumps) == sum(sum(1 for k in range(6) if i + 2 ** k <= 60) for i in range(60))
    monkeypatch.setenv("REASONLAKE_MAX_SCHEMA_PAIRS", "200")
    with pytest.raises(ViewDeclarationError, match=r"more than 200 \(sub, super\) pairs.*even as jumps.*"
                       "REASONLAKE_MAX_SCHEMA_PAIRS") as err:
        compile_program(chain, "rdfs")
    assert err.value.code == "RL112"


def test_owl_imports_is_reported_not_followed():
    imports = ("<http://e/onto>", "<http://www.w3.org/2002/07/owl#imports>", "<http://e/other>")
    ignored = dict(compile_program(frozenset({imports}), "owl2rl").ignored)
    assert "owl:imports is not followed" in ignored[" ".join(imports) + " ."]


def test_an_existential_superclass_is_noted_for_what_it_cannot_entail():
    from reasonlake.compile.tbox import load_tbox
    from reasonlake.declare.view import OntologySource

    ttl = ("@prefix : <http://e/> . @prefix owl: <http://www.w3.org/2002/07/owl#> . "
           "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
           ":Person rdfs:subClassOf [ a owl:Restriction ; owl:onProperty :hasParent ; owl:someValuesFrom :Person ] .\n"
           ":Parent owl:equivalentClass [ a owl:Restriction ; owl:onProperty :hasChild ; owl:someValuesFrom :Person ] .\n")
    program = compile_program(load_tbox((OntologySource(path="p.ttl", text=ttl, format="turtle"),)), "owl2rl")
    (axiom, note), = program.notes  # Parent's restriction has a named class over it: no note
    assert axiom.startswith("<http://e/Person> rdfs:subClassOf [owl:onProperty <http://e/hasParent>")
    assert "makes up no individual" in note
