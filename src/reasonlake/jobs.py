"""The jobs: one CLI command each, with the CLI's arguments (`--home DIR` may stand anywhere).

Each is a console script of the wheel, ``reasonlake-job-<command>`` (``[project.scripts]`` in
pyproject.toml), which a Databricks ``python_wheel_task`` names as its ``entry_point``
(databricks.yml); ``jobs/*.py`` run the same under spark-submit. A job takes the session it
runs in as the CLI does (the active one on Databricks and under spark-submit; see
``get_spark``), and nothing here imports Spark: the wheel needs no pyspark to start one.

A failed command raises ``SystemExit`` with its exit code, which fails the task: Databricks
calls the entry point itself, so a returned code would be lost.
"""
from __future__ import annotations

import argparse

from reasonlake import entry
from reasonlake.cli import build_parser


class Job:
    """One CLI command as a job's entry point: call it to run the command with the process's
    arguments (``sys.argv[1:]``), ``parse_args`` to check a job's parameters without running it."""

    def __init__(self, *command: str):
        self.command = list(command)

    def __call__(self, argv: list[str] | None = None) -> None:
        code = entry.run(self.command, argv)
        if code:
            raise SystemExit(code)

    def parse_args(self, argv: list[str]) -> argparse.Namespace:
        """The CLI's reading of a job's parameters; a usage mistake exits 1 as the job would."""
        return build_parser().parse_args(entry.arguments(self.command, argv))

    def __repr__(self) -> str:
        return f"Job({', '.join(map(repr, self.command))})"


init = Job("init")
view_create = Job("view", "create")
register = Job("register")
ingest = Job("ingest")
run = Job("run")
slide = Job("slide")
rebuild = Job("rebuild")
repair = Job("repair")
validate = Job("validate")
vacuum = Job("vacuum")
