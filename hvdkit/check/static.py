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


def analyze(path, root=None):
    """({step: Finding}, [note], info) for the script at `path`; raises CheckInputError on bad input.
    `root`: the project's root folder, whose modules the script may import (default: found from the
    script's folder upward)."""
    from hvdkit.check import crashes, rules
    facts = Facts(load(path))
    findings = {n: judge(facts) for n, judge in rules.BY_STEP.items()}
    rules.NOTES(facts)
    # The crash finding (crashes.py): the first statement certain to raise when the script trains, reported
    # on its own; the steps keep their verdicts, judged on what their code would do.
    crash = crashes.first(facts, root)
    return findings, facts.notes, {"frameworks": sorted(facts.frameworks), "keras_fit": bool(facts.fits),
                                   "crash": crash, "files_read": [os.path.basename(path)], "entry_points": []}
