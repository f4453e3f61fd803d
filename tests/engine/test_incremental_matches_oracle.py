"""Property: at every close, the incremental view equals the owlrl closure of the window's
items and equals a from-scratch rebuild; `export --version` of an earlier close still gives
what was exported then."""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.engine.paths import both_paths, evaluation_path
from tests.oracle import closure

EX = "http://example.org/g#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
OWL = "http://www.w3.org/2002/07/owl#"
TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
CLASSES = [f"<{EX}C{i}>" for i in range(5)]
PROPS = [f"<{EX}p{i}>" for i in range(4)]
PEOPLE = [f"<{EX}i{i}>" for i in range(5)]
EXAMPLES = int(os.environ.get("REASONLAKE_PROPERTY_EXAMPLES", "3"))


def axioms(profile: str):
    pair_c = st.tuples(st.sampled_from(CLASSES), st.sampled_from(CLASSES))
    pair_p = st.tuples(st.sampled_from(PROPS), st.sampled_from(PROPS))
    p_c = st.tuples(st.sampled_from(PROPS), st.sampled_from(CLASSES))
    rdfs = [
        pair_c.map(lambda x: f"{x[0]} <{RDFS}subClassOf> {x[1]} ."),
        pair_p.map(lambda x: f"{x[0]} <{RDFS}subPropertyOf> {x[1]} ."),
        p_c.map(lambda x: f"{x[0]} <{RDFS}domain> {x[1]} ."),
        p_c.map(lambda x: f"{x[0]} <{RDFS}range> {x[1]} ."),
    ]
    plus = [
        pair_c.map(lambda x: f"{x[0]} <{OWL}equivalentClass> {x[1]} ."),
        pair_p.map(lambda x: f"{x[0]} <{OWL}equivalentProperty> {x[1]} ."),
        pair_p.map(lambda x: f"{x[0]} <{OWL}inverseOf> {x[1]} ."),
        st.sampled_from(PROPS).map(lambda p: f"{p} a <{OWL}TransitiveProperty> ."),
        st.sampled_from(PROPS).map(lambda p: f"{p} a <{OWL}SymmetricProperty> ."),
    ]
    return st.lists(st.one_of(*(rdfs if profile == "rdfs" else rdfs + plus)), min_size=1, max_size=8)


item = st.one_of(
    st.tuples(st.sampled_from(PEOPLE), st.sampled_from(PROPS), st.sampled_from(PEOPLE)),
    st.tuples(st.sampled_from(PEOPLE), st.just(TYPE), st.sampled_from(CLASSES)),
)
stream = st.lists(st.tuples(item, st.integers(0, 7)), min_size=1, max_size=12)
shape = st.tuples(st.integers(2, 4), st.integers(1, 2))  # width, slide in seconds


def run_case(spark, profile, tbox_lines, events, width, slide):
    from reasonlake.api import Lakehouse

    tbox = "\n".join(tbox_lines) + "\n"
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "o.ttl").write_text(tbox)
        for name in ("inc", "scratch"):
            (root / f"{name}.yaml").write_text(
                f"name: {name}\nstream: s\nontology: [o.ttl]\nprofile: {profile}\n"
                f"window: {{width: {width}s, slide: {slide}s, start: 0}}\n"
            )
        # Two files: the second arrives at the third close, so some of its items are late.
        # A late item still in the window at a close c >= arrival was in it at arrival too,
        # so from then on the oracle sees every event; before, only the first file's.
        half = len(events) // 2
        files = []
        for k, part in enumerate((events[:half], events[half:])):
            f = root / f"e{k}.jsonl"
            f.write_text("".join(
                json.dumps({"s": s, "p": p, "o": o, "ts": t * 1000}) + "\n" for (s, p, o), t in part
            ))
            files.append(f)
        lake = Lakehouse(str(root / "lake"), spark=spark)
        lake.init()
        lake.create_views([root / "inc.yaml", root / "scratch.yaml"])
        lake.ingest("s", [files[0]])
        exported = {}
        first_close = width * 1000
        last_close = first_close + slide * 1000 * ((8_000 + width * 1000 - first_close) // (slide * 1000))
        close = first_close
        arrival = first_close + slide * 1000 * 2
        while close <= last_close:
            if close == arrival:
                lake.ingest("s", [files[1]])
            lake.slide("inc", until=close)
            lake.rebuild("scratch", at=close)
            got = set(lake.export("inc", close=close))
            arrived = events if close >= arrival else events[:half]
            window = {(s, p, o) for (s, p, o), t in arrived if close - width * 1000 < t * 1000 <= close}
            want = closure(tbox, window, profile, set(PEOPLE), set(PROPS), set(CLASSES))
            assert got == want, f"close {close}: extra {got - want}, missing {want - got}"
            inc = _facts(lake, "inc", close)
            scratch = _facts(lake, "scratch", close)
            assert inc.exceptAll(scratch).isEmpty() and scratch.exceptAll(inc).isEmpty(), (
                f"close {close}: incremental and rebuild differ (origins or rules)"
            )
            exported[close] = got
            close += slide * 1000
        versions = {r.close: r.version for r in lake.history("inc")}
        for c, lines in exported.items():
            if c in versions:
                assert set(lake.export("inc", version=versions[c])) == lines


def _facts(lake, view, close):
    from reasonlake.engine import read

    return read.facts(lake.home, view, close=close).select("s", "p", "o", "origin")


@pytest.mark.parametrize("path", both_paths(spark_is_slow=True))
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True,
          phases=[Phase.explicit, Phase.generate])
@given(tbox=axioms("rdfs-plus"), events=stream, shape=shape)
def test_rdfs_plus_incremental_equals_owlrl_and_rebuild(spark, path, tbox, events, shape):
    with evaluation_path(path):
        run_case(spark, "rdfs-plus", tbox, events, *shape)


@settings(max_examples=max(2, EXAMPLES // 2), deadline=None, suppress_health_check=list(HealthCheck), derandomize=True,
          phases=[Phase.explicit, Phase.generate])
@given(tbox=axioms("rdfs"), events=stream, shape=shape)
def test_rdfs_incremental_equals_owlrl_and_rebuild(spark, tbox, events, shape):
    run_case(spark, "rdfs", tbox, events, *shape)
