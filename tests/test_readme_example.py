"""The README's samples of the example flow print what the flow prints.

The convention: a ```console block of README.md is a transcript of the example flow. Its
`$ reasonlake ...` lines are commands, run in the README's order on the home
`scripts/example.sh` (the flow the README's set-up runs) leaves; the lines
after a command are what it prints on stdout, where a line `...` stands for lines left out
and, in a sample that writes `<...#name>`, IRIs are shortened to the part after their `#`.
"""
from __future__ import annotations

import re
import shlex

from tests.conftest import REPO

Transcript = list[tuple[list[str], list[str]]]  # (the command's arguments, the lines it prints)


def transcripts(readme: str) -> Transcript:
    steps: Transcript = []
    for block in re.findall(r"^```console\n(.*?)^```", readme, re.S | re.M):
        for line in block.splitlines():
            if line.startswith("$ "):
                words = shlex.split(line[2:])
                assert words[0] == "reasonlake", f"a transcript runs reasonlake only: {line}"
                steps.append((words[1:], []))
            else:
                assert steps, f"a transcript starts with a command: {line}"
                steps[-1][1].append(line.rstrip())
    return steps


def shortened(line: str) -> str:
    return re.sub(r"<[^<>\s]*#([^<>\s#]*)>", r"<...#\1>", line)


def fits(expected: list[str], printed: list[str]) -> bool:
    """``printed`` is ``expected``, each ``...`` standing for any lines (none included)."""
    if not expected:
        return not printed
    if expected[0] == "...":
        return any(fits(expected[1:], printed[i:]) for i in range(len(printed) + 1))
    return bool(printed) and printed[0] == expected[0] and fits(expected[1:], printed[1:])


def readme_samples_print_what_the_flow_prints(cli, monkeypatch) -> None:
    """Each README transcript's command, run in order in this process (``cli``) on the home
    `scripts/example.sh` left, prints what the README shows: checked by the example job's
    test (tests/test_example_job.py), which runs the script first."""
    steps = transcripts((REPO / "README.md").read_text())
    assert {"explain", "validate"} <= {args[0] for args, _ in steps}, steps  # the samples are found
    monkeypatch.chdir(REPO)  # the example's paths, as the README and the script write them
    for args, expected in steps:
        printed = [line.rstrip() for line in cli(*args).splitlines()]
        if any("<...#" in line for line in expected):
            printed = [shortened(line) for line in printed]
        assert fits(expected, printed), (
            f"README's `reasonlake {shlex.join(args)}` shows:\n" + "\n".join(expected)
            + "\nbut the example flow prints:\n" + "\n".join(printed))


def test_fits_takes_an_ellipsis_for_any_lines_and_nothing_else():
    assert fits(["a", "...", "d"], ["a", "b", "c", "d"]) and fits(["a", "..."], ["a"])
    assert not fits(["a", "...", "d"], ["a", "b", "c"]) and not fits(["a"], ["a", "b"])
    assert shortened("<http://example.org/people#tweet4> <http://x/y> .") == "<...#tweet4> <http://x/y> ."
