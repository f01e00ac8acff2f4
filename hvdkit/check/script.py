"""A training script as the static pass sees it: names resolved, calls in execution order.

Imports are resolved to full dotted names (`hvd.init` -> `horovod.torch.init`), and the script's calls
are listed in the order they run: module level top to bottom, and every call of a function defined in
the same file walked into at its call site, with the conditions, loops and argument bindings in force
there. Functions reached from no call (Keras `train_step` methods, callbacks) are walked at the end.
No framework is imported.
"""
import ast
from typing import NamedTuple, Optional

from hvdkit.check.names import SUM_OPS, api_name

MAX_DEPTH = 12


class Guard(NamedTuple):
    """A condition around an event: `test` must be `branch` for it to run (evaluated in `frame`, inside
    the first `loop_depth` loops of the event's context)."""
    test: ast.expr
    branch: bool
    frame: Optional["Frame"]
    loop_depth: int


class Binding(NamedTuple):
    """A parameter of a walked call: the argument expression, read in the caller's frame."""
    expr: ast.expr
    frame: Optional["Frame"]  # None: the module's level, or a default
    default: bool = False


class Ctx:
    """Where an event happens: enclosing guards, loops, and the call frames."""

    def __init__(self, guards=(), loops=(), frames=(), reached=True):
        self.guards, self.loops, self.frames, self.reached = tuple(guards), tuple(loops), tuple(frames), reached

    def with_(self, guard=None, loop=None, frame=None):
        """guard: (test, branch taken)."""
        guards = self.guards
        if guard:
            guards += (Guard(guard[0], guard[1], self.frames[-1] if self.frames else None, len(self.loops)),)
        return Ctx(guards, self.loops + (loop,) if loop else self.loops,
                   self.frames + (frame,) if frame else self.frames, self.reached)

    @property
    def env(self):
        return self.frames[-1] if self.frames else None


class Frame:
    """A walked call of a local function: its parameters bound to the caller's argument expressions."""

    def __init__(self, func, call, caller):
        self.func, self.call, self.caller, self.bindings = func, call, caller, {}
        params = [a.arg for a in func.args.posonlyargs + func.args.args]
        if params and params[0] in ("self", "cls"):
            params = params[1:]
        defaults = func.args.defaults
        for name, default in zip(params[len(params) - len(defaults):], defaults):
            self.bindings[name] = Binding(default, None, True)
        for a, d in zip(func.args.kwonlyargs, func.args.kw_defaults):
            if d is not None:
                self.bindings[a.arg] = Binding(d, None, True)
        if call is not None:
            for name, arg in zip(params, [a for a in call.args if not isinstance(a, ast.Starred)]):
                self.bindings[name] = Binding(arg, caller)
            for kw in call.keywords:
                if kw.arg:
                    self.bindings[kw.arg] = Binding(kw.value, caller)


class Event:
    """One call (or assignment) reached by the walk, with its order and context."""

    def __init__(self, node, qual, ctx, order):
        self.node, self.qual, self.ctx, self.order = node, qual, ctx, order
        self.api = api_name(qual)

    @property
    def line(self):
        return self.node.lineno


class Script:
    def __init__(self, source, path="<script>"):
        self.path, self.source = path, source
        self.tree = ast.parse(source, filename=path)
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                child.parent = node
        self.aliases = {}
        self.funcs, self.methods, self.classes = {}, {}, {}
        self._collect()
        self._module_aliases()
        self.events, self.assigns, self.walked = [], [], set()
        self.local_calls = set()  # call nodes resolved to a function of this file, in some walk
        self.pending_hooks = {}  # name of a Keras callback instance: its on_* methods, not walked yet
        self._walk_body(self.tree.body, Ctx())
        for func in list(self.funcs.values()) + [f for fs in self.methods.values() for f in fs]:
            if func not in self.walked:
                self._enter(func, None, Ctx(reached=False))

    # --- names ---------------------------------------------------------------------------------
    def _collect(self):
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        self.aliases[a.asname] = a.name
                    else:
                        self.aliases[a.name.split(".")[0]] = a.name.split(".")[0]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for a in node.names:
                    self.aliases[a.asname or a.name] = f"{node.module}.{a.name}"
            elif isinstance(node, ast.ClassDef):
                self.classes.setdefault(node.name, node)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                parent = getattr(node, "parent", None)
                if isinstance(parent, ast.ClassDef):
                    self.methods.setdefault(node.name, []).append(node)
                else:
                    self.funcs.setdefault(node.name, node)

    def _module_aliases(self):
        """`mnist = tf.keras.datasets.mnist` (at any level): an alias of a module path, like an import."""
        for stmt in ast.walk(self.tree):
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                    and isinstance(stmt.value, ast.Attribute):
                q = self.qual(stmt.value)
                if q and q.split(".")[0] in set(self.aliases.values()) | {"tensorflow", "torch", "keras"}:
                    self.aliases.setdefault(stmt.targets[0].id, q)

    def qual(self, node):
        """Dotted name of a Name/Attribute chain with its import alias expanded ('' when not a chain)."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Call):
            inner = self.qual(node.func)
            return ".".join([inner + "()"] + parts[::-1]) if inner else ""
        if not isinstance(node, ast.Name):
            return ""
        base = self.aliases.get(node.id, node.id)
        return ".".join([base] + parts[::-1])

    def api(self, node):
        return api_name(self.qual(node))

    def is_api(self, node, *names, owner=None):
        a = self.api(node.func if isinstance(node, ast.Call) else node)
        return bool(a) and (owner is None or a[0] == owner) and (not names or a[1] in names)

    def is_hvd_query(self, node, *names):
        """A call of hvd.rank()/size()/... from Horovod's or hvdkit's API (also hvdkit's ctx.rank)."""
        if isinstance(node, ast.Call) and self.is_api(node, *names):
            return True
        return isinstance(node, ast.Attribute) and node.attr in names and self.qual(node.value) in self.ctx_names()

    def ctx_names(self):
        """Names bound to hvdkit's init() result (ctx.rank, ctx.size): computed once, after the walk."""
        if getattr(self, "_ctx_names", None) is None:
            self._ctx_names = self._find_ctx_names()
        return self._ctx_names

    def _find_ctx_names(self):
        return {e.node.parent.targets[0].id for e in self.events
                if e.api and e.api[1] == "init" and isinstance(getattr(e.node, "parent", None), ast.Assign)
                and isinstance(e.node.parent.targets[0], ast.Name)}

    # --- walk ----------------------------------------------------------------------------------
    def _emit(self, node, ctx):
        self.events.append(Event(node, self.qual(node.func), ctx, len(self.events) + len(self.assigns)))

    def _walk_body(self, body, ctx):
        for stmt in body:
            self._walk_stmt(stmt, ctx)
            # `if cond: return` (or continue/break/raise): what follows runs only when cond is false.
            if isinstance(stmt, ast.If) and not stmt.orelse and stmt.body and \
                    isinstance(stmt.body[-1], (ast.Return, ast.Continue, ast.Break, ast.Raise)):
                ctx = ctx.with_(guard=(stmt.test, False))

    def _walk_stmt(self, s, ctx):
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for d in s.decorator_list:
                self._walk_expr(d, ctx)
            return
        if isinstance(s, ast.If):
            self._walk_expr(s.test, ctx)
            if _is_main_guard(s.test):
                self._walk_body(s.body, ctx)
                return
            self._walk_body(s.body, ctx.with_(guard=(s.test, True)))
            self._walk_body(s.orelse, ctx.with_(guard=(s.test, False)))
        elif isinstance(s, (ast.For, ast.AsyncFor)):
            self._walk_expr(s.iter, ctx)
            self._walk_body(s.body, ctx.with_(loop=s))
            self._walk_body(s.orelse, ctx)
        elif isinstance(s, ast.While):
            self._walk_expr(s.test, ctx)
            self._walk_body(s.body, ctx.with_(loop=s))
            self._walk_body(s.orelse, ctx)
        elif isinstance(s, (ast.With, ast.AsyncWith)):
            for item in s.items:
                self._walk_expr(item.context_expr, ctx)
            self._walk_body(s.body, ctx)
        elif isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
            self._walk_body(s.body, ctx)
            for h in s.handlers:
                self._walk_body(h.body, ctx.with_(guard=(_handler_test(h), True)))
            self._walk_body(s.orelse, ctx)
            self._walk_body(s.finalbody, ctx)
        else:
            self._walk_expr(s, ctx)
            if isinstance(s, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                self.assigns.append(Event(s, "", ctx, len(self.events) + len(self.assigns)))

    def _walk_expr(self, node, ctx):
        if self.pending_hooks and isinstance(node, (ast.Name, ast.Attribute)) and _handed_on(node):
            # `cb = SaveState()` then `if hvd.rank() == 0: callbacks.append(cb)`: the guard of the append.
            for hook in self.pending_hooks.pop(_dotted(node), ()):
                self._enter(hook, None, ctx.with_(loop=node))
        if isinstance(node, ast.Lambda):
            self._walk_expr(node.body, ctx)
            return
        if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)):
            for gen in node.generators:
                self._walk_expr(gen.iter, ctx)
            loop_ctx = ctx.with_(loop=node)
            for child in ast.iter_child_nodes(node):
                if not isinstance(child, ast.comprehension):
                    self._walk_expr(child, loop_ctx)
            return
        if isinstance(node, ast.Call):
            for child in [node.func] + node.args + [k.value for k in node.keywords]:
                self._walk_expr(child, ctx)
            self._emit(node, ctx)
            target = self._local_target(node.func, ctx)
            if target is not None:
                self.local_calls.add(node)
                self._enter(target, node, ctx)
            hooks = self._callback_hooks(node.func)
            if hooks and assigned_name(node):
                self.pending_hooks[assigned_name(node)] = hooks  # they run where the name is handed on
            for hook in () if assigned_name(node) else hooks:
                # Keras calls a callback's on_* methods from fit, again and again: they run wherever the
                # instance is made (a rank guard around it is theirs too).
                self._enter(hook, None, ctx.with_(loop=node))
            for arg in node.args + [k.value for k in node.keywords]:
                # A local function handed to another (timeit, hvd.elastic.run, map): it runs there.
                func = self._local_target(arg, ctx) if isinstance(arg, (ast.Name, ast.Attribute)) else None
                if func is not None and func not in self.walked:
                    self._enter(func, None, ctx.with_(loop=node))
            return
        for child in ast.iter_child_nodes(node):
            self._walk_expr(child, ctx)

    def _local_target(self, func, ctx):
        """The function of this file a call runs: a function, a class's __init__, or a method of a local
        class found through `self`/`cls`, `super()`, or a receiver known to hold an instance of that class.
        A method name alone proves nothing: `torch.save` or `self.model.save` is not the script's `save`."""
        if isinstance(func, ast.Name):
            if func.id in self.funcs:
                return self.funcs[func.id]
            if func.id in self.classes:
                return self._method_of(self.classes[func.id], "__init__")
            return None
        if not isinstance(func, ast.Attribute):
            return None
        if isinstance(func.value, ast.Call) and self.qual(func.value.func) == "super":
            owner = self._class_of(ast.Name(id="self"), ctx.env)
            return self._method_of(owner, func.attr, skip_own=True) if owner is not None else None
        owner = self._class_of(func.value, ctx.env)
        return self._method_of(owner, func.attr) if owner is not None else None

    def _class_of(self, node, frame, depth=0):
        """The local class of `self` inside a walked method, of a parameter bound to an instance, of
        `Class(...)` itself, or of a name last assigned `Class(...)`; None when the source does not say."""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in self.classes:
            return self.classes[node.func.id]
        if isinstance(node, ast.Name) and node.id in ("self", "cls"):
            return _enclosing_class(frame.func) if frame is not None else None
        if isinstance(node, ast.Name) and frame is not None and node.id in frame.bindings and depth < MAX_DEPTH:
            b = frame.bindings[node.id]
            return self._class_of(b.expr, b.frame, depth + 1)
        name = _dotted(node)
        if not name:
            return None
        # Read during the walk, while self.assigns still grows: assignments_to()'s index is not built yet.
        for a in reversed(self.assigns):
            if not isinstance(a.node, ast.Assign):
                continue
            for t in a.node.targets:
                # a, b = Meter("x"), Meter("y"): each name its own element
                pairs = zip(t.elts, a.node.value.elts) if isinstance(t, ast.Tuple) and isinstance(
                    a.node.value, ast.Tuple) and len(t.elts) == len(a.node.value.elts) else [(t, a.node.value)]
                for target, v in pairs:
                    if _dotted(target) == name:
                        return self.classes[v.func.id] if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) \
                            and v.func.id in self.classes else None
        return None

    def _callback_hooks(self, func):
        """The on_* methods of a local Keras Callback subclass that `func(...)` instantiates."""
        cls = self.classes.get(func.id) if isinstance(func, ast.Name) else None
        if cls is None or not self._keras_callback(cls):
            return []
        names, todo = set(), [cls]
        while todo and len(names) < 100:
            c = todo.pop()
            names |= {s.name for s in c.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                      and s.name.startswith("on_")}
            todo += [self.classes[b.id] for b in c.bases if isinstance(b, ast.Name) and b.id in self.classes
                     and self.classes[b.id] is not c]
        return [m for m in (self._method_of(cls, n) for n in sorted(names)) if m is not None]

    def _keras_callback(self, cls, seen=0):
        """The class derives (through local classes) from Keras' Callback (tf.keras, keras, or Horovod's)."""
        for base in cls.bases:
            q = self.qual(base)
            if q.split(".")[-1] == "Callback" and q.split(".")[0] in ("tensorflow", "keras", "tf_keras", "horovod"):
                return True
            if isinstance(base, ast.Name) and base.id in self.classes and seen < 5 and \
                    self._keras_callback(self.classes[base.id], seen + 1):
                return True
        return False

    def _method_of(self, cls, name, seen=0, skip_own=False):
        for stmt in () if skip_own else cls.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == name:
                return stmt
        for base in cls.bases:  # a local base class
            if isinstance(base, ast.Name) and base.id in self.classes and seen < 5:
                found = self._method_of(self.classes[base.id], name, seen + 1)
                if found is not None:
                    return found
        return None

    def _enter(self, func, call, ctx):
        if len(ctx.frames) >= MAX_DEPTH or any(f.func is func for f in ctx.frames):
            return
        self.walked.add(func)
        self._walk_body(func.body, ctx.with_(frame=Frame(func, call, ctx.env)))

    # --- queries -------------------------------------------------------------------------------
    def calls(self, pred):
        return [e for e in self.events if pred(e)]

    def api_calls(self, *names, owner=None):
        return [e for e in self.events if e.api and (owner is None or e.api[0] == owner)
                and (not names or e.api[1] in names or e.api[1].split(".")[-1] in names)]

    def assignments_to(self, name):
        """Assignment events whose target is `name` (a Name id or dotted attribute like 'args.lr')."""
        if getattr(self, "_by_target", None) is None:  # indexed once: the rules ask thousands of times
            self._by_target = {}
            for e in self.assigns:
                targets = e.node.targets if isinstance(e.node, ast.Assign) else [e.node.target]
                for t in targets:
                    for sub, one in _unpacked(t, e):
                        key = _dotted(sub)
                        if key is not None:
                            self._by_target.setdefault(key, []).append(one)
        return list(self._by_target.get(name, ()))

    def line_text(self, line):
        lines = self.source.splitlines()
        text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
        return text.split("  #")[0].rstrip()  # an inline comment is not evidence


def _dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id] + parts[::-1]) if isinstance(node, ast.Name) else None


def dotted(node):
    return _dotted(node)


def parents(node):
    """The nodes enclosing `node`, innermost first (the tree's `parent` links)."""
    while getattr(node, "parent", None) is not None:
        node = node.parent
        yield node


def loop_bindings(node):
    """The (target, iter) pairs a loop or comprehension node binds; [] for any other node."""
    if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)):
        return node.generators
    return [node] if isinstance(node, (ast.For, ast.AsyncFor)) else []


def _unpacked(target, event):
    """(target, assignment event) for each name a target binds. `a, b = x, y` binds a to x alone (an
    assignment of its own, on the same line and in the same place of the walk), so that `size` in
    `rank, size = hvd.rank(), hvd.size()` does not count as the rank; starred or uneven unpacking, or an
    unpacked call, binds every name to the whole value."""
    if not isinstance(target, (ast.Tuple, ast.List)):
        return [(target, event)]
    value = getattr(event.node, "value", None)
    if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts) and isinstance(
            event.node, ast.Assign) and not any(isinstance(n, ast.Starred) for n in target.elts + value.elts):
        out = []
        for t, v in zip(target.elts, value.elts):
            one = ast.copy_location(ast.Assign(targets=[t], value=v), event.node)
            one.parent = getattr(event.node, "parent", None)
            out += _unpacked(t, Event(one, "", event.ctx, event.order))
        return out
    return [(sub, event) for sub in target.elts]


def _handed_on(node):
    """A name read as an element of a list or tuple, or as an argument of a call (not called itself)."""
    parent = getattr(node, "parent", None)
    if isinstance(node.ctx, ast.Store) or isinstance(parent, ast.Attribute):
        return False
    return isinstance(parent, (ast.List, ast.Tuple, ast.keyword)) or isinstance(parent, ast.Call) and \
        node is not parent.func


def _enclosing_class(func):
    """The class whose method `func` is, or is nested in (a closure's `self` is its method's)."""
    node = getattr(func, "parent", None)
    while isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        node = getattr(node, "parent", None)
    return node if isinstance(node, ast.ClassDef) else None


def _handler_test(handler):
    """The guard of an except clause: unknown as a condition, marked so that values.py can tell that the
    script's normal path (the try body) is the one a value comes from."""
    test = ast.Constant(value=None)
    test.handler = handler
    ast.copy_location(test, handler)
    return test


def in_handler(event):
    return any(getattr(g.test, "handler", None) is not None for g in event.ctx.guards)


def _is_main_guard(test):
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__"
            and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in test.comparators))


def statement_of(node):
    while node is not None and not isinstance(node, ast.stmt):
        node = getattr(node, "parent", None)
    return node


def result_discarded(call):
    """The call's value is thrown away: it is an expression statement of its own."""
    return isinstance(getattr(call, "parent", None), ast.Expr)


def sums(call):
    """The call's `op=` asks for a sum: Horovod's hvd.Sum (any spelling of the module), or hvdkit's op="sum"."""
    op = next((k.value for k in call.keywords if k.arg == "op"), None)
    if isinstance(op, ast.Constant) and isinstance(op.value, str):
        return bool(SUM_OPS.match(op.value))
    return op is not None and bool(SUM_OPS.match(ast.unparse(op).split(".")[-1]))


def assigned_name(call):
    """The name a call's result is assigned to (`x = call(...)`), else None."""
    parent = getattr(call, "parent", None)
    if isinstance(parent, (ast.Assign, ast.AnnAssign)):
        targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
        if len(targets) == 1:
            return _dotted(targets[0])
    return None
