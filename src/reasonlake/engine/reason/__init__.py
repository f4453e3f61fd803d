"""Reasoning: rule rounds on Spark and in the driver (frames pass between them through
``engine.store.arrow_bridge``), over-deletion and one-shot closure (no table is written here)."""
