"""The settings (``reasonlake.settings``): the README's table is the one the module makes,
no other module of the package reads the environment, and every ``REASONLAKE_*`` name the
package mentions is one of them."""
from __future__ import annotations

import ast
import re
from pathlib import Path

from reasonlake import settings

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "reasonlake"


def test_the_readme_table_is_the_one_the_settings_module_makes():
    readme = (ROOT / "README.md").read_text()
    found = re.search(r"<!-- settings table: made by python -m reasonlake.settings -->\n(.*?)<!-- end of settings table -->",
                      readme, re.S)
    assert found is not None, "README.md has lost its settings table markers"
    assert found.group(1) == settings.markdown_table(), "README's settings table is stale: run python -m reasonlake.settings"


def _reads_environment(tree: ast.AST) -> list[int]:
    """Lines that touch ``os.environ`` or call ``os.getenv``."""
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "os"
            and node.attr in ("environ", "getenv", "putenv")]


def test_only_the_settings_module_reads_the_environment():
    readers = {}
    for path in PACKAGE.rglob("*.py"):
        if path.name == "settings.py" and path.parent == PACKAGE:
            continue
        lines = _reads_environment(ast.parse(path.read_text()))
        if lines:
            readers[str(path.relative_to(ROOT))] = lines
    assert not readers, f"read the environment through reasonlake.settings: {readers}"


def test_every_setting_the_package_names_is_declared():
    declared = {setting.name for setting in settings.SETTINGS}
    named = set()
    for path in PACKAGE.rglob("*.py"):
        named |= set(re.findall(r"REASONLAKE_[A-Z0-9_]*[A-Z0-9]", path.read_text()))
    assert named - declared == set(), f"undeclared settings: {sorted(named - declared)}"
    assert declared - named == set(), f"settings no code reads: {sorted(declared - named)}"


def test_a_setting_is_read_when_asked(monkeypatch):
    monkeypatch.setenv("REASONLAKE_LEASE_SECONDS", "7.5")
    assert settings.number("REASONLAKE_LEASE_SECONDS") == 7.5
    monkeypatch.delenv("REASONLAKE_LEASE_SECONDS")
    assert settings.number("REASONLAKE_LEASE_SECONDS") == 60
