"""`hvdkit check`: is a Horovod conversion right, step by step? Framework-free.

Static side: static.py loads a script, project.py finds the project's modules it imports, defs.py says which
definitions reach each name, script.py walks its calls in execution order, values.py evaluates
guards and counts, facts.py holds what several rules share, rules/ has one module per step, names.py is
the one vocabulary of Horovod's and hvdkit's names. findings.py defines the verdicts; report.py prints
them. `--run` side: bootstrap.py runs the script under mpirun and observes it; dynamic.py launches and
merges what the ranks saw.
"""
from hvdkit.check.findings import FLAGGED, MISSING, OK, STEPS, UNKNOWN, WRONG, CheckInputError, Finding, Step

__all__ = ["FLAGGED", "MISSING", "OK", "STEPS", "UNKNOWN", "WRONG", "CheckInputError", "Finding", "Step"]
