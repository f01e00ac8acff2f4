"""Conformance runs: Horovod's own test suite and example scripts, unmodified, pass/fail (`make conformance`).

Not benchmarks: nothing here is timed for a figure; a run answers whether Horovod built by this tree
(with its patch) still passes upstream's own checks. Records in conformance/results/.
"""
