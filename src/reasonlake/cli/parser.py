"""The command line's arguments: one sub-command per verb (``verbs``)."""
from __future__ import annotations

import argparse
import functools
import re
import sys

# A negative duration or time (-1h, -P1D, -1000): argparse reads all but a plain number as an option
_NEGATIVE_VALUE = re.compile(r"-(?:\d|[Pp][Tt]?\d)")


class _Parser(argparse.ArgumentParser):
    """Usage mistakes are user errors (exit 1, as every other); exit 2 means a bug."""

    def error(self, message: str):  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(1, f"{self.prog}: error: {message} (see {self.prog} --help)\n")

    def parse_args(self, args=None, namespace=None):  # type: ignore[override]
        given = sys.argv[1:] if args is None else list(args)
        return super().parse_args(_attach_negative_values(given, one_value_options(self)), namespace)


def one_value_options(parser: argparse.ArgumentParser) -> set[str]:
    """The long options that take one value, of the parser and its sub-commands."""
    found = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found |= one_value_options(sub)
        elif action.nargs is None:
            found.update(o for o in action.option_strings if o.startswith("--"))
    return found


def _attach_negative_values(args: list[str], options: set[str]) -> list[str]:
    """``--retain -1h`` as ``--retain=-1h``. argparse takes a value such as ``-1h`` for an
    option of its own and answers with its usage line; attached, the value reaches the
    command, whose error names the flag and says what to give instead."""
    attached: list[str] = []
    rest = iter(args)
    for arg in rest:
        if arg == "--":  # everything after it is positional, as argparse reads it
            attached += [arg, *rest]
            break
        if arg in options:
            value = next(rest, None)
            if value is not None and _NEGATIVE_VALUE.match(value):
                attached.append(f"{arg}={value}")
                continue
            attached += [arg] if value is None else [arg, value]
            continue
        attached.append(arg)
    return attached


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="reasonlake",
        description="Ontology-reasoning materialized views over RDF streams, as Delta tables.",
    )
    parser.add_argument("--home", help="lakehouse root (default: $REASONLAKE_HOME or ./lakehouse)")
    parser.add_argument("--remote", metavar="sc://HOST:PORT",
                        help="run on this Spark Connect server (default: $SPARK_REMOTE, else the home's "
                             "`reasonlake server` when it runs, else an embedded Spark session)")
    parser.add_argument("--in-process", action="store_true",
                        help="run on a Spark session of this process: neither start nor use the home's command "
                             "server (at a terminal, the first command that needs Spark starts it)")
    parser.add_argument("--debug", action="store_true",
                        help="on an internal error, print its traceback (for a bug report)")
    parser.add_argument("--quiet", action="store_true",
                        help="no progress on stderr (the bars of long commands on a terminal, run's batch lines)")
    sub = parser.add_subparsers(dest="command", required=True)
    # --home and --quiet are also accepted after the verb (reasonlake history v --home DIR)
    verb_home = argparse.ArgumentParser(add_help=False)
    verb_home.add_argument("--home", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    verb_home.add_argument("--remote", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    verb_home.add_argument("--quiet", action="store_true", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    verb_home.add_argument("--in-process", action="store_true", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    sub.add_parser = functools.partial(sub.add_parser, parents=[verb_home])  # type: ignore[method-assign]
    # commands that write a view's tables take its writer lease (one writer per view)
    writer = argparse.ArgumentParser(add_help=False)
    writer.add_argument("--wait", type=_seconds, default=0.0, metavar="SECONDS",
                        help="wait up to this long for another command writing the same view "
                             "(default 0: stop at once, exit 1, naming it)")

    init = sub.add_parser("init", help="create or migrate the system tables")
    init.add_argument("--catalog", metavar="NAME",
                      help="register the views and system tables in this catalog (spark_catalog: a Hive "
                           "metastore kept in the home; on Databricks, a Unity Catalog catalog)")
    init.add_argument("--schema", default="reasonlake", help="the schema in --catalog (default reasonlake)")
    init.add_argument("--allow-ontologies", metavar="DIR", action="append",
                      help="a folder view files may take ontology files from, besides each view file's own "
                           "(repeat for more; replaces the home's list)")

    view = sub.add_parser("view", help="declare views").add_subparsers(dest="view_command", required=True)
    view.add_parser = functools.partial(view.add_parser, parents=[verb_home])  # type: ignore[method-assign]
    create = view.add_parser("create", help="create views from YAML declarations", parents=[verb_home, writer])
    create.add_argument("files", nargs="+", metavar="FILE.yaml")
    create.add_argument("--rebuild", action="store_true", help="accept a changed definition and rematerialize")

    ingest = sub.add_parser("ingest", help="append stream files to the events table")
    ingest.add_argument("stream")
    ingest.add_argument("files", nargs="+", metavar="PATH",
                        help="files, folders, globs, or URIs (s3a://, abfss://, dbfs:/, file:) read by Spark")
    ingest.add_argument("--ts", type=str, help="time of a .nt/.ttl file (one event)")
    ingest.add_argument("--strict", action="store_true", help="exit 1 if any row was quarantined")
    ingest.add_argument("--allow-duplicate-file", action="store_true",
                        help="ingest a file again whole: content or items already ingested go in once more")
    ingest.add_argument("--only-new-items", action="store_true",
                        help="of a file ingested before under the same name (its quarantined rows since fixed), "
                             "add only the items not yet ingested from it")

    run = sub.add_parser("run", help="keep views up to date from a folder of stream files or a Kafka topic "
                                      "(Structured Streaming)", parents=[verb_home, writer])
    run.add_argument("views", nargs="+", metavar="VIEW", help="views (or RSP-QL queries) over one stream")
    run.add_argument("--source", required=True, metavar="PATH|kafka",
                     help="folder or glob the stream files arrive in (a path or a URI: s3a://, abfss://, dbfs:/), "
                          "or kafka (with --kafka-bootstrap and --topic; each message a JSONL row)")
    run.add_argument("--kafka-bootstrap", metavar="HOST:PORT[,...]", help="the Kafka brokers to start from")
    run.add_argument("--topic", help="the Kafka topic to read")
    run.add_argument("--starting-offsets", default="earliest", metavar="earliest|latest|JSON",
                     help="where a first run starts in the topic (default earliest; later runs resume "
                          "from the checkpoint)")
    run.add_argument("--kafka-option", action="append", default=[], metavar="KEY=VALUE",
                     help="an option of Spark's Kafka source, as given (consumer settings with their "
                          "kafka. prefix, e.g. kafka.security.protocol=SASL_SSL); repeatable")
    run.add_argument("--trigger", default="available-now", metavar="available-now|INTERVAL",
                     help="available-now: ingest what is there, slide, stop (a scheduled job); "
                          "an interval such as '30 seconds': run until stopped")
    run.add_argument("--lateness", default="0s", metavar="DURATION",
                     help="how long a close waits for late events (default 0s)")
    run.add_argument("--ts", type=str, help="time of .nt/.ttl files (one event)")

    register = sub.add_parser("register", help="register an RSP-QL query: its windows become views, its answers "
                                               "a table and a stream", parents=[verb_home, writer])
    register.add_argument("file", metavar="FILE.rspql")
    register.add_argument("--name", help="the query's name (default: its output stream's local name)")
    register.add_argument("--graph", action="append", default=[], metavar="IRI=FILE",
                          help="the file of a FROM GRAPH / FROM NAMED GRAPH IRI; repeatable")

    slide = sub.add_parser("slide", help="process the pending window closes of a view, or evaluate an RSP-QL "
                                         "query (and the queries it reads) up to a time", parents=[verb_home, writer])
    slide.add_argument("view", metavar="VIEW|QUERY")
    slide.add_argument("--until", type=str, help="last time to process (default: now)")

    rebuild = sub.add_parser("rebuild", help="rematerialize a view at a close from scratch",
                             parents=[verb_home, writer])
    rebuild.add_argument("view")
    rebuild.add_argument("--at", type=str, help="close (default: the last processed one)")
    rebuild.add_argument("--rewind", action="store_true",
                         help="allow --at before the last processed close: the view moves back to it "
                              "and the next slide redoes the later closes")

    export = sub.add_parser("export", help="write a view's content as N-Triples")
    export.add_argument("view")
    which = export.add_mutually_exclusive_group()
    which.add_argument("--close", type=str)
    which.add_argument("--version", type=int)
    export.add_argument("-o", "--output", help="file to write (default: stdout)")

    sql = sub.add_parser("sql", help="run SQL over the views")
    sql.add_argument("query")
    sql.add_argument("--format", choices=("table", "csv", "json"), default="table")

    query = sub.add_parser("query", help="run a SPARQL query (SELECT, ASK, CONSTRUCT) over a view at a close")
    query.add_argument("view")
    query.add_argument("query", metavar="QUERY|FILE.rq", help="the query's text, or a file holding it")
    at = query.add_mutually_exclusive_group()
    at.add_argument("--close", type=str, help="close (default: the last processed one)")
    at.add_argument("--version", type=int, help="a published version")
    query.add_argument("--format", choices=("table", "json", "csv", "tsv"), default="table",
                       help="SPARQL 1.1 results as JSON, CSV or TSV, or a table (CONSTRUCT: N-Triples)")
    query.add_argument("--max-rows", type=_positive_int, metavar="N",
                       help="the most rows a step of the query (a join, a path, the answer) may hold "
                            "(default: $REASONLAKE_QUERY_MAX_ROWS, else 10 million)")
    query.add_argument("--max-mb", type=_positive_number, metavar="MB",
                       help="the most memory a step of the query may hold, estimated "
                            "(default: $REASONLAKE_QUERY_MAX_MB, else 2048)")

    history = sub.add_parser("history", help="one line per processed close")
    history.add_argument("view")
    history.add_argument("--plot", metavar="FILE.png",
                         help="draw admitted, expired, derived items and seconds per close (and violations, "
                              "repairs when any) to this image instead of printing the lines")

    rules = sub.add_parser("rules", help="which rules a view's ontology activates, which axioms it ignores")
    rules.add_argument("view", help="a view name, or a view file (FILE.yaml)")

    violations = sub.add_parser("violations", help="the inconsistencies a view holds at a close")
    violations.add_argument("view")
    violations.add_argument("--close", type=str, help="close (default: the last processed one)")
    violations.add_argument("--format", choices=("text", "json"), default="text")

    explain = sub.add_parser("explain", help="why a triple is in a view (--why: one derivation down to stream "
                                              "items), or when and why it left (--removed)")
    explain.add_argument("view")
    asked = explain.add_mutually_exclusive_group(required=True)
    asked.add_argument("--why", metavar='"<s> <p> <o>"', help="a triple in the view, in N-Triples")
    asked.add_argument("--removed", metavar='"<s> <p> <o>"', help="a triple repair removed or that left, in N-Triples")
    explain.add_argument("--close", type=str, help="with --why: the close (default: the last processed one)")
    explain.add_argument("--format", choices=("text", "json"), default="text", help="with --why: text or JSON")

    repair = sub.add_parser("repair", help="re-check a view's whole window and repair it (newest-wins)",
                            parents=[verb_home, writer])
    repair.add_argument("view")

    changes = sub.add_parser("changes", help="what entered (+) and left (-) a view at each close")
    changes.add_argument("view")
    changes.add_argument("--from", dest="after", type=str, metavar="TIME",
                         help="closes after this one (default: the processed close before --to)")
    changes.add_argument("--to", dest="upto", type=str, metavar="TIME", help="up to this close (default: the last)")
    changes.add_argument("--format", choices=("nt", "csv", "json"), default="nt")

    validate = sub.add_parser("validate", help="run a view's expectation suites on a close (default: the last "
                                                "processed one); exit 1 when one fails")
    validate.add_argument("view")
    on = validate.add_mutually_exclusive_group()
    on.add_argument("--close", type=str)
    on.add_argument("--version", type=int, help="a published version, withheld ones included")
    validate.add_argument("--docs", metavar="DIR", help="also write great-expectations' data docs (HTML) there")

    vacuum = sub.add_parser("vacuum", help="remove the files of closes older than the views' retention")
    vacuum.add_argument("views", nargs="*", metavar="VIEW", help="views (default: every view)")
    vacuum.add_argument("--retain", type=str, metavar="DURATION",
                        help="keep closes readable this long, e.g. 7d, P30D, P1Y (an ISO year counts 365 "
                             "days, a month 30; default: each view's retain, else 7d); 0s keeps only the "
                             "latest close")
    server = sub.add_parser("server", help="a Spark Connect server for the home: commands answer in seconds")
    server.add_argument("action", choices=["start", "stop", "status"])
    server.add_argument("--port", type=int, help="its port on 127.0.0.1 (default: a free one)")
    server.add_argument("--idle", metavar="DURATION",
                        help="start: stop by itself this long after its last command (default: run until `server stop`)")
    return parser


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if value < 0:
        raise argparse.ArgumentTypeError("give 0 or more seconds")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError("give a number above 0")
    return value


def _positive_number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError("give a number above 0")
    return value
