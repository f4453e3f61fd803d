"""The README's synopsis ("Using it") lists every option of every verb, and no option the
command line does not take: one line (or more) per verb, checked against the argparse
parser itself."""
from __future__ import annotations

import argparse
import re

from reasonlake.cli.parser import build_parser
from tests.conftest import REPO

# An option as the synopsis writes it: -o, --kafka-option (not the "-now" of available-now)
_OPTION = re.compile(r"(?<![\w-])--?[a-z][\w-]*")


def synopsis_lines() -> list[str]:
    readme = (REPO / "README.md").read_text()
    block = re.search(r"## Using it\n\n```\n(.*?)```", readme, re.S)
    assert block, "README.md has no code block right under '## Using it'"
    return [line for line in block.group(1).splitlines() if line.startswith("reasonlake ")]


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _options(parser: argparse.ArgumentParser) -> list[tuple[str, ...]]:
    """The options a user sees in the parser's --help (each with its spellings)."""
    return [tuple(a.option_strings) for a in parser._actions
            if a.option_strings and a.help != argparse.SUPPRESS and not isinstance(a, argparse._HelpAction)]


def _verbs(parser, path=()) -> dict[str, argparse.ArgumentParser]:
    """Every command a user runs ("init", "view create", ...) with its parser."""
    found = {}
    for name, sub in _subcommands(parser).items():
        found.update(_verbs(sub, (*path, name)) if _subcommands(sub) else {" ".join((*path, name)): sub})
    return found


def _split(line: str, parser) -> tuple[list[str], str, str]:
    """A synopsis line as (options before the verb, the verb, what follows it)."""
    words = line.split()[1:]
    before = []
    while words and words[0].startswith("["):  # [--home DIR], [--quiet]: options of reasonlake itself
        group = [words.pop(0)]
        while not group[-1].endswith("]"):
            group.append(words.pop(0))
        before += _OPTION.findall(" ".join(group))
    verb = []
    while words and words[0] in _subcommands(parser):
        verb.append(words.pop(0))
        parser = _subcommands(parser)[verb[-1]]
    return before, " ".join(verb), " ".join(words)


def test_the_synopsis_lists_every_option_of_every_verb_and_no_other():
    parser = build_parser()
    verbs = _verbs(parser)
    written: dict[str, set[str]] = {}
    global_written: set[str] = set()
    for line in synopsis_lines():
        before, verb, rest = _split(line, parser)
        global_written.update(before)
        if verb:
            written.setdefault(verb, set()).update(_OPTION.findall(rest))
        else:  # the line of the options every verb takes: reasonlake [...] VERB ...
            assert rest.startswith("VERB"), f"a synopsis line names no verb: {line}"
    assert not set(verbs) - set(written), f"README synopsis has no line for {sorted(set(verbs) - set(written))}"
    assert not set(written) - set(verbs), f"README synopsis shows verbs there are not: {sorted(set(written) - set(verbs))}"
    for verb, sub in verbs.items():
        options = _options(sub)
        missing = [o[-1] for o in options if not set(o) & written[verb]]
        unknown = sorted(written[verb] - {s for o in options for s in o})
        assert not missing, f"README synopsis of `reasonlake {verb}` leaves out {missing}"
        assert not unknown, f"README synopsis of `reasonlake {verb}` shows {unknown}, which it does not take"
    top = _options(parser)
    assert not [o[-1] for o in top if not set(o) & global_written], "options of reasonlake itself left out"
    assert global_written <= {s for o in top for s in o}, global_written


def test_the_check_reads_the_synopsis_it_checks():
    """The lines found are the synopsis (a renamed heading would make the check vacuous)."""
    lines = synopsis_lines()
    assert len(lines) >= len(_verbs(build_parser()))
    assert any("rebuild VIEW" in line and "--rewind" in line for line in lines)
