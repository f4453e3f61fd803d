"""How long a CLI command takes from a fresh process, on the README's example view.

Each command runs as a user runs it: a new `reasonlake` process on the example home (built
first by the example's commands), once with its own embedded Spark session and once while
the home's command server runs (`reasonlake server start`: the command connects to it).
The table gives the wall time per command (median of `--repeat` runs) beside the same
process doing nothing but start Spark (`python -c "get_spark()"`), the floor a command
without a server pays, and a one-item slide: one stream item a minute past the last close, ingested
(not timed) then closed by `slide` (timed). Aims: at most 2 s with the server, 15 s without.

    python bench/cli.py                 # every reading command and a one-item slide; 2 runs each
    python bench/cli.py --repeat 3
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CLI = [sys.executable, "-m", "reasonlake.cli"]
SETUP = [
    ("init",),
    ("view", "create", "views/active_users.yaml"),
    ("ingest", "social", "examples/streams/social.jsonl"),
    ("slide", "active_users", "--until", "2026-11-22T10:12:00Z"),
]
COMMANDS = {
    "history": ("history", "active_users"),
    "export": ("export", "active_users"),
    "sql": ("sql", "SELECT count(*) AS n FROM active_users WHERE inferred"),
    "violations": ("violations", "active_users"),
    "changes": ("changes", "active_users"),
    "validate": ("validate", "active_users"),
    "query": ("query", "active_users", "SELECT ?who ?post WHERE { ?who <http://rdfs.org/sioc/ns#creator_of> ?post }"),
    "explain --why": ("explain", "active_users", "--why",
                      "<http://example.org/people#tweet4> <http://example.org/social#discuss> "
                      "<http://example.org/people#tweet2>", "--close", "2026-11-22T10:08:00Z"),
    "rules": ("rules", "views/active_users.yaml"),
    "a mistake (no Spark)": ("ingest", "social", "examples/streams/missing.nt"),
}
SPARK_ONLY = [sys.executable, "-c", "from reasonlake.engine.store.session import get_spark; get_spark()"]


def _timed(argv: list[str], env: dict, ok: tuple[int, ...] = (0,)) -> float:
    started = time.perf_counter()
    run = subprocess.run(argv, cwd=REPO, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if run.returncode not in ok:
        raise SystemExit(f"{' '.join(argv[3:])}: exit {run.returncode}\n{run.stderr[-2000:]}")
    return seconds


class OneItemSlides:
    """Each call ingests one item a minute after the last close (untimed) and times the slide closing it."""

    def __init__(self, home: Path, env: dict, last_close: str):
        self.home, self.env = home, env
        self.minute = int(last_close[14:16])

    def __call__(self) -> float:
        self.minute += 1
        at = f"2026-11-22T10:{self.minute:02d}"
        item = self.home.parent / f"item-{self.minute}.jsonl"
        item.write_text('{"s": "<http://example.org/people#carol>", "p": "<http://rdfs.org/sioc/ns#creator_of>", '
                        f'"o": "<http://example.org/people#post{self.minute}>", "ts": "{at}:30Z"}}\n')
        _timed([*CLI, "ingest", "social", str(item)], self.env)
        return _timed([*CLI, "slide", "active_users", "--until", f"2026-11-22T10:{self.minute + 1:02d}:00Z"], self.env)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="reasonlake-bench-cli-")) / "lake"
    env = dict(os.environ, REASONLAKE_HOME=str(home))
    for step in SETUP:
        _timed([*CLI, *step], env)
    rows = {"start Spark only": [[_timed(SPARK_ONLY, env) for _ in range(args.repeat)], None]}
    for name, command in COMMANDS.items():
        ok = (1,) if "no Spark" in name else (0,)
        rows[name] = [[_timed([*CLI, *command], env, ok) for _ in range(args.repeat)], None]
    slides = OneItemSlides(home, env, SETUP[-1][-1])
    rows["slide (one item)"] = [[slides() for _ in range(args.repeat)], None]
    _timed([*CLI, "server", "start"], env)
    try:
        for name, command in COMMANDS.items():
            ok = (1,) if "no Spark" in name else (0,)
            _timed([*CLI, *command], env, ok)  # the server's first read of each table is cold
            rows[name][1] = [_timed([*CLI, *command], env, ok) for _ in range(args.repeat)]
        slides()  # the server's first close of the view reads its tables cold
        rows["slide (one item)"][1] = [slides() for _ in range(args.repeat)]
    finally:
        _timed([*CLI, "server", "stop"], env)
    print(f"{'command (fresh process)':<26} {'embedded s':>11} {'runs':>12} {'server s':>9} {'runs':>12}")
    for name, (alone, served) in rows.items():
        print(f"{name:<26} {statistics.median(alone):>11.1f} {' '.join(f'{t:.1f}' for t in alone):>12} "
              + (f"{statistics.median(served):>9.1f} {' '.join(f'{t:.1f}' for t in served):>12}"
                 if served else f"{'':>9} {'':>12}"))


if __name__ == "__main__":
    main()
