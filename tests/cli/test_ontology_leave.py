"""`view create` takes ontology files from the view file's folder, or from the folders the
home allows (`init --allow-ontologies DIR`, kept in the home for every process and job)."""
from __future__ import annotations

from tests.conftest import write

TBOX = "<http://example.org/A> <http://www.w3.org/2000/01/rdf-schema#subClassOf> <http://example.org/B> .\n"


def test_view_create_takes_ontologies_only_from_allowed_folders(cli, tmp_path):
    shared = write(tmp_path / "shared" / "o.nt", TBOX).parent
    view = write(tmp_path / "views" / "v.yaml", "name: v\nstream: s\nontology: [../shared/o.nt]\n"
                                                "window: {width: 2s, slide: 1s, start: 0}\n")
    cli("view", "create", str(view), expect=1)
    assert "outside the view file's folder" in cli.last_err
    assert f"reasonlake init --allow-ontologies {shared}" in cli.last_err, cli.last_err
    assert "view v" not in cli("history", "v", expect=1)  # nothing was created

    out = cli("init", "--allow-ontologies", str(shared))
    assert f"view files may also take ontology files from: {shared}" in out, out
    assert cli("view", "create", str(view)).strip() == "view v: created"
    # the list is the home's: a later init without the option keeps it, one with it replaces it
    cli("init")
    assert cli("view", "create", str(view)).strip() == "view v: unchanged"
    cli("init", "--allow-ontologies", str(tmp_path / "views"))
    cli("view", "create", str(view), expect=1)
    cli("init", "--allow-ontologies", str(tmp_path / "nowhere"), expect=1)
    assert "is not a folder" in cli.last_err
