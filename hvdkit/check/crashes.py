"""The crash finding: statements certain to raise when the script trains, reported on their own (the
steps keep their verdicts, judged on what their code would do), in the script and in the project's modules
whose code runs (Script.imported), read through the core's definitions (crash_names.py).

What is found, with no framework imported:
- names never defined (pyflakes' undefined names, per module; not in notebook exports, whose runtime
  defines names, nor where the project writes `globals()` or runs `exec`);
- `args.x` read from an argparse namespace that declares no x, across modules (crash_args.py);
- attributes Horovod 0.28.1's modules do not have, imports of names they do not export, calls that do
  not match their signatures (horovod_api.json), and calls of the project's own functions and classes with
  arguments their definitions do not take (crash_calls.py);
- Horovod's queries (`hvd.size()`, `hvd.rank()`) evaluated before `hvd.init()` runs, also in a worker that
  `horovod.run` starts without its own init (crash_calls.py);
- library constraints that raise: torch's DataLoader given a sampler and shuffle=True, a loss indexed as
  `loss.data[0]` (crash_torch.py),
  the batches of a DataLoader over one tensor unpacked into several names (crash_batches.py);
- torch.distributed's default group read where nothing creates it (`dist.get_rank()` left from a DDP
  version, a DistributedSampler not told num_replicas and rank) (crash_torch.py);
- Keras 3 calls that raise when they are made: a ModelCheckpoint whose model path ends in neither .keras
  nor .h5, an optimizer of keras.optimizers.legacy (crash_keras.py);
- TF 1's `hvd.broadcast_global_variables` run eagerly in TensorFlow 2 code (crash_eager.py);
- a reshape whose shape is read from the tensor's own values, `tf.reshape(y, (y[0], 1))` (crash_shapes.py);
- a Python number handed to a Horovod collective that reads a tensor's attributes (`hvd.allreduce(loss.item())`
  on horovod.torch: AttributeError) (crash_numbers.py);
  hvd.DistributedOptimizer told to name fewer parameters than the optimizer holds, gradients accumulated
  over a known count of passes, or two backward() passes through the wrapped model before one step (a
  GAN critic's real and fake losses), under a DistributedOptimizer left at backward_passes_per_step=1 (step 5's
  unnamed_parameters() and accumulation(), rules/step5_optimizer.py: one query for the verdict and the crash);
- statements that need a terminal, which ranks under mpirun do not have (`stty size`) (crash_imports.py).

A crash counts only when certain: its statement runs whenever the script trains (crashes.certain), and
nothing around it (or around the calls and imports that lead to it) catches the error. Precision comes
before recall: a crash reported on a script that runs is a worse mistake than one left out. A crash in a
step's own call (the Horovod call, a checkpoint's save, or what they are handed) makes that step wrong too
(charge()): the step cannot achieve its purpose.
"""
import ast
import builtins
from typing import NamedTuple, Optional

from pyflakes import checker as _pyflakes
from pyflakes import messages as _messages

from hvdkit.check import names as vocabulary
from hvdkit.check.crash_names import Names, bound_arguments
from hvdkit.check.defs import assigned_value
from hvdkit.check.findings import FLAGGED, WRONG, Finding
from hvdkit.check.project import module_of
from hvdkit.check.script import parents, statement_of

# Constructors that call a function they are given before they return (LambdaLR computes step 0's LR).
CALLED_AT_CONSTRUCTION = ("torch.optim.lr_scheduler.LambdaLR",)


class Crash(NamedTuple):
    line: int
    error: str  # "NameError: name 'x' is not defined"
    why: Optional[str]  # what makes it certain, in a sentence
    node: ast.AST
    order: int = 0  # where the walk reaches it: the first crash of a run is the smallest
    file: Optional[str] = None  # None: the checked script; else the module's path relative to the root

    def as_dict(self):
        return {"line": self.line, "file": self.file, "error": self.error, "why": self.why}


def find(facts, names=None):
    """[Crash] certain to happen when the script trains, first to happen first. `names`: the script's
    crash_names.Names, when the caller has made it."""
    from hvdkit.check import (crash_absl, crash_batches, crash_calls, crash_eager, crash_imports, crash_keras,
                              crash_numbers, crash_shapes, crash_torch)
    from hvdkit.check.crash_args import Args
    from hvdkit.check.rules.step5_optimizer import accumulation_crashes, unnamed_parameter_crashes
    names = names or Names(facts.s)
    args = Args(names)
    candidates = list(_undefined_names(names))
    for node, parser in args.undeclared():
        candidates.append((node, f"AttributeError: 'Namespace' object has no attribute {node.attr!r}",
                           f"no add_argument of the parser made at line {parser.node.lineno} declares "
                           f"{node.attr}, and nothing sets it", "AttributeError"))
    candidates += crash_calls.find(names)
    candidates += crash_calls.before_init(facts)
    candidates += crash_torch.find(names)
    candidates += crash_torch.no_process_group(facts)
    candidates += crash_keras.find(names)
    candidates += crash_eager.find(names)
    candidates += crash_numbers.find(names)
    candidates += crash_shapes.find(names)
    candidates += accumulation_crashes(facts)
    candidates += unnamed_parameter_crashes(facts)
    candidates += crash_batches.find(names, args)
    candidates += crash_imports.find(names)
    candidates += crash_absl.find(names)
    certain, out, seen = Certain(facts, names), [], set()
    for node, error, why, kind in candidates:
        witness = certain(node, kind) if (id(node), error) not in seen else None
        if witness is not None and not _after_training(facts, witness):
            seen.add((id(node), error))
            out.append(Crash(int(node.lineno), error, why, node, witness.order, getattr(node.lineno, "file", None)))
    return sorted(out, key=lambda c: (c.order, c.line))


def first(found):
    """The report's `crash`: {"line", "file", "error", "why"} of the first of the crashes found, or None."""
    return found[0].as_dict() if found else None


# --- a crash in a step's own call -------------------------------------------------------------------
# Horovod's (and hvdkit's) calls that do a step, by the step; a broadcast of any value (`broadcast_object`:
# a counter as well as the weights) is left out, as its step depends on the value, which is not judged here.
# (The LR's callbacks are not the LR's own call: the corpus labels the LR by its value when a warmup
# callback's constructor raises, and so does the LR step here.)
STEP_CALLS = {1: ("init",), 3: vocabulary.SELF_PARTITIONING, 4: ("scale_lr",),
              5: vocabulary.WRAPPERS + ("allreduce", "allreduce_", "grouped_allreduce", "grouped_allreduce_"),
              6: tuple(b for b in vocabulary.BROADCASTS if b not in ("broadcast", "broadcast_", "broadcast_object")),
              8: ("MetricAverageCallback", "average_metrics", "allreduce", "allreduce_", "grouped_allreduce")}
# The step whose own work is a call that is not Horovod's: the checkpoint's save.
SAVE_STEPS = (7,)
# Steps whose Horovod calls are their own wherever they run, not only on the verdict's line: the broadcasts of
# the starting state (the verdict names the model's; the optimizer's, on another line, raising is the step's
# too). (The LR's warmup callback is not: the corpus labels the LR by its value when that callback crashes.)
ANYWHERE_STEPS = {6: ("broadcast_parameters", "broadcast_optimizer_state", "broadcast_variables",
                      "broadcast_global_variables", "BroadcastGlobalVariablesCallback")}


def charge(facts, findings, found, names=None):
    """A step whose own call crashes cannot achieve its purpose: its verdict (ok or cannot tell) becomes
    wrong, its evidence the crash. Its own call is the Horovod call on its verdict's line that does the step
    (STEP_CALLS), or for the checkpoint the save there; a crash counts when it is in that call (its
    receiver, its arguments) or in the value of a name handed to it as an option (not the object it wraps:
    `compression = hvd.Compression.fp16 if args.fp16 else ...`). A crash elsewhere (the data code, a sibling
    element of the callbacks list, a logging line) is the crash alone."""
    names = names or Names(facts.s)
    for n, finding in findings.items():
        if finding.verdict in FLAGGED or finding.line is None:
            continue
        calls = _own_calls(facts, names, finding.line, n) + ([
            e.node for e in facts.s.events if e.ctx.reached and facts.s.api(e.node.func)
            and facts.s.api(e.node.func)[1].split(".")[-1] in ANYWHERE_STEPS[n]] if n in ANYWHERE_STEPS else [])
        # a call that raises because Horovod was never initialised is step 1's fault, not its own step's
        crash = next((c for c in found if "has not been initialized" not in c.error and any(
            _within(c.node, call, names) for call in calls)), None)
        if crash is not None:
            findings[n] = Finding(WRONG, f"its own call raises at line {crash.node.lineno}: {crash.error}",
                                  crash.node.lineno, "fix the crash reported above: the step never runs")


def _own_calls(facts, names, line, step):
    """The calls on a verdict's line that do the step: its Horovod calls, or for the checkpoint the
    outermost calls there (the save)."""
    file = getattr(line, "file", None)
    mod = next((m for m in names.modules if m.rel == file), None)
    if mod is None:
        return []
    at = [n for n in ast.walk(mod.tree) if isinstance(n, ast.Call) and n.lineno == line]
    if step in SAVE_STEPS:
        return [c for c in at if not any(p in at for p in parents(c))]
    # (the shard: any sampler on its line, `hvd.DistributedSampler` too, which Horovod does not have)
    return [c for c in at if facts.s.api(c.func) and facts.s.api(c.func)[1].split(".")[-1] in STEP_CALLS.get(step, ())
            or step == 3 and facts.s.qual(c.func).split(".")[-1] in vocabulary.SAMPLERS]


def _within(node, call, names):
    """`node` is part of `call`, or of the value of a name handed to it other than its first argument."""
    if any(p is call for p in parents(node)) or node is call:
        return True
    handed = call.args[1:] + [k.value for k in call.keywords]
    for arg in handed:
        for name in (n for n in ast.walk(arg) if isinstance(n, ast.Name)):
            for d, _ in names.definitions(name) or ():
                value = assigned_value(d) if isinstance(d, ast.Name) else None
                if value is not None and (node is value or any(p is value for p in parents(node))):
                    return True
    return False


# --- undefined names ------------------------------------------------------------------------------
_NOTEBOOK_MARKS = ("# Databricks notebook source", "# MAGIC ", "# COMMAND ----------")


def _undefined_names(names):
    """(Name node, error, why, kind) for pyflakes' undefined names and locals read before assignment, in the
    script and each module that ran. A module's global that some code sets as an attribute (`config.args =
    args`, `setattr(utils, "logger", ...)`) is defined."""
    if _defines_dynamically(names.nodes):
        return
    unbound = _unbound(names)
    for mod in names.modules:
        if any(mark in mod.source for mark in _NOTEBOOK_MARKS) or id(mod) not in unbound:
            continue
        where = "the script" if mod.main else mod.rel
        index = {(n.lineno, n.col_offset, n.id): n for n in names.nodes_of[id(mod)] if isinstance(n, ast.Name)}
        postponed = any(isinstance(n, ast.ImportFrom) and n.module == "__future__" and
                        any(a.name == "annotations" for a in n.names) for n in mod.tree.body)
        for m in _pyflakes.Checker(mod.tree, filename=mod.path).messages:
            if not isinstance(m, (_messages.UndefinedName, _messages.UndefinedLocal)):
                continue  # an unused import, an f-string without placeholders: no name to look up, no crash
            node = index.get((m.lineno, m.col, m.message_args[0]))
            if node is None or _annotation_never_evaluated(node, postponed):
                continue
            if isinstance(m, _messages.UndefinedName) and (mod.main or node.id not in names.stored_attrs):
                yield node, f"NameError: name {node.id!r} is not defined", \
                    f"nothing in {where} defines or imports {node.id}", "NameError"
            elif isinstance(m, _messages.UndefinedLocal):
                yield node, f"UnboundLocalError: cannot access local variable {node.id!r} where it is not " \
                            "associated with a value", f"{node.id} is assigned later in the same function, " \
                            "which makes it local there", "UnboundLocalError"


def _annotation_never_evaluated(node, postponed):
    """The name is in an annotation Python does not evaluate: any, under `from __future__ import annotations`;
    a local variable's (`x: Tensor = ...` in a function) always."""
    child = node
    for parent in parents(node):
        if isinstance(parent, ast.arg) and child is parent.annotation or \
                isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)) and child is parent.returns:
            return postponed
        if isinstance(parent, ast.AnnAssign) and child is parent.annotation:
            return postponed or any(isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef)) for p in parents(parent))
        if isinstance(parent, ast.stmt):
            return False
        child = parent
    return False


def _unbound(names):
    """The script, and the modules that read a name nothing in them binds by that spelling and that is no
    builtin: those pyflakes reads (and decides on); a module without one is not read twice."""
    out = {id(names.modules[0])}
    for mod in names.modules[1:]:
        bound, read = set(), set()
        for n in names.nodes_of[id(mod)]:
            if isinstance(n, ast.Name):
                (read if isinstance(n.ctx, ast.Load) else bound).add(n.id)
            elif isinstance(n, ast.alias):
                bound.add(n.asname or n.name.split(".")[0])
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.ExceptHandler)) or \
                    type(n).__name__ in ("MatchAs", "MatchStar"):
                bound.add(n.name)
            elif isinstance(n, ast.arg):
                bound.add(n.arg)
            elif type(n).__name__ == "MatchMapping":
                bound.add(n.rest)
        if any(i not in bound and not hasattr(builtins, i) for i in read):
            out.add(id(mod))
    return out


def _defines_dynamically(nodes):
    """The code binds names the source does not show: globals()[...] = ..., globals().update, exec, a
    notebook's get_ipython()."""
    for node in nodes:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id in ("exec", "get_ipython", "execfile"):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id in ("globals", "locals", "vars") and not node.args:
            parent = getattr(node, "parent", None)
            if isinstance(parent, (ast.Attribute, ast.Subscript)):
                return True
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                node.value.id in ("builtins", "__builtins__") and not isinstance(node.ctx, ast.Load):
            return True
    return False


# --- certainty ---------------------------------------------------------------------------------------
class Certain:
    """`certain(node, error)`: the event that shows `node` is evaluated whenever the script trains, or None.
    Its statement runs on the script's path: a call or assignment in it, or after it in the same block, or
    before it in the same block with nothing in between that may leave the block, runs for sure (no
    condition the source cannot evaluate, in code the walk reaches, called from call sites that are not a
    condition's branches). It is not itself one of a condition's branches (`a if c else b`, `x and y`, a
    lambda, a comprehension's body), and no `try` around it, around the calls that lead to it, or around
    the imports that ran its module catches `error`."""

    def __init__(self, facts, names):
        self.f, self.names = facts, names
        self.index = {}
        for e in facts.s.events + facts.s.assigns:
            self.index.setdefault(id(e.node), []).append(e)
        # every walked call's frame, also of a function in whose body nothing is recorded (`def lr_at(e):
        # return args.lr / args.warmup_iters`)
        self.frames = {func: {id(fr): fr for fr in frames} for func, frames in facts.frames_of().items()}

    def __call__(self, node, error):
        conditions = _conditional(node)
        if conditions is None:
            call = self._called_at_construction(node)
            return self(call, error) if call is not None else None
        stmt = statement_of(node)
        if stmt is None or _caught(node, error):
            return None
        witness = self._witness(stmt, 0)
        if witness is None or conditions and (statement_of(witness.node) is not stmt or
                                              not _holds(self.f, conditions, witness)):
            return None
        if any(fr.call is not None and _caught(fr.call, error) for fr in witness.ctx.frames):
            return None
        modules = {module_of(node)} | {module_of(fr.call) for fr in witness.ctx.frames if fr.call is not None}
        if any(self._import_caught(m, error, set()) for m in modules if m is not None and not m.main):
            return None
        return witness

    def _called_at_construction(self, node):
        """The constructor call that runs the lambda `node` is in, with nothing in the lambda's body
        deciding whether `node` is evaluated: LambdaLR's constructor calls its lr_lambda for step 0, a
        dataclass's generated __init__ the default_factory of a field it is not given."""
        lam = next((p for p in parents(node) if isinstance(p, ast.Lambda)), None)
        call = getattr(lam, "parent", None)
        if lam is not None and _conditional(node, stop=lam) == [] and isinstance(call, ast.keyword) and \
                call.arg == "default_factory":
            # a dataclass field's factory: it runs where an instance is made without that field (the walk's
            # call of it, Script._default_factories, hangs below the instance's call)
            made = [e.node.parent for e in self.f.s.events if e.node.func is lam]
            return made[0] if made else None
        if lam is None or _conditional(node, stop=lam) != [] or not isinstance(call, ast.Call) or \
                self.names.qual(call.func) not in CALLED_AT_CONSTRUCTION:
            return None
        given = bound_arguments(call, ["optimizer", "lr_lambda"])
        return call if given is not None and given.get("lr_lambda") is lam else None

    def _witness(self, stmt, depth):
        for _ in range(8):
            body, i = _body_of(stmt)
            places = [_header(stmt)] + (body[i + 1:] if body is not None else [])
            found = self._sure_in(places) or self._sure_in(_before(body, i) if body is not None else [])
            if found is not None:
                return found
            parent = getattr(stmt, "parent", None)
            if isinstance(parent, (ast.With, ast.AsyncWith)) or \
                    isinstance(parent, ast.Try) and body is parent.body:
                stmt = parent
                continue
            if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)) and body is parent.body and \
                    not _exits_before(parent, stmt):
                calls = [e for fr in self.frames.get(parent, {}).values() if fr.call is not None
                         for e in self.index.get(id(fr.call), ())]
                return next((e for e in calls if self._sure(e)), None)
            mod = module_of(stmt) if isinstance(parent, ast.Module) and not _exits_before(parent, stmt) else None
            if mod is not None and not mod.main and depth < 4:
                # a module's own code runs where the module is imported: a statement at its level that nothing
                # after it shows running runs when an import of the module does
                found = (self._witness(statement_of(imp), depth + 1) for imp in self._importers(mod)
                         if module_of(imp) is not mod)
                return next((w for w in found if w is not None), None)
            return None
        return None

    def _sure_in(self, places):
        for place in places:
            for node in _walk_same_function(place):
                for e in self.index.get(id(node), ()):
                    if self._sure(e):
                        return e
        return None

    def _sure(self, event):
        """The event runs whenever the script trains: reached, no guard that may be false, not a
        condition's branch, and neither are the call sites that lead to it."""
        if not (event.ctx.reached and _conditional(event.node) == [] and
                (self.f.guard_kind(event) in ("always", "rank") or self._by_default(event))):
            return False
        for fr in event.ctx.frames:
            conditions = _conditional(fr.call) if fr.call is not None else []
            if conditions is None or conditions and not _holds(self.f, conditions, event):
                return False
        return True

    def _by_default(self, event):
        """The event's guards hold on the first step with every option at its declared default (`if epoch <
        args.warmup_epochs:` with --warmup-epochs 10): the run a crash is reported for."""
        from hvdkit.check.values import runs
        if runs(self.f.s, event, defaults=True).kind in ("always", "rank"):
            return True
        # or on the second step, in the branch a first-step test leaves for later (`if step == 0: ... else:
        # ema.assign(args.ema_decay * ...)`): a loop of the training runs it from its second pass
        return bool(event.ctx.loops) and _second_step(self.f.s, event)

    def _import_caught(self, mod, error, seen):
        """An import that runs `mod` (or a module that imports it) is in a `try` that catches `error`."""
        seen.add(id(mod))
        for node in self._importers(mod):
            importer = module_of(node)
            if _caught(node, error) or importer is not None and not importer.main and id(importer) not in seen \
                    and self._import_caught(importer, error, seen):
                return True
        return False

    def _importers(self, mod):
        """The import statements (of the code read) that run module `mod`: `import a.b` runs a and a.b,
        `from a.b import c` runs a, a.b and a.b.c when c is a module."""
        project = self.f.s.project
        out = []
        for node in self.names.nodes:
            if not isinstance(node, (ast.Import, ast.ImportFrom)) or project is None:
                continue
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                base = project.absolute(module_of(node), node.module, node.level)
                targets = [base] + [f"{base}.{a.name}" if base else a.name for a in node.names]
            if any(t == mod.name or t.startswith(mod.name + ".") for t in targets if t):
                out.append(node)
        return out


def _second_step(script, event):
    """The event's guards hold by default, but for first-step tests it is in the other branch of: true on the
    first step (`step == 0`, `epoch == start`) and told by the step, so false from the second pass on."""
    from hvdkit.check.values import RANK, Evaluator, Where, truthy
    first, later = Evaluator(script, Where(0, True, True)), Evaluator(script, Where(0, False, True))
    flipped = False
    for g in event.ctx.guards:
        v = truthy(first.value(g.test, g.frame, event))
        if v is g.branch or v == RANK:
            continue
        if v is (not g.branch) and g.branch is False and truthy(later.value(g.test, g.frame, event)) is None:
            flipped = True
            continue
        return False
    return flipped


def _before(body, i):
    """The statements before body[i], nearest first, as far as none of them (nor those between) may leave
    the block (break, continue, return, raise, sys.exit(), an endless `while True`)."""
    out = []
    for stmt in reversed(body[:i]):
        if _may_leave(stmt):
            break
        out.append(stmt)
    return out


_EXITS = ("sys.exit", "exit", "quit", "os._exit")


def _may_leave(stmt):
    if isinstance(stmt, ast.While) and isinstance(stmt.test, ast.Constant) and stmt.test.value:
        return True
    for node in _walk_same_function(stmt):
        if isinstance(node, (ast.Break, ast.Continue, ast.Return, ast.Raise)):
            return True
        if isinstance(node, ast.Call) and ast.unparse(node.func) in _EXITS:
            return True
    return False


# The Keras callback method that Keras calls once training has finished.
AFTER_TRAINING_HOOKS = ("on_train_end",)


def _after_training(facts, event):
    """The event runs once training has finished: after the outermost loop that holds an optimizer step
    (outside it), after a `fit` call, or in a Keras callback's on_train_end. A crash there (a summary
    printed after training, a final export) is left out: the finding is about training, as the corpus
    labels' `fatal` is. A crash at an epoch's end (a checkpoint, a validation) is in."""
    if any(fr.call is None and fr.func.name in AFTER_TRAINING_HOOKS for fr in event.ctx.frames):
        return True
    for step in facts.steps:
        if step.node in facts.s.local_calls or any(fr.call is step.node for fr in event.ctx.frames):
            continue  # the script's own `fit` method, walked into: the event runs inside it
        if step.ctx.reached and step.order < event.order and \
                not any(loop is mine for loop in step.ctx.loops for mine in event.ctx.loops):
            return True
    return False


def _body_of(stmt):
    """(the statement list holding stmt, its index) or (None, 0)."""
    parent = getattr(stmt, "parent", None)
    for field in ("body", "orelse", "finalbody", "handlers"):
        body = getattr(parent, field, None)
        if isinstance(body, list):
            for i, s in enumerate(body):
                if s is stmt:
                    return body, i
    return None, 0


def _header(stmt):
    """What of a statement runs before its body: the test of an if/while, a for's iterable, a with's items;
    the whole statement when it is simple."""
    if isinstance(stmt, (ast.If, ast.While)):
        return stmt.test
    if isinstance(stmt, (ast.For, ast.AsyncFor)):
        return stmt.iter
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return ast.Tuple(elts=[i.context_expr for i in stmt.items], ctx=ast.Load())
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Try)):
        return ast.Pass()
    return stmt


def _walk_same_function(node):
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(n))


def _exits_before(func, stmt):
    """A return, raise or sys.exit() in the function (or module) before stmt: stmt may not run when it does."""
    for node in _walk_same_function(func):
        if node is not func and getattr(node, "lineno", stmt.lineno) < stmt.lineno and (
                isinstance(node, (ast.Return, ast.Raise)) or
                isinstance(node, ast.Call) and ast.unparse(node.func) in _EXITS):
            return True
    return False


def _conditional(node, stop=None):
    """The conditions under which `node` is evaluated within its statement (or within `stop`, a lambda):
    [(test, value it must have)] for a branch of `a if c else b` or a later operand of `and` / `or`; None
    when it may not be evaluated at all for a reason no condition says (a lambda's or a comprehension's
    body, an assert's message). The element of a list, set or dict comprehension with no `if` clause is
    evaluated for each item, as a `for` loop's body is."""
    out = []
    child, parent = node, getattr(node, "parent", None)
    while parent is not None and parent is not stop and not isinstance(child, ast.stmt):
        if isinstance(parent, (ast.ListComp, ast.SetComp, ast.DictComp)) and \
                not any(g.ifs for g in parent.generators) and not isinstance(child, ast.comprehension):
            pass  # `[run(cfg) for cfg in trials]`: runs per trial, as the body of `for cfg in trials:` does
        elif isinstance(parent, ast.IfExp) and child is not parent.test:
            out.append((parent.test, child is parent.body))
        elif isinstance(parent, ast.BoolOp) and child is not parent.values[0]:
            for earlier in parent.values[:parent.values.index(child)]:
                out.append((earlier, isinstance(parent.op, ast.And)))
        elif isinstance(parent, ast.Lambda) or \
                isinstance(parent, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)) or \
                isinstance(parent, ast.comprehension) and child is not parent.iter or \
                isinstance(parent, ast.Assert) and child is parent.msg:
            return None
        child, parent = parent, getattr(parent, "parent", None)
    return out


def _holds(facts, conditions, event):
    """Each condition has its value whenever `event` runs with every option at its declared default (the run
    a crash is reported for), on some rank at least (`hvd.rank() == 0 and ...`: rank 0 evaluates the rest)."""
    from hvdkit.check.values import RANK, Evaluator, Where, truthy
    ev = facts.memo("crash conditions", lambda: Evaluator(facts.s, Where(defaults=True)))
    for test, value in conditions:
        v = truthy(ev.value(test, event.ctx.env, event))
        if v != RANK and v is not value:
            return False
    return True


# The builtin exception classes by name, to tell whether an except clause catches an error.
_BUILTIN_EXC = {n: getattr(builtins, n) for n in dir(builtins)
                if isinstance(getattr(builtins, n), type) and issubclass(getattr(builtins, n), BaseException)}


def _caught(node, error):
    """A try around `node` (within its function) has a handler for `error`, or a with contextlib.suppress."""
    child, parent = node, getattr(node, "parent", None)
    while parent is not None and not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        if isinstance(parent, ast.Try) or type(parent).__name__ == "TryStar":
            if any(child is s for s in parent.body) and any(_catches(h.type, error) for h in parent.handlers):
                return True
        if isinstance(parent, (ast.With, ast.AsyncWith)) and any(
                isinstance(i.context_expr, ast.Call) and ast.unparse(i.context_expr.func).endswith("suppress")
                for i in parent.items):
            return True
        child, parent = parent, getattr(parent, "parent", None)
    return False


def _catches(kind, error):
    if kind is None:
        return True
    if isinstance(kind, ast.Tuple):
        return any(_catches(k, error) for k in kind.elts)
    cls = _BUILTIN_EXC.get(error)
    if isinstance(kind, ast.Name):
        if kind.id in _BUILTIN_EXC:
            return cls is None or issubclass(cls, _BUILTIN_EXC[kind.id])
        return True  # a name bound to something else (a tuple of classes, an alias): it may catch it
    if isinstance(kind, ast.Attribute):
        return ast.unparse(kind).startswith("builtins.") and _catches(ast.Name(id=kind.attr), error)
    return True
