#!/usr/bin/env python3
"""Mutation check of the oracle tests: does each planted one-line bug make a test fail?

Each mutant below changes one line of the engine (a window bound, an expiry comparison, a
rule's head or join, the origin a renewal keeps, who loses a repair, a term's id, the
MERGE of a close, the change feed) or of its queries (the planner, either dialect, Spark's
conditions, aggregates, paths, event operators, registered queries, the readable copy) into
a plausible bug. For each, the repository is copied to a scratch folder, the line is
changed there, and the oracle tests are run on the copy: first the tests most likely to
fail on that bug (the mutant's ``tests``), then, if they all pass, the rest of its
``fallback`` (the default oracle subset, ``ORACLE_SUBSET``, or the query tests,
``QUERY_SUBSET``). A mutant no test kills is a hole in the tests (or a mutant that changes
nothing a user can see: see docs/testing-mutants.md).

Run from the repository (the venv's python is reused for the scratch copies):

    .venv/bin/python scripts/mutants.py --list           # the table; checks every snippet, runs no test
    .venv/bin/python scripts/mutants.py                  # every mutant, one after the other
    .venv/bin/python scripts/mutants.py --only window-opens-late,repair-newest-loses
    .venv/bin/python scripts/mutants.py --timeout 1800 --no-fallback --keep --baseline

Every test run is niced (``--nice``, 10 by default: the suite takes both cores of a small
machine for minutes). Prints a table (id, area, file:line, the test that killed the mutant
or SURVIVED, seconds) and exits 1 when a mutant survived or timed out, 2 when a mutant
could not be applied (its original text is not in its file exactly once) or its run broke
before any test ran.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PYTHON = REPO / ".venv" / "bin" / "python"

# Test ids, as pytest names them (parameters included).
VIEWS = "tests/engine/test_views_match_owlrl.py"
V_RDFS = f"{VIEWS}::test_driver_views_equal_owlrl_with_origins[rdfs]"
V_PLUS = f"{VIEWS}::test_driver_views_equal_owlrl_with_origins[rdfs-plus-deep-hierarchies-as-jumps]"
V_UNA = f"{VIEWS}::test_driver_owl2rl_views_equal_owlrl_and_flag_violations[unique-names]"
V_EQ = f"{VIEWS}::test_driver_owl2rl_views_equal_owlrl_and_flag_violations[standard-equality]"
V_SPARK = f"{VIEWS}::test_spark_path_owl2rl_equals_owlrl_and_flags_violations"
REPAIR = "tests/engine/test_repair_matches_definition7.py"
R_DRIVER = f"{REPAIR}::test_newest_wins_equals_window_repair_and_owlrl_closure[driver]"
IMARS = "tests/cli/test_imars_example.py"
RULES = "tests/engine/reason/test_owl2rl_rules.py"
CHANGES = "tests/cli/test_changes.py"
PANE_FORMULA = "tests/declare/test_windows_and_times.py::test_the_expiration_pane_is_one_formula_in_every_engine"
PANED = "tests/engine/reason/test_paned_facts.py"
TERM_IDS = "tests/engine/store/test_term_ids.py"
SPARQL = "tests/query/test_matches_rdflib.py"
SPARQL_VIEWS = "tests/query/test_views_both_backends.py"
SPARQL_CARRIED = "tests/query/test_registered_queries_carried.py"
SPARQL_SPARK = "tests/query/dialects/test_spark_backend.py"
ORDERED_SPARK = f"{SPARQL_SPARK}::test_ordered_and_sliced_queries_give_the_drivers_rows_in_its_order"
RESULTS = "tests/query/test_results_and_errors.py"
PUSHED = "tests/query/test_filter_pushed_down.py"
NAMED_GRAPHS = "tests/query/test_named_graphs.py"
OVER_OPTIONAL = "tests/query/test_filter_over_optional.py"
SEEDED = "tests/query/test_optional_side_seeded.py"
OUTER = "tests/query/test_optional_as_outer_join.py"
HELD = "tests/query/dialects/test_spark_held_counts.py"
CONDITIONS = "tests/query/dialects/test_spark_conditions.py"
COUNTED = "tests/query/dialects/test_spark_counted_groups.py"
EVENTS = "tests/query/test_event_operators.py"
STREAMS = "tests/query/test_registered_queries.py::test_istream_and_dstream_are_the_differences_of_consecutive_rstreams"
READABLE = "tests/engine/store/test_readable_copy.py"
DRIVER_READS = "tests/engine/store/test_driver_reads.py"
CONFORMANCE = "tests/query/dialects/test_conformance.py"
RSPQL = "tests/rspql/test_registered_rspql.py"
RSPQL_GENERATED = "tests/rspql/test_generated_rspql.py"
RSEP = "tests/rspql/test_event_patterns.py"
RSEP_GENERATED = f"{RSEP}::test_generated_event_patterns_answer_as_the_oracle_at_every_evaluation_time"
INTERVALS = "tests/query/test_derived_event_intervals.py"
MINIMAL_SPANS = f"{INTERVALS}::test_derived_intervals_are_the_minimal_spans_whose_items_entail_the_fact"
ORDER_UNBOUND = "tests/query/test_order_by_puts_unbound_first.py"
AGG_UNBOUND = "tests/query/test_aggregates_of_groups_with_unbound_values.py"

# The default-run tests that compare the engine with an oracle: owlrl's closure and IMaRS
# origins (views), Definition 7 (repair), the paper's example and the window edges (CLI),
# each OWL 2 RL rule on its own cases, and `changes` against consecutive exports. Slow
# tests are left out (``-m "not slow"``): a mutant's run is to take minutes, not an hour.
ORACLE_SUBSET = (VIEWS, REPAIR, IMARS, RULES, CHANGES)
# The fallback of a query-side mutant: the engine's oracles never run a SPARQL query, the
# default run of tests/query does (rdflib's answers, both backends, the registered queries).
QUERY_SUBSET = ("tests/query",)

# Environment the suite's behaviour depends on: a CI deadline would skip tests (a skip is
# no kill), required oracles would fail a partial run, a remote Spark would run the server's
# code instead of the mutated copy, and a forced driver budget would take one path away.
DROPPED_ENV = ("REASONLAKE_TEST_DEADLINE", "REASONLAKE_ORACLES_REQUIRED", "SPARK_REMOTE", "REASONLAKE_HOME",
               "REASONLAKE_LOCAL_ROWS", "REASONLAKE_DRIVER_BUDGET", "REASONLAKE_SATURATE_PAIRS",
               "REASONLAKE_ARROW_COMMIT", "PYTHONPATH")


@dataclass(frozen=True)
class Mutant:
    id: str
    area: str
    file: str  # relative to the repository
    original: str  # one line or part of one, found exactly once in ``file``
    replacement: str
    breaks: str  # what the bug does to a user
    tests: tuple[str, ...]  # run first: the tests most likely to fail on it
    fallback: tuple[str, ...] = ORACLE_SUBSET  # run after, when those all pass


MUTANTS: tuple[Mutant, ...] = (
    # --- windows -------------------------------------------------------------------------
    Mutant("window-opens-late", "windows", "src/reasonlake/plan/windows.py",
           " else close - self.width\n", " else close - self.width + 1\n",
           "the window opens one millisecond late: an item 1 ms after the opening is left out, "
           "with what it derives",
           (f"{IMARS}::test_window_edges_to_the_millisecond",)),
    # the expiration pane is one SQL text (view_decoding.expiration_pane) that Spark, the
    # driver (pl.sql_expr) and `changes` render: the first mutant rounds it down everywhere,
    # the second in the driver's rendering alone
    Mutant("window-pane-rounds-down", "windows", "src/reasonlake/engine/store/view_decoding.py",
           'f"CAST(CEIL(CAST({origin} - {int(window.start)} AS DOUBLE)',
           'f"CAST(FLOOR(CAST({origin} - {int(window.start)} AS DOUBLE)',
           "a fact whose time falls inside a pane is filed one pane early (exp_pane, on Spark, "
           "in the driver and in `changes`): it leaves the table a slide before it leaves the window",
           (PANE_FORMULA, V_UNA, V_SPARK)),
    Mutant("window-driver-pane-rounds-down", "windows", "src/reasonlake/engine/store/materialization.py",
           "    return pl.sql_expr(view_decoding.expiration_pane(window, origin))\n",
           '    return pl.sql_expr(view_decoding.expiration_pane(window, origin).replace("CEIL(", "FLOOR("))\n',
           "a driver close files a fact whose time falls inside a pane one pane early: it leaves "
           "the table a slide before it leaves the window",
           (PANE_FORMULA, V_UNA, V_RDFS)),
    # --- expiry --------------------------------------------------------------------------
    Mutant("expiry-resident-keeps-opening", "expiry", "src/reasonlake/engine/reason/paned_facts.py",
           "kept = {pane: frame for pane, frame in self.frames.items() if pane > upto}",
           "kept = {pane: frame for pane, frame in self.frames.items() if pane >= upto}",
           "the driver keeps the pane that expires at the close (facts whose origin is at the "
           "window's opening or before): they leave one close late, and the table holds expired rows",
           (V_RDFS, PANED)),
    Mutant("expiry-partition-drop-late", "expiry", "src/reasonlake/engine/store/materialization.py",
           'f"exp_pane <= {int(close)}"', 'f"exp_pane < {int(close)}"',
           "a Spark close drops the partitions expiring before the close but not the one "
           "expiring at it: the table holds expired rows",
           (V_SPARK,)),
    # --- renewal (IMaRS origins) ---------------------------------------------------------
    Mutant("renewal-keeps-oldest-origin", "renewal", "src/reasonlake/engine/reason/driver_rules.py",
           'pl.col("origin").max(), pl.col("rule").sort_by(["origin", explicit, "rule"]).last())',
           'pl.col("origin").min(), pl.col("rule").sort_by(["origin", explicit, "rule"]).last())',
           "a fact derived (or stated) several ways keeps its oldest origin, not its newest: "
           "renewals are lost and facts expire early",
           (V_RDFS, RULES)),
    Mutant("renewal-join-origin-is-max", "renewal", "src/reasonlake/engine/reason/driver_rules.py",
           "probe_joins: bool = False, combine=pl.min_horizontal) -> pl.LazyFrame:",
           "probe_joins: bool = False, combine=pl.max_horizontal) -> pl.LazyFrame:",
           "a multi-premise derivation takes the newest premise's time, not the oldest: it "
           "outlives the premise that expires first",
           (f"{RULES}::test_cls_svf1", V_UNA)),
    Mutant("renewal-old-pane-not-rewritten", "renewal", "src/reasonlake/engine/reason/paned_facts.py",
           'leaving = renewed.select(*KEY, pane_of("prev_origin").alias(PANE))',
           'leaving = renewed.select(*KEY, pane_of("origin").alias(PANE))',
           "the pane a renewed fact leaves is computed from its new origin: the old row is "
           "never rewritten, the view holds the fact twice",
           (V_RDFS, PANED)),
    # --- rules: RDFS ---------------------------------------------------------------------
    Mutant("rdfs-subclass-types-the-class", "rule: rdfs subclass", "src/reasonlake/compile/program.py",
           "linear.append(LinearRule(rule, TYPE, c, FROM_SUBJECT, TYPE, d))",
           "linear.append(LinearRule(rule, TYPE, c, FROM_OBJECT, TYPE, d))",
           "x a C, C ⊑ D gives C a D instead of x a D",
           (V_RDFS,)),
    Mutant("rdfs-subproperty-reversed", "rule: rdfs subproperty", "src/reasonlake/compile/program.py",
           "linear.append(LinearRule(rule, p, None, FROM_SUBJECT, q, FROM_OBJECT))",
           "linear.append(LinearRule(rule, p, None, FROM_OBJECT, q, FROM_SUBJECT))",
           "x P y, P ⊑ Q gives y Q x instead of x Q y",
           (V_RDFS,)),
    Mutant("rdfs-range-types-subject", "rule: rdfs domain/range", "src/reasonlake/compile/program.py",
           '(range_, ids["rng"], FROM_OBJECT),', '(range_, ids["rng"], FROM_SUBJECT),',
           "a range types the subject (as a domain does) instead of the object",
           (f"{IMARS}::test_imars_running_example", V_RDFS)),
    # --- rules: property characteristics -------------------------------------------------
    Mutant("owl-symmetric-not-swapped", "rule: prp-symp", "src/reasonlake/compile/program.py",
           'LinearRule("prp-symp", p, None, FROM_OBJECT, p, FROM_SUBJECT)',
           'LinearRule("prp-symp", p, None, FROM_SUBJECT, p, FROM_OBJECT)',
           "a symmetric property gives x P y back instead of y P x",
           (f"{RULES}::test_prp_symp", V_PLUS)),
    Mutant("owl-inverse2-wrong-property", "rule: prp-inv", "src/reasonlake/compile/program.py",
           'LinearRule("prp-inv2", q, None, FROM_OBJECT, p, FROM_SUBJECT)',
           'LinearRule("prp-inv2", q, None, FROM_OBJECT, q, FROM_SUBJECT)',
           "P owl:inverseOf Q: x Q y gives y Q x instead of y P x",
           (f"{RULES}::test_prp_inv2", V_PLUS)),
    Mutant("owl-transitive-probes-wrong-column", "rule: prp-trp", "src/reasonlake/engine/reason/driver_rules.py",
           'near("s", d.get_column("o"))', 'near("o", d.get_column("o"))',
           "the driver's transitive join pre-filters the known facts on the wrong column: a new "
           "link followed by an older one (a p b new, b p c known) derives nothing",
           (V_PLUS, CHANGES)),
    # --- rules: equality, restrictions, violations ---------------------------------------
    Mutant("owl-eq-rep-s-joins-object", "rule: eq-rep-s", "src/reasonlake/compile/owl2rl.py",
           'JoinRule("eq-rep-s", (("?s", SAME_AS, "?s2"), ("?s", "?p", "?o")), ("?s2", "?p", "?o"))',
           'JoinRule("eq-rep-s", (("?s", SAME_AS, "?s2"), ("?o", "?p", "?s")), ("?s2", "?p", "?o"))',
           "s owl:sameAs s2 replaces s where it is an object, writing it as the subject",
           (f"{RULES}::test_eq_rep_s", V_EQ)),
    Mutant("owl-hasvalue-any-value", "rule: cls-hv2", "src/reasonlake/compile/owl2rl.py",
           'out.linear.append(("cls-hv2", prop, v, "s", TYPE, r))',
           'out.linear.append(("cls-hv2", prop, None, "s", TYPE, r))',
           "R = hasValue(P, v): x P w types x as R whatever w is",
           (f"{RULES}::test_cls_hv2", R_DRIVER)),
    Mutant("owl-svf-types-the-filler", "rule: cls-svf1", "src/reasonlake/compile/owl2rl.py",
           'JoinRule("cls-svf1", (("?x", prop, "?y"), ("?y", TYPE, d)), ("?x", TYPE, r))',
           'JoinRule("cls-svf1", (("?x", prop, "?y"), ("?y", TYPE, d)), ("?y", TYPE, r))',
           "R = someValuesFrom(P, D): x P y, y a D types y as R instead of x",
           (f"{RULES}::test_cls_svf1", V_UNA)),
    Mutant("owl-disjoint-one-class", "rule: cax-dw", "src/reasonlake/compile/owl2rl.py",
           'JoinRule("cax-dw", (("?x", TYPE, s), ("?x", TYPE, o)), None)',
           'JoinRule("cax-dw", (("?x", TYPE, s), ("?x", TYPE, s)), None)',
           "C owl:disjointWith D flags every member of C as a violation",
           (f"{RULES}::test_cax_dw", V_UNA)),
    Mutant("spark-linear-head-swapped", "rule: spark path", "src/reasonlake/engine/reason/spark_rounds.py",
           'head_s = F.when(F.col("r.head_s_from_o"), F.col("d.o")).otherwise(F.col("d.s"))',
           'head_s = F.when(F.col("r.head_s_from_o"), F.col("d.s")).otherwise(F.col("d.o"))',
           "on Spark, every single-premise rule takes its head's subject from the wrong end of "
           "the premise (range, inverse, symmetry and subclassing all swap)",
           (V_SPARK,)),
    # --- repair (newest wins) ------------------------------------------------------------
    Mutant("repair-newest-loses", "repair", "src/reasonlake/repair/preferred.py",
           "        t = self.oldest\n", "        t = self.latest\n",
           "a conflict set loses its newest member instead of its oldest: old is always better",
           (R_DRIVER,)),
    Mutant("repair-second-oldest-loses", "repair", "src/reasonlake/repair/preferred.py",
           "        t = self.oldest\n",
           "        t = sorted({i.ts for i in self.items})[1] if len({i.ts for i in self.items}) > 2 else self.oldest\n",
           "a conflict of three or more times loses its second-oldest member: right on pairs, "
           "wrong on a conflict that needs all three items",
           ("tests/repair/test_preferred.py::test_a_conflict_of_three_times_loses_its_oldest_member_alone", R_DRIVER)),
    Mutant("repair-loser-kept", "repair", "src/reasonlake/engine/steps/repair_step.py",
           '.where(F.col("ts") <= F.col("lost_ts"))', '.where(F.col("ts") < F.col("lost_ts"))',
           "only the older copies of a losing item are tombstoned: the loser itself stays in "
           "the window and in the view",
           (R_DRIVER,)),
    # --- dictionary (term ids) -----------------------------------------------------------
    Mutant("dictionary-literal-sign", "dictionary", "src/reasonlake/engine/store/dictionary.py",
           "    return hashed | _SIGN if term.startswith('\"') else hashed & _MAGNITUDE\n",
           "    return hashed & _MAGNITUDE\n",
           "the driver's ids lose the literal sign bit: a literal ingested gets another id than "
           "the same literal in the ontology, and can stand as a subject",
           (TERM_IDS,)),
    Mutant("dictionary-objects-not-encoded", "dictionary", "src/reasonlake/engine/ingest/events.py",
           'driver_term_ids(pl.concat([items.get_column(x) for x in ("s", "p", "o")]))',
           'driver_term_ids(pl.concat([items.get_column(x) for x in ("s", "p")]))',
           "ingest encodes subjects and predicates only: a term seen only as an object gets no "
           "id and is not in the dictionary",
           (f"{IMARS}::test_imars_running_example",)),
    # --- publish (the commit of a close) -------------------------------------------------
    Mutant("publish-merge-ignores-object", "publish", "src/reasonlake/engine/store/materialization.py",
           'f"t.s = u.s AND t.p = u.p AND t.o = u.o AND t.exp_pane IN ({pane_list})"',
           'f"t.s = u.s AND t.p = u.p AND t.exp_pane IN ({pane_list})"',
           "the MERGE of a close matches renewed facts on subject and predicate only: it "
           "rewrites other facts' origins, or fails on several matches",
           # the MERGE publishes only past REPLACE_ROWS (3M rows): this test forces it
           ("tests/cli/test_delta_history.py::test_a_merge_renews_only_the_fact_it_names", V_SPARK, R_DRIVER)),
    Mutant("publish-expired-partitions-kept", "publish", "src/reasonlake/engine/store/materialization.py",
           '+ ([f"exp_pane <= {drop_upto}"] if drop_upto is not None else []))',
           "+ [])",
           "a driver close's one commit rewrites the panes it touched but forgets to remove the "
           "expired ones: the table holds expired rows",
           # the commit's predicate removes the partitions (delta-rs; ``replaced`` only checks
           # the rows written); readers filter by origin, so the table's panes tell
           ("tests/cli/test_delta_history.py::test_a_close_is_one_commit_dropping_expired_panes", V_RDFS)),
    # the hidden-term test is one text every reader renders (view_decoding.visible: Spark's
    # SQL, `changes`, the driver's decoded panes in Polars' SQL); DataFusion's reads test the
    # same terms after the read (visible_rows), so the two disagree on a row with one
    # anonymous term among named ones
    Mutant("hidden-term-needs-all-three", "reads: decoding", "src/reasonlake/engine/store/view_decoding.py",
           'return "NOT (" + " OR ".join(', 'return "NOT (" + " AND ".join(',
           "a fact about an anonymous class expression (x rdf:type [a restriction]) shows in readers' rows",
           (f"{DRIVER_READS}::test_export_and_sql_rows_read_in_the_driver_equal_spark_at_every_close",
            "tests/engine/reads/test_decoded_panes.py"), ("tests/query",)),
    # --- change feed (`changes`) ---------------------------------------------------------
    Mutant("changes-renewal-is-change", "changes", "src/reasonlake/engine/reads/changes.py",
           'f">= start_ms THEN 0 ELSE 1 END AS fresh', 'f"> start_ms THEN 0 ELSE 1 END AS fresh',
           "a fact still there at the next processed close starts a new stretch: it is listed "
           "as leaving and entering again",
           (CHANGES,)),
    Mutant("changes-no-deletions", "changes", "src/reasonlake/engine/reads/changes.py",
           "FROM stretches WHERE {inside('end_ms')}\")",
           "FROM stretches WHERE {inside('end_ms')} AND FALSE\")",
           "the change feed lists what entered but never what left",
           (CHANGES,)),
    # --- SPARQL (issue 47: a wrong join or a dropped OPTIONAL must fail the rdflib suite) ----
    Mutant("sparql-join-on-no-key", "sparql", "src/reasonlake/query/dialects/polars_frames.py",
           'cross = not on and how == "inner"', 'cross = how == "inner"',
           "every inner join of two patterns is a cross product: solutions that disagree on a "
           "shared variable are answered",
           (CONFORMANCE, SPARQL, SPARQL_VIEWS), QUERY_SUBSET),
    Mutant("sparql-optional-dropped", "sparql", "src/reasonlake/query/planner.py",
           "        return self._left_join(node, self._left_side(node.p1, seed))",
           "        return self._left_side(node.p1, seed)",
           "OPTIONAL is ignored: its variables are never bound",
           (SPARQL, SPARQL_VIEWS), QUERY_SUBSET),
    Mutant("sparql-carried-keeps-gone", "sparql", "src/reasonlake/query/incremental.py",
           "    if gone.height:", "    if gone.height and False:",
           "a registered query's carried solutions keep those whose triples left the window",
           (SPARQL_CARRIED,), QUERY_SUBSET),
    # --- the query planner ---------------------------------------------------------------
    Mutant("planner-union-certain-is-either", "query: planner", "src/reasonlake/query/planner.py",
           "        return _certain(node.p1) & _certain(node.p2)",
           "        return _certain(node.p1) | _certain(node.p2)",
           "a UNION counts as binding what either side binds: an OPTIONAL's seed is joined into "
           "the side that does not bind it, which then binds the seed's values",
           (SEEDED, SPARQL), QUERY_SUBSET),
    Mutant("planner-filter-pushed-to-partial-pattern", "query: planner", "src/reasonlake/query/planner.py",
           "(t for t in triples if named <= {_name(x) for x in t if _is_variable(x)}), None)",
           "(t for t in triples if named & {_name(x) for x in t if _is_variable(x)}), None)",
           "a FILTER condition is taken to a triple pattern that binds only some of what it reads: "
           "the others are unbound there, an error, and the rows are lost",
           (PUSHED, SPARQL), QUERY_SUBSET),
    Mutant("planner-or-split-as-and", "query: planner", "src/reasonlake/query/planner.py",
           'if getattr(expr, "name", None) == "ConditionalAndExpression"',
           'if getattr(expr, "name", None) in ("ConditionalAndExpression", "ConditionalOrExpression")',
           "a FILTER's || is split as && is: each side is pushed down on its own and a row must "
           "pass both",
           (PUSHED, SPARQL), QUERY_SUBSET),
    Mutant("planner-filter-before-optional-reads-its-side", "query: planner", "src/reasonlake/query/planner.py",
           "            if named <= left.bound:",
           "            if named <= left.bound | _certain(node.p.p2):",
           "a FILTER over an OPTIONAL that reads the optional side's variables is applied to the "
           "left side first, where they are unbound (!BOUND(?b) keeps every row)",
           (OVER_OPTIONAL, SPARQL), QUERY_SUBSET),
    Mutant("planner-optionalseq-as-seq", "query: events", "src/reasonlake/query/planner.py",
           'return left_join(kept, self.solutions(optional), self._condition(expr), "after")',
           'return left_join(kept, self.solutions(optional), self._condition(expr), "seq")',
           "{P1} OPTIONALSEQ {P2} joins P1's occurrences that come after P2's, not before",
           (f"{EVENTS}::test_the_papers_stock_examples", EVENTS), QUERY_SUBSET),
    Mutant("events-seq-sides-swapped", "query: events", "src/reasonlake/query/events.py",
           'made = f"{{ GRAPH <{EVENT}{operator.lower()}> {{ {first} UNION {second} }} }}"',
           'made = f"{{ GRAPH <{EVENT}{operator.lower()}> {{ {second} UNION {first} }} }}"',
           "the translation of {P1} SEQ {P2} puts P2 first: SEQ asks P2 before P1, OPTIONALSEQ "
           "and EQUALSOPTIONAL keep the wrong side",
           (f"{EVENTS}::test_the_papers_stock_examples", EVENTS), QUERY_SUBSET),
    # --- the driver's dialect (Polars) ---------------------------------------------------
    Mutant("polars-compatible-right-unbound", "query: driver dialect", "src/reasonlake/query/dialects/polars_frames.py",
           "tests = [pl.col(a).is_null() | pl.col(b).is_null() | (pl.col(a) == pl.col(b)) for a, b in pairs]",
           "tests = [pl.col(a).is_null() | (pl.col(a) == pl.col(b)) for a, b in pairs]",
           "a solution whose shared variable the right side leaves unbound is taken as "
           "incompatible: joins after an OPTIONAL lose rows",
           (CONFORMANCE, SPARQL,), QUERY_SUBSET),
    # (the dialects' nulls_last / asc_nulls_first are equivalent mutants: the first sort key,
    # the term's kind, is never null, and within a kind each later key is null in all rows or none)
    Mutant("ordering-unbound-last", "query: order", "src/reasonlake/query/ordering.py",
           "kind = (pl.when(term.is_null()).then(0)", "kind = (pl.when(term.is_null()).then(4)",
           "ORDER BY puts unbound values last, where SPARQL puts them first (15.1)",
           (f"{RESULTS}::test_order_by_kinds_then_values", SPARQL, ORDER_UNBOUND), QUERY_SUBSET),
    Mutant("polars-fixpoint-keeps-duplicates", "query: driver dialect", "src/reasonlake/query/dialects/polars_frames.py",
           'newest = step(newest.lazy()).unique().join(reached.lazy(), on=on, how="anti").collect()',
           'newest = step(newest.lazy()).join(reached.lazy(), on=on, how="anti").collect()',
           "a p+ round keeps a pair it found twice (two paths of the same length): the closure "
           "is no longer a set",
           (f"{HELD}::test_a_closure_is_a_set_on_both_backends", SPARQL), QUERY_SUBSET),
    # --- Spark's dialect -----------------------------------------------------------------
    Mutant("spark-optional-inner-join", "query: spark dialect", "src/reasonlake/query/dialects/spark_frames.py",
           '"anti": "left_anti", "left": "left_outer"}[how]', '"anti": "left_anti", "left": "inner"}[how]',
           "on Spark an OPTIONAL on bound variables (an outer join) drops the left rows with no "
           "match",
           (CONFORMANCE, f"{OUTER}::test_spark_answers_the_same", SPARQL_SPARK), QUERY_SUBSET),
    Mutant("spark-fixpoint-forgets-rounds", "query: spark dialect", "src/reasonlake/query/dialects/spark_frames.py",
           "                rounds = [_held(_union(rounds))]", "                rounds = [newest]",
           "on Spark a search of more than 8 rounds keeps only its last round when it holds the "
           "rounds as one: a long chain's early pairs are lost",
           (f"{HELD}::test_a_long_chain_is_closed_on_both_backends", SPARQL_SPARK), QUERY_SUBSET),
    Mutant("spark-count-distinct-swapped", "query: spark dialect", "src/reasonlake/query/dialects/spark_frames.py",
           "made.append((F.countDistinct(value) if distinct else F.count(value)).alias(f\"a{i}\"))",
           "made.append((F.count(value) if distinct else F.countDistinct(value)).alias(f\"a{i}\"))",
           "on Spark a counted group's COUNT(DISTINCT ?v) counts every value and COUNT(?v) each "
           "value once",
           (CONFORMANCE, COUNTED,), QUERY_SUBSET),
    Mutant("spark-sort-desc-ascends", "query: spark dialect", "src/reasonlake/query/dialects/spark_frames.py",
           "(_col(n).desc_nulls_first() if down else _col(n).asc_nulls_first())",
           "(_col(n).asc_nulls_first() if down else _col(n).desc_nulls_first())",
           "on Spark ORDER BY DESC(?x) sorts ascending and ORDER BY ?x descending",
           (CONFORMANCE, ORDERED_SPARK,), QUERY_SUBSET),
    Mutant("value-rules-strends-iri-bracket", "query: value rules", "src/reasonlake/query/value_rules.py",
           '"Builtin_STRENDS": lambda: ops.ends_with(term, text + ">")', '"Builtin_STRENDS": lambda: ops.ends_with(term, text)',
           "STRENDS(STR(?iri), \"x\") tests the IRI's text with its closing bracket against \"x\": "
           "no IRI passes",
           (CONDITIONS, PUSHED), QUERY_SUBSET),
    Mutant("value-rules-language-tag-mismatch", "query: value rules", "src/reasonlake/query/value_rules.py",
           'compatible = a.ok & b.ok & ((b.language == "") | (a.language == b.language))',
           'compatible = a.ok & b.ok & (a.language == b.language)',
           "a string test of a language-tagged literal against a simple string is an error "
           "(17.4.3.1.1 allows it): CONTAINS(\"abc\"@en, \"b\") fails",
           (CONDITIONS,), QUERY_SUBSET),
    Mutant("value-rules-constant-first-not-mirrored", "query: value rules", "src/reasonlake/query/value_rules.py",
           'MIRRORED = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}', "MIRRORED = {}",
           "a comparison written constant first (HAVING (2 < COUNT(?o))) keeps its operator when "
           "the count is put first: the test is reversed",
           (f"{CONDITIONS}::test_spark_compares_counts_as_rdflib_does",), QUERY_SUBSET),
    Mutant("value-rules-stored-blank-is-iri", "query: value rules", "src/reasonlake/query/value_rules.py",
           'return ops.starts_with(term, "<") & ~ops.starts_with(term, SKOLEM)',
           'return ops.starts_with(term, "<")',
           "a view's blank node (stored as an IRI of the skolem prefix) is an IRI to isIRI and STR",
           (f"{CONDITIONS}::test_a_stored_blank_node_is_a_blank_node_to_spark_as_to_the_polars_step",),
           QUERY_SUBSET),
    Mutant("value-rules-blank-label-is-iri", "query: value rules", "src/reasonlake/query/value_rules.py",
           'return ops.starts_with(term, "<") & ~ops.starts_with(term, SKOLEM)',
           "return ~ops.starts_with(term, '\"')",
           "a blank node (_:label) is an IRI to isIRI and STR: what is not a literal is taken for an IRI",
           (SPARQL,), QUERY_SUBSET),
    Mutant("value-rules-blank-label-not-blank", "query: value rules", "src/reasonlake/query/value_rules.py",
           'return ops.starts_with(term, "_:") | ops.starts_with(term, SKOLEM)',
           "return ops.starts_with(term, SKOLEM)",
           "a blank node written _:label is no blank node to isBLANK (only a view's stored ones are)",
           (SPARQL,), QUERY_SUBSET),
    # --- aggregates and paths ------------------------------------------------------------
    Mutant("aggregates-min-max-swapped", "query: aggregates", "src/reasonlake/query/aggregates.py",
           'picked = ordered.first() if kind == "Min" else ordered.last()',
           'picked = ordered.last() if kind == "Min" else ordered.first()',
           "MIN gives the greatest value and MAX the least",
           (f"{RESULTS}::test_aggregates_types_and_empty_groups", SPARQL), QUERY_SUBSET),
    Mutant("aggregates-avg-counts-unbound", "query: aggregates", "src/reasonlake/query/aggregates.py",
           '            values(name).count().alias(f"{name}.n")]',
           '            pl.len().alias(f"{name}.n")]',
           "AVG divides by the group's rows, unbound values included, not by its values",
           (f"{RESULTS}::test_aggregates_types_and_empty_groups", SPARQL, AGG_UNBOUND), QUERY_SUBSET),
    Mutant("aggregates-group-concat-comma", "query: aggregates", "src/reasonlake/query/aggregates.py",
           'separator = " " if separator is None else str(separator)',
           'separator = "," if separator is None else str(separator)',
           "GROUP_CONCAT without a separator joins the values with a comma, not a space (18.5.1.7)",
           (RESULTS, AGG_UNBOUND), QUERY_SUBSET),
    Mutant("paths-inverse-not-flipped", "query: paths", "src/reasonlake/query/paths.py",
           "    return frames.select(found, {START: END, END: START})",
           "    return frames.select(found, {START: START, END: END})",
           "^p is answered as p: an inverse path's pairs are not turned around",
           (SPARQL, PUSHED), QUERY_SUBSET),
    Mutant("exists-filter-reads-row-unbound", "query: exists", "src/reasonlake/query/planner.py",
           "matches = self._correlated(pattern, project(numbered, [lid, *shared]))",
           "matches = self.solutions(pattern, project(numbered, [lid, *shared]))",
           "a FILTER inside (NOT) EXISTS reads the outer row's variables unbound: NOT EXISTS keeps rows "
           "it must drop",
           ("tests/query/test_where_the_oracles_disagree.py",), QUERY_SUBSET),
    Mutant("graph-variable-unbound", "query: named graphs", "src/reasonlake/query/planner.py",
           "            inner = join(self._in_graph(iri, pattern), named)\n",
           "            inner = self._in_graph(iri, pattern)\n",
           "GRAPH ?g { P } leaves ?g unbound: the solutions do not say which graph matched",
           (NAMED_GRAPHS,), QUERY_SUBSET),
    # --- RSP-QL queries -------------------------------------------------------------------
    Mutant("rspql-window-one-slide-late", "rspql: windows", "src/reasonlake/engine/jobs/rspql/evaluation.py",
           "if r.close <= t]", "if r.close < t]",
           "a window at an evaluation time holds what it held one slide before: the items of its "
           "last pane are not seen until the next close",
           (f"{RSPQL}::test_listing_8_5_registered_answers_as_the_oracle_at_every_evaluation_time", RSPQL_GENERATED),
           ("tests/rspql",)),
    Mutant("rspql-report-policy-ignored", "rspql: report policies", "src/reasonlake/engine/jobs/rspql/advance.py",
           "        if evaluation.reports(home, decl, t, before):", "        if True:",
           "a window's report strategy (non empty, on change, every) is ignored: the query reports at "
           "every shared close, and IStream and DStream compare with the wrong answer",
           (f"{RSPQL}::test_report_policies_at_the_shared_closes_answer_as_the_oracle",), ("tests/rspql",)),
    Mutant("rspql-network-downstream-first", "rspql: networks", "src/reasonlake/engine/jobs/rspql/advance.py",
           "for query in registry.upstream(queries, name):", "for query in reversed(registry.upstream(queries, name)):",
           "a query is evaluated before the queries it reads: its windows close before their items "
           "arrive, which are then late and never seen",
           (f"{RSPQL}::test_the_network_of_listings_8_1_to_8_4_runs_in_dependency_order",), ("tests/rspql",)),
    Mutant("rsep-consumed-item-matched-again", "rsep: consumption", "src/reasonlake/engine/jobs/rspql/consumption.py",
           "        self.used[(k, t)] = used\n", "        self.used[(k, t)] = []\n",
           "an item a MATCH used under the chronological or recent consumption policy is matched "
           "again at the next evaluation (section 6.5)",
           (f"{RSEP}::test_a_consumed_item_is_not_matched_again", RSEP_GENERATED), ("tests/rspql",)),
    Mutant("rsep-chronological-picks-last", "rsep: selection", "src/reasonlake/engine/jobs/rspql/matching.py",
           "        pairs = pairs.filter(pl.col(START) <= pl.col(END).min().over(CTX)) \\",
           "        pairs = pairs.filter(pl.col(END) >= pl.col(START).max().over(CTX)) \\",
           "SEQ CHRONOLOGICAL selects the last later event with an earlier match, not the first (6.10)",
           (f"{RSEP}::test_a_consumed_item_is_not_matched_again", RSEP_GENERATED), ("tests/rspql",)),
    Mutant("rsep-seq-bound-inclusive", "rsep: SEQ", "src/reasonlake/engine/jobs/rspql/matching.py",
           "pl.min_horizontal(BOUND, pl.col(START) - 1)", "pl.min_horizontal(BOUND, pl.col(START))",
           "SEQ lets the earlier event share the later one's item: [0, t3] instead of [0, t3 - 1] "
           "(Definition 6.8)", (RSEP_GENERATED,), ("tests/rspql",)),
    Mutant("rsep-first-is-last", "rsep: FIRST", "src/reasonlake/engine/jobs/rspql/matching.py",
           "        return frame.filter(pl.col(START) <= pl.col(END).min().over(CTX)), variables",
           "        return frame.filter(pl.col(END) >= pl.col(START).max().over(CTX)), variables",
           "FIRST keeps the last event mappings (Definition 6.7)", (RSEP_GENERATED,), ("tests/rspql",)),
    # an event query's occurrences are one SQL description both dialects render
    # (``query_read._occurrences``): a tombstone that matched on the triple alone would take
    # every arrival of a repair's loser, not only the one that lost
    Mutant("occurrence-tombstone-ignores-time", "events: occurrences", "src/reasonlake/engine/reads/query_read.py",
           'f"AND r.o = e.o_id AND r.ts = e.ts AND r.close', 'f"AND r.o = e.o_id AND r.close',
           "an item a repair removed takes with it every later arrival of its triple",
           (f"{EVENTS}::test_an_item_a_repair_removed_is_no_occurrence_though_its_triple_came_again",), ("tests/query",)),
    Mutant("rsep-derived-at-oldest-premise", "rsep: derived events", "src/reasonlake/engine/reason/derived_events.py",
           '(-pl.col(TS)).alias("origin")', 'pl.col(TS).alias("origin")',
           "a derived occurrence ends at its oldest premise, not its newest (Definition 7.5)",
           (RSEP_GENERATED,), ("tests/rspql",)),
    Mutant("rsep-derived-once-per-fact", "rsep: derived events", "src/reasonlake/engine/reason/derived_events.py",
           "        candidates = derive(program, delta, earliest.lazy()).collect().unique(_TIMED)",
           "        candidates = derive(program, delta, earliest.lazy()).collect().unique(KEY)",
           "a fact derived again by a later item is not a new occurrence (one time per fact)",
           (RSEP_GENERATED,), ("tests/rspql",)),
    Mutant("intervals-end-at-the-soonest-premise", "events: derived intervals",
           "src/reasonlake/engine/reason/derived_events.py",
           "+ pl.max_horizontal([pl.col(c) % _SHIFT for c in columns]))",
           "+ pl.min_horizontal([pl.col(c) % _SHIFT for c in columns]))",
           "a fact a rule joins from several premises ends with the premise that ends first, not "
           "the newest: getDURATION() is too short and SEQ orders it too early",
           (MINIMAL_SPANS,), (INTERVALS,)),
    Mutant("intervals-start-at-the-latest-premise", "events: derived intervals",
           "src/reasonlake/engine/reason/derived_events.py",
           "return (pl.min_horizontal([pl.col(c) // _SHIFT for c in columns]) * _SHIFT",
           "return (pl.max_horizontal([pl.col(c) // _SHIFT for c in columns]) * _SHIFT",
           "a fact a rule joins from several premises starts at its latest premise's start, not "
           "its oldest",
           (MINIMAL_SPANS,), (INTERVALS,)),
    Mutant("intervals-chain-ends-at-the-first-link", "events: derived intervals",
           "src/reasonlake/engine/reason/derived_events.py",
           'pl.min_horizontal(pl.col(S), s2).alias(S), pl.max_horizontal(pl.col(E), e2).alias(E))]',
           'pl.min_horizontal(pl.col(S), s2).alias(S), pl.col(E))]',
           "a transitive property's derived link ends with the link in the delta, not the later "
           "of the two: the issue's 'derived occurrence with the wrong end'",
           (MINIMAL_SPANS, INTERVALS), QUERY_SUBSET),
    Mutant("intervals-chain-partner-after-only", "events: derived intervals",
           "src/reasonlake/engine/reason/derived_events.py",
           'pl.int_ranges(first, last + 1, dtype=pl.UInt32)', 'pl.int_ranges(last, last + 1, dtype=pl.UInt32)',
           "a transitive link is joined only with the other link's intervals starting after its "
           "own start: the spans that start with the other link are missed",
           (MINIMAL_SPANS, INTERVALS), QUERY_SUBSET),
    Mutant("intervals-chain-partner-latest-before-only", "events: derived intervals",
           "src/reasonlake/engine/reason/derived_events.py",
           'pl.min_horizontal(pl.coalesce("$by_e", "$first"), latest))', 'latest)',
           "a transitive link is joined, of the other link's intervals starting before its own, "
           "only with the latest: a shorter span through an earlier one that ends sooner is "
           "missed (a derived occurrence with the wrong end)",
           (f"{INTERVALS}::test_a_transitive_link_joins_each_interval_of_the_other_link_that_can_give_a_minimal_one",
            INTERVALS), QUERY_SUBSET),
    Mutant("intervals-containing-another-kept", "events: derived intervals",
           "src/reasonlake/engine/reason/derived_events.py",
           "return ordered.filter(sooner.is_null() | (pl.col(E) < sooner))",
           "return ordered.filter(sooner.is_null() | (pl.col(E) <= sooner))",
           "a derived fact also occurs over an interval holding a shorter one that ends with it: "
           "occurrences the items do not need",
           (MINIMAL_SPANS, INTERVALS), QUERY_SUBSET),
    Mutant("landmark-opens-a-slide-early", "windows: landmark", "src/reasonlake/plan/windows.py",
           "return self.start if self.landmark else close - self.width",
           "return self.start - self.slide if self.landmark else close - self.width",
           "a landmark window holds the slide before its start (Definition 6.1: (t0, t])",
           ("tests/engine/jobs/test_landmark_view.py",), ("tests/rspql",)),
    # --- the store's answers (one call: in this process, or by Spark inside the access) ---
    Mutant("answer-by-spark-ignores-version", "store: answers", "src/reasonlake/engine/store/access/base.py",
           '(reader if version is None else reader.option("versionAsOf", version)).load(path)',
           "reader.load(path)",
           "an answer read by Spark (a home this process cannot read itself) is the table's latest "
           "version, not the one asked: `explain` and a close's counts read the wrong commit",
           (f"{DRIVER_READS}::test_an_answer_is_the_same_read_here_or_by_spark",)),
    # --- registered queries --------------------------------------------------------------
    Mutant("streams-dstream-is-istream", "query: streams", "src/reasonlake/query/streams.py",
           "    return difference(previous, current)\n", "    return difference(current, previous)\n",
           "DSTREAM streams what entered the answer (IStream's rows), not what left it",
           (STREAMS,), QUERY_SUBSET),
    Mutant("carried-restated-fact-gone", "query: registered", "src/reasonlake/query/incremental.py",
           'gone = removed.select(IDS).join(added.select(IDS), on=IDS, how="anti")',
           "gone = removed.select(IDS)",
           "a fact a close removed and added again (a renewal, a pane written again) counts as "
           "gone: the carried solutions resting on it are dropped, and none brings them back",
           (SPARQL_CARRIED,), QUERY_SUBSET),
    # --- the readable copy ---------------------------------------------------------------
    Mutant("readable-copy-misses-last-commit", "readable copy", "src/reasonlake/engine/store/readable_copy.py",
           "actions = [json.loads(line) for v in range(since + 1, version + 1)",
           "actions = [json.loads(line) for v in range(since + 1, version)",
           "the copy reads the view's commits since its own but the last: the panes a close "
           "touched in its one commit are never written again, the copy shows the close before",
           (READABLE,), (READABLE,)),
)


# --- checking the mutants against the tree --------------------------------------------------

def locate(m: Mutant, root: Path = REPO) -> int:
    """The 1-based line of the mutant's original text; raises unless it occurs exactly once."""
    if m.original.rstrip("\n").count("\n"):
        raise ValueError(f"{m.id}: the original spans several lines (a mutant is one line)")
    if m.original == m.replacement:
        raise ValueError(f"{m.id}: the replacement is the original")
    path = root / m.file
    if not path.is_file():
        raise ValueError(f"{m.id}: {m.file} does not exist")
    text = path.read_text()
    n = text.count(m.original)
    if n != 1:
        raise ValueError(f"{m.id}: the original occurs {n} times in {m.file} (must be exactly once): "
                         f"{m.original.strip()!r}")
    return text[:text.index(m.original)].count("\n") + 1


def check_all(mutants) -> dict[str, int | str]:
    """id -> line, or the reason the mutant cannot be applied."""
    out: dict[str, int | str] = {}
    for m in mutants:
        try:
            out[m.id] = locate(m)
        except ValueError as exc:
            out[m.id] = str(exc)
    return out


# --- running one mutant ----------------------------------------------------------------------

@dataclass
class Outcome:
    status: str  # KILLED, SURVIVED, TIMEOUT, ERROR
    detail: str  # the killing test, or why
    seconds: float
    log: Path | None = None


# Not copied: the venv (reused), git (not needed), and what a run leaves behind.
COPY_EXCLUDES = (".venv", ".git", "__pycache__", ".pytest_cache", ".hypothesis", ".ruff_cache", "spark-warehouse",
                 "metastore_db", "lakehouse", "lakehouse-example")


def copy_repo(scratch: Path) -> Path:
    """The work tree as it is (uncommitted changes included), without the venv and git:
    with rsync when the machine has it, else the same copy in Python."""
    target = scratch / "repo"
    if shutil.which("rsync"):
        excludes = [arg for name in COPY_EXCLUDES for arg in ("--exclude", name)]
        subprocess.run(["rsync", "-a", *excludes, f"{REPO}/", f"{target}/"], check=True)
    else:
        shutil.copytree(REPO, target, symlinks=True, ignore=shutil.ignore_patterns(*COPY_EXCLUDES))
    return target


def apply(m: Mutant, copy: Path) -> None:
    locate(m, copy)  # loud: the copy must hold the original exactly once too
    path = copy / m.file
    path.write_text(path.read_text().replace(m.original, m.replacement, 1))


def run_env(copy: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in DROPPED_ENV}
    # The venv holds an editable install of the repository: the copy must come first.
    env["PYTHONPATH"] = f"{copy / 'src'}{os.pathsep}{copy}"
    env["REASONLAKE_DRIVER_MEMORY"] = "2g"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def module_of(file: str) -> str | None:
    if not (file.startswith("src/") and file.endswith(".py")):
        return None
    name = file[len("src/"):-len(".py")].replace("/", ".")
    return name.removesuffix(".__init__")


def check_import(m: Mutant, copy: Path, env: dict[str, str]) -> None:
    """``reasonlake`` and the mutated module resolve to the copy (and the mutant compiles)."""
    module = module_of(m.file) or "reasonlake"
    probe = ("import importlib, reasonlake; "
             f"print(reasonlake.__file__); print(importlib.import_module({module!r}).__file__)")
    run = subprocess.run([str(PYTHON), "-c", probe], cwd=copy, env=env, capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"importing {module} from the copy failed:\n{run.stderr[-2000:]}")
    for line in run.stdout.split():
        if not Path(line).resolve().is_relative_to(copy.resolve()):
            raise RuntimeError(f"{line} is imported, not the copy under {copy}: PYTHONPATH does not come first")


# parameter ids may hold spaces ("[{width: 4s, slide: 1s, start: 0}-8000]"); " - " starts the message
_FIRST_FAILURE = re.compile(r"^(FAILED|ERROR) (.+?)(?: - .*)?$", re.MULTILINE)


def first_failure(output: str) -> str:
    """The test pytest's summary names first (``FAILED id - message`` / ``ERROR id``)."""
    found = _FIRST_FAILURE.search(output)
    if found:
        return found.group(2)
    if "error" in output.lower():
        return "pytest error (see log)"
    return "a failure pytest did not name (see log)"


def pytest(tests: list[str], deselect: list[str], copy: Path, env: dict[str, str], timeout: float,
           log, basetemp: Path) -> tuple[str, str]:
    """One pytest run: (KILLED | PASSED | TIMEOUT | ERROR, detail)."""
    cmd = [str(PYTHON), "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-m", "not slow",
           f"--basetemp={basetemp}", *tests, *(f"--deselect={d}" for d in deselect)]
    log.write(f"$ {' '.join(cmd)}\n")
    log.flush()
    # a session of its own: on a timeout the whole group (pytest and its Spark JVM) is ended
    proc = subprocess.Popen(cmd, cwd=copy, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)
    try:
        output, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        output, _ = proc.communicate()
        log.write(output)
        return "TIMEOUT", f"no verdict after {timeout:.0f}s"
    log.write(output)
    log.flush()
    if proc.returncode == 0:
        return "PASSED", ""
    if proc.returncode in (1, 2):  # tests failed; interrupted (-x or a collection error)
        return "KILLED", first_failure(output)
    if proc.returncode == 5:
        return "ERROR", "no test collected"
    return "ERROR", f"pytest exit {proc.returncode}"


def fallback_tests(m: Mutant) -> tuple[list[str], list[str]]:
    """The rest of the mutant's fallback (the oracle subset, or the query tests): files the
    first stage ran whole are left out, tests it ran alone are deselected."""
    ran_whole = {t for t in m.tests if "::" not in t}
    rest = [t for t in m.fallback if t not in ran_whole]
    # pytest deselects by prefix: a file run whole inside a folder of the fallback goes too
    inside = lambda t: any(t.split("::")[0] == r or t.startswith(r.rstrip("/") + "/") for r in rest)  # noqa: E731
    deselect = [t for t in m.tests if inside(t)]
    return rest, deselect


def run_mutant(m: Mutant, args, logs: Path) -> Outcome:
    started = time.monotonic()
    scratch = Path(tempfile.mkdtemp(prefix=f"mutant-{m.id}-"))
    log_path = logs / f"{m.id}.log"
    try:
        with open(log_path, "w") as log:
            log.write(f"mutant {m.id} ({m.area}): {m.file}\n- {m.original.strip()}\n+ {m.replacement.strip()}\n"
                      f"breaks: {m.breaks}\nscratch: {scratch}\n\n")
            copy = copy_repo(scratch)
            try:
                apply(m, copy)
                env = run_env(copy)
                check_import(m, copy, env)
            except (ValueError, RuntimeError) as exc:
                log.write(f"{exc}\n")
                return Outcome("ERROR", str(exc).splitlines()[0], time.monotonic() - started, log_path)
            stages = [(list(m.tests), [])]
            if not args.no_fallback:
                rest, deselect = fallback_tests(m)
                if rest:
                    stages.append((rest, deselect))
            for n, (tests, deselect) in enumerate(stages):
                left = args.timeout - (time.monotonic() - started)
                if left <= 0:
                    return Outcome("TIMEOUT", f"no verdict after {args.timeout:.0f}s", time.monotonic() - started, log_path)
                status, detail = pytest(tests, deselect, copy, env, left, log, scratch / f"pytest-{n}")
                if status != "PASSED":
                    return Outcome(status, detail, time.monotonic() - started, log_path)
            return Outcome("SURVIVED", "SURVIVED", time.monotonic() - started, log_path)
    finally:
        if args.keep:
            print(f"  kept {scratch}", file=sys.stderr)
        else:
            shutil.rmtree(scratch, ignore_errors=True)


def run_baseline(mutants, args, logs: Path) -> bool:
    """The unmutated copy passes every test the mutants start with: a kill is the mutant's."""
    tests = sorted({t for m in mutants for t in m.tests})
    scratch = Path(tempfile.mkdtemp(prefix="mutant-baseline-"))
    try:
        copy = copy_repo(scratch)
        with open(logs / "baseline.log", "w") as log:
            status, detail = pytest(tests, [], copy, run_env(copy), args.timeout, log, scratch / "pytest")
        print(f"baseline: {status} {detail}".rstrip(), flush=True)
        return status == "PASSED"
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


# --- the command -----------------------------------------------------------------------------

def table(rows: list[tuple[str, ...]], header: tuple[str, ...]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip() for r in [header, *rows]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def select(only: str | None) -> list[Mutant]:
    if not only:
        return list(MUTANTS)
    wanted = [x.strip() for x in only.split(",") if x.strip()]
    known = {m.id: m for m in MUTANTS}
    unknown = [x for x in wanted if x not in known]
    if unknown:
        sys.exit(f"unknown mutant id(s): {', '.join(unknown)} (see --list)")
    return [known[x] for x in wanted]


def renice(level: int) -> None:
    """At least this niceness for the script and every test it starts (never less nice)."""
    current = os.nice(0)
    if level > current:
        os.nice(level - current)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="print the mutants (snippets checked) and run nothing")
    parser.add_argument("--only", help="comma-separated mutant ids")
    parser.add_argument("--timeout", type=float, default=3600,
                        help="seconds per mutant, its first tests and the fallback together (default 3600)")
    parser.add_argument("--no-fallback", action="store_true",
                        help="run only each mutant's own tests, not the rest of the oracle subset after them")
    parser.add_argument("--baseline", action="store_true",
                        help="first run the mutants' tests on an unmutated copy (a concurrent edit can break the tree)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch copies")
    parser.add_argument("--logs", type=Path, help="folder for each mutant's pytest output (default: a temp folder)")
    parser.add_argument("--nice", type=int, default=10, help="niceness of the test runs (default 10)")
    args = parser.parse_args(argv)

    mutants = select(args.only)
    lines = check_all(mutants)
    bad = {k: v for k, v in lines.items() if isinstance(v, str)}
    if args.list:
        print(table([(m.id, m.area, f"{m.file}:{lines[m.id] if m.id not in bad else '?'}")
                     for m in mutants], ("id", "area", "file:line")))
        for m in mutants:
            print(f"\n{m.id}: {m.breaks}\n  - {m.original.strip()}\n  + {m.replacement.strip()}")
            for t in m.tests:
                print(f"  tests first: {t}")
    if bad:
        for reason in bad.values():
            print(f"error: {reason}", file=sys.stderr)
        return 2
    if args.list:
        print(f"\n{len(mutants)} mutants; every original occurs exactly once")
        return 0
    if not PYTHON.exists():
        sys.exit(f"{PYTHON} is missing: run scripts/setup.sh first")

    renice(args.nice)
    logs = args.logs or Path(tempfile.mkdtemp(prefix="mutant-logs-"))
    logs.mkdir(parents=True, exist_ok=True)
    print(f"logs: {logs}", flush=True)
    if args.baseline and not run_baseline(mutants, args, logs):
        print("the unmutated copy fails its tests: no verdict on any mutant (see baseline.log)", file=sys.stderr)
        return 2

    rows = []
    outcomes = {}
    for m in mutants:
        print(f"{m.id} ...", flush=True)
        outcome = run_mutant(m, args, logs)
        outcomes[m.id] = outcome
        shown = outcome.detail if outcome.status in ("KILLED", "SURVIVED") else f"{outcome.status}: {outcome.detail}"
        print(f"  {shown} ({outcome.seconds:.0f}s)", flush=True)
        rows.append((m.id, m.area, f"{m.file}:{lines[m.id]}", shown, f"{outcome.seconds:.0f}"))

    print()
    print(table(rows, ("id", "area", "file:line", "killed by", "seconds")))
    survived = [k for k, o in outcomes.items() if o.status == "SURVIVED"]
    undecided = [k for k, o in outcomes.items() if o.status == "TIMEOUT"]
    broken = [k for k, o in outcomes.items() if o.status == "ERROR"]
    killed = sum(o.status == "KILLED" for o in outcomes.values())
    print(f"\n{killed}/{len(mutants)} killed" + (f"; survived: {', '.join(survived)}" if survived else "")
          + (f"; timed out: {', '.join(undecided)}" if undecided else "")
          + (f"; broken runs: {', '.join(broken)}" if broken else ""))
    if broken:
        return 2
    return 1 if survived or undecided else 0


if __name__ == "__main__":
    sys.exit(main())
