"""Expectations on a published close, run by great-expectations (in the driver with pandas
when the view fits, else on the executors).

Two kinds of suite run on the version a close published:
- the built-in suite, on the materialization's id rows: what the engine guarantees (every
  fact's origin inside the window, its expiration pane consistent with origin and width,
  no duplicate triple, no literal subject, every explicit fact an item of the window, and,
  when the view sets ``max_violations``, the violations live at the close within it);
- the user's suites (``declare.expectations``), on the view's decoded columns or on a SQL
  query over them.

Every result is a row of the ``expectations`` table (``rl_expectations``): close, version,
suite, expectation, success, observed value and a few unexpected rows. great-expectations is
imported here only, so a command that runs no suite never pays its import.
"""
from __future__ import annotations

import json
import logging
import sys
from dataclasses import dataclass

import polars as pl
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from reasonlake.declare.expectations import UserExpectation, build
from reasonlake.declare.view import ViewDecl
from reasonlake.engine.process.timing import step
from reasonlake.engine.steps import builtin_suite
from reasonlake.engine.store import table_writes, view_decoding
from reasonlake.engine.store import violations_table as violations
from reasonlake.engine.store.home import Home
from reasonlake.engine.store.schemas import EXPECTATION_SCHEMA
from reasonlake.errors import ExpectationFailedError
from reasonlake.plan.durations import format_time
from reasonlake.plan.windows import NEVER

BUILTIN = "builtin"
TRIPLE = ("subject", "predicate", "object")
EXAMPLES = builtin_suite.EXAMPLES  # unexpected rows kept per failed expectation


@dataclass(frozen=True)
class Result:
    suite: str
    expectation: str
    kwargs: str
    success: bool
    observed: str | None
    unexpected: str | None  # JSON list of a few unexpected values or rows


@dataclass(frozen=True)
class Outcome:
    view: str
    close: int
    version: int
    results: tuple[Result, ...]

    @property
    def failed(self) -> list[Result]:
        return [r for r in self.results if not r.success]

    def report(self) -> str:
        """The failed expectations, each with what was observed and a few unexpected rows."""
        lines = [f"{len(self.failed)} of {len(self.results)} expectation(s) failed on view '{self.view}' at close "
                 f"{format_time(self.close)} (version {self.version}):"]
        for r in self.failed:
            lines.append(f"  {r.suite}: {r.expectation} {r.kwargs}")
            if r.observed is not None:
                lines.append(f"    observed: {r.observed}")
            for row in json.loads(r.unexpected or "[]"):
                lines.append(f"    unexpected: {json.dumps(row, default=str)}")
        return "\n".join(lines)


def enabled(decl: ViewDecl) -> bool:
    """Suites run after every close only for views that declare expectations: a suite is a
    few Spark jobs, seconds on a close that otherwise takes one (decision 0020)."""
    return decl.expectations is not None


def after_close(home: Home, decl: ViewDecl, close: int, version: int, events_seq: int) -> Outcome | None:
    """The suites on a close just published (None: the view declares no expectations)."""
    if not enabled(decl):
        return None
    with step("expectations"):
        return check(home, decl, close, version, events_seq, run="close")


def record_fields(decl: ViewDecl, outcome: Outcome | None) -> dict:
    """The close record's expectation fields."""
    if outcome is None:
        return {}
    failed = len(outcome.failed)
    return {"expectation_failures": failed, "withheld": failed > 0 and decl.expectations.on_failure == "fail"}


def act(decl: ViewDecl, outcome: Outcome | None) -> None:
    """After the close is recorded: a failure warns, or (on_failure: fail) stops the job."""
    if outcome is None or not outcome.failed:
        return
    if decl.expectations.on_failure == "fail":
        raise ExpectationFailedError(
            f"{outcome.report()}\nthe close is withheld: readers keep the last close that passed until a later "
            f"one passes (the next slide goes on after this one); inspect it with `reasonlake export {decl.name} "
            f"--version {outcome.version}` or `reasonlake validate {decl.name} --version {outcome.version}`")

    print(f"reasonlake: warning: {outcome.report()}", file=sys.stderr)


def check(home: Home, decl: ViewDecl, close: int, version: int, events_seq: int, *, run: str,
          docs: str | None = None, violations_version: int | None = None) -> Outcome:
    """Run every suite of the view on ``version`` (which holds ``close``) and record the
    results; with ``docs``, great-expectations' data docs (HTML) are written to that folder.
    ``violations_version``: the violations table's version holding ``close`` (None: the latest)."""
    results = None
    if docs is None and not _user_suites(decl):
        # the built-in suite alone: read and checked in the driver where the home allows,
        # without great-expectations (its import alone takes seconds) or a Spark job
        with step("expectations: in the driver"):
            results = _builtin_in_driver(home, decl, close, version, events_seq, violations_version)
    if results is None:
        results = _with_great_expectations(home, decl, close, version, events_seq, docs, violations_version)
    outcome = Outcome(decl.name, close, version, tuple(results))
    with step("expectations: record"):
        _record(home, outcome, run)
    return outcome


def _user_suites(decl: ViewDecl) -> bool:
    return decl.expectations is not None and bool(decl.expectations.suites)


def _max_violations(decl: ViewDecl) -> int | None:
    return decl.expectations.max_violations if decl.expectations is not None else None


def _builtin_in_driver(home: Home, decl: ViewDecl, close: int, version: int, events_seq: int,
                       violations_version: int | None) -> list[Result] | None:
    """The built-in suite by Polars on the version read by delta-rs (``builtin_suite``);
    None where Spark must read it."""
    frame = _joined_in_driver(home, decl, close, version, events_seq)
    if frame is None:
        return None
    results = [Result(BUILTIN, *checked) for checked in builtin_suite.evaluate(frame, decl.window, close)]
    bound = _max_violations(decl)
    if bound is not None:

        count = violations.count_live(home, decl.name, close, violations_version) if _has_violations(home, decl.name) \
            else 0
        results.append(Result(BUILTIN, *builtin_suite.evaluate_violations(count, bound)))
    return results


def _joined_in_driver(home: Home, decl: ViewDecl, close: int, version: int, events_seq: int) -> pl.DataFrame | None:
    """``_joined``'s rows read by delta-rs in this process (DataFusion), None where the
    version is Spark's to read (a suite then runs over it on pandas or Spark)."""
    # imported when called: it loads pyarrow
    from reasonlake.engine.store import driver_reads

    found = driver_reads.here(home.spark, *_joined(home, decl, close, version, events_seq))
    return None if found is None else pl.from_arrow(found)


def _joined(home: Home, decl: ViewDecl, close: int, version: int, events_seq: int):
    """The tables and the SQL (one description, rendered for each dialect) of the view's
    rows at ``version`` decoded, with what the built-in checks look at, each a column: the
    expiration pane the origin implies, the subject's text when it is a literal, and an
    explicit fact's ids when no stream item of the window has that triple at that time (null
    when all is well, so a failed check lists the offending values)."""
    # imported when called: it loads pyarrow
    from reasonlake.engine.steps.admit import stream_literal

    window = decl.window
    tables = {"mat": (home.mat_path(decl.name), version), "terms": (home.path("terms"), None),
              "events": (home.path("events"), None)}

    def render(dialect: view_decoding.Dialect) -> str:
        return (
            "SELECT m.s, m.p, m.o, t_s.term AS subject, t_p.term AS predicate, t_o.term AS object, m.origin, m.rule, "
            f"m.exp_pane, {view_decoding.expiration_pane(window, 'm.origin')} AS expected_pane, "
            f"CASE WHEN {dialect.starts_with}(t_s.term, '\"') THEN t_s.term END AS literal_subject, "
            f"CASE WHEN m.rule = 'explicit' AND m.origin < {NEVER} AND i.s_id IS NULL THEN concat_ws(' ', "
            "CAST(m.s AS STRING), CAST(m.p AS STRING), CAST(m.o AS STRING), CAST(m.origin AS STRING)) "
            "END AS explicit_not_an_item "
            f"FROM {{mat}} m {view_decoding.term_joins('{terms}', alias='t_')} "
            "LEFT JOIN (SELECT DISTINCT s_id, p_id, o_id, ts FROM {events} "
            f"WHERE stream = {stream_literal(decl.stream)} AND ts > {int(window.opens(close))} "
            f"AND ts <= {int(close)} AND ingest_seq <= {int(events_seq)}) i "
            "ON i.s_id = m.s AND i.p_id = m.p AND i.o_id = m.o AND i.ts = m.origin"
        )

    return tables, render


def _with_great_expectations(home: Home, decl: ViewDecl, close: int, version: int, events_seq: int,
                             docs: str | None, violations_version: int | None) -> list[Result]:
    # imported when called: it loads pyarrow
    from reasonlake.engine.store import driver_reads

    with step("expectations: read"):
        # one read of the version, its terms and the window's items, shared by every suite
        joined = driver_reads.frame(home.spark, *_joined(home, decl, close, version, events_seq)).localCheckpoint()
        # counted once: every frame the suites read is this one or a query over it
        run_on = _Runner("pandas" if joined.count() <= DRIVER_ROWS else "spark", docs)
    with step("expectations: built-in"):
        results = list(_builtin(home, decl, close, joined, run_on, violations_version))
    if _user_suites(decl):
        with step("expectations: user suites"):
            results += _user(home, decl, close, joined, run_on)
    return results


def _builtin(home: Home, decl: ViewDecl, close: int, joined: DataFrame, run_on: "_Runner",
             violations_version: int | None):
    frame = joined.select("s", "p", "o", *TRIPLE, "origin", "rule", "exp_pane", "expected_pane", "literal_subject",
                          "explicit_not_an_item")
    yield from run_on.validate(f"{decl.name}_builtin", frame, builtin_suite.gx_checks(decl.window, close), BUILTIN)
    bound = _max_violations(decl)
    if bound is not None:

        live = violations.live(home, decl.name, close, violations_version) if _has_violations(home, decl.name) \
            else home.spark.createDataFrame([], "key STRING")
        yield from run_on.validate(f"{decl.name}_violations", live.select("key"),
                                   [builtin_suite.gx_violations_check(bound)], BUILTIN)


def _has_violations(home: Home, view: str) -> bool:
    return violations.exists(home, view)


def _user(home: Home, decl: ViewDecl, close: int, joined: DataFrame, run_on: "_Runner") -> list[Result]:
    # imported when called: it loads pyarrow, xxhash
    from reasonlake.engine.reads.read import reader_columns

    content = reader_columns(joined.where(F.col("origin") > decl.window.opens(close)), decl.window)
    name = f"_rl_expect_{decl.name}"
    content.createOrReplaceTempView(name)
    out: list[Result] = []
    for suite in decl.expectations.suites:
        by_query: dict[str | None, list[UserExpectation]] = {}
        for e in suite.expectations:
            by_query.setdefault(e.query, []).append(e)
        for n, (query, entries) in enumerate(by_query.items()):
            frame = content if query is None else home.spark.sql(query.replace("{view}", name))
            out += run_on.validate(f"{decl.name}_{suite.name}_{n}", frame,
                             [build(e) for e in entries], suite.name, labels=[e.label for e in entries])
    return out


_CONTEXT = {}
# A frame of at most this many rows is validated in the driver (pandas): a suite there takes
# a fraction of a second, against a Spark job per metric (about 20 a suite, 2 s on a small
# table); a larger one is validated on the executors.
DRIVER_ROWS = 2_000_000


def _context():
    """One ephemeral great-expectations context per process, its progress bars off (they
    would write to the terminal in the middle of a command's output)."""
    if "gx" not in _CONTEXT:

        # imported when called: it loads great_expectations
        import great_expectations as gx
        from great_expectations.data_context.types.base import ProgressBarsConfig

        logging.getLogger("great_expectations").setLevel(logging.ERROR)
        context = gx.get_context(mode="ephemeral")
        context.variables.progress_bars = ProgressBarsConfig(globally=False, metric_calculations=False)
        _CONTEXT["gx"] = context
        _CONTEXT["pandas"] = context.data_sources.add_pandas(name="reasonlake_driver")
        _CONTEXT["spark"] = context.data_sources.add_spark(name="reasonlake_spark")
    return _CONTEXT["gx"]


@dataclass(frozen=True)
class _Runner:
    """Where a check's frames are validated (``pandas`` in the driver, or ``spark``) and
    whether data docs are written (``docs``: their folder)."""
    engine: str
    docs: str | None

    def validate(self, asset_name: str, frame: DataFrame, checks: list, suite: str,
                 labels: list[str] | None = None) -> list[Result]:
        # imported when called: it loads great_expectations
        import great_expectations as gx

        context = _context()
        for check, label in zip(checks, labels or []):  # results come back in another order
            check.meta = {**(check.meta or {}), "label": label}
        data = frame
        if self.engine == "pandas":
            with step("expectations: to the driver"):
                data = frame.toPandas()
        source = _CONTEXT[self.engine]
        try:
            asset = source.get_asset(asset_name)
        except LookupError:
            asset = source.add_dataframe_asset(name=asset_name)
        try:
            batch_definition = asset.get_batch_definition("whole")
        except (KeyError, LookupError):
            batch_definition = asset.add_batch_definition_whole_dataframe("whole")
        gx_suite = context.suites.add_or_update(
            gx.ExpectationSuite(name=f"{asset_name}_{self.engine}", expectations=checks))
        result_format = {"result_format": "SUMMARY", "partial_unexpected_count": EXAMPLES}
        if self.engine == "pandas" and set(TRIPLE) <= set(data.columns):  # a failure shows triples (and ids)
            result_format["unexpected_index_column_names"] = [c for c in ("s", "p", "o", *TRIPLE)
                                                              if c in data.columns]
        if self.docs is None:
            with step("expectations: validate"):
                batch = batch_definition.get_batch(batch_parameters={"dataframe": data})
                validation = batch.validate(gx_suite, result_format=result_format)
        else:
            validation = _validate_with_docs(context, asset_name, batch_definition, gx_suite, data,
                                             result_format, self.docs)
        results = []
        for r in validation.results:
            config = r.expectation_config
            label = (config.meta or {}).get("label") or (
                f"{config.type} ({config.description})" if config.description else config.type)
            kwargs = {k: v for k, v in config.kwargs.items() if k not in ("batch_id", "condition_parser")}
            results.append(Result(suite, label, json.dumps(kwargs, default=str, sort_keys=True), bool(r.success),
                                  _observed(r.result), _unexpected(r.result)))
        return results


def _validate_with_docs(context, name: str, batch_definition, suite, frame, result_format, docs: str):
    """A checkpoint run: the results are kept in the context's store and rendered to HTML."""
    # imported when called: it loads great_expectations
    import great_expectations as gx
    from great_expectations.checkpoint import UpdateDataDocsAction

    site = {"class_name": "SiteBuilder", "site_index_builder": {"class_name": "DefaultSiteIndexBuilder"},
            "store_backend": {"class_name": "TupleFilesystemStoreBackend", "base_directory": docs}}
    sites = context.get_config().data_docs_sites or {}
    (context.update_data_docs_site if "reasonlake" in sites else context.add_data_docs_site)("reasonlake", site)
    definition = context.validation_definitions.add_or_update(
        gx.ValidationDefinition(name=name, data=batch_definition, suite=suite))
    checkpoint = context.checkpoints.add_or_update(gx.Checkpoint(
        name=name, validation_definitions=[definition], result_format=result_format,
        actions=[UpdateDataDocsAction(name="docs", site_names=["reasonlake"])]))
    run = checkpoint.run(batch_parameters={"dataframe": frame})
    return next(iter(run.run_results.values()))


def _observed(result: dict) -> str | None:
    if "observed_value" in result and result["observed_value"] is not None:
        return json.dumps(result["observed_value"], default=_plain)
    if result.get("unexpected_count") is not None:
        return f"{result['unexpected_count']} unexpected of {result.get('element_count')}"
    return None


def _unexpected(result: dict) -> str | None:
    rows = result.get("partial_unexpected_index_list") or result.get("partial_unexpected_list")
    if not rows:
        return None
    return json.dumps(list(rows)[:EXAMPLES], default=_plain)


def _plain(value):
    """JSON for what pandas hands back: numpy scalars as numbers, the rest as text."""
    return value.item() if hasattr(value, "item") else str(value)


def _record(home: Home, outcome: Outcome, run: str) -> None:
    rows = [(outcome.view, outcome.close, outcome.version, run, r.suite, r.expectation, r.kwargs, r.success,
             r.observed, r.unexpected) for r in outcome.results]

    table_writes.append_rows(home.spark, home.path("expectations"), rows, EXPECTATION_SCHEMA)
