"""One function per verb of the command line, over the API (``reasonlake.api``) only.

Each checks what it can before Spark starts (files, names, times), calls one ``Lakehouse``
method, and prints its answer (``show``). They return the exit code.
"""
from __future__ import annotations

import csv
import glob
import json
import os
import sys
from pathlib import Path

from reasonlake import api
from reasonlake.api import Lakehouse, format_time, parse_time
from reasonlake.cli import command_server, show
from reasonlake.errors import QuarantinedRowsError, UsageError
from reasonlake.history_plot import image_format, plot
from reasonlake.progress_bar import progress_bar


def _time(text: str) -> int:
    return parse_time(text, what="TIME")


def _lakehouse(args, **options) -> Lakehouse:
    """``defer=True``: the reading commands, which may answer from the home's files without
    starting Spark (``Lakehouse(defer=)``)."""
    in_process = getattr(args, "in_process", False)
    lake = Lakehouse(args.home, remote=args.remote, wait=getattr(args, "wait", 0.0), server=not in_process, **options)
    if command_server.wanted(args):
        command_server.start_for(lake)
    return lake


def init(args) -> int:
    lake = _lakehouse(args, metastore=args.catalog == "spark_catalog")
    applied = lake.init(catalog=args.catalog, schema=args.schema, allow_ontologies=args.allow_ontologies)
    print(f"applied migrations: {', '.join(applied)}" if applied else "up to date")
    if args.allow_ontologies:
        print("view files may also take ontology files from: "
              + ", ".join(str(Path(d).resolve()) for d in sorted(set(args.allow_ontologies))))
    if args.catalog:
        print(f"views and system tables are registered in {args.catalog}.{args.schema}")
    return 0


def view(args) -> int:
    for file in args.files:  # fail on a bad file before starting Spark
        api.load_view(file)
    for report in _lakehouse(args).create_views(args.files, rebuild=args.rebuild):
        r = report.rebuilt
        done = (f" at its last close {format_time(r.close)} ({r.admitted} items, {r.derived} derived; "
                f"Delta version {r.version})") if r is not None else ""
        print(f"view {report.name}: {report.outcome}{done}")
        for axiom, reason in report.ignored:
            print(f"  warning: ignored axiom {axiom} ({reason})", file=sys.stderr)
    return 0


def ingest(args) -> int:
    ts = _time(args.ts) if args.ts else None
    # every check that needs no Spark, before it starts
    api.check_ingest(args.stream, args.files, ts, allow_duplicate=args.allow_duplicate_file,
                     only_new_items=args.only_new_items)
    lake = _lakehouse(args, inputs=args.files, defer=True)  # an s3a:// file needs S3A in the session
    with progress_bar(f"ingest {args.stream}", " files", quiet=args.quiet) as progress:
        reports = lake.ingest(args.stream, args.files, ts=ts, allow_duplicate=args.allow_duplicate_file,
                              only_new_items=args.only_new_items, progress=progress)
    _warn_if_unread(lake, args.stream)
    quarantined = 0
    for report in reports:
        if report.nothing_new:
            print(f"{report.file}: nothing new (this content went in as ingest #{report.seq})")
            continue
        left_out = f"; {report.already} items already ingested from it left out" if report.already else ""
        print(f"{report.file}: {report.items} items, {report.quarantined} quarantined (ingest #{report.seq}{left_out})")
        for line, raw, reason in report.reasons:
            print(f"  quarantined {report.file}:{line}: {reason} | {raw[:200]}")
        if report.advice:
            print(f"  {report.advice}")
        for note in report.notes:
            print(f"  note: {report.file}: {note}")
        quarantined += report.quarantined
    if quarantined and args.strict:
        raise QuarantinedRowsError(
            f"{quarantined} row(s) went to quarantine (listed above; query them with "
            "`reasonlake sql \"SELECT * FROM rl_quarantine\"`); the valid rows were ingested: fix the rows and "
            "ingest the files again with --only-new-items to add only their items"
        )
    return 0


def _warn_if_unread(lake: Lakehouse, stream: str) -> None:
    """Events of a stream no view reads wait for a view that names it: say so, with the
    stream names the views do read (a typo or a case mismatch is the usual cause)."""
    read = lake.streams_read()
    if stream not in read:
        print(f"reasonlake: note: no view reads stream '{stream}' yet (views read: "
              f"{', '.join(read) or 'none'}); its events wait for a view whose 'stream' names it",
              file=sys.stderr)


def run(args) -> int:
    lateness = api.parse_duration(args.lateness, what="--lateness", zero="a close waits for no late event")
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
        if not api.is_uri(source) and not glob.has_magic(source) and not Path(source).is_dir():
            raise UsageError(f"--source {source}: no such folder (or write --source kafka for a Kafka topic)")
    quiet = (lambda *_: None) if args.quiet else None  # no batch lines on stderr
    report = _lakehouse(args, kafka=kafka, inputs=() if kafka else (source,)).run(args.views, source, trigger=trigger, lateness=lateness, ts=ts,
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
    return api.kafka_source(args.kafka_bootstrap, args.topic, args.starting_offsets, tuple(options))


def register(args) -> int:
    graphs = {}
    for given in args.graph:
        iri, sep, file = given.partition("=")
        if not sep or not iri or not file:
            raise UsageError(f"--graph {given}: give IRI=FILE, e.g. --graph http://example.org/shops=shops.ttl")
        graphs[iri] = file
    report = _lakehouse(args).register(args.file, name=args.name, graphs=graphs)
    print(f"query {report.name}: {report.outcome}")
    for window, view, outcome in report.views:
        print(f"  window {window}: view {view} ({outcome})")
    return 0


def slide(args) -> int:
    until = _time(args.until) if args.until else None
    lake = _lakehouse(args, defer=True)
    if args.view in lake.rspql_queries() and args.view not in lake.home.view_names():
        return _advance(lake, args.view, until)
    with progress_bar(f"slide {args.view}", " closes", quiet=args.quiet) as progress:
        done = lake.slide(args.view, until, progress=progress)
    if done:
        print(show.HISTORY_HEADER)
    for r in done:
        print(show.history_line(r))
    if not done:
        print("no close to process")
    return 0


def _advance(lake, name: str, until) -> int:
    done = lake.advance(name, until)
    if done:
        print(show.EVALUATED_HEADER)
    for e in done:
        print(show.evaluated_line(e))
    if not done:
        print(f"query {name}: no evaluation time to process")
    return 0


def rebuild(args) -> int:
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
    print(show.HISTORY_HEADER)
    print(show.history_line(record))
    return 0


def repair(args) -> int:
    with progress_bar(f"repair {args.view}", " steps", quiet=args.quiet) as progress:
        record, n = _lakehouse(args).repair(args.view, progress=progress)
    if record is None:
        print(f"view {args.view}: nothing to repair, the window is consistent under its repairs")
    else:
        print(f"view {args.view}: removed {n} item(s) at {format_time(record.close)}")
        print(show.history_line(record))
    return 0


def history(args) -> int:
    if args.plot:
        return _plot_history(args)
    lake = _lakehouse(args, defer=True)
    rows = lake.history(args.view)
    readable = lake.readable_versions(args.view) if rows else None
    counted = lake.query_rows(args.view) if rows else {}
    print(show.HISTORY_HEADER + show.query_header(counted))
    for r in rows:
        gone = readable is not None and r.version not in readable
        print(show.history_line(r) + show.query_counts(counted, r.close)
              + ("  (vacuumed: no longer readable)" if gone else "") + show.expectation_note(r))
    return 0


def _plot_history(args) -> int:
    image_format(args.plot)  # a folder that is not there is answered before Spark starts
    rows = _lakehouse(args, defer=True).history(args.view)
    plot(args.view, rows, args.plot)
    print(f"wrote a plot of {len(rows)} close(s) of view {args.view} to {args.plot}")
    return 0


def vacuum(args) -> int:
    retain = api.parse_retention(args.retain, what="--retain") if args.retain is not None else None
    for done in _lakehouse(args).vacuum(args.views, retain_ms=retain):
        default = retain is None and done.retain_ms == api.default_retain_ms()
        kept = (api.RETAIN_ZERO if done.retain_ms == 0 else
                f"closes stay readable for {show.duration(done.retain_ms)}" + (" (Delta's default)" if default else ""))
        print(f"view {done.view}: vacuumed {done.tables} table(s); {kept}")
    return 0


def validate(args) -> int:
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


def changes(args) -> int:
    after = parse_time(args.after, what="--from") if args.after else None
    upto = parse_time(args.upto, what="--to") if args.upto else None
    at = None
    for ms, op, subject, predicate, obj, inferred in _lakehouse(args, defer=True).change_rows(args.view, after=after, upto=upto):
        close = format_time(ms)
        if args.format == "nt":
            if close != at:
                print(f"# close {close}")
                at = close
            print(f"{op} {subject} {predicate} {obj} .")
        elif args.format == "json":
            print(json.dumps({"close": close, "op": op, "subject": subject, "predicate": predicate,
                              "object": obj, "inferred": inferred}, ensure_ascii=False))
        else:
            if at is None:
                print("close,op,subject,predicate,object,inferred")
                at = close
            cells = [close, op, subject, predicate, obj, str(inferred).lower()]
            print(",".join('"' + c.replace('"', '""') + '"' if any(x in c for x in ',"\n') else c for c in cells))
    return 0


def explain(args) -> int:
    if args.why is not None:
        return _explain_why(args)
    if args.close or args.format != "text":
        raise UsageError("--close and --format go with --why; --removed searches every close")
    api.parse_triple(args.removed)  # a malformed triple is answered before Spark starts
    lake = _lakehouse(args)
    found = lake.explain_removed(args.view, args.removed)
    for r in found:
        print(f"{r.removed.triple} asserted at {format_time(r.removed.ts)} was removed at close "
              f"{format_time(r.close)} (Delta version {r.version}, {r.mode}) by {r.rule}; "
              f"it stays removed until {format_time(r.expires)}")
        print("  conflict set:")
        for t in r.conflict:
            print(f"    {t.triple}  ({show.at(t.ts)})")
        print("  newer facts that won:" if r.winners else "  newer facts that won: none (a tie: every oldest member goes)")
        for t in r.winners:
            print(f"    {t.triple}  ({show.at(t.ts)})")
    print(show.presence_line(lake.explain_presence(args.view, args.removed), args.view, bool(found)))
    return 0


def _explain_why(args) -> int:
    triple = api.parse_triple(args.why, "--why")  # a malformed triple is answered before Spark starts
    close = _time(args.close) if args.close else None
    root, at, terms = _lakehouse(args, defer=True).explain_why(args.view, " ".join(triple), close=close)
    tree = api.derivation_tree(root, terms)
    if args.format == "json":
        print(json.dumps(tree))
        return 0
    print(f"why {tree['triple']} is in view {args.view} at close {format_time(at)}:")
    for line in show.derivation_lines(tree, "  ", set()):
        print(line)
    return 0


def rules(args) -> int:
    if api.is_view_file(args.view):  # compiled without a home or Spark
        decl, program = api.view_rules(args.view)
    else:
        decl, program = _lakehouse(args, defer=True).rules(args.view)
    equality = "unique names" if decl.unique_names else "standard equality (owl:sameAs)"
    print(f"view {decl.name}: profile {decl.profile}"
          + (f", {equality}" if decl.profile == "owl2rl" else ""))
    print("active rules (rule id, shape, TBox instantiations):")
    negative = {j.rule for j in program.negative()}
    for rule, n in program.active_rules().items():
        shape = "violation" if rule in negative else api.rule_shape(rule)
        print(f"  {rule:<14} {shape:<11} {n:>7}")
    print(f"ignored axioms: {len(program.ignored)}")
    for axiom, reason in program.ignored:
        print(f"  {axiom}  # {reason}")
    if program.notes:
        print(f"axioms that entail less than they may seem to: {len(program.notes)}")
        for axiom, note in program.notes:
            print(f"  {axiom}  # {note}")
    if decl.repair != "none":
        depth = f", recursive ones to depth {decl.repair_depth}" if decl.repair_depth else ""
        print(f"repair {decl.repair}: conflict patterns over explicit assertions{depth}:")
        for rule, n in api.repair_patterns(decl, program).items():
            print(f"  {rule:<14} {n:>7}")
    return 0


def violations(args) -> int:
    close = _time(args.close) if args.close else None
    found, at = _lakehouse(args, defer=True).violation_rows(args.view, close=close)
    if args.format == "json":
        for r in found:
            print(json.dumps({
                "rule": r.rule, "since": show.plain(r.since), "bindings": r.bindings or {},
                "triples": [{"triple": t.triple, "origin": show.plain(t.origin)} for t in r.triples],
            }))
        return 0
    when = format_time(at) if at is not None else "no close processed yet"
    status = "consistent" if not found else f"inconsistent: {len(found)} violation(s)"
    print(f"view {args.view} at {when}: {status}")
    for r in found:
        binds = ", ".join(f"{k}={v}" for k, v in sorted((r.bindings or {}).items()))
        print(f"{r.rule}  since {show.plain(r.since)}  {binds}")
        for t in r.triples:
            print(f"    {t.triple}  (origin {show.plain(t.origin)})")
    return 0


def export(args) -> int:
    close = _time(args.close) if args.close else None
    if args.output and Path(args.output).is_dir():
        raise UsageError(f"-o {args.output}: is a folder; give a file name, e.g. {Path(args.output) / args.view}.nt")
    if args.output and not Path(args.output).resolve().parent.is_dir():
        raise UsageError(f"-o {args.output}: the folder {Path(args.output).resolve().parent} does not exist; "
                         "create it first")
    lines = _lakehouse(args, defer=True).export(args.view, close=close, version=args.version)
    if not args.output:
        for line in lines:
            sys.stdout.write(line + "\n")
        return 0
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
    return 0


def sql(args) -> int:
    columns, rows = _lakehouse(args, defer=True).sql_rows(args.query)
    if args.format == "json":
        for row in rows:
            print(json.dumps({k: show.plain(v) for k, v in row.asDict().items()}))
    elif args.format == "csv":
        writer = csv.writer(sys.stdout)
        writer.writerow(columns)
        for row in rows:
            writer.writerow([show.cell(v) for v in row])
    else:
        cells = [[show.cell(v) for v in row] for row in rows]
        widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
        print(" | ".join(c.ljust(w) for c, w in zip(columns, widths)))
        print("-+-".join("-" * w for w in widths))
        for r in cells:
            print(" | ".join(v.ljust(w) for v, w in zip(r, widths)))
        print(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    return 0


def query(args) -> int:
    # imported when called: it loads polars, rdflib
    from reasonlake.query.results import write

    text = args.query
    if text.endswith((".rq", ".sparql")) or (Path(text).is_file() and "{" not in text):
        if not Path(text).is_file():
            raise UsageError(f"{text}: no such query file; give the query's text or a file holding it")
        text = Path(text).read_text(encoding="utf-8")
    close = _time(args.close) if args.close else None
    answer = _lakehouse(args, defer=True).query(args.view, text, close=close, version=args.version,
                                                max_rows=args.max_rows, max_mb=args.max_mb)
    sys.stdout.write(write(answer, args.format))
    return 0


def server(args) -> int:
    if args.idle is not None and args.action != "start":
        raise UsageError("--idle goes with `server start`")
    idle = api.parse_duration(args.idle, what="--idle") / 1000 if args.idle is not None else None
    lake = Lakehouse(args.home)
    if args.action == "start":
        found, started = lake.start_server(port=args.port, idle=idle)
        until = (f"until {found.idle:.0f} s pass without one or `reasonlake server stop`" if found.idle
                 else "until `reasonlake server stop`")
        print(f"{'started' if started else 'already running'}: {found.url} (pid {found.pid}); "
              f"commands on this home use it {until}")
    elif args.action == "stop":
        found = lake.stop_server()
        print(f"stopped (pid {found.pid})" if found else "no server was running")
    else:
        found = lake.server()
        if found:
            print(f"running: {found.url} (pid {found.pid}, since {format_time(int(found.started * 1000))})")
            return 0
        stuck = lake.server_unanswering()
        if stuck:
            print(f"not answering: pid {stuck.pid} is alive but nothing answers on {stuck.url}; "
                  "`reasonlake server stop` ends it")
            return 3
        print("not running")
        return 3
    return 0


# The verbs, by the name the parser gives them (``args.command``)
VERBS = {
    "init": init, "view": view, "register": register, "ingest": ingest, "run": run, "slide": slide, "rebuild": rebuild,
    "repair": repair, "history": history, "vacuum": vacuum, "validate": validate, "changes": changes,
    "explain": explain, "rules": rules, "violations": violations, "export": export, "sql": sql,
    "query": query,
    "server": server,
}
