"""Entry points for jobs (`reasonlake.jobs`, `jobs/*.py`): one CLI command each, same arguments
as the CLI.

Under spark-submit or as a Databricks task the active Spark session is reused.
`--home DIR` may stand anywhere in the arguments.
"""
from __future__ import annotations

import sys

from reasonlake.cli import main


def arguments(command: list[str], argv: list[str] | None = None) -> list[str]:
    """The CLI's arguments for ``command`` run with a job's ``argv`` (default ``sys.argv[1:]``):
    ``--home DIR`` (or ``--home=DIR``), wherever it stands, goes before the command."""
    args = list(sys.argv[1:] if argv is None else argv)
    front: list[str] = []
    if "--home" in args:
        at = args.index("--home")
        front = args[at : at + 2]
        del args[at : at + 2]
    else:
        for i, arg in enumerate(args):
            if arg.startswith("--home="):
                front = [arg]
                del args[i]
                break
    return [*front, *command, *args]


def run(command: list[str], argv: list[str] | None = None) -> int:
    return main(arguments(command, argv))
