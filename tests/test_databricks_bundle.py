"""databricks.yml validates against the Databricks bundle JSON schema, and names real files."""
from __future__ import annotations

import json

import yaml

from tests.conftest import REPO, shared_or_skip


def test_bundle_validates_against_the_published_schema():
    import jsonschema

    schema = json.loads(shared_or_skip("schemas", "databricks-bundle.schema.json").read_text())
    bundle = yaml.safe_load((REPO / "databricks.yml").read_text())
    errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(bundle), key=str)
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:10])


def test_bundle_tasks_point_at_job_files():
    bundle = yaml.safe_load((REPO / "databricks.yml").read_text())
    tasks = [t for job in bundle["resources"]["jobs"].values() for t in job["tasks"]]
    assert tasks
    for task in tasks:
        path = task["spark_python_task"]["python_file"]
        assert (REPO / path).is_file(), path
