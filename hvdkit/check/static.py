"""The static pass: the eight steps judged from the script's syntax tree, with no framework imported.

    findings, notes, info = analyze(path)
"""
import os

from hvdkit.check.facts import Facts
from hvdkit.check.findings import OK, WRONG, CheckInputError, Finding
from hvdkit.check.names import API_PREFIXES
from hvdkit.check.script import Script


def load(path):
    if not os.path.isfile(path):
        raise CheckInputError(f"{path}: no such file (give the path of a Python training script)")
    try:
        with open(path, encoding="utf-8") as f:
            source = f.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise CheckInputError(f"{path}: cannot read it as a UTF-8 Python file ({exc.__class__.__name__})") from None
    try:
        script = Script(source, path)
    except SyntaxError as exc:
        raise CheckInputError(f"{path}:{exc.lineno}: syntax error: {exc.msg} (fix it; `python -m py_compile "
                              f"{path}` shows the same)") from None
    if not any(m.startswith(API_PREFIXES) for m in script.aliases.values()):
        raise CheckInputError(f"{path}: not a Horovod script: it imports none of horovod.torch, horovod.tensorflow, "
                              "horovod.tensorflow.keras, hvdkit.torch, hvdkit.tensorflow")
    return script


def analyze(path, root=None):
    """({step: Finding}, [note], info) for the script at `path`; raises CheckInputError on bad input.
    `root`: the project's root folder, whose modules the script may import (default: found from the
    script's folder upward)."""
    from hvdkit.check import crashes, rules
    facts = Facts(load(path))
    findings = {n: judge(facts) for n, judge in rules.BY_STEP.items()}
    # A crash counts when its statement runs whenever the script trains: not under a condition that
    # depends on configuration the source does not show (`if config["shuffle"]: ...`).
    found = [c for c in crashes.find(facts.s) if _runs_for_sure(facts, c.line)]
    for n, finding in findings.items():
        crash = crashes.at(found, facts.s, finding.line) if finding.verdict == OK else None
        if crash is not None:
            findings[n] = Finding(WRONG, f"the code that does this step crashes: line {crash.line} raises "
                                  f"{crash.error}", crash.line, "define what it uses (or declare the argument)")
    rules.NOTES(facts)
    first = found[0] if found else None
    crash = {"line": first.line, "file": None, "error": first.error, "why": None} if first else None
    return findings, facts.notes, {"frameworks": sorted(facts.frameworks), "keras_fit": bool(facts.fits),
                                   "crash": crash, "files_read": [os.path.basename(path)], "entry_points": []}


def _runs_for_sure(facts, line):
    from hvdkit.check.crashes import statement_at
    stmt = statement_at(facts.s, line)
    if stmt is None:
        return False
    span = range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1)
    at = [e for e in facts.s.events + facts.s.assigns if e.line in span and e.ctx.reached]
    return bool(at) and all(facts.guard_kind(e) in ("always", "rank") for e in at)
