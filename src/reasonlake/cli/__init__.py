"""The `reasonlake` command line. Errors become one clear line on stderr and an exit code:
1 for a user error, 2 for an internal one (``--debug`` adds its traceback).

The verbs (``verbs``) go through the API only; this module parses, dispatches and turns
errors into lines. Nothing here imports Spark: ``--help`` and the checks a verb makes
before its work answer at once.
"""
from __future__ import annotations

import os
import sys
import traceback

from reasonlake.cli.parser import build_parser
from reasonlake.errors import ConcurrentWriteError, ReasonlakeError

__all__ = ["build_parser", "main"]


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    server_gone = False
    try:
        # imported when called: it loads yaml
        from reasonlake.cli.verbs import VERBS

        return VERBS[args.command](args)
    except ReasonlakeError as exc:
        print(f"reasonlake: error {exc.code}: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("reasonlake: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `reasonlake export V | head`: the reader has all it wanted
        _silence_stdout()
        return 141  # as a process killed by SIGPIPE, what `set -o pipefail` expects
    except Exception as exc:  # an internal error: still one line, with the type for the report
        if _server_lost(exc):
            server_gone = True
            print("reasonlake: error: the Spark Connect server stopped answering during the command (stopped, "
                  "idle or killed); nothing it left half-done is published: run the command again", file=sys.stderr)
            return 2
        race = ConcurrentWriteError.race_in(exc)
        if race:
            lost = ConcurrentWriteError(
                f"another command wrote the same table at the same time ({race}) and this one "
                "stopped; run it again once the other has finished: every command is safe to re-run "
                "(one writer per view at a time)")
            print(f"reasonlake: error {lost.code}: {lost}", file=sys.stderr)
            return lost.exit_code
        if args.debug:
            traceback.print_exc()
        print(f"reasonlake: internal error: {type(exc).__name__}: {_first_line(exc)}"
              + ("" if args.debug else " (run again with --debug for the traceback)"), file=sys.stderr)
        return 2
    finally:
        _release_leases()
        if server_gone:  # the Connect client's threads would retry the gone server for minutes at exit
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(2)


def _server_lost(exc: Exception) -> bool:
    """Whether a Spark Connect call failed because its server went away mid-call."""
    text = str(exc)
    return type(exc).__name__ == "SparkConnectGrpcException" and (
        "StatusCode.CANCELLED" in text or "StatusCode.UNAVAILABLE" in text)


def _silence_stdout() -> None:
    """Point stdout at /dev/null: the interpreter's flush at exit would fail on the closed
    pipe again, and print its own traceback."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def _release_leases() -> None:
    if "reasonlake.api" in sys.modules:  # a command that never loaded the API wrote nothing
        sys.modules["reasonlake.api"].release_leases()


def _first_line(exc: Exception) -> str:
    """The message's first line; for a Java error, the JVM exception's own (the Python side
    says only which call failed, and the cause is what a bug report needs)."""
    java = getattr(exc, "java_exception", None)
    text = str(java.toString()) if java is not None else str(exc)
    root = java
    while root is not None and root.getCause() is not None:
        root = root.getCause()
    if root is not None and root is not java:
        text = f"{text.strip().splitlines()[0] if text.strip() else ''} (caused by {root.toString()})"
    return text.strip().splitlines()[0] if text.strip() else ""

