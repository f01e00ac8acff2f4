"""The static pass: the eight steps judged from the script's syntax tree, with no framework imported.

    findings, notes, info = analyze(path)              # the project's root found from the script upward
    findings, notes, info = analyze(path, root=DIR)    # the project's root given
"""
import ast
import os
import traceback

from hvdkit.check.facts import Facts
from hvdkit.check.findings import MISSING, OK, UNKNOWN, CheckInputError, Finding
from hvdkit.check.names import API_PREFIXES
from hvdkit.check.project import Project, import_crash
from hvdkit.check.script import Script


def load(path, root=None):
    if not os.path.isfile(path):
        raise CheckInputError(f"{path}: no such file (give the path of a Python training script)")
    if root is not None and not os.path.isdir(root):
        raise CheckInputError(f"--root {root}: no such folder (give the project's root folder)")
    try:
        with open(path, encoding="utf-8") as f:
            source = f.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise CheckInputError(f"{path}: cannot read it as a UTF-8 Python file ({exc.__class__.__name__})") from None
    try:
        script = Script(source, path, Project(path, root))
    except SyntaxError as exc:
        raise CheckInputError(f"{path}:{exc.lineno}: syntax error: {exc.msg} (fix it; `python -m py_compile "
                              f"{path}` shows the same)") from None
    assumed = {} if any(m.startswith(API_PREFIXES) for m in script.all_aliases()) else horovod_by_use(script)
    if assumed:  # read again, the names taken as Horovod's module
        project = Project(path, root)
        project.assumed = assumed
        script = Script(source, path, project)
    if not any(m.startswith(API_PREFIXES) for m in script.all_aliases()):
        absent = sorted({m.split(".")[0] for m in script.all_aliases() if script.project.find(m.split(".")[0]) is None
                         and script.project.kind(m) == "absent"})
        if absent:  # its Horovod work may well be in the modules that are not there: cannot tell, not "not one"
            many = len(absent) > 1
            raise CheckInputError(f"{path}: cannot tell: it imports no Horovod module, and its own "
                                  f"{'modules' if many else 'module'} {', '.join(absent)} {'are' if many else 'is'} "
                                  "not in the project (the Horovod work may be there): check it inside its "
                                  "project, or give --root")
        raise CheckInputError(f"{path}: not a Horovod script: it imports none of horovod.torch, horovod.tensorflow, "
                              "horovod.tensorflow.keras, hvdkit.torch, hvdkit.tensorflow")
    return script


# Horovod's calls that other libraries also name: used alone, they do not say the module is Horovod's.
_COMMON = {"init", "rank", "size", "shutdown", "is_initialized"}


def horovod_by_use(script):
    """{dotted name: Horovod module} for the names the script imports from a module of its own that is not there
    (`from sspred.dist import hvd`, with no sspred/ in the project and none installed) and uses as Horovod's API:
    every attribute read from the name is one the Horovod module of the script's framework has, and one of them
    is Horovod's own (not init, rank or size alone: `hvd.DistributedOptimizer`, `hvd.broadcast_parameters`,
    `hvd.local_rank`). The framework is the one the script imports (torch: horovod.torch; TensorFlow:
    horovod.tensorflow.keras or horovod.tensorflow, whichever has every attribute used, Keras' first when the
    script calls fit)."""
    from hvdkit.check import horovod_api
    tops = {m.split(".")[0] for m in script.all_aliases()}
    fits = any(isinstance(n, ast.Attribute) and n.attr == "fit" for n in ast.walk(script.tree))
    candidates = ["horovod.torch"] if "torch" in tops else []
    if tops & {"tensorflow", "keras", "tf_keras"}:
        tf = ["horovod.tensorflow.keras", "horovod.tensorflow"]
        candidates += tf if fits else tf[::-1]
    modules = horovod_api.load()["modules"]
    used = {}
    for node in ast.walk(script.tree):
        if not (isinstance(node, ast.Name) and isinstance(getattr(node, "parent", None), ast.Attribute)):
            continue
        defs = script.reaching(node) or []
        imp = [d for d in defs if isinstance(d, ast.alias) and isinstance(getattr(d, "parent", None), ast.ImportFrom)]
        if len(imp) != len(defs) or not imp:
            continue
        q = script.qual(node)
        top = q.split(".")[0]
        if q.startswith(API_PREFIXES) or script.project.find(top) is not None or script.project.kind(top) != "absent":
            continue
        used.setdefault(q, set()).add(node.parent.attr)
    out = {}
    for q, attrs in used.items():
        if not attrs - _COMMON:
            continue
        module = next((m for m in candidates if attrs <= set(modules[m]["names"])), None)
        if module is not None:
            out[q] = module
    return out


def analyze(path, root=None):
    """({step: Finding}, [note], info) for the script at `path`; raises CheckInputError on bad input.
    `root`: the project's root folder, whose modules the script may import (default: found from the
    script's folder upward)."""
    from hvdkit.check import crashes, rules
    facts = Facts(load(path, root))
    findings = {n: _guarded(facts, f"step {n}", judge, facts) for n, judge in rules.BY_STEP.items()}
    _guarded(facts, "the notes", rules.NOTES, facts)
    if facts.training_not_read:  # the training itself is in code not read: what is not seen may be there
        calls = [(u.event.node, u) for u in facts.training_not_read]
        for n, finding in findings.items():
            if finding.verdict == MISSING or finding.verdict == OK and finding.line is None:
                findings[n] = facts.cannot_tell("the training (and this step's work)", calls)
    # The crash finding (crashes.py): the first statement certain to raise when the script trains, reported
    # on its own; the steps keep their verdicts, judged on what their code would do, unless the crash is in
    # a step's own call (its Horovod call, its save, or what it is handed): then that step is wrong too.
    names = _guarded(facts, "the crash finding", crashes.Names, facts.s)
    found = _guarded(facts, "the crash finding", crashes.find, facts, names) if names is not None else None
    if found:
        _guarded(facts, "the crash finding", crashes.charge, facts, findings, found, names)
    found = found or []
    crash = crashes.first(found) or import_crash(facts.s)
    for finding in findings.values():  # a verdict read in a module of the project says which
        finding.file = getattr(finding.line, "file", None)
        finding.line = int(finding.line) if finding.line is not None else None
    return findings, facts.notes, {"frameworks": sorted(facts.frameworks), "keras_fit": bool(facts.fits),
                                   "crash": crash, "files_read": facts.s.project.read(),
                                   "entry_points": entry_points(facts.s)}


# Set (to anything) by the tests and the benchmarks' development runs: an error in a rule is raised, not turned
# into a "cannot tell", so that no bug hides behind a degraded verdict.
STRICT = "HVDKIT_CHECK_STRICT"


def _guarded(facts, part, func, *args):
    """func(*args); when it raises (a bug of hvdkit's own on code its rules did not foresee), the report goes on
    without that part: a step's verdict becomes "cannot tell" naming the error, another part leaves a note. One
    rule's failure never costs the user the other steps."""
    try:
        return func(*args)
    except Exception as exc:  # noqa: BLE001 - any bug of a rule; re-raised under HVDKIT_CHECK_STRICT
        if os.environ.get(STRICT):
            raise
        where = raised_at(exc)
        facts.notes.append(f"hvdkit's check of {part} stopped on an internal error ({where}); please report it "
                           "with the script")
        if part.startswith("step "):
            return Finding(UNKNOWN, f"hvdkit's rule for this step stopped on an internal error ({where}): cannot "
                           "tell", fix="please report it with the script (hvdkit's issue tracker)")
        return None


def raised_at(exc):
    """`IndexError at crashes.py:162`: an internal error's kind and the line of hvdkit's that raised it."""
    tb = traceback.extract_tb(exc.__traceback__)[-1]
    return f"{type(exc).__name__} at {os.path.basename(tb.filename)}:{tb.lineno}"


def entry_points(script):
    """The report's entry points: [{"function", "file", "line", "why"}] (docs/check.md, "The report")."""
    return [{"function": name, "file": getattr(f.lineno, "file", None), "line": int(f.lineno), "why": why}
            for f, name, why in script.entry_points]
