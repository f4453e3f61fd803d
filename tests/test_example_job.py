"""The README's main job runs end to end: example view, stream, slides, export, SQL, history;
then, on the home it left, the README's transcripts print what the README shows and its
Python example runs as written."""
from __future__ import annotations

import os
import subprocess

import pytest

from tests.conftest import REPO, CliRunner
from tests.test_readme_example import readme_samples_print_what_the_flow_prints

pytestmark = pytest.mark.slow


def test_example_script(spark, tmp_path, capsys, monkeypatch):  # spark: the session the transcripts share
    env = dict(os.environ, REASONLAKE_HOME=str(tmp_path / "lake"), REASONLAKE_DRIVER_MEMORY="1g")
    run = subprocess.run(["bash", "scripts/example.sh"], cwd=REPO, env=env, capture_output=True,
                         text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    out = run.stdout
    # the view at 10:08 holds adam's tweet4 and what the ontology entails from it
    assert "<http://example.org/people#tweet4> <http://rdfs.org/sioc/ns#has_creator> <http://example.org/people#adam> ." in out
    assert "<http://example.org/people#adam> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/social#Agent> ." in out
    # the SQL query found bob as an agent (tweet5 at 10:09:50) with his expiry
    rows = [[cell.strip() for cell in line.split("|")] for line in out.splitlines() if " | " in line]
    assert ["<http://example.org/people#bob>", "2026-11-22T10:09:50.000Z", "2026-11-22T10:14:50.000Z", "true"] in rows
    assert "close" in out and "version" in out
    readme_samples_print_what_the_flow_prints(CliRunner(tmp_path / "lake", capsys), monkeypatch)
    _readme_python_example(tmp_path / "lake", capsys)


def _readme_python_example(home, capsys) -> None:
    """The README's Python example, as written (its home pointed at the example's), after the
    example job, in this process (it says it reuses an active session): the slide has nothing
    left to do and the inferred facts print."""
    import re

    readme = (REPO / "README.md").read_text()
    code = re.search(r"From Python:\n\n```python\n(.*?)```", readme, re.S).group(1)
    assert 'Lakehouse("./lakehouse")' in code and "until=" in code, code
    code = code.replace('"./lakehouse"', repr(str(home)))
    capsys.readouterr()
    exec(compile(code, "README.md, From Python", "exec"), {})
    out = capsys.readouterr().out
    shown = [line for line in out.splitlines() if line.startswith("|") and "true" in line]
    assert any("people#bob" in line and "social#Agent" in line for line in shown), out
