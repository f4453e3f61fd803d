"""databricks.yml as each target deploys it: the target's settings merged into the bundle's the
way the Databricks CLI merges them, valid against the bundle JSON schema (../shared), dev in
development mode and prod in production mode as that mode requires, failures mailed from every
job, and every task a python_wheel_task on an entry point of the wheel built from this tree,
whose parameters that entry point's command accepts, on serverless compute or on a job cluster
that installs the wheel. No workspace and no Spark session: the parameters are parsed, not run."""
from __future__ import annotations

import configparser
import copy
import json
import re
import subprocess
import sys
import zipfile

import pytest
import yaml

from tests.conftest import REPO, shared_or_skip

BUNDLE = yaml.safe_load((REPO / "databricks.yml").read_text())
TARGETS = sorted(BUNDLE["targets"])
WHEEL = "./dist/*.whl"  # the artifact's build writes it there; the CLI uploads what matches
COMPUTE = {"dev": "serverless", "prod": "serverless", "prod-classic": "job cluster"}
# what `databricks bundle deploy -t prod` must be given (--var or BUNDLE_VAR_*), as the README says
PROD_VARIABLES = {"service_principal", "operators", "failure_email"}
# what the test gives them, and the workspace values the CLI fills in
GIVEN = {"service_principal": "6a1f0a3e-0000-4000-8000-000000000000", "operators": "reasonlake-operators",
         "failure_email": "oncall@example.com"}
USER = "someone@example.com"


# -- the target as the CLI merges it (bundle/config/root.go MergeTargetOverrides) -------------

def _merge(base, override):
    """libs/dyn/merge: maps key by key, sequences one after the other, any other value
    replaced; a null leaves the bundle's value."""
    if override is None:
        return base
    if base is None:
        return override
    if isinstance(base, dict) and isinstance(override, dict):
        out = dict(base)
        for key, value in override.items():
            out[key] = _merge(base[key], value) if key in base else value
        return out
    if isinstance(base, list) and isinstance(override, list):
        return [*base, *override]
    assert not isinstance(base, (dict, list)) and not isinstance(override, (dict, list)), (base, override)
    return override


def _by_key(items: list[dict], key: str) -> list[dict]:
    """The tasks (task_key) and job clusters (job_cluster_key) of one key merged into one, as the
    CLI's MergeJobTasks and MergeJobClusters do after the target's merge."""
    merged: dict = {}
    for item in items:
        name = item.get(key)
        merged[name] = _merge(merged[name], item) if name in merged else item
    return list(merged.values())


def merged(name: str) -> tuple[dict, str | None]:
    """(the configuration target ``name`` deploys, without ``targets``; its mode). The mode
    stays out of the configuration: the CLI keeps it in ``bundle``, a field the schema leaves out."""
    root = copy.deepcopy({key: value for key, value in BUNDLE.items() if key != "targets"})
    target = copy.deepcopy(BUNDLE["targets"][name])
    for field in ("bundle", "workspace", "artifacts", "resources", "sync", "permissions", "presets"):
        if field in target:
            root[field] = _merge(root.get(field), target[field])
    for variable, value in (target.get("variables") or {}).items():
        assert variable in root["variables"], f"target {name} sets {variable}, which the bundle does not declare"
        value = value if isinstance(value, dict) else {"default": value}
        root["variables"][variable].update({k: value[k] for k in ("default", "lookup") if k in value})
    if "run_as" in target:
        root["run_as"] = target["run_as"]
    for job in root.get("resources", {}).get("jobs", {}).values():
        job["tasks"] = _by_key(job.get("tasks", []), "task_key")
        if "job_clusters" in job:
            job["job_clusters"] = _by_key(job["job_clusters"], "job_cluster_key")
    return root, target.get("mode")


def required(config: dict) -> set[str]:
    """The variables with neither a default nor a lookup: a deploy must be given them."""
    return {name for name, spec in config["variables"].items() if "default" not in spec and "lookup" not in spec}


_REFERENCE = re.compile(r"\$\{([A-Za-z_][\w.-]*)\}")


def resolved(name: str, config: dict) -> dict:
    """The configuration with its ${...} references replaced as a deploy by ``USER`` with the
    prod variables given (``GIVEN``) would replace them; an unknown reference fails."""
    root_path = config.get("workspace", {}).get("root_path", f"/Workspace/Users/{USER}/.bundle/${{bundle.name}}/{name}")
    values = {"bundle.name": config["bundle"]["name"], "bundle.target": name,
              "workspace.current_user.userName": USER, "workspace.root_path": root_path,
              "workspace.file_path": "${workspace.root_path}/files"}
    for variable, spec in config["variables"].items():
        values[f"var.{variable}"] = spec["default"] if "default" in spec else GIVEN[variable]

    def substitute(text: str, seen: tuple = ()) -> object:
        whole = _REFERENCE.fullmatch(text)
        if whole:  # a whole-value reference keeps the value's type (num_workers: ${var.workers})
            return expand(whole.group(1), seen)
        return _REFERENCE.sub(lambda m: str(expand(m.group(1), seen)), text)

    def expand(reference: str, seen: tuple) -> object:
        assert reference in values, f"target {name}: ${{{reference}}} names nothing the bundle defines"
        assert reference not in seen, f"target {name}: ${{{reference}}} refers to itself"
        value = values[reference]
        return substitute(value, (*seen, reference)) if isinstance(value, str) else value

    def walk(value):
        if isinstance(value, dict):
            return {key: walk(item) for key, item in value.items()}
        if isinstance(value, list):
            return [walk(item) for item in value]
        return substitute(value) if isinstance(value, str) else value

    return walk(config)


# -- the schema -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def validator():
    import jsonschema

    schema = json.loads(shared_or_skip("schemas", "databricks-bundle.schema.json").read_text())
    # The schema's patterns are Go's (\p{L}, \p{N}): Python's re spells those as classes.
    draft = jsonschema.Draft7Validator
    pattern = draft.VALIDATORS["pattern"]

    def go_pattern(validator, value, instance, schema):
        value = value.replace(r"[\p{L}\p{N}]", r"[^\W_]").replace(r"\p{L}", r"[^\W\d_]").replace(r"\p{N}", r"\d")
        yield from pattern(validator, value, instance, schema)

    return jsonschema.validators.extend(draft, {"pattern": go_pattern})(schema)


def _schema_errors(validator, document: dict) -> str:
    errors = sorted(validator.iter_errors(document), key=lambda e: list(map(str, e.path)))
    return "\n".join(f"{list(e.path)}: {e.message[:300]}" for e in errors[:10])


def test_bundle_validates_against_the_published_schema(validator):
    assert not _schema_errors(validator, BUNDLE)


@pytest.mark.parametrize("name", TARGETS)
def test_each_target_as_deployed_validates_against_the_schema(validator, name):
    config, _ = merged(name)
    assert not _schema_errors(validator, config)
    assert not _schema_errors(validator, resolved(name, config))


# -- the targets ------------------------------------------------------------------------------

def test_the_targets():
    assert set(TARGETS) == set(COMPUTE)
    assert [name for name in TARGETS if BUNDLE["targets"][name].get("default")] == ["dev"]


def test_dev_is_a_development_copy_that_needs_no_variables():
    config, mode = merged("dev")
    assert mode == "development"
    assert not required(config), "dev must deploy without --var"
    assert "run_as" not in config  # runs as the developer who deploys it
    # development mode pauses the schedules unless a job or a preset says UNPAUSED
    assert config.get("presets", {}).get("trigger_pause_status") != "UNPAUSED"
    for key, job in config["resources"]["jobs"].items():
        assert job.get("schedule", {}).get("pause_status") != "UNPAUSED", key
    root = config.get("workspace", {}).get("root_path")
    assert root is None or "current_user" in root


@pytest.mark.parametrize("name", [name for name in TARGETS if name != "dev"])
def test_prod_is_production_mode_with_its_requirements(name):
    config, mode = merged(name)
    target = BUNDLE["targets"][name]
    assert mode == "production"
    assert required(config) == PROD_VARIABLES
    # production mode: one copy (root_path set on the target itself), jobs run as a principal
    root = target.get("workspace", {}).get("root_path", "")
    assert root.startswith("/Workspace/Users/${var.service_principal}/") and "${bundle.target}" in root
    assert config["run_as"] == {"service_principal_name": "${var.service_principal}"}
    assert {"service_principal_name": "${var.service_principal}", "level": "CAN_MANAGE"} in config["permissions"]
    assert all(p["level"] in ("CAN_MANAGE", "CAN_RUN", "CAN_VIEW") for p in config["permissions"])
    # live schedules
    assert config["presets"]["trigger_pause_status"] == "UNPAUSED"
    scheduled = [key for key, job in config["resources"]["jobs"].items() if "schedule" in job]
    assert {"reasonlake_slide", "reasonlake_run", "reasonlake_vacuum"} <= set(scheduled)
    for key in scheduled:
        assert config["resources"]["jobs"][key]["schedule"].get("pause_status", "UNPAUSED") == "UNPAUSED", key


@pytest.mark.parametrize("name", TARGETS)
def test_every_job_mails_its_failures(name):
    config, _ = merged(name)
    for key, job in config["resources"]["jobs"].items():
        assert job["email_notifications"]["on_failure"] == ["${var.failure_email}"], key
        assert job["max_concurrent_runs"] == 1, key
    emails = {job["email_notifications"]["on_failure"][0]
              for job in resolved(name, config)["resources"]["jobs"].values()}
    assert emails == ({USER} if name == "dev" else {GIVEN["failure_email"]})


@pytest.mark.parametrize("name", TARGETS)
def test_every_task_runs_the_wheel_on_its_targets_compute(name):
    config, _ = merged(name)
    artifact = config["artifacts"]["reasonlake_wheel"]
    assert artifact["type"] == "whl" and "-w dist" in artifact["build"]
    jobs = config["resources"]["jobs"]
    assert {"reasonlake_init", "reasonlake_view_create", "reasonlake_run", "reasonlake_slide",
            "reasonlake_repair", "reasonlake_validate", "reasonlake_vacuum", "reasonlake_rebuild"} <= set(jobs)
    for key, job in jobs.items():
        assert job["tasks"], key
        for task in job["tasks"]:
            where = f"{name}: {key}.{task['task_key']}"
            assert "spark_python_task" not in task, where
            assert task["python_wheel_task"]["package_name"] == "reasonlake", where
            computes = [field for field in ("environment_key", "job_cluster_key", "existing_cluster_id", "new_cluster")
                        if field in task]
            if COMPUTE[name] == "serverless":
                assert computes == ["environment_key"], where
                assert "libraries" not in task and "job_clusters" not in job, where  # serverless refuses them
                (environment,) = [e for e in job["environments"] if e["environment_key"] == task["environment_key"]]
                assert WHEEL in environment["spec"]["dependencies"], where
                assert environment["spec"].get("environment_version") or environment["spec"].get("client"), where
            else:
                assert computes == ["job_cluster_key"], where
                assert "environments" not in job, where
                assert {"whl": WHEEL} in task["libraries"], where
                (cluster,) = [c for c in job["job_clusters"] if c["job_cluster_key"] == task["job_cluster_key"]]
                assert cluster["new_cluster"]["spark_version"] == "${var.spark_version}", where
                assert cluster["new_cluster"]["node_type_id"] == "${var.node_type}", where


# -- the built wheel --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """The wheel built from this tree (as the bundle's artifact builds it) and its console scripts."""
    out = tmp_path_factory.mktemp("wheel")
    pip = [sys.executable, "-m", "pip"]
    built = subprocess.run([*pip, "wheel", "--no-deps", "-q", "-w", str(out), str(REPO)],
                           capture_output=True, text=True, timeout=600)
    if built.returncode != 0:  # the build backend (hatchling) comes from PyPI
        probe = subprocess.run([*pip, "index", "versions", "hatchling", "--retries", "0", "--timeout", "15"],
                               capture_output=True, text=True, timeout=120)
        if probe.returncode != 0:
            pytest.skip(f"PyPI cannot be reached to build the wheel: {probe.stderr.strip()[-300:]}")
    assert built.returncode == 0, built.stderr[-3000:]
    (path,) = out.glob("reasonlake-*.whl")
    with zipfile.ZipFile(path) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/entry_points.txt")]
        entry_points = configparser.ConfigParser(delimiters=("=",))
        entry_points.optionxform = str  # names as written
        entry_points.read_string(archive.read(name).decode())
    return path, {key: value.strip() for key, value in entry_points["console_scripts"].items()}


# the command each job entry point runs (the CLI's sub-command, as parsed)
_COMMANDS = {"init": ("init", None), "view-create": ("view", "create"), "register": ("register", None),
             "ingest": ("ingest", None),
             "run": ("run", None), "slide": ("slide", None), "rebuild": ("rebuild", None),
             "repair": ("repair", None), "validate": ("validate", None), "vacuum": ("vacuum", None)}

# Runs with the built wheel first on the path: imports each entry point from it and parses the
# task's parameters as the entry point would, without running the command.
_PARSE = r"""
import contextlib, io, json, sys

wheel = sys.argv[1]
sys.path.insert(0, wheel)
import importlib

results = []
for target, spec, parameters in json.load(sys.stdin):
    module, _, attribute = spec.partition(":")
    loaded = importlib.import_module(module)
    assert loaded.__file__.startswith(wheel), loaded.__file__
    job = getattr(loaded, attribute)
    assert callable(job), spec
    errors = io.StringIO()
    try:
        with contextlib.redirect_stderr(errors):
            parsed = vars(job.parse_args(parameters))
    except SystemExit as stop:
        results.append({"exit": stop.code, "stderr": errors.getvalue()})
    else:
        results.append({"parsed": {k: v for k, v in parsed.items() if isinstance(v, (str, int, float, bool, list, type(None)))}})
print(json.dumps(results))
"""


def test_tasks_name_the_wheels_entry_points_with_parameters_they_accept(wheel):
    path, scripts = wheel
    jobs_scripts = {name for name in scripts if name.startswith("reasonlake-job-")}
    assert {f"reasonlake-job-{command}" for command in _COMMANDS} == jobs_scripts
    # jobs/*.py run the same entry points under spark-submit
    for script in jobs_scripts:
        wrapper = REPO / "jobs" / f"{script.removeprefix('reasonlake-job-').replace('-', '_')}.py"
        module, _, attribute = scripts[script].partition(":")
        assert f"from {module} import {attribute}\n" in wrapper.read_text(), wrapper

    checks, where = [], []
    for name in TARGETS:
        config = resolved(name, merged(name)[0])
        for key, job in config["resources"]["jobs"].items():
            for task in job["tasks"]:
                wheel_task = task["python_wheel_task"]
                entry_point = wheel_task["entry_point"]
                assert entry_point in scripts, f"{name}: {key} names {entry_point}, not in the wheel"
                assert all(isinstance(p, str) for p in wheel_task["parameters"]), (name, key)
                checks.append([name, scripts[entry_point], wheel_task["parameters"]])
                where.append((name, key, entry_point, wheel_task["parameters"]))
    done = subprocess.run([sys.executable, "-c", _PARSE, str(path)], input=json.dumps(checks),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    for (name, key, entry_point, parameters), result in zip(where, json.loads(done.stdout), strict=True):
        assert "parsed" in result, f"{name}: {key} {entry_point} {parameters}: {result}"
        parsed = result["parsed"]
        command, sub = _COMMANDS[entry_point.removeprefix("reasonlake-job-")]
        assert parsed["command"] == command and parsed.get("view_command") == sub, (name, key, parsed)
        assert parsed["home"] == BUNDLE["variables"]["home"]["default"], (name, key, parsed)
        if sub == "create" or command == "register":  # the file, from the bundle's deployed copy of this folder
            (file,) = parsed["files"] if sub == "create" else [parsed["file"]]
            root = resolved(name, merged(name)[0]).get("workspace", {}).get("root_path")
            relative = file.split("/files/", 1)[1]
            assert (REPO / relative).is_file(), file
            assert "views/**" in BUNDLE["sync"]["include"]  # .gitignore names the example's ontology
            assert root is None or file.startswith(f"{root}/files/"), file
