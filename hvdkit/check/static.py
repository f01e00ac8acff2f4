"""The static pass: the eight steps judged from the script's syntax tree, with no framework imported.

    findings, notes, info = analyze(path)
"""
import os

from hvdkit.check.facts import Facts
from hvdkit.check.findings import CheckInputError
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


def analyze(path):
    """({step: Finding}, [note], info) for the script at `path`; raises CheckInputError on bad input."""
    from hvdkit.check import rules
    facts = Facts(load(path))
    findings = {n: judge(facts) for n, judge in rules.BY_STEP.items()}
    rules.NOTES(facts)
    return findings, facts.notes, {"frameworks": sorted(facts.frameworks), "keras_fit": bool(facts.fits)}
