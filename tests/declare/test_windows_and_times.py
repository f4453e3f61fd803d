from __future__ import annotations

import pytest

from reasonlake.plan.durations import format_time, parse_duration, parse_time
from reasonlake.errors import TimeFormatError
from reasonlake.plan.windows import NEVER, Window


@pytest.mark.parametrize("text,ms", [("500ms", 500), ("30s", 30_000), ("5m", 300_000), ("2h", 7_200_000),
                                     ("1d", 86_400_000), ("PT5M", 300_000), ("P1DT2H", 93_600_000), ("PT0.5S", 500)])
def test_durations(text, ms):
    assert parse_duration(text) == ms


@pytest.mark.parametrize("text", ["5 minutes", "0s", "-1m", "P", "PT", "5x", ""])
def test_bad_durations(text):
    with pytest.raises(TimeFormatError):
        parse_duration(text)


def test_times():
    assert parse_time("2026-11-22T10:00:00Z") == 1795341600000
    assert parse_time("2026-11-22T11:00:00+01:00") == 1795341600000
    assert parse_time("1795341600000") == 1795341600000
    assert format_time(1795341600000) == "2026-11-22T10:00:00.000Z"
    with pytest.raises(TimeFormatError, match="zone"):
        parse_time("2026-11-22T10:00:00")


def test_window_membership_and_expiration():
    w = Window(width=4000, slide=1000, start=0)
    assert w.first_close == 4000
    assert w.is_close(8000) and not w.is_close(8500) and not w.is_close(3000)
    # width 4 s ending at close 8: ts=4 is out (expired at 8), 5 is in until close 9
    assert w.expiration_pane(4000) == 8000
    assert w.expiration_pane(5000) == 9000
    assert w.expiration_pane(4500) == 9000  # visible at 8 (4.5 > 4), gone at 9
    assert w.close_at_or_after(4500) == 5000 and w.close_at_or_before(4500) == 4000
    assert w.expiration_pane(NEVER) == NEVER


def test_window_with_offset_start_and_wide_slide():
    w = Window(width=10_000, slide=5_000, start=2_000)
    assert w.first_close == 12_000
    assert w.expiration_pane(3_000) == 17_000  # in at 12 (3 > 2), out at 17 (3 <= 7)
    assert w.expiration_pane(7_000) == 17_000
    assert w.expiration_pane(7_001) == 22_000


def test_view_files_refuse_aliases_and_repeated_keys(tmp_path):
    from reasonlake.declare.view import load_view
    from reasonlake.errors import ViewDeclarationError

    bomb = tmp_path / "bomb.yaml"
    bomb.write_text('a: &a ["x","x"]\nb: &b [*a,*a]\nc: &c [*b,*b]\nname: v\n')
    with pytest.raises(ViewDeclarationError, match=r"line 2: YAML aliases \(\*name\) are not allowed"):
        load_view(bomb)
    twice = tmp_path / "twice.yaml"
    twice.write_text("name: v\nstream: s\nname: w\n")
    with pytest.raises(ViewDeclarationError, match="line 3: field 'name' is given twice"):
        load_view(twice)


def test_a_json_ld_ontology_names_no_remote_context(tmp_path):
    """Nothing is fetched over the network: a context given by URL is refused at load, an
    inline one is read (and the ontology's rules come from it as from any other syntax)."""
    import json

    from reasonlake.compile.program import compile_program
    from reasonlake.compile.tbox import load_tbox
    from reasonlake.declare.view import load_view
    from reasonlake.errors import ViewDeclarationError

    axiom = {"@id": "http://example.org/Person", "rdfs:subClassOf": {"@id": "http://example.org/Agent"}}
    view = tmp_path / "v.yaml"
    view.write_text("name: v\nstream: s\nontology: [o.jsonld]\nwindow: {width: 2s, slide: 1s, start: 0}\n")
    for context in ("https://schema.org/", ["https://example.org/ctx.jsonld"],
                    {"@import": "https://example.org/ctx.jsonld"}):
        (tmp_path / "o.jsonld").write_text(json.dumps({"@context": context, "@graph": [axiom]}))
        with pytest.raises(ViewDeclarationError, match=r"o\.jsonld: JSON-LD @(context|import) '.*' names a document "
                                                         "to fetch; nothing is fetched over the network"):
            load_view(view)
    inline = {"rdfs": "http://www.w3.org/2000/01/rdf-schema#"}
    (tmp_path / "o.jsonld").write_text(json.dumps({"@context": inline, "@graph": [axiom]}))
    decl = load_view(view)
    program = compile_program(load_tbox(decl.ontology), decl.profile, decl.unique_names)
    assert program.active_rules().get("cax-sco") == 1, program.active_rules()


def test_the_expiration_pane_is_one_formula_in_every_engine(spark):
    """The table's partition of a fact, written by Spark, by the driver (Polars) and read
    back by `changes` (SQL): each rendering of ``view_decoding.expiration_pane`` agrees with
    ``Window.expiration_pane`` on origins before, on and after pane edges, and background."""
    import polars as pl

    from reasonlake.engine.store.materialization import expiration_pane, pane_of

    window = Window(width=5_000, slide=2_000, start=-1_000)
    origins = [-7_001, -1_000, -999, 0, 1, 999, 1_000, 1_001, 2_999, 3_000, 1_795_341_600_001, NEVER]
    expected = [window.expiration_pane(o) for o in origins]
    driver = pl.DataFrame({"origin": origins}).select(pane_of("origin", window)).to_series().to_list()
    assert driver == expected
    rows = spark.createDataFrame([(o,) for o in origins], "origin BIGINT").select(
        expiration_pane("origin", window).alias("pane")).collect()
    assert [r.pane for r in rows] == expected
