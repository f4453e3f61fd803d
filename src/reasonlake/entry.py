"""Entry points for jobs (`jobs/*.py`): one CLI command each, same arguments as the CLI.

Under spark-submit or as a Databricks Python task the active Spark session is reused.
`--home DIR` may stand anywhere in the arguments.
"""
from __future__ import annotations

import sys

from reasonlake.cli import main


def run(command: list[str], argv: list[str] | None = None) -> int:
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
    return main([*front, *command, *args])
