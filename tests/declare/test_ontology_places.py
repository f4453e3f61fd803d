"""Where a view's ontology files may come from: the view file's folder (and below), or a
folder the home allows. A view file handed to a shared home must not make it read any file
of the machine (``../../etc/...``, an absolute path, a symbolic link out of the folder)."""
from __future__ import annotations

import pytest

from reasonlake.declare.view import load_view
from reasonlake.errors import ViewDeclarationError
from tests.conftest import write

TBOX = "<http://example.org/A> <http://www.w3.org/2000/01/rdf-schema#subClassOf> <http://example.org/B> .\n"


def view(folder, ontology: str):
    return write(folder / "v.yaml", f"name: v\nstream: s\nontology: [{ontology}]\n"
                                    "window: {width: 2s, slide: 1s, start: 0}\n")


def test_ontologies_beside_or_below_the_view_file(tmp_path):
    write(tmp_path / "views" / "o.nt", TBOX)
    write(tmp_path / "views" / "ontologies" / "p.nt", TBOX)
    assert len(load_view(view(tmp_path / "views", "o.nt"), allowed_dirs=()).ontology) == 1
    assert len(load_view(view(tmp_path / "views", "ontologies/p.nt"), allowed_dirs=()).ontology) == 1


@pytest.mark.parametrize("how", ["parent", "absolute", "symlink"])
def test_an_ontology_outside_the_folder_needs_the_homes_leave(tmp_path, how):
    outside = write(tmp_path / "shared" / "o.nt", TBOX)
    folder = tmp_path / "views"
    folder.mkdir()
    if how == "symlink":
        (folder / "o.nt").symlink_to(outside)
        named = "o.nt"
    else:
        named = "../shared/o.nt" if how == "parent" else str(outside)
    path = view(folder, named)
    with pytest.raises(ViewDeclarationError) as refused:
        load_view(path, allowed_dirs=())
    message = str(refused.value)
    assert f"{path}: field 'ontology': {named}:" in message and "outside the view file's folder" in message
    assert f"reasonlake init --allow-ontologies {outside.parent}" in message, message
    # the folder the home allows (or one above it) lets it in
    assert load_view(path, allowed_dirs=(str(tmp_path / "shared"),)).ontology[0].text == TBOX
    assert load_view(path, allowed_dirs=(str(tmp_path),)).ontology[0].text == TBOX
    # a look at the file alone (rules FILE) checks no place: nothing goes into a home
    assert load_view(path).ontology[0].text == TBOX


def test_background_is_held_to_the_same_places(tmp_path):
    write(tmp_path / "shared" / "b.nt", TBOX)
    write(tmp_path / "views" / "o.nt", TBOX)
    path = write(tmp_path / "views" / "v.yaml", "name: v\nstream: s\nontology: [o.nt]\nbackground: [../shared/b.nt]\n"
                                                "window: {width: 2s, slide: 1s, start: 0}\n")
    with pytest.raises(ViewDeclarationError, match="field 'background': ../shared/b.nt: .* is outside"):
        load_view(path, allowed_dirs=())
