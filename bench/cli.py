"""How long each command of the README's walkthrough takes from a fresh process, four ways.

Each command runs as a user runs it: a new `reasonlake` process on the example home, the
walkthrough's commands in order (`init`, `view create`, `ingest`, `slide`, the reading
verbs, then one more item ingested and closed), each called twice in a row (its first and
second call; `ingest` and `slide` the second time with one new item a minute past the last
close). The four ways, each on a home of its own:

- *default*: the command line as a script gets it: no server; the commands that need no
  cluster run in their own process without Spark (decision 0071), the others start
  an embedded session;
- *self-started server*: as a user at a terminal gets it (`REASONLAKE_SERVER=auto` here,
  the terminal being absent): the first command that needs Spark (`view create`) starts the
  home's command server, the next ones use it (decision 0073);
- *server start*: `reasonlake server start` first (its own time is a row), then the commands;
- *embedded Spark*: each command in a process that starts its Spark session first (as a
  notebook or `spark-submit` job calling the CLI's code would), the path before 0071.

A last row times a process that only starts Spark (`get_spark()`): the floor a command with
an embedded session pays. Aims (issue 76): every verb at most 2 s on its second call, every
reading verb at most 2 s on its first; `ingest` and a one-item `slide` at most 2 s on the first.

    python bench/cli.py             # the four ways, every verb twice (about 15 minutes on 2 cores)
    python bench/cli.py --ways default,server-start
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CLI = [sys.executable, "-m", "reasonlake.cli"]
# the CLI's code in a process whose Spark session is up before the command starts
EMBEDDED = [sys.executable, "-c", "import sys; from reasonlake.engine.store.session import get_spark; get_spark(); "
            "from reasonlake.cli import main; sys.exit(main(sys.argv[1:]))"]
SPARK_ONLY = [sys.executable, "-c", "from reasonlake.engine.store.session import get_spark; get_spark()"]
TWEET = "<http://example.org/people#tweet4> <http://example.org/social#discuss> <http://example.org/people#tweet2>"
ABSENT = "<http://example.org/people#nobody> <http://example.org/social#discuss> <http://example.org/people#tweet2>"
SETUP = [
    ("init", ("init",)),
    ("view create", ("view", "create", "views/active_users.yaml")),
    ("ingest (the stream)", ("ingest", "social", "examples/streams/social.jsonl")),
    ("slide (12 closes)", ("slide", "active_users", "--until", "2026-11-22T10:12:00Z")),
]
READING = {
    "history": ("history", "active_users"),
    "export": ("export", "active_users"),
    "sql": ("sql", "SELECT count(*) AS n FROM active_users WHERE inferred"),
    "query": ("query", "active_users", "SELECT ?who ?post WHERE { ?who <http://rdfs.org/sioc/ns#creator_of> ?post }"),
    "violations": ("violations", "active_users"),
    "changes": ("changes", "active_users"),
    "validate": ("validate", "active_users"),
    "explain --why (in view)": ("explain", "active_users", "--why", TWEET, "--close", "2026-11-22T10:08:00Z"),
    "explain --why (absent)": ("explain", "active_users", "--why", ABSENT),
    "rules": ("rules", "active_users"),
}
WAYS = ("default", "self-started", "server-start", "embedded")
LAST_CLOSE_MINUTE = 12


def _timed(argv: list[str], env: dict) -> float:
    started = time.perf_counter()
    run = subprocess.run(argv, cwd=REPO, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    # the absent triple's answer is exit 1 (RL180: not in the view, nor in its last closes)
    if run.returncode != (1 if ABSENT in argv else 0):
        raise SystemExit(f"{' '.join(argv[-6:])}: exit {run.returncode}\n{run.stderr[-2000:]}")
    return seconds


class Way:
    """One way of running the commands, on a home of its own."""

    def __init__(self, name: str, base: Path):
        self.name = name
        self.home = base / name / "lake"
        self.home.parent.mkdir(parents=True)
        self.env = {k: v for k, v in os.environ.items() if k not in ("SPARK_REMOTE", "REASONLAKE_SERVER")}
        self.env["REASONLAKE_HOME"] = str(self.home)
        self.env["REASONLAKE_SERVER"] = "auto" if name == "self-started" else "off"
        self.prefix = EMBEDDED if name == "embedded" else CLI
        self.minute = LAST_CLOSE_MINUTE

    def run(self, args) -> float:
        return _timed([*self.prefix, *args], self.env)

    def one_item(self) -> tuple[float, float]:
        """One item a minute past the last close ingested, then its close slid: both timed."""
        self.minute += 1
        at = f"2026-11-22T10:{self.minute:02d}"
        item = self.home.parent / f"item-{self.minute}.jsonl"
        item.write_text('{"s": "<http://example.org/people#carol>", "p": "<http://rdfs.org/sioc/ns#creator_of>", '
                        f'"o": "<http://example.org/people#post{self.minute}>", "ts": "{at}:30Z"}}\n')
        return (self.run(("ingest", "social", str(item))),
                self.run(("slide", "active_users", "--until", f"2026-11-22T10:{self.minute + 1:02d}:00Z")))

    def measure(self) -> dict[str, tuple[float, float | None]]:
        rows: dict[str, tuple[float, float | None]] = {}
        if self.name == "server-start":
            rows["server start"] = (_timed([*CLI, "server", "start"], self.env), None)
        try:
            for name, args in SETUP:
                rows[name] = (self.run(args), None)
            for name, args in READING.items():
                rows[name] = (self.run(args), self.run(args))
            (ingest1, slide1), (ingest2, slide2) = self.one_item(), self.one_item()
            rows["ingest (one item)"] = (ingest1, ingest2)
            rows["slide (one item)"] = (slide1, slide2)
        finally:
            subprocess.run([*CLI, "server", "stop"], cwd=REPO, env=self.env, capture_output=True)
        return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ways", default=",".join(WAYS), help=f"comma-separated, of {', '.join(WAYS)}")
    args = parser.parse_args()
    ways = [w for w in args.ways.split(",") if w]
    unknown = set(ways) - set(WAYS)
    if unknown:
        raise SystemExit(f"unknown ways: {', '.join(sorted(unknown))}; choose among {', '.join(WAYS)}")
    base = Path(tempfile.mkdtemp(prefix="reasonlake-bench-cli-"))
    measured = {way: Way(way, base).measure() for way in ways}
    floor = _timed(SPARK_ONLY, dict(os.environ))
    names = list(dict.fromkeys(n for rows in measured.values() for n in rows))
    print(f"seconds per command from a fresh process (1st / 2nd call), {os.cpu_count()} cores")
    print(f"{'command':<26}" + "".join(f"{w:>20}" for w in ways))
    for name in names:
        cells = []
        for way in ways:
            first, second = measured[way].get(name, (None, None))
            cells.append("" if first is None else f"{first:.1f}" + ("" if second is None else f" / {second:.1f}"))
        print(f"{name:<26}" + "".join(f"{c:>20}" for c in cells))
    print(f"{'start Spark only':<26}{floor:>20.1f}")


if __name__ == "__main__":
    main()
