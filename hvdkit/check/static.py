"""The static pass: the eight steps judged from the script's syntax tree, with no framework imported.

    findings, notes, info = analyze(path)
"""
import ast
import os

from hvdkit.check import CheckInputError
from hvdkit.check.script import Script, dotted
from hvdkit.check.values import RANK, Evaluator, truthy

API_PREFIXES = ("horovod", "hvdkit.torch", "hvdkit.tensorflow")


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
    from hvdkit.check import rules_lr, rules_setup, rules_sync
    script = load(path)
    facts = Facts(script)
    findings = {}
    for n, judge in enumerate((rules_setup.init, rules_setup.pin, rules_setup.shard, rules_lr.lr,
                               rules_sync.optimizer, rules_sync.broadcast, rules_sync.checkpoint,
                               rules_sync.metrics), start=1):
        findings[n] = judge(facts)
    rules_sync.notes(facts)
    return findings, facts.notes, {"frameworks": sorted(facts.frameworks), "keras_fit": bool(facts.fits)}


class Facts:
    """The script plus what several rules share: framework, optimizer steps, data flow helpers."""

    def __init__(self, script):
        self.s = script
        self.ev = Evaluator(script)
        self.notes = []
        mods = set(script.aliases.values())
        self.frameworks = {fw for fw, keys in (("torch", ("torch",)), ("tensorflow", ("tensorflow", "keras")))
                           if any(m.split(".")[0] in keys or f".{keys[0]}" in m for m in mods)}
        self.fits = script.calls(lambda e: isinstance(e.node.func, ast.Attribute)
                                 and e.node.func.attr in ("fit", "fit_generator") and e.ctx.reached)
        self.steps = script.calls(lambda e: isinstance(e.node.func, ast.Attribute) and e.node.func.attr in (
            "step", "apply_gradients", "minimize", "train_on_batch", "fit", "fit_generator")
            and "sched" not in self.s.qual(e.node.func.value).lower() and e.ctx.reached)

    # --- data flow: does an expression depend on something, through assignments to names? ----------
    def mentions(self, node, pred, seen=None):
        seen = set() if seen is None else seen
        for sub in ast.walk(node):
            if pred(sub):
                return True
            name = dotted(sub) if isinstance(sub, (ast.Name, ast.Attribute)) else None
            if name and name not in seen:
                seen.add(name)
                for a in self.s.assignments_to(name):
                    if pred(a.node) or a.node.value is not None and self.mentions(a.node.value, pred, seen):
                        return True  # pred sees the assignment too (`x /= n` is a division of x)
                if isinstance(sub, ast.Name):
                    for f in self._frames_binding(sub.id):
                        if self.mentions(f, pred, seen):
                            return True
        return False

    def _frames_binding(self, name):
        out = []
        for e in self.s.events + self.s.assigns:
            for fr in e.ctx.frames:
                if name in fr.bindings and fr.bindings[name][1] is not None:
                    out.append(fr.bindings[name][0])
        return out

    def is_size(self, n):
        return self.s.is_hvd_query(n, "size", "local_size") or self._ctx_attr(n, "size")

    def is_rank(self, n):
        return self.s.is_hvd_query(n, "rank", "cross_rank") or self._ctx_attr(n, "rank", "is_root")

    def is_local_rank(self, n):
        return self.s.is_hvd_query(n, "local_rank") or self._ctx_attr(n, "local_rank")

    def _ctx_attr(self, n, *names):
        return isinstance(n, ast.Attribute) and n.attr in names and dotted(n.value) in self.s.ctx_names()

    def guard_kind(self, event):
        """'always' | 'never' | 'rank' | 'unknown' for the event's enclosing conditions on the first step."""
        from hvdkit.check.values import guard_status
        return guard_status(self.s, event, self.path_guards(event))

    def path_guards(self, event):
        """Guards the event shares with an optimizer step of the same walk: the script's path, not its condition."""
        from hvdkit.check.rules_sync import same_walk
        out = set()
        for s in self.steps:
            if same_walk(s, event):
                mine = {(id(t), b) for (t, b), _, _ in s.ctx.guards}
                out |= {(t, b) for (t, b), _, _ in event.ctx.guards if (id(t), b) in mine}
        return out

    def rank_guards(self, event):
        """The rank-dependent conditions around an event: [(test, branch taken)]."""
        out = []
        for (test, truth), frame, _ in event.ctx.guards:
            if truthy(self.ev.value(test, frame, event)) == RANK:
                out.append((test, truth))
        return out

    def flows_to_callbacks(self, event):
        """A callback object created by `event` ends up in some fit(callbacks=...)."""
        sinks = [k.value for f in self.fits for k in f.node.keywords if k.arg == "callbacks"]
        sinks += [f.node.args[5] for f in self.fits if len(f.node.args) > 5]
        names = {dotted(n) for s in sinks for n in ast.walk(s) if isinstance(n, (ast.Name, ast.Attribute))}
        node = event.node
        while node is not None and not isinstance(node, ast.stmt):
            if any(node is s for s in sinks):
                return True
            node = getattr(node, "parent", None)
        if node is None:
            return False
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            return any(dotted(t) in names for t in targets)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            f = node.value.func
            return isinstance(f, ast.Attribute) and f.attr in ("append", "extend", "insert") and dotted(f.value) in names
        return False

    def api(self, e, *names):
        a = e.api
        return bool(a) and (a[1] in names or a[1].split(".")[-1] in names)

    def text(self, line):
        return self.s.line_text(line)

