"""Benchmark helpers (JSC SDL AML scaling study)."""
