"""Reasoning: rule rounds on Spark and in the driver, the Arrow bridge between them,
over-deletion and one-shot closure (no table is written here)."""
