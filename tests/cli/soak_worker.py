"""One process of the soak test (``test_soak.py``): ingests a file or slides a view, again
and again until a deadline, through the command line's own entry point, keeping each
command's exit code and output in a JSON-lines log.

    python -m tests.cli.soak_worker ingest HOME FOLDER K DEADLINE
    python -m tests.cli.soak_worker slide HOME FOLDER VIEW DEADLINE

An ingest worker K writes file I with times in (FIRST + I*1000, FIRST + (I+1)*1000] and,
once it is in, that end to ``progress-K``, then waits a moment as files land one by one. A
slide worker slides up to the least progress of every ingest worker: no later ingest brings
an event at or before it, so no event is late.
"""
from __future__ import annotations

import contextlib
import io
import json
import random
import sys
import time
from pathlib import Path

INGESTERS = 4
ITEMS = 40  # per file: half on terms every worker shares, half on the worker's own
FIRST = 4000  # the first close of the views (start 0, width 4s): every slide has one to make

EX = "http://example.org/"
TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"


def events(k: int, i: int) -> list[dict]:
    base = FIRST + i * 1000 + 1
    shared = [{"s": f"<{EX}p{j}>", "p": f"<{EX}knows>", "o": f"<{EX}p{j + 1}>", "ts": base + 20 * j + k}
              for j in range(ITEMS // 2)]
    own = [{"s": f"<{EX}w{k}_{i}_{j}>", "p": f"<{TYPE}>", "o": f"<{EX}Person>", "ts": base + 20 * j + 4 + k}
           for j in range(ITEMS // 2)]
    return shared + own


def safe_close(folder: Path) -> int | None:
    progress = [folder / f"progress-{k}" for k in range(INGESTERS)]
    if not all(p.exists() for p in progress):
        return None
    return min(int(p.read_text()) for p in progress)


def run(args: list[str]) -> tuple[int, str, str]:
    from reasonlake.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    return code, out.getvalue(), err.getvalue()


def main(argv: list[str]) -> None:
    role, home, folder, who, deadline = argv[0], argv[1], Path(argv[2]), argv[3], float(argv[4])
    log = folder / f"log-{role}-{who}.jsonl"
    i, slid = 0, None
    while time.time() < deadline:
        if role == "ingest":
            path = folder / f"in-{who}-{i}.jsonl"
            path.write_text("".join(json.dumps(e) + "\n" for e in events(int(who), i)))
            args = ["--home", home, "ingest", "s", str(path), "--quiet"]
        else:
            until = safe_close(folder)
            if until is None or until == slid:
                time.sleep(0.5)
                continue
            args = ["--home", home, "slide", who, "--until", str(until), "--wait", "300", "--quiet"]
        code, out, err = run(args)
        with log.open("a") as f:
            f.write(json.dumps({"args": args[2:], "code": code, "out": out, "err": err}) + "\n")
        if role == "ingest" and code == 0:
            (folder / f"progress-{who}").write_text(str(FIRST + (i + 1) * 1000))
            i += 1
            time.sleep(random.uniform(0.5, 3))
        elif role == "slide" and code == 0:
            slid = until


if __name__ == "__main__":
    main(sys.argv[1:])
