"""A compiled program's Spark frames are made only when asked for (decision 0062), and hold
the very rows of its driver frames."""
from __future__ import annotations

from reasonlake.engine.reason.program_tables import encode_program
from tests.engine.reason.test_owl2rl_rules import _program


def _same_rows(spark, frame, rows) -> bool:
    expected = spark.createDataFrame(rows.rows(), frame.schema)
    return frame.exceptAll(expected).isEmpty() and expected.exceptAll(frame).isEmpty()


def test_the_spark_frames_are_made_on_first_use_from_the_driver_rows(spark):
    tables = encode_program(spark, _program(unique_names=True), extra_background=[
        ("<http://ex/a>", "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>", "<http://ex/C>")])
    assert tables._spark_frames == {}  # a close in the driver never pays for them
    assert tables.driver_linear.height > 0 and tables.driver_background.height > 0
    linear, background = tables.linear, tables.background
    assert set(tables._spark_frames) == {"linear", "background"}
    assert tables.linear is linear and tables.background is background  # made once
    assert linear.count() == tables.driver_linear.height and _same_rows(spark, linear, tables.driver_linear)
    assert background.count() == tables.driver_background.height
    assert _same_rows(spark, background, tables.driver_background)


def test_no_background_is_none_without_a_spark_frame(spark):
    tables = encode_program(spark, _program(unique_names=True, profile="rdfs"))  # no background fact
    assert tables.driver_background is None
    assert tables.background is None and "background" not in tables._spark_frames
