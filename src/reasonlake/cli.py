"""The `reasonlake` command line. Errors become one clear line on stderr and an exit code:
1 for a user error, 2 for an internal one."""
from __future__ import annotations

import argparse
import csv
import functools
import glob
import json
import os
import sys
from pathlib import Path

from reasonlake.declare.durations import format_time, parse_time
from reasonlake.errors import ConcurrentWriteError, QuarantinedRowsError, ReasonlakeError, SqlError, UsageError
from reasonlake.progress_bar import progress_bar


def _time(text: str) -> int:
    return parse_time(text, what="TIME")


class _Parser(argparse.ArgumentParser):
    """Usage mistakes are user errors (exit 1, as every other); exit 2 means a bug."""

    def error(self, message: str):  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(1, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="reasonlake",
        description="Ontology-reasoning materialized views over RDF streams, as Delta tables.",
    )
    parser.add_argument("--home", help="lakehouse root (default: $REASONLAKE_HOME or ./lakehouse)")
    parser.add_argument("--quiet", action="store_true",
                        help="no progress on stderr (the bars of long commands on a terminal, run's batch lines)")
    sub = parser.add_subparsers(dest="command", required=True)
    # --home and --quiet are also accepted after the verb (reasonlake history v --home DIR)
    verb_home = argparse.ArgumentParser(add_help=False)
    verb_home.add_argument("--home", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    verb_home.add_argument("--quiet", action="store_true", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
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
    ingest.add_argument("--allow-duplicate-file", action="store_true")

    run = sub.add_parser("run", help="keep views up to date from a folder of stream files or a Kafka topic "
                                      "(Structured Streaming)", parents=[verb_home, writer])
    run.add_argument("views", nargs="+", metavar="VIEW", help="views over one stream")
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

    slide = sub.add_parser("slide", help="process the pending window closes of a view", parents=[verb_home, writer])
    slide.add_argument("view")
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
                        help="keep closes readable this long (default: each view's retain, else 7d); "
                             "0s keeps only the latest close")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _run(args)
    except ReasonlakeError as exc:
        print(f"reasonlake: error {exc.code}: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("reasonlake: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # an internal error: still one line, with the type for the report
        line = _first_line(exc)
        race = ConcurrentWriteError.race_in(exc)
        if race:
            lost = ConcurrentWriteError(
                f"another command wrote the same table at the same time ({race}) and this one "
                "stopped; run it again once the other has finished: every command is safe to re-run "
                "(one writer per view at a time)")
            print(f"reasonlake: error {lost.code}: {lost}", file=sys.stderr)
            return lost.exit_code
        print(f"reasonlake: internal error: {type(exc).__name__}: {line}", file=sys.stderr)
        return 2
    finally:
        _release_leases()


def _release_leases() -> None:
    """Hand back the writer leases the command took (loaded only by a command that wrote a
    view: a command that never started Spark does not start it here)."""
    lease = sys.modules.get("reasonlake.engine.store.lease")
    if lease is not None:
        lease.release_all()


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


def _lakehouse(args):
    from reasonlake.api import Lakehouse

    lake = Lakehouse(args.home)
    lake.home.writer_wait = getattr(args, "wait", 0.0)
    return lake


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if value < 0:
        raise argparse.ArgumentTypeError("give 0 or more seconds")
    return value


def _run(args) -> int:
    if args.command == "init":
        from reasonlake.api import Lakehouse

        lake = Lakehouse(args.home, metastore=args.catalog == "spark_catalog")
        applied = lake.init(catalog=args.catalog, schema=args.schema)
        print(f"applied migrations: {', '.join(applied)}" if applied else "up to date")
        if args.catalog:
            print(f"views and system tables are registered in {args.catalog}.{args.schema}")
        return 0
    if args.command == "view":
        from reasonlake.declare.view import load_view

        for file in args.files:  # fail on a bad file before starting Spark
            load_view(file)
        for report in _lakehouse(args).create_views(args.files, rebuild=args.rebuild):
            r = report.rebuilt
            done = (f" at its last close {format_time(r.close)} ({r.admitted} items, {r.derived} derived; "
                    f"Delta version {r.version})") if r is not None else ""
            print(f"view {report.name}: {report.outcome}{done}")
            for axiom, reason in report.ignored:
                print(f"  warning: ignored axiom {axiom} ({reason})", file=sys.stderr)
        return 0
    if args.command == "ingest":
        return _ingest(args)
    if args.command == "run":
        return _run_views(args)
    if args.command == "slide":
        until = _time(args.until) if args.until else None
        lake = _lakehouse(args)
        with progress_bar(f"slide {args.view}", " closes", quiet=args.quiet) as progress:
            done = lake.slide(args.view, until, progress=progress)
        if done:
            print(HISTORY_HEADER)
        for r in done:
            print(_history_line(r))
        if not done:
            print("no close to process")
        return 0
    if args.command == "rebuild":
        lake = _lakehouse(args)
        before = lake.history(args.view)
        with progress_bar(f"rebuild {args.view}", " steps", quiet=args.quiet) as progress:
            record = lake.rebuild(args.view, _time(args.at) if args.at else None, rewind=args.rewind,
                                  progress=progress)
        later = sum(1 for r in before if r.close > record.close)
        print(f"view {args.view}: rematerialized from scratch at {format_time(record.close)} "
              f"({record.admitted} items, {record.derived} derived)")
        if later:
            print(f"  the view moved back: {later} later close(s) leave its history; "
                  "the next `reasonlake slide` processes them again")
        print(HISTORY_HEADER)
        print(_history_line(record))
        return 0
    if args.command == "export":
        return _export(args)
    if args.command == "sql":
        return _sql(args)
    if args.command == "rules":
        return _rules(args)
    if args.command == "violations":
        return _violations(args)
    if args.command == "explain":
        return _explain(args)
    if args.command == "repair":
        lake = _lakehouse(args)
        with progress_bar(f"repair {args.view}", " steps", quiet=args.quiet) as progress:
            record, n = lake.repair(args.view, progress=progress)
        if record is None:
            print(f"view {args.view}: nothing to repair, the window is consistent under its repairs")
        else:
            print(f"view {args.view}: removed {n} item(s) at {format_time(record.close)}")
            print(_history_line(record))
        return 0
    if args.command == "history":
        if args.plot:
            return _plot_history(args)
        lake = _lakehouse(args)
        rows = lake.history(args.view)
        readable = lake.readable_versions(args.view) if rows else None
        print(HISTORY_HEADER)
        for r in rows:
            gone = readable is not None and r.version not in readable
            print(_history_line(r) + ("  (vacuumed: no longer readable)" if gone else "") + _expectation_note(r))
        return 0
    if args.command == "changes":
        return _changes(args)
    if args.command == "validate":
        return _validate(args)
    if args.command == "vacuum":
        from reasonlake.declare.view import parse_retention
        from reasonlake.engine.store.retention import DEFAULT_RETAIN_MS

        retain = parse_retention(args.retain, what="--retain") if args.retain is not None else None
        for done in _lakehouse(args).vacuum(args.views, retain_ms=retain):
            print(f"view {done.view}: vacuumed {done.tables} table(s); closes stay readable for "
                  f"{_duration(done.retain_ms)}" + (" (Delta's default)" if retain is None and done.retain_ms == DEFAULT_RETAIN_MS else ""))
        return 0
    raise UsageError(f"unknown command {args.command}")


HISTORY_HEADER = ("close                     version  mode     admitted  expired  derived  renewed  rounds  "
                  "late  seconds  violations  repairs")


def _history_line(r) -> str:
    return (
        f"{format_time(r.close):<25} {r.version:>7}  {r.mode:<7} {r.admitted:>9} {r.expired:>8} "
        f"{r.derived:>8} {r.renewed:>8} {r.rounds:>7} {r.late:>5} {r.seconds:>8.2f}"
        f"  {'-' if r.violations is None else r.violations:>10}"
        f"  {'-' if r.repairs is None else r.repairs:>7}"
    )


def _expectation_note(r) -> str:
    if not r.expectation_failures:
        return ""
    withheld = "withheld: " if r.withheld else ""
    return f"  ({withheld}{r.expectation_failures} expectation(s) failed)"


def _validate(args) -> int:
    close = parse_time(args.close, what="--close") if args.close else None
    outcome = _lakehouse(args).validate(args.view, close=close, version=args.version, docs=args.docs)
    print(f"view {args.view} at close {format_time(outcome.close)} (version {outcome.version}):")
    for r in outcome.results:
        print(f"  {'pass' if r.success else 'FAIL'}  {r.suite}: {r.expectation}"
              + (f"  observed {r.observed}" if r.observed is not None else ""))
    if args.docs:
        print(f"data docs: {args.docs}/index.html")
    if outcome.failed:
        print(outcome.report(), file=sys.stderr)
        return 1
    return 0


def _plot_history(args) -> int:
    from reasonlake.history_plot import image_format, plot

    image_format(args.plot)  # a folder that is not there is answered before Spark starts
    rows = _lakehouse(args).history(args.view)
    plot(args.view, rows, args.plot)
    print(f"wrote a plot of {len(rows)} close(s) of view {args.view} to {args.plot}")
    return 0


def _changes(args) -> int:
    after = parse_time(args.after, what="--from") if args.after else None
    upto = parse_time(args.upto, what="--to") if args.upto else None
    from pyspark.sql import functions as F

    rows = _lakehouse(args).changes(args.view, after=after, upto=upto)
    at = None
    for row in rows.withColumn("ms", F.unix_millis("close")).toLocalIterator():
        close = format_time(row.ms)
        if args.format == "nt":
            if close != at:
                print(f"# close {close}")
                at = close
            print(f"{row.op} {row.subject} {row.predicate} {row.object} .")
        elif args.format == "json":
            print(json.dumps({"close": close, "op": row.op, "subject": row.subject, "predicate": row.predicate,
                              "object": row.object, "inferred": row.inferred}, ensure_ascii=False))
        else:
            if at is None:
                print("close,op,subject,predicate,object,inferred")
                at = close
            cells = [close, row.op, row.subject, row.predicate, row.object, str(row.inferred).lower()]
            print(",".join('"' + c.replace('"', '""') + '"' if any(x in c for x in ',"\n') else c for c in cells))
    return 0


def _duration(ms: int) -> str:
    for unit, size in (("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000)):
        if ms and ms % size == 0:
            return f"{ms // size}{unit}"
    return f"{ms}ms"


def _at(ts: int) -> str:
    from reasonlake.plan.windows import NEVER

    return "background, never expires" if ts >= NEVER else f"at {format_time(ts)}"


def _explain(args) -> int:
    from reasonlake.engine.audit import parse_triple

    if args.why is not None:
        return _explain_why(args)
    if args.close or args.format != "text":
        raise UsageError("--close and --format go with --why; --removed searches every close")
    parse_triple(args.removed)  # a malformed triple is answered before Spark starts
    lake = _lakehouse(args)
    found = lake.explain_removed(args.view, args.removed)
    for r in found:
        print(f"{r.removed.triple} asserted at {format_time(r.removed.ts)} was removed at close "
              f"{format_time(r.close)} (Delta version {r.version}, {r.mode}) by {r.rule}; "
              f"it stays removed until {format_time(r.expires)}")
        print("  conflict set:")
        for t in r.conflict:
            print(f"    {t.triple}  ({_at(t.ts)})")
        print("  newer facts that won:" if r.winners else "  newer facts that won: none (a tie: every oldest member goes)")
        for t in r.winners:
            print(f"    {t.triple}  ({_at(t.ts)})")
    print(_presence_line(lake.explain_presence(args.view, args.removed), args.view, bool(found)))
    return 0


def _explain_why(args) -> int:
    from reasonlake.engine.audit import parse_triple
    from reasonlake.engine.reason.derivation import to_json

    triple = parse_triple(args.why, "--why")  # a malformed triple is answered before Spark starts
    close = _time(args.close) if args.close else None
    lake = _lakehouse(args)
    root, at, terms = lake.explain_why(args.view, " ".join(triple), close=close)
    tree = to_json(root, terms)
    if args.format == "json":
        print(json.dumps(tree))
        return 0
    print(f"why {tree['triple']} is in view {args.view} at close {format_time(at)}:")
    for line in _derivation_lines(tree, "  ", set()):
        print(line)
    return 0


def _derivation_lines(step: dict, indent: str, shown: set):
    """A derivation as an indented tree; a fact explained above is not explained again."""
    if step["rule"] is None and "item" in step:
        item = step["item"]
        where = f"{item['file']} line {item['line']}" if item["file"] else "its event is no longer in the stream"
        yield f"{indent}{step['triple']}  stream item at {item['ts']} ({where})"
        return
    if step.get("background"):
        by = f" ({step['rule']})" if step["rule"] else ""
        yield f"{indent}{step['triple']}  background fact{by}, never expires"
        return
    tbox = f"; TBox: {' '.join(step['tbox'])}" if step.get("tbox") else ""
    again = step["triple"] in shown
    yield f"{indent}{step['triple']}  by {step['rule']}, origin {step['origin']}{tbox}" + (
        "  (explained above)" if again and step["premises"] else "")
    if again:
        return
    shown.add(step["triple"])
    for premise in step["premises"]:
        yield from _derivation_lines(premise, indent + "  ", shown)


def _presence_line(p, view: str, repaired: bool) -> str:
    """Where the fact stands in the view's closes: still there, expired, or gone otherwise."""
    if p.last_close is None:
        return f"{p.triple} : view {view} has no processed close yet"
    if p.seen_close is None:
        return (f"{p.triple} was in none of the last {p.searched} closes of view {view} "
                f"(up to {format_time(p.last_close)})" + ("" if repaired else "; it was never removed by repair"))
    from reasonlake.plan.windows import NEVER

    how = "a stream item" if p.rule == "explicit" else f"derived by {p.rule}"
    origin = f"origin {_at(p.origin)}"
    if p.left_close is None:
        until = "never expires" if p.origin >= NEVER else f"expires at {format_time(p.expires)} unless renewed"
        return f"{p.triple} is in view {view} at its last close {format_time(p.last_close)}: {how}, {origin}; {until}"
    if p.expired:
        why = (f"it expired: its origin plus the window's width ({format_time(p.expires)}) was past by "
               "that close, and no newer derivation renewed it")
    elif repaired:
        why = "repair removed it or the premises it rested on (above)"
    else:
        why = "its premises left the window or were retracted before it expired, leaving no derivation"
    return (f"{p.triple} was last in view {view} at close {format_time(p.seen_close)} ({how}, {origin}) and "
            f"left at close {format_time(p.left_close)}: {why}")


def _rules(args) -> int:
    from reasonlake.compile.rules import CATALOGUE

    if args.view.endswith((".yaml", ".yml")) and Path(args.view).is_file():
        from reasonlake.compile.program import compile_program
        from reasonlake.compile.tbox import load_tbox
        from reasonlake.declare.view import load_view

        decl = load_view(args.view)  # no Spark needed for a file
        program = compile_program(load_tbox(decl.ontology), decl.profile, decl.unique_names)
    else:
        decl, program = _lakehouse(args).rules(args.view)
    equality = "unique names" if decl.unique_names else "standard equality (owl:sameAs)"
    print(f"view {decl.name}: profile {decl.profile}"
          + (f", {equality}" if decl.profile == "owl2rl" else ""))
    print("active rules (rule id, shape, TBox instantiations):")
    for rule, n in program.active_rules().items():
        shape = CATALOGUE[rule].shape
        if rule in {j.rule for j in program.negative()}:
            shape = "violation"
        print(f"  {rule:<14} {shape:<11} {n:>7}")
    print(f"ignored axioms: {len(program.ignored)}")
    for axiom, reason in program.ignored:
        print(f"  {axiom}  # {reason}")
    if program.notes:
        print(f"axioms that entail less than they may seem to: {len(program.notes)}")
        for axiom, note in program.notes:
            print(f"  {axiom}  # {note}")
    if decl.repair != "none":
        _repair_patterns(decl, program)
    return 0


def _repair_patterns(decl, program) -> None:
    """The inconsistency-normal form: how many conflict patterns each negative rule became."""
    from reasonlake.compile.normal_form import for_view

    form = for_view(decl, program)
    depth = f", recursive ones to depth {decl.repair_depth}" if decl.repair_depth else ""
    print(f"repair {decl.repair}: conflict patterns over explicit assertions{depth}:")
    for rule, n in sorted(form.sources.items()):
        print(f"  {rule:<14} {n:>7}")


def _violations(args) -> int:
    close = _time(args.close) if args.close else None
    rows, at = _lakehouse(args).violations(args.view, close=close)
    found = rows.collect() if rows is not None else []
    if args.format == "json":
        for r in found:
            print(json.dumps({
                "rule": r.rule, "since": _plain(r.since), "bindings": r.bindings or {},
                "triples": [{"triple": t.triple, "origin": _plain(t.origin)} for t in r.triples],
            }))
        return 0
    when = format_time(at) if at is not None else "no close processed yet"
    status = "consistent" if not found else f"inconsistent: {len(found)} violation(s)"
    print(f"view {args.view} at {when}: {status}")
    for r in found:
        binds = ", ".join(f"{k}={v}" for k, v in sorted((r.bindings or {}).items()))
        print(f"{r.rule}  since {_plain(r.since)}  {binds}")
        for t in r.triples:
            print(f"    {t.triple}  (origin {_plain(t.origin)})")
    return 0


def _ingest(args) -> int:
    from reasonlake.engine.ingest import check_stream_name
    from reasonlake.engine.inputs import is_uri, local_files
    from reasonlake.parse.formats import check_readable

    ts = _time(args.ts) if args.ts else None
    check_stream_name(args.stream)
    for arg in args.files:  # every check that needs no Spark, before it starts
        if not is_uri(arg):
            for found in local_files(arg):
                check_readable(found.name, ts)
    lake = _lakehouse(args)
    with progress_bar(f"ingest {args.stream}", " files", quiet=args.quiet) as progress:
        reports = lake.ingest(args.stream, args.files, ts=ts, allow_duplicate=args.allow_duplicate_file,
                              progress=progress)
    _warn_if_unread(lake, args.stream)
    quarantined = 0
    for report in reports:
        print(f"{report.file}: {report.items} items, {report.quarantined} quarantined (ingest #{report.seq})")
        for line, raw, reason in report.reasons:
            print(f"  quarantined {report.file}:{line}: {reason} | {raw[:200]}")
        for note in report.notes:
            print(f"  note: {report.file}: {note}")
        quarantined += report.quarantined
    if quarantined and args.strict:
        raise QuarantinedRowsError(
            f"{quarantined} row(s) went to quarantine (listed above; query them with "
            "`reasonlake sql \"SELECT * FROM rl_quarantine\"`); the valid rows were ingested"
        )
    return 0


def _warn_if_unread(lake, stream: str) -> None:
    """Events of a stream no view reads wait for a view that names it: say so, with the
    stream names the views do read (a typo or a case mismatch is the usual cause)."""
    read = lake.home.streams_read()
    if stream not in read:
        print(f"reasonlake: note: no view reads stream '{stream}' yet (views read: "
              f"{', '.join(read) or 'none'}); its events wait for a view whose 'stream' names it",
              file=sys.stderr)


def _run_views(args) -> int:
    from reasonlake.declare.durations import parse_duration
    from reasonlake.engine.inputs import is_uri

    no_wait = args.lateness.strip() in ("0", "0s", "0ms")
    lateness = 0 if no_wait else parse_duration(args.lateness, what="--lateness")
    ts = _time(args.ts) if args.ts else None
    trigger = args.trigger.strip()
    if trigger != "available-now" and not any(c.isdigit() for c in trigger):
        raise UsageError(f"--trigger {trigger!r}: use available-now or an interval such as '30 seconds'")
    kafka = args.source == "kafka"
    if kafka:
        source = _kafka_source(args)
    else:
        given = [flag for flag, value in (("--kafka-bootstrap", args.kafka_bootstrap), ("--topic", args.topic),
                                          ("--kafka-option", args.kafka_option)) if value]
        if given:
            raise UsageError(f"{', '.join(given)}: for --source kafka only")
        source = args.source
        if not is_uri(source) and not glob.has_magic(source) and not Path(source).is_dir():
            raise UsageError(f"--source {source}: no such folder (or write --source kafka for a Kafka topic)")
    from reasonlake.api import Lakehouse

    quiet = (lambda *_: None) if args.quiet else None  # no batch lines on stderr
    lake = Lakehouse(args.home, kafka=kafka)
    lake.home.writer_wait = args.wait
    report = lake.run(args.views, source, trigger=trigger, lateness=lateness, ts=ts,
                                                   progress=quiet)
    closes = ", ".join(f"{v} {n}" for v, n in report.closes.items()) or "none"
    read = "partition ranges" if kafka else "files"
    print(f"{report.batches} batches: {report.files} {read}, {report.items} items, "
          f"{report.quarantined} quarantined; closes processed: {closes}")
    if report.withheld:
        withheld = ", ".join(f"{v} {n}" for v, n in report.withheld.items())
        print(f"reasonlake: error RL500: closes withheld by failed expectations: {withheld} "
              "(the messages above name them; readers keep each view's last close that passed)", file=sys.stderr)
        return 1
    return 0


def _kafka_source(args):
    from reasonlake.engine.runner import KafkaSource

    missing = [flag for flag, value in (("--kafka-bootstrap", args.kafka_bootstrap), ("--topic", args.topic))
               if not value]
    if missing:
        raise UsageError(f"--source kafka needs {' and '.join(missing)}, e.g. --kafka-bootstrap "
                         "broker:9092 --topic events")
    options = []
    for option in args.kafka_option:
        key, equals, value = option.partition("=")
        if not equals or not key.strip():
            raise UsageError(f"--kafka-option {option!r}: write KEY=VALUE, e.g. kafka.security.protocol=SASL_SSL")
        options.append((key.strip(), value))
    return KafkaSource(args.kafka_bootstrap, args.topic, args.starting_offsets, tuple(options))


def _export(args) -> int:
    close = _time(args.close) if args.close else None
    if args.output and Path(args.output).is_dir():
        raise UsageError(f"-o {args.output}: is a folder; give a file name, e.g. {Path(args.output) / args.view}.nt")
    if args.output and not Path(args.output).resolve().parent.is_dir():
        raise UsageError(f"-o {args.output}: the folder {Path(args.output).resolve().parent} does not exist; "
                        "create it first")
    lines = _lakehouse(args).export(args.view, close=close, version=args.version)
    if args.output:
        # written beside the target and renamed over it at the end: an export that fails
        # half-way leaves the previous file as it was, not emptied
        count, partial = 0, Path(f"{args.output}.partial")
        try:
            with open(partial, "w", encoding="utf-8") as out:
                for line in lines:
                    out.write(line + "\n")
                    count += 1
            os.replace(partial, args.output)
        finally:
            partial.unlink(missing_ok=True)
        print(f"wrote {count} triples to {args.output}")
    else:
        for line in lines:
            sys.stdout.write(line + "\n")
    return 0


def _sql(args) -> int:
    from pyspark.errors import AnalysisException, ParseException
    from pyspark.logger import PySparkLogger

    # pyspark logs every failed query with its Java stack trace (kilobytes of JSON) before
    # raising; a mistake in the user's SQL is reported below, in one line
    PySparkLogger.getLogger("SQLQueryContextLogger").disabled = True
    lake = _lakehouse(args)
    try:
        df = _utc_strings(lake.sql(args.query))
        rows = df.collect()
    except (AnalysisException, ParseException) as exc:
        first = str(exc).strip().splitlines()[0]
        if "TABLE_OR_VIEW_NOT_FOUND" in first:
            first += f"; the tables are: {', '.join(lake.sql_tables)}"
        raise SqlError(f"SQL: {first}") from None
    columns = df.columns
    if args.format == "json":
        for row in rows:
            print(json.dumps({k: _plain(v) for k, v in row.asDict().items()}))
    elif args.format == "csv":
        writer = csv.writer(sys.stdout)
        writer.writerow(columns)
        for row in rows:
            writer.writerow([_cell(v) for v in row])
    else:
        cells = [[_cell(v) for v in row] for row in rows]
        widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
        print(" | ".join(c.ljust(w) for c, w in zip(columns, widths)))
        print("-+-".join("-" * w for w in widths))
        for r in cells:
            print(" | ".join(v.ljust(w) for v, w in zip(r, widths)))
        print(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    return 0


def _utc_strings(df):
    """Timestamps as ISO strings in UTC (the session zone), whatever the local clock says."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import TimestampType

    return df.select(
        *(
            F.date_format(F.col(f.name), "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").alias(f.name)
            if isinstance(f.dataType, TimestampType) else F.col(f.name)
            for f in df.schema.fields
        )
    )


def _cell(value) -> str:
    """A value as SQL prints it: booleans lower case, NULL for nothing."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "NULL" if value is None else str(_plain(value))


def _plain(value):
    from datetime import datetime

    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    return value


if __name__ == "__main__":
    sys.exit(main())
