"""The crash finding: statements certain to raise when the script trains, reported on their own (the
steps keep their verdicts, judged on what their code would do).

What is found, with no framework imported:
- names never defined (pyflakes' undefined names; not in notebook exports, whose runtime defines names,
  nor where the script writes `globals()` or runs `exec`);
- `args.x` read from an argparse namespace that declares no x (crash_args.py);
- attributes Horovod 0.28.1's modules do not have, imports of names they do not export, calls that do
  not match their signatures (horovod_api.json), and calls of the script's own functions and classes with
  arguments their definitions do not take (crash_calls.py);
- library constraints that raise before training: torch's DataLoader given a sampler and shuffle=True,
  hvd.DistributedOptimizer told to name fewer parameters than the optimizer holds (crash_torch.py);
- statements that need a terminal, which ranks under mpirun do not have (`stty size`), in the script or in
  the project's modules it imports (crash_imports.py).

A crash counts only when certain: its statement runs whenever the script trains (crashes.certain), and
nothing around it catches the error. Precision comes before recall: a crash reported on a script that runs
is a worse mistake than one left out.
"""
import ast
import builtins
from typing import NamedTuple, Optional

from pyflakes import checker as _pyflakes
from pyflakes import messages as _messages

from hvdkit.check.script import statement_of


class Crash(NamedTuple):
    line: int
    error: str  # "NameError: name 'x' is not defined"
    why: Optional[str]  # what makes it certain, in a sentence
    node: ast.AST
    order: int = 0  # where the walk reaches it: the first crash of a run is the smallest
    file: Optional[str] = None  # None: the checked script; else the module's path relative to the root

    def as_dict(self):
        return {"line": self.line, "file": self.file, "error": self.error, "why": self.why}


def find(facts, root=None):
    """[Crash] certain to happen when the script trains, first to happen first. `root`: the project's root
    folder (its modules are read where the script imports them)."""
    from hvdkit.check import crash_calls, crash_imports, crash_torch
    from hvdkit.check.crash_args import Args
    from hvdkit.check.crash_scopes import Scopes
    s = facts.s
    scopes = Scopes(s.tree)
    qualname = Qualnames(scopes)
    candidates = list(_undefined_names(s, scopes))
    args = Args(s, scopes, qualname)
    for node, parser in args.undeclared():
        candidates.append((node, f"AttributeError: 'Namespace' object has no attribute {node.attr!r}",
                           f"no add_argument of the parser made at line {parser.node.lineno} declares "
                           f"{node.attr}, and nothing sets it", "AttributeError"))
    candidates += crash_calls.find(s, scopes, qualname)
    candidates += crash_torch.find(s, scopes, qualname)
    for node in scopes.nodes:
        terminal = isinstance(node, (ast.Assign, ast.Expr, ast.AnnAssign)) and crash_imports.needs_terminal(node)
        if terminal:
            candidates.append((node, *terminal, terminal[0].split(":")[0]))
    out, seen = [], set()
    for node, error, why, kind in candidates:
        witness = certain(facts, node, kind)
        if witness is not None and not _after_training(facts, witness) and (node.lineno, error) not in seen:
            seen.add((node.lineno, error))
            out.append(Crash(node.lineno, error, why, node, witness.order))
    for line, file, error, why, kind, stmt in crash_imports.find(s, root):
        witness = certain(facts, stmt, kind)
        if witness is not None and not _after_training(facts, witness):
            out.append(Crash(line, error, why, stmt, witness.order, file))
    return sorted(out, key=lambda c: (c.order, c.line))


def first(facts, root=None):
    """The report's `crash`: {"line", "file", "error", "why"} of the first certain crash, or None."""
    found = find(facts, root)
    return found[0].as_dict() if found else None


# --- undefined names ------------------------------------------------------------------------------
_NOTEBOOK_MARKS = ("# Databricks notebook source", "# MAGIC ", "# COMMAND ----------")


def _undefined_names(script, scopes):
    """(Name node, error, why, kind) for pyflakes' undefined names and locals read before assignment."""
    if any(mark in script.source for mark in _NOTEBOOK_MARKS) or _defines_dynamically(scopes.nodes):
        return
    names = {(n.lineno, n.col_offset, n.id): n for n in scopes.nodes if isinstance(n, ast.Name)}
    for m in _pyflakes.Checker(script.tree, filename=script.path).messages:
        if isinstance(m, _messages.UndefinedName):
            node = names.get((m.lineno, m.col, m.message_args[0]))
            if node is not None:
                yield node, f"NameError: name {node.id!r} is not defined", \
                    f"nothing in the script defines or imports {node.id}", "NameError"
        elif isinstance(m, _messages.UndefinedLocal):
            node = names.get((m.lineno, m.col, m.message_args[0]))
            if node is not None:
                yield node, f"UnboundLocalError: cannot access local variable {node.id!r} where it is not " \
                            "associated with a value", f"{node.id} is assigned later in the same function, " \
                            "which makes it local there", "UnboundLocalError"


def _defines_dynamically(nodes):
    """The script binds names the source does not show: globals()[...] = ..., globals().update, exec, a
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


# --- names of imported things, by scope -------------------------------------------------------------
class Qualnames:
    """`qualname(node)`: the dotted name an expression refers to through the imports that bind its root
    name where it is read ('' when the root is not an import, or is bound to several things)."""

    def __init__(self, scopes):
        self.scopes = scopes

    def __call__(self, node):
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return ""
        _, bindings = self.scopes.resolve(node)
        if not bindings:
            root = node.id if hasattr(builtins, node.id) and self.scopes.scope_of(node) is not None else ""
        else:
            # `hvd = None` on the path without Horovod: any attribute of it raises there too
            targets = {_import_target(b) for b in bindings if not _assigns_none(b)}
            root = targets.pop() if len(targets) == 1 else ""
        if not root:
            return ""
        return ".".join([root] + parts[::-1])


def _assigns_none(b):
    return b.kind == "assign" and isinstance(b.value, ast.Constant) and b.value.value is None


def _import_target(b):
    if b.kind == "import":
        return b.value
    if b.kind == "from":
        module, name, level = b.value
        return f"{module}.{name}" if module and not level else ""
    return ""


# --- certainty ---------------------------------------------------------------------------------------
def certain(facts, node, error):
    """The event that shows `node` is evaluated whenever the script trains, or None: its statement runs on
    the script's path (a call or assignment in it, or after it in the same block, runs for sure: no
    condition the source cannot evaluate, in code the walk reaches), it is not one of a condition's
    branches (`a if c else b`, `x and y`, a lambda, a comprehension's body), and no `try` around it, or
    around the calls that lead to it, catches `error`."""
    conditions = _conditional(node)
    if conditions is None:
        return None
    stmt = statement_of(node)
    if stmt is None or _caught(node, error):
        return None
    witness = _witness(facts, stmt)
    if witness is None or conditions and (statement_of(witness.node) is not stmt or
                                          not _holds(facts, conditions, witness)):
        return None
    if any(fr.call is not None and _caught(fr.call, error) for fr in witness.ctx.frames):
        return None
    return witness


def _witness(facts, stmt):
    index = _event_index(facts)
    for _ in range(8):
        body, i = _body_of(stmt)
        places = [_header(stmt)] + (body[i + 1:] if body is not None else [])
        for place in places:
            for node in _walk_same_function(place):
                for e in index.get(id(node), ()):
                    if _sure(facts, e):
                        return e
        parent = getattr(stmt, "parent", None)
        if isinstance(parent, (ast.With, ast.AsyncWith)) or \
                isinstance(parent, ast.Try) and body is parent.body:
            stmt = parent
            continue
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)) and body is parent.body and \
                not _exits_before(parent, stmt):
            calls = [e for fr in _frames_of(facts, parent) if fr.call is not None
                     for e in index.get(id(fr.call), ())]
            return next((e for e in calls if _sure(facts, e)), None)
        return None
    return None


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


def _sure(facts, event):
    return event.ctx.reached and _conditional(event.node) == [] and facts.guard_kind(event) in ("always", "rank")


def _event_index(facts):
    index = getattr(facts, "_crash_event_index", None)
    if index is None:
        index = {}
        for e in facts.s.events + facts.s.assigns:
            index.setdefault(id(e.node), []).append(e)
        facts._crash_event_index = index
    return index


def _frames_of(facts, func):
    seen = {}
    for e in facts.s.events + facts.s.assigns:
        for fr in e.ctx.frames:
            if fr.func is func:
                seen[id(fr)] = fr
    return list(seen.values())


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
    """A return or raise in the function before stmt: stmt may not run when the function does."""
    for node in _walk_same_function(func):
        if node is not func and isinstance(node, (ast.Return, ast.Raise)) and node.lineno < stmt.lineno:
            return True
    return False


def _conditional(node):
    """The conditions under which `node` is evaluated within its statement: [(test, value it must have)]
    for a branch of `a if c else b` or a later operand of `and` / `or`; None when it may not be evaluated
    at all for a reason no condition says (a lambda's or a comprehension's body, an assert's message)."""
    out = []
    child, parent = node, getattr(node, "parent", None)
    while parent is not None and not isinstance(child, ast.stmt):
        if isinstance(parent, ast.IfExp) and child is not parent.test:
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
    """Each condition has its value whenever `event` runs, on some rank at least (`hvd.rank() == 0 and
    ...`: rank 0 evaluates the rest)."""
    from hvdkit.check.values import RANK, truthy
    for test, value in conditions:
        v = truthy(facts.ev.value(test, event.ctx.env, event))
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
