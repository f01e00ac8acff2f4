"""A training script as the static pass sees it: names resolved by their definitions, calls in execution order.

Names are resolved through the definitions that reach them (defs.py): imports to full dotted names
(`hvd.init` -> `horovod.torch.init`, also through a project module that imports Horovod), calls to the
function or class they name, in the script or in the project's modules (project.py). The calls are listed
in the order they run: module level top to bottom, a project module's code where it is first imported, and
every call of a function of the project walked into at its call site, with the conditions, loops and
argument bindings in force there. When nothing at the module's level trains, the functions doing Horovod
work are walked as entry points; functions reached from no call (Keras `train_step` methods, callbacks)
are walked at the end. No framework is imported.
"""
import ast
import builtins
import os
import re
import sys
from typing import NamedTuple, Optional

from hvdkit.check.defs import assigned_value, chain_root, declares_global, dotted, owner_of_arg
from hvdkit.check.names import API_MODULES, API_PREFIXES, OPTIMIZER_STEPS, SUM_OPS, api_name, in_api
from hvdkit.check.project import Module, module_of, sys_path_edits

MAX_DEPTH = 12
# Walks of one function at most (one per call site): a model built from blocks enters each block's __init__
# once per layer; the guards and bindings of the first call sites are what the rules read.
MAX_WALKS = 8

# Library calls that look at a class or function without running it (handing one over does not call it).
_INTROSPECTION = {"dataclasses.fields", "dataclasses.is_dataclass", "isinstance", "issubclass", "hasattr",
                  "getattr", "vars", "dir", "type", "id", "callable", "inspect.signature", "inspect.getmembers",
                  "inspect.getsource", "typing.get_type_hints"}


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
        self.self_class = None  # the class of the instance a method runs on, when the walk knows it
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
            positional = [a for a in call.args if not isinstance(a, ast.Starred)]
            for name, arg in zip(params, positional):
                self.bindings[name] = Binding(arg, caller)
            rest = positional[len(params):]
            if func.args.vararg is not None and rest and len(positional) == len(call.args):
                # `def sync(*modules)` called `sync(encoder, projector)`: `modules` holds the tuple of the rest
                pack = ast.copy_location(ast.Tuple(elts=rest, ctx=ast.Load()), rest[0])
                pack.parent = call
                self.bindings[func.args.vararg.arg] = Binding(pack, caller)
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

    @property
    def file(self):
        """None in the checked script, else the module's path relative to the project's root."""
        return getattr(self.node.lineno, "file", None)


class Unread(NamedTuple):
    """A call on the walk into code that could not be read: `kind` is 'absent' (a module neither in the
    project nor installed here), 'unparsed' (a module of the project that does not parse) or 'library' (an
    installed package's function: not read)."""
    event: Event
    module: str
    kind: str
    handed: bool = False  # a function of that code handed to the call (`horovod.run(train_fn)`), not its callee

    @property
    def line(self):
        return self.event.line


class ImportFailure(NamedTuple):
    """An import of the project's own code that fails: `error` as Python says it, `why` what the folders show;
    `evident` when the folders prove it (a file whose name differs only in case, a module that does not
    parse), not only that a file is missing (a project gathered in part lacks files its repository has)."""
    stmt: ast.stmt
    error: str
    why: str
    ctx: Ctx
    evident: bool = False


# Libraries whose functions the rules know, or that do no Horovod step: their calls are not unread code. The
# second row: configuration, file-format, logging and tracking libraries, which never import Horovod (a
# `yaml.safe_load(fh)` cannot init it, shard the data or average a metric).
KNOWN_LIBRARIES = ("torch", "tensorflow", "keras", "tf_keras", "numpy", "horovod", "hvdkit", "torchvision", "jax",
                   "scipy", "sklearn", "pandas", "matplotlib", "PIL", "cv2", "tqdm", "mpi4py",
                   "yaml", "omegaconf", "easydict", "yacs", "munch", "attr", "attrs", "pydantic", "toml", "tomli",
                   "h5py", "xarray", "zarr", "netCDF4", "einops", "wandb", "mlflow", "tensorboardX", "seaborn",
                   "skimage", "imageio", "rich", "termcolor", "colorama", "psutil", "pynvml", "GPUtil", "filelock",
                   "click", "typer", "fire")


class Script:
    def __init__(self, source, path="<script>", project=None):
        self.path, self.source, self.project = path, source, project
        self.main = Module(path, source)
        self.tree = self.main.tree
        self.funcs, self.methods, self.classes = {}, {}, {}
        self._collect()
        self._quals, self._through, self._work, self._walks, self._families = {}, {}, {}, {}, {}
        self._modules_given = {}  # (id(function), parameter): quals of the names the walk's calls bind it to
        self._attr_assigns = {}  # attribute spelling: [(target, value, frame)] of the assignments walked so far
        if project is not None:
            self._add_sys_paths(self.main, path)
        # `from common.horovod_helpers import hvd`: the name is the module the helper imported
        self.aliases = {k: self._through_modules(v) for k, v in self.main.aliases.items()}
        self._module_aliases()
        for name, q in self.aliases.items():  # `from utils import save_checkpoint`: the script's name for it
            d = self._lookup(q)
            if isinstance(d, ast.ClassDef):
                self.classes.setdefault(name, d)
            elif d is not None:
                self.funcs.setdefault(name, d)
        self.events, self.assigns, self.walked = [], [], set()
        self.instantiated = []  # the project's classes whose instances the walk made, in order
        self.dispatch_loops = set()  # ids of the loops (and calls) that run hooks over objects: not batches
        self._scans = {}  # Script._scanned
        self.frames = []  # every walked call's Frame, also of functions whose body has no call or assignment
        self.local_calls = set()  # call nodes resolved to a function of the project, in some walk
        self.pending_hooks = {}  # name of a Keras callback instance: its on_* methods, not walked yet
        self._called_methods = None  # method names called anywhere in the code read (_hook_class)
        self.imported = []  # the project's modules whose code ran, in import order
        self.import_failures = []  # ImportFailure: imports of the project's code that raise
        self.unread = []  # Unread: calls into code that could not be read
        self.entry_points = []  # [(function, why)]: functions judged as run though nothing here calls them
        self.walking = True  # queries made during the walk (a default factory's mapping) must not cache
        self._walk_body(self.tree.body, Ctx())
        self._walk_entry_points()
        for func in self._functions(self.main):
            if func not in self.walked:
                self._enter(func, None, Ctx(reached=False))
        self.walking = False

    # --- names ---------------------------------------------------------------------------------
    def _collect(self):
        """The script's own functions, methods and classes by name (the first of a name), and (added after
        the imports are resolved) those of the project's modules it imports by name: kept for rules that ask
        by spelling; `defined(node)` answers by definitions."""
        for node in ast.walk(self.tree):
            if isinstance(node, ast.ClassDef):
                self.classes.setdefault(node.name, node)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                parent = getattr(node, "parent", None)
                if isinstance(parent, ast.ClassDef):
                    self.methods.setdefault(node.name, []).append(node)
                else:
                    self.funcs.setdefault(node.name, node)

    @staticmethod
    def _functions(module):
        """Every function of a module, nested ones too, each its own definition: functions first, then
        methods (each group in the order ast.walk meets them)."""
        funcs = module.functions
        plain = [f for f in funcs if not isinstance(getattr(f, "parent", None), ast.ClassDef)]
        return plain + [f for f in funcs if isinstance(getattr(f, "parent", None), ast.ClassDef)]

    def _module_aliases(self):
        """`mnist = tf.keras.datasets.mnist` (at any level): an alias of a module path, like an import (the
        spelling fallback; a name read where its definition is known is resolved through it)."""
        for stmt in ast.walk(self.tree):
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                    and isinstance(stmt.value, ast.Attribute):
                q = self.qual(stmt.value)
                if q and q.split(".")[0] in set(self.aliases.values()) | {"tensorflow", "torch", "keras"}:
                    self.aliases.setdefault(stmt.targets[0].id, q)

    def _add_sys_paths(self, module, path):
        for folder, first in sys_path_edits(module.path_edits, os.path.abspath(path), self.project.folder):
            self.project.add_path(folder, first)

    def all_aliases(self):
        """The script's import spellings and those of the project's modules that ran (their values)."""
        out = set(self.aliases.values())
        for m in self.imported:
            out |= {self._through_modules(v) for v in m.aliases.values()}
        return out

    def qual(self, node):
        """Dotted name of a Name/Attribute chain, its root name resolved through its definition: an import
        (`hvd` -> horovod.torch, also through a project module that imports it), a module alias assigned
        (`mnist = tf.keras.datasets.mnist`); a name bound otherwise keeps its spelling ('' when not a chain)."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Call):
            inner = self.qual(node.func)
            return ".".join([inner + "()"] + parts[::-1]) if inner else ""
        if not isinstance(node, ast.Name):
            return ""
        q = ".".join([self._name_qual(node)] + parts[::-1])
        if parts and api_name(q) is None:
            held = self._module_held(node, parts[-1])  # `ctx.hvd.DistributedOptimizer`: ctx made with hvd=hvd
            if held is not None:
                return ".".join([held] + parts[-2::-1])
        if not parts or self.project is None:
            return q
        # `dist.hvd.size` with `from kd import dist`: kd/dist.py's `hvd` is Horovod's module. Only for a name an
        # import binds: a variable (`data = Catalog(...)`) is no module, whatever folder of that name there is.
        defs = self._defs_of(node) if getattr(node, "hk_module", None) is not None else None
        return self._through_modules(q) if defs and all(isinstance(d, ast.alias) for d, _ in defs) else q

    def _module_held(self, name, attr, depth=0):
        """The Horovod (or hvdkit) module an object holds in `attr`, where `name` holds an object made with it as
        that keyword (`ctx = DistContext("horovod", hvd=hvd)`, or a project function returning such a call, a
        parameter bound to one) or `name.attr` is assigned it (`self.hvd = hvd`): a backend's context carrying
        the module; else None."""
        key = (id(name), attr)
        if self._holding is None:
            self._holding = set()
        if depth > 3 or getattr(name, "hk_module", None) is None or key in self._holding:
            return None  # (`self.a = self.b; self.b = self.a`: a cycle holds no module)
        self._holding.add(key)
        try:
            return self._module_held_by(name, attr, depth)
        finally:
            self._holding.discard(key)

    _holding = None  # the (name, attribute) pairs _module_held is following: a cycle ends there

    def _module_held_by(self, name, attr, depth):
        # `self.hvd = hvd` in a backend class's __init__: an attribute by its spelled assignments (the fallback)
        for a in self.assignments_to(f"{name.id}.{attr}") if getattr(self, "assigns", None) else ():
            value = getattr(a.node, "value", None)
            q = self.qual(value) if isinstance(value, (ast.Name, ast.Attribute)) else ""
            if in_api(q):
                return q
        values = []
        for d, _ in self._defs_of(name) or ():
            if isinstance(d, ast.arg):  # a parameter: the arguments the walked calls bound it to
                values += [b.expr for b in self.arguments_of(d)]
            elif isinstance(d, ast.Name):
                values.append(assigned_value(d))
        for value in values:
            calls = [value] if isinstance(value, ast.Call) else []
            made = self.defined(value.func) if calls and isinstance(value.func, (ast.Name, ast.Attribute)) else None
            if isinstance(made, (ast.FunctionDef, ast.AsyncFunctionDef)):  # a factory: the calls it returns
                calls = [r.value for r in ast.walk(made) if isinstance(r, ast.Return) and isinstance(r.value, ast.Call)]
            for call in calls:
                given = next((k.value for k in call.keywords if k.arg == attr), None)
                q = self.qual(given) if isinstance(given, (ast.Name, ast.Attribute)) else ""
                if in_api(q):
                    return q
            if isinstance(value, ast.Name):
                found = self._module_held(value, attr, depth + 1)
                if found is not None:
                    return found
        return None

    def _name_qual(self, name):
        mod = getattr(name, "hk_module", None)
        if mod is None:  # a node made by a rule: its spelling, through the script's imports
            return self.aliases.get(name.id, name.id)
        if name in self._quals:
            return self._quals[name]
        self._quals[name] = name.id  # while it is computed: a rebinding cycle (`x = x.parent`) ends here
        defs = self._defs_of(name)
        fallback = self.aliases if mod.main else mod.aliases
        if not defs:  # no definition known (a builtin, a library's `import *`): the spelling fallback
            q = fallback.get(name.id, name.id)
            q = q if mod.main else self._through_modules(q)
        else:
            found = [q for q in (self._def_qual(d, m) for d, m in defs) if q]
            if found:
                q = next((x for x in found if x.startswith(API_PREFIXES)), found[0])
            elif all(isinstance(d, ast.arg) for d, _ in defs):
                # a parameter named like a module the file imports (`def train(hvd, model)`): taken as that
                # module, the documented spelling fallback for parameters
                q = fallback.get(name.id, name.id)
                q = q if mod.main else self._through_modules(q)
                if q == name.id:  # Horovod's module handed in by every call the walk entered: that module
                    given = self._module_given(defs[0][0], name.id)
                    if given is None:
                        del self._quals[name]  # a later call may bind it: not kept
                        return q
                    q = given
            else:
                q = name.id
        self._quals[name] = q
        return q

    def _def_qual(self, d, mod, depth=0):
        """The dotted module path a definition binds: an import, or an assignment of a module or of its
        attribute chain (`layers = tf.keras.layers`, `_hvd = hvd`); None for any other definition."""
        if isinstance(d, ast.alias):
            imp = getattr(d, "parent", None)
            if isinstance(imp, ast.Import):
                return d.name if d.asname else d.name.split(".")[0]
            if isinstance(imp, ast.ImportFrom) and d.name != "*":
                base = self.project.absolute(mod, imp.module, imp.level) if self.project else (
                    imp.module if not imp.level else "")
                if imp.level and not self.project:
                    return None
                return self._through_modules(f"{base}.{d.name}" if base else d.name)
            return None
        if isinstance(d, ast.Name) and depth < 4:
            value = assigned_value(d)
            root = chain_root(value)
            # `_hvd = hvd` after `import horovod.torch as hvd` in a backend's init (`global _hvd`): the module
            if isinstance(value, (ast.Attribute, ast.Name)) and isinstance(root, ast.Name):
                rmod = getattr(root, "hk_module", mod)
                rdefs = rmod.defs.reaching(root) or []
                if any(isinstance(x, ast.alias) for x in rdefs):
                    return self.qual(value)
                if isinstance(value, ast.Attribute) and in_api(self.qual(value)):
                    return self.qual(value)  # `hvd = ctx.hvd`: the module a backend's context holds
            if isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute)):
                return self._module_returned(value, depth)  # `hvd = setup()` returning Horovod's module
        return None

    def _module_returned(self, call, depth):
        """The Horovod (or hvdkit) module every return of the project's function `call` runs gives back
        (`def setup(): hvd.init(); ...; return hvd`), else None."""
        func = self.defined(call.func)
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        rets = [r.value for r in ast.walk(func) if isinstance(r, ast.Return)]
        if not rets or not all(isinstance(r, ast.Name) for r in rets):
            return None
        quals = {self.qual(r) for r in rets}
        q = quals.pop() if len(quals) == 1 else None
        return q if q in {m for m, _ in API_MODULES} else None

    def _through_modules(self, q, depth=0):
        """A dotted name into the project's own modules, followed through the imports they make:
        `common.horovod_helpers.hvd.init` -> `horovod.torch.init`."""
        if not q or self.project is None or depth > 6:
            return q
        for name, module in self.project.assumed.items():  # `from mypkg.dist import hvd`, mypkg not there
            if q == name or q.startswith(name + "."):
                return module + q[len(name):]
        key = q
        if key in self._through:
            return self._through[key]
        self._through[key] = q
        parts = q.split(".")
        out = q
        if self.project.local_top(parts[0]):
            for i in range(len(parts) - 1, 0, -1):
                m = self.project.module(".".join(parts[:i]))
                if m is None:
                    continue
                if self.project.find(".".join(parts[:i + 1])) is not None:
                    break  # a submodule, not a name bound in the package
                for d in reversed(m.defs.top_level(parts[i]) + m.defs.set_globally(parts[i])):
                    sub = self._def_qual(d, m, depth + 1)
                    if sub:
                        out = self._through_modules(".".join([sub] + parts[i + 1:]), depth + 1)
                        break
                break
        self._through[key] = out
        return out

    def defined(self, node, depth=0):
        """The FunctionDef or ClassDef a Name or Attribute refers to, by its definition: a function or class
        of the script or of a project module it imports (`utils.save`, `from models import Net`), a method
        of a class (`Trainer.fit`), through names assigned them; None for anything else (a library's)."""
        if depth > 6:
            return None
        if isinstance(node, ast.Name):
            mod = getattr(node, "hk_module", None)
            defs = self._defs_of(node)
            if not defs:  # unknown: the spelling fallback, in the node's own module
                if mod is None or mod.main:
                    return self.funcs.get(node.id) or self.classes.get(node.id)
                return next((d for d in reversed(mod.defs.top_level(node.id)) if isinstance(d, _DEFS)), None)
            direct = next((d for d, _ in defs if isinstance(d, _DEFS)), None)
            return direct or next((g for g in (self._def_target(d, m, depth) for d, m in defs) if g is not None), None)
        if isinstance(node, ast.Attribute):
            got = self._lookup(self.qual(node), depth + 1) if self._module_rooted(node) else None
            if got is not None:
                return got
            inner = self.defined(node.value, depth + 1) if isinstance(node.value, (ast.Name, ast.Attribute)) \
                else None
            if isinstance(inner, ast.ClassDef):
                return self._member(inner, node.attr)
            return self._closure_on_attribute(node, depth)
        return None

    def _closure_on_attribute(self, node, depth):
        """The function a factory of the project returned and the same function stored on an object's
        attribute (`model._step = make_step(model, opt)`, then `model._step(x, y)`): by the walked assignments
        to that attribute (the `_attr_assigns` index) in the function holding the read; None unless exactly
        one such function."""
        name, scope = dotted(node), enclosing_def(node)
        if not name or depth > 4 or scope is None:
            return None
        made = [v for t, v, _ in self._attr_assigns.get(name, ()) if isinstance(v, ast.Call) and
                isinstance(v.func, (ast.Name, ast.Attribute)) and enclosing_def(t) is scope]
        found = {id(c): c for c in (self._closure_made(self.defined(v.func, depth + 1)) for v in made) if c is not None}
        return next(iter(found.values())) if len(found) == 1 else None

    def _module_rooted(self, node):
        """The attribute chain's first name may name a module: bound by an import, or its binding not known. A
        variable (`p = argparse.ArgumentParser()`, then `p.add_argument`) is no module, whatever folder of
        that name the project has."""
        root = chain_root(node)
        if not isinstance(root, ast.Name):
            return True
        defs = self._defs_of(root)
        return not defs or any(isinstance(d, ast.alias) for d, _ in defs)

    def _lookup(self, q, depth=0):
        """The function or class a dotted name names in the project's modules (None outside them)."""
        if not q or self.project is None or depth > 6:
            return None
        parts = q.split(".")
        if not self.project.local_top(parts[0]):
            return None
        for i in range(len(parts) - 1, 0, -1):
            m = self.project.module(".".join(parts[:i]))
            if m is None:
                continue
            node = next((g for g in (self._def_target(d, m, depth) for d in reversed(m.defs.top_level(parts[i])))
                         if g is not None), None)
            for p in parts[i + 1:]:
                node = self._member(node, p) if isinstance(node, ast.ClassDef) else None
            return node
        return None

    def _def_target(self, d, mod, depth):
        """The function or class a definition binds: itself, what an import names, what a name assigned
        another name (`step = train_step`) refers to; None for any other value."""
        if isinstance(d, _DEFS):
            return d
        if isinstance(d, ast.alias):
            return self._lookup(self._def_qual(d, mod), depth + 1)
        value = assigned_value(d) if isinstance(d, ast.Name) else None
        index = None
        if value is None and isinstance(d, ast.Name) and isinstance(getattr(d, "parent", None), ast.Tuple) and \
                isinstance(getattr(d.parent, "parent", None), ast.Assign) and d.parent in d.parent.parent.targets:
            # `train_step, eval_step = make_steps(model, opt)`: the factory's returned tuple, element by element
            value, index = d.parent.parent.value, d.parent.elts.index(d)
        if isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute)):
            return self._closure_made(self.defined(value.func, depth + 1), index)
        return self.defined(value, depth + 1) if isinstance(value, (ast.Name, ast.Attribute)) else None

    @staticmethod
    def _closure_made(factory, index=None):
        """The function a factory of the project returns, defined inside it (`def make_train_step(G, D, ...):
        @tf.function def train_step(real): ... return train_step`): what a name assigned the factory's call
        runs when called; with `index`, the element of the tuple it returns (`return train_step, eval_step`).
        None unless every return names one such function there."""
        if not isinstance(factory, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        inner = {n.name: n for n in factory.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        rets = [r.value for r in ast.walk(factory) if isinstance(r, ast.Return) and next(
            (p for p in parents(r) if isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))),
            None) is factory]
        if index is not None:
            rets = [r.elts[index] if isinstance(r, ast.Tuple) and len(r.elts) > index else None for r in rets]
        names = {r.id for r in rets if isinstance(r, ast.Name)}
        if not rets or len(names) != 1 or len(rets) != sum(isinstance(r, ast.Name) for r in rets):
            return None
        return inner.get(names.pop())

    def method_of(self, cls, name):
        """The method `name` of the project's class `cls`, its own or inherited from a base of the project."""
        return self._method_of(cls, name)

    def _member(self, cls, name):
        """A method (through local bases) or a nested class of a class."""
        nested = next((s for s in cls.body if isinstance(s, ast.ClassDef) and s.name == name), None)
        return nested or self._method_of(cls, name)

    def _defs_of(self, name):
        """[(definition, module)] that may bind a Name where it is read: its reaching definitions, those a
        `from <project module> import *` binds followed into that module; None when the node is not a read
        beniget knows (a node a rule made)."""
        mod = getattr(name, "hk_module", None)
        defs = mod.defs.reaching(name) if mod is not None else None
        if defs is None:
            return None
        out = []
        for d in defs:
            star = isinstance(d, ast.alias) and d.name == "*"
            out += self._star_defs(name.id, mod, [d.parent]) if star else [(d, mod)]
        return out

    def _star_defs(self, name, mod, imports=None, depth=0):
        """[(definition, module)] of `name` bound by the `from <project module> import *` of `mod`."""
        if self.project is None or mod is None or depth > 3:
            return []
        for imp in mod.star_imports if imports is None else imports:
            m = self.project.module(self.project.absolute(mod, imp.module, imp.level))
            if m is not None and m is not mod:
                found = [(d, m) for d in m.defs.top_level(name)] or self._star_defs(name, m, None, depth + 1)
                if found:
                    return found
        return []

    def values_of(self, name):
        """[(value expression, its module)] the reaching definitions of a Name assign it: in its module, or
        through an import (`from utils import logger`: utils' `logger = Logger()`), also one a package
        re-exports (`from .registry import OPTIMIZERS` in its __init__), or a star import."""
        out = []
        for d, m in self._defs_of(name) or ():
            if isinstance(d, ast.alias) and isinstance(d.parent, ast.ImportFrom) and self.project is not None:
                out += self._imported_values(d, m)
            elif isinstance(d, ast.Name):
                out.append((assigned_value(d), m))
        return [(v, m) for v, m in out if v is not None]

    def _imported_values(self, alias, mod, depth=0):
        """The values a `from X import name` alias binds: X's top-level assignments of `name`, through X's own
        re-exports (up to 4 hops)."""
        source = self.project.module(self.project.absolute(mod, alias.parent.module, alias.parent.level))
        if source is None or depth > 4:
            return []
        out = []
        for x in source.defs.top_level(alias.name):
            if isinstance(x, ast.Name):
                out.append((assigned_value(x), source))
            elif isinstance(x, ast.alias) and isinstance(x.parent, ast.ImportFrom):
                out += self._imported_values(x, source, depth + 1)
        return out

    def reaching(self, name):
        """The definition nodes that may bind a Name where it is read (defs.Defs.reaching), in its module."""
        mod = getattr(name, "hk_module", None)
        return mod.defs.reaching(name) if mod is not None else None

    def quals(self, name):
        """[(definition, its module, the dotted module path it binds or None)] for each definition that may
        bind a Name where it is read (star imports of the project followed), as qual() reads each; None when
        the node is not a read beniget knows. qual() picks one; a finding that must be certain (the crash
        finding) asks that they all agree."""
        defs = self._defs_of(name)
        return None if defs is None else [(d, m, self._def_qual(d, m)) for d, m in defs]

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
            # what runs when the definition does: decorators, and a function's default values (`def
            # make_data(num_shards=hvd.size())` asks Horovod when its module is imported) or a class's bases
            made = s.args.defaults + [d for d in s.args.kw_defaults if d is not None] \
                if not isinstance(s, ast.ClassDef) else s.bases + [k.value for k in s.keywords]
            for d in s.decorator_list + made:
                self._walk_expr(d, ctx)
            if isinstance(s, ast.ClassDef):
                self._class_body(s, ctx)
            return
        if isinstance(s, (ast.Import, ast.ImportFrom)):
            self._import(s, ctx)
            return
        if isinstance(s, ast.If):
            self._walk_expr(s.test, ctx)
            if _is_main_guard(s.test):  # true in the script, false in a module it imports
                self._walk_body(s.body if module_of(s, self.main).main else s.orelse, ctx)
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
                for t in s.targets if isinstance(s, ast.Assign) else ():
                    # a, b = Meter("x"), Meter("y"): each name its own element
                    pairs = zip(t.elts, s.value.elts) if isinstance(t, ast.Tuple) and isinstance(
                        s.value, ast.Tuple) and len(t.elts) == len(s.value.elts) else [(t, s.value)]
                    for target, value in pairs:
                        if isinstance(target, ast.Attribute) and dotted(target):
                            self._attr_assigns.setdefault(dotted(target), []).append(
                                (target, value, ctx.frames[-1] if ctx.frames else None))

    def _walk_expr(self, node, ctx):
        if self.pending_hooks and isinstance(node, (ast.Name, ast.Attribute)) and _handed_on(node):
            # `cb = SaveState()` then `if hvd.rank() == 0: callbacks.append(cb)`: the guard of the append.
            for hook in self.pending_hooks.pop(dotted(node), ()):
                self._enter(hook, None, ctx.with_(loop=node))
        if isinstance(node, ast.Lambda):
            parent = getattr(node, "parent", None)
            if isinstance(parent, ast.keyword) and parent.arg == "default_factory":
                return  # a dataclass field's factory runs where an instance is made (_dataclass_factories)
            self._walk_expr(node.body, ctx)
            return
        if isinstance(node, ast.BoolOp):  # `keeper is not None and keeper.update(...)`: short-circuit guards
            inner = ctx
            for value in node.values:
                self._walk_expr(value, inner)
                inner = inner.with_(guard=(value, isinstance(node.op, ast.And)))
            return
        if isinstance(node, ast.IfExp):
            self._walk_expr(node.test, ctx)
            self._walk_expr(node.body, ctx.with_(guard=(node.test, True)))
            self._walk_expr(node.orelse, ctx.with_(guard=(node.test, False)))
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
            own = self.events[-1] if self.events and self.events[-1].node is node else None
            target = self._local_target(node.func, ctx)
            made = [self.defined(node.func)] if isinstance(node.func, (ast.Name, ast.Attribute)) else \
                self.in_dict(node.func) if isinstance(node.func, ast.Subscript) else []
            for cls in made:
                if isinstance(cls, ast.ClassDef) and cls not in self.instantiated:
                    self.instantiated.append(cls)
            hooks = self._dispatched(node.func, ctx) if target is None else []
            chosen = self._chosen(node.func, ctx) if target is None and not hooks else []
            if target is not None:
                self.local_calls.add(node)
                self._enter(target, node, ctx)
            elif chosen:
                # an object of one of several classes, chosen by a condition (`cls = A if c else B; cls(...)`,
                # `Reporter(...) if rank == 0 else Silent()`): each class's code runs under its branch
                self.local_calls.add(node)
                for func, cls, guards in chosen:
                    if isinstance(node.func, ast.Name) and cls is not None and cls not in self.instantiated:
                        self.instantiated.append(cls)
                    inner = ctx
                    for guard in guards:
                        inner = inner.with_(guard=guard)
                    self._enter(func, node, inner, self_class=cls)
            elif hooks:
                self.local_calls.add(node)
                self.dispatch_loops.add(id(node))
                # the loop over the objects (`for cb in self.callbacks: cb.on_epoch_end()`), not a loop over
                # batches around it (`for fn in metric_fns: fn(out, y)` inside the evaluation's batch loop)
                called = {n.id for n in ast.walk(node.func) if isinstance(n, ast.Name)}
                self.dispatch_loops.update(id(p) for p in parents(node) if isinstance(p, (ast.For, ast.AsyncFor)) and
                                           any(isinstance(t, ast.Name) and t.id in called for t in ast.walk(p.target)))
                for hook in hooks:  # each object's method of that name runs, in the loop's order
                    self._enter(hook, node, ctx.with_(loop=node))
            else:
                self._note_unread(node)
            self._default_factories(node, ctx)
            for step in self._keras_steps(node.func, ctx):
                # fit/evaluate/predict on a Keras Model subclass of the project run its train_step /
                # test_step / predict_step, batch after batch.
                self._enter(step, None, ctx.with_(loop=node))
            for method in self._sampler_methods(node.func):
                # a torch Sampler of the project: the DataLoader it is given runs its __iter__ every epoch
                self._enter(method, None, ctx.with_(loop=node), self_class=self.defined(node.func))
            hooks = self._callback_hooks(node.func)
            if hooks and assigned_name(node):
                self.pending_hooks[assigned_name(node)] = hooks  # they run where the name is handed on
            for hook in () if assigned_name(node) else hooks:
                # Keras calls a callback's on_* methods from fit, again and again: they run wherever the
                # instance is made (a rank guard around it is theirs too).
                self._enter(hook, None, ctx.with_(loop=node))
            for arg in node.args + [k.value for k in node.keywords]:
                # A local function handed to another (timeit, hvd.elastic.run, map): it runs there; a class
                # looked at (`dataclasses.fields(Config)`, `issubclass(cls, Base)`) is not made.
                func = self._local_target(arg, ctx) if isinstance(arg, (ast.Name, ast.Attribute)) and \
                    self.qual(node.func) not in _INTROSPECTION else None
                if func is not None and func not in self.walked:
                    self._enter(func, self._launch_call(node, arg), ctx.with_(loop=node))
                elif func is None and own is not None and isinstance(arg, (ast.Name, ast.Attribute)):
                    # One of the project's functions that cannot be read, handed on (`horovod.run(train_fn)`
                    # with train_fn from a module that is not there): it runs there, unread, as a call would.
                    self._note_unread(node, arg, ("absent", "unparsed"), own)
            return
        for child in ast.iter_child_nodes(node):
            self._walk_expr(child, ctx)

    def _dispatched(self, func, ctx):
        """The methods a call dispatched over objects of several of the project's classes runs: a method looked
        up by a name the code holds (`getattr(h, name)(self)` with `name` a string constant or a parameter
        given one, as hook-based trainers call `call_hook("after_epoch")`), or a method called on the variable
        of a loop over a container (`for cb in self.callbacks: cb.on_epoch_end(self)`). Each instantiated
        class of the project that has that method (its own or a base's) runs it; [] when the name is not
        known or no such class was made."""
        name = None
        if isinstance(func, ast.Name) and not _loop_variable(func):
            # `factory = OPTIMIZERS[cfg.name]`, then `factory(params, cfg)`: the lookup the name holds
            lookups = [v for v, _ in self.values_of(func) if isinstance(v, ast.Subscript)]
            return [d for v in lookups for d in self._dispatched(v, ctx)]
        if isinstance(func, ast.Subscript):
            return self._registered(func, ctx) or [
                f for f in (self.constructor(d) if isinstance(d, ast.ClassDef) else d for d in self.in_dict(func))
                if f is not None]
        if isinstance(func, ast.Call) and self.qual(func.func) == "getattr" and len(func.args) >= 2:
            key = func.args[1]
            if isinstance(key, ast.Name):
                b = self._binding(key, ctx.env)
                key = b.expr if b is not None else key
            name = key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and _loop_variable(func.value):
            name = func.attr
        elif isinstance(func, ast.Name) and _loop_variable(func):
            return self._listed_functions()  # `for cb in self.callbacks: cb(self, ...)`: functions kept in lists
        if not name:
            return []
        return [m for m in (self._method_of(c, name) for c in self.instantiated) if m is not None]

    def _scanned(self, key, scan):
        """`scan()` over the trees read so far, computed once until the walk imports another module."""
        memo = self._scans.get(key)
        if memo is None or memo[0] != len(self.imported):
            memo = self._scans[key] = (len(self.imported), scan())
        return memo[1]

    def _listed_functions(self):
        """The project's functions named as elements of a list, tuple or set (`callbacks=[log_epoch,
        sync_after_first_update]`): what a loop over such a container that calls its items may run."""
        def scan():
            out = []
            for node in self.nodes():
                if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
                    for elt in node.elts:
                        d = self.defined(elt) if isinstance(elt, (ast.Name, ast.Attribute)) else None
                        if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef)) and d not in out:
                            out.append(d)
            return out
        return self._scanned("listed", scan)

    def _registered(self, func, ctx):
        """A registry's lookup called (`self[name](**spec)` in `Registry.create`, `self._fns[name](...)`), in a
        method called on a registry object (`OPTIMIZERS.create(cfg)`): each function or class of the project
        registered on that object by a decorator (`@OPTIMIZERS.register("adamw")`) may run; [] otherwise."""
        frame = ctx.env
        root = func.value.value if isinstance(func.value, ast.Attribute) else func.value
        if frame is None or frame.call is None or not isinstance(root, ast.Name) or root.id != "self" or \
                not isinstance(frame.call.func, ast.Attribute):
            return []
        owner = self.qual(frame.call.func.value)
        return self._registrations().get(owner, []) if owner else []

    def _registrations(self):
        """{qualified name of a registry object: the project's functions (and constructors) registered on it by
        a decorator call of one of its methods (`@OPTIMIZERS.register("adamw")`)}."""
        def scan():
            out = {}
            for node in self.nodes():
                if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    continue
                owners = {self.qual(d.func.value) for d in node.decorator_list
                          if isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute)} - {""}
                target = self.constructor(node) if isinstance(node, ast.ClassDef) else node
                for owner in owners if target is not None else ():
                    out.setdefault(owner, []).append(target)
            return out
        return self._scanned("registered", scan)

    def in_dict(self, lookup):
        """The project's functions and classes a dict lookup `REGISTRY[name]` may give: those stored in the dict
        (made by a literal, `REGISTRY = {}`, here or in the module it is imported from) by a decorator that
        stores what it decorates (`@register("sync")` over `def deco(fn): REGISTRY[key] = fn`), by a store
        `REGISTRY["adam"] = make_adam`, or written in the literal; [] for any other lookup."""
        if not isinstance(lookup.value, ast.Name):
            return []
        stored = self._dict_registrations()
        return [d for v, _ in self.values_of(lookup.value) if isinstance(v, ast.Dict) for d in stored.get(id(v), ())]

    def _dict_registrations(self):
        """{id of a dict literal: the project's functions and classes stored in it} (in_dict)."""
        def scan():
            out, decorators = {}, {}  # decorators: {decorator function: ids of the dicts it stores into}
            for node in self.nodes():
                if isinstance(node, ast.Dict):
                    out.setdefault(id(node), []).extend(
                        d for d in (self.defined(v) for v in node.values if isinstance(v, (ast.Name, ast.Attribute)))
                        if isinstance(d, _DEFS))
                if not isinstance(node, ast.Assign):
                    continue
                for t in node.targets:
                    if not (isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name)):
                        continue
                    keys = [id(v) for v, _ in self.values_of(t.value) if isinstance(v, ast.Dict)]
                    func = enclosing_def(node)
                    if func is not None and isinstance(node.value, ast.Name) and \
                            node.value.id in [a.arg for a in func.args.posonlyargs + func.args.args]:
                        decorators.setdefault(func, []).extend(keys)  # `def deco(fn): REGISTRY[key] = fn`
                        continue
                    d = self.defined(node.value) if isinstance(node.value, (ast.Name, ast.Attribute)) else None
                    for k in keys if isinstance(d, _DEFS) else ():
                        out.setdefault(k, []).append(d)
            for node in self.nodes():
                for dec in node.decorator_list if isinstance(node, _DEFS) else ():
                    f = dec.func if isinstance(dec, ast.Call) else dec
                    d = self.defined(f) if isinstance(f, (ast.Name, ast.Attribute)) else None
                    # `@register`, or `@register("sync")` whose inner function is the decorator
                    found = [d] if not isinstance(dec, ast.Call) else [x for x in decorators if enclosing_def(x) is d]
                    for k in (k for x in found if x is not None for k in decorators.get(x, ())):
                        out.setdefault(k, []).append(node)
            return out
        return self._scanned("dict_registered", scan)

    def _class_body(self, cls, ctx):
        """A class body runs where the class statement does (at import, for a module's class): the calls in
        its attribute values (`rank = hvd.rank()`, a field's `default=hvd.size()`) and its nested
        definitions' defaults and decorators run there. Its names are the class's, not the module's: the
        values are walked as expressions, no assignment is recorded."""
        for st in cls.body:
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self._walk_stmt(st, ctx)
            elif isinstance(st, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr)) and st.value is not None:
                if not (isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant)):  # not the docstring
                    self._walk_expr(st.value, ctx)

    def _default_factories(self, call, ctx):
        """Making an instance of a project dataclass calls the `default_factory` of each field the call does
        not give (`world_size: int = field(default_factory=hvd.size)`): each runs there, as a call of its own
        at the field's line. A field a `**` mapping may give (one that cannot be read, or has the key) is
        left out: the factory may not run."""
        from hvdkit.check import mappings, values
        cls = self.class_called(call.func)
        if not self.generated_init(cls) or any(isinstance(a, ast.Starred) for a in call.args):
            return
        fields = [st for st in cls.body if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name)]
        for i, st in enumerate(fields):
            made = st.value if isinstance(st.value, ast.Call) and \
                self.qual(st.value.func).split(".")[-1] == "field" else None
            factory = next((k.value for k in made.keywords if k.arg == "default_factory"), None) if made else None
            name = st.target.id
            if factory is None or i < len(call.args) or any(k.arg == name for k in call.keywords) or any(
                    mappings.lookup(values.View(self), k.value, name) is not None
                    for k in call.keywords if k.arg is None):
                continue
            runs = ast.Call(func=factory, args=[], keywords=[])
            # its line is the field's; it runs where, and whenever, the instance is made (its parent)
            runs.lineno, runs.col_offset, runs.parent = factory.lineno, factory.col_offset, call
            runs.end_lineno, runs.end_col_offset = factory.end_lineno, factory.end_col_offset
            self._emit(runs, ctx)
            if isinstance(factory, ast.Lambda):
                self._walk_expr(factory.body, ctx)  # `field(default_factory=lambda: 1e-3 * hvd.size())`
            target = self._local_target(factory, ctx)
            if target is not None:
                self._enter(target, runs, ctx)

    def _launch_call(self, node, fn):
        """The call a launcher makes of the function it is handed, as a call node binding the arguments it
        passes on: `horovod.run(train, args=(cfg,), kwargs={"epochs": 3})` (and horovod.spark.run,
        multiprocessing's Process(target=train, args=(...))) calls train(cfg, epochs=3); None for any other
        hand-over (its parameters stay unbound)."""
        q = self.qual(node.func)
        target = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg in ("fn", "target")),
                                                     None)
        if target is not fn or q not in LAUNCHERS_WITH_ARGS:
            return None
        kw = {k.arg: k.value for k in node.keywords}
        given = kw.get("args")
        extra = kw.get("kwargs")
        if given is not None and not isinstance(given, (ast.Tuple, ast.List)) or \
                extra is not None and not (isinstance(extra, ast.Dict) and all(
                    isinstance(k, ast.Constant) and isinstance(k.value, str) for k in extra.keys)):
            return None
        call = ast.Call(func=fn, args=list(given.elts) if given is not None else [],
                        keywords=[ast.keyword(arg=k.value, value=v) for k, v in zip(extra.keys, extra.values)]
                        if extra is not None else [])
        call.lineno, call.col_offset, call.parent = node.lineno, node.col_offset, node
        call.end_lineno, call.end_col_offset = node.end_lineno, node.end_col_offset
        return call

    def _local_target(self, func, ctx):
        """The function of the project a call runs: a function, a class's __init__, or a method of a class
        found through `self`/`cls`, `super()`, or a receiver known to hold an instance of that class; each by
        its definition (a second nested `step` is its own function; `utils.save` is utils.py's).
        A method name alone proves nothing: `torch.save` or `self.model.save` is not the script's `save`."""
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call) and \
                self.qual(func.value.func) == "super":
            owner = self._class_of(ast.Name(id="self"), ctx.env)
            return self._method_of(owner, func.attr, skip_own=True) if owner is not None else None
        if isinstance(func, (ast.Name, ast.Attribute)):
            d = self.defined(func)
            if isinstance(d, ast.ClassDef):
                return self.constructor(d)
            if d is not None:
                return d
        made = self.class_called(func)
        if made is not None:  # `cls(**opts)` in a classmethod
            return self.constructor(made)
        if isinstance(func, ast.Name):  # a parameter called (`def run(fn): fn()`): what the caller gave
            b = self._binding(func, ctx.env)
            if b is not None and isinstance(b.expr, (ast.Name, ast.Attribute)) and not b.default:
                return self._local_target(b.expr, Ctx(frames=[b.frame] if b.frame else []))
            if b is None:
                return self._instance_call(func, ctx)
            return None
        if not isinstance(func, ast.Attribute):
            return None
        owner = self._class_of(func.value, ctx.env)
        method = self._method_of(owner, func.attr) if owner is not None else None
        return method if method is not None else self._instance_call(func, ctx)

    def _instance_call(self, func, ctx):
        """An instance of a project class called (`early(val_loss, model, path)` with `early =
        EarlyStopping(...)`, `self.stopper(...)`): the `__call__` its class family defines, else None."""
        owner = self._class_of(func, ctx.env)
        return self._method_of(owner, "__call__") if owner is not None else None

    def _class_of(self, node, frame, depth=0):
        """The project's class of `self` inside a walked method, of a parameter bound to an instance, of
        `Class(...)` itself, or of a name assigned `Class(...)` (by its reaching definitions; an attribute
        such as `self.meter` by its last assignment so spelled); None when the source does not say."""
        if depth > MAX_DEPTH:
            return None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in SELF_RETURNING:
            inner = self._class_of(node.func.value, frame, depth + 1)  # `create_model(...).to(device)`: the module
            if inner is not None:
                return inner
        if isinstance(node, ast.Call):
            d = self.defined(node.func) if isinstance(node.func, (ast.Name, ast.Attribute)) else None
            if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef)):  # a factory: the class of what it returns
                returns = [r.value for r in ast.walk(d) if isinstance(r, ast.Return) and isinstance(r.value, (
                    ast.Call, ast.Name))]
                return next((c for c in (self._class_of(r, None, depth + 1) for r in returns) if c is not None),
                            None)
            return d if isinstance(d, ast.ClassDef) else None
        if isinstance(node, ast.Name) and node.id in ("self", "cls"):
            if frame is not None and frame.self_class is not None:
                return frame.self_class  # a subclass's instance: its own overrides run
            return _enclosing_class(frame.func) if frame is not None else None
        if isinstance(node, ast.Name):
            b = self._binding(node, frame)
            if b is not None:
                return self._class_of(b.expr, b.frame, depth + 1)
            defs = self.reaching(node)
            if defs and all(isinstance(d, ast.arg) for d in defs):
                # a parameter read where no frame is at hand: what the walked calls of its function bound it to
                bound = [b for d in defs for b in self.arguments_of(d)]
                found = next((c for c in (self._class_of(b.expr, b.frame, depth + 1) for b in bound) if c is not None),
                             None)
                if found is not None:
                    return found
            if defs is not None:
                values = [b for v, _ in self.values_of(node) for b in _branches(v) if isinstance(b, ast.Call)]
                return next((c for c in (self._class_of(v, frame, depth + 1) for v in values) if c is not None),
                            None)
            if frame is not None and node.id in frame.bindings:
                b = frame.bindings[node.id]
                return self._class_of(b.expr, b.frame, depth + 1)
        name = dotted(node)
        if not name:
            return None
        value, where = self._last_attr_value(node)
        if isinstance(value, ast.Name) and where is not None:
            return self._class_of(value, where, depth + 1)  # `self.trainer = trainer`: what the call handed in
        return self._class_of(value, frame, depth + 1) if isinstance(value, ast.Call) else None

    def _last_attr_value(self, node):
        """The spelling fallback for an attribute (`self.x` within its class's family), read during the walk:
        (the value of the last assignment to it so spelled, the frame it ran in); (None, None) when there is
        none."""
        cls = self.self_class(node)
        for target, value, where in reversed(self._attr_assigns.get(dotted(node), ())):
            if cls is None or self.self_class(target) in self._family(cls):
                return value, where
        return None, None

    def _binding(self, name, frame):
        """The Binding of a parameter read as `name` (by its definition) in the walked frame of its function."""
        defs = self.reaching(name)
        if not defs or not all(isinstance(d, ast.arg) for d in defs):
            return None
        owner, fr = owner_of_arg(defs[0]), frame
        while fr is not None and fr.func is not owner:
            fr = fr.caller
        return fr.bindings.get(name.id) if fr is not None else None

    def _keras_steps(self, func, ctx):
        """The train_step / test_step / predict_step a Keras call runs on an instance of a project class
        deriving from keras.Model (defined by the project, not Keras' own)."""
        method = KERAS_STEPS.get(func.attr) if isinstance(func, ast.Attribute) else None
        owner = self._class_of(func.value, ctx.env) if method else None
        if owner is None or not any(q.split(".")[0] in ("tensorflow", "keras", "tf_keras") and
                                    q.split(".")[-1] in ("Model", "Sequential") for q in self.library_bases(owner)):
            return []
        step = self._method_of(owner, method)
        return [step] if step is not None else []

    def _sampler_methods(self, func):
        """`__iter__` of a class of the project that `func(...)` instantiates, when the class derives from torch's
        Sampler: the loader it is handed calls it, so the indices it yields are the data each rank reads."""
        cls = self.defined(func) if isinstance(func, (ast.Name, ast.Attribute)) else None
        if not isinstance(cls, ast.ClassDef) or not any(
                q.split(".")[-1] in ("Sampler", "DistributedSampler") and q.startswith("torch.")
                for q in self.library_bases(cls)):
            return []
        method = self._method_of(cls, "__iter__")
        return [method] if method is not None else []

    def _callback_hooks(self, func):
        """The on_* methods of a class of the project that `func(...)` instantiates, when that class is a Keras
        Callback subclass, or when none of its on_* methods is called by name in the code read: a hook that a
        trainer calls through the event's name (`getattr(hook, "on_epoch_end")(self)`; the on_* convention of
        Keras, Lightning, Hugging Face and hand-made trainers: a documented spelling fallback)."""
        cls = self.defined(func) if isinstance(func, (ast.Name, ast.Attribute)) else None
        if not isinstance(cls, ast.ClassDef) or not (self.keras_callback(cls) or self._hook_class(cls)):
            return []
        names, todo, seen = set(), [cls], set()
        while todo and len(seen) < 100:
            c = todo.pop()
            if c in seen:
                continue
            seen.add(c)
            names |= {s.name for s in c.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                      and s.name.startswith("on_")}
            todo += [b for b in (self.defined(x) for x in c.bases) if isinstance(b, ast.ClassDef)]
        return [m for m in (self._method_of(cls, n) for n in sorted(names)) if m is not None]

    def _hook_class(self, cls):
        """The class has on_* methods and no code read so far (when an instance is made) calls one by name."""
        hooks = {m.name for m in cls.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and m.name.startswith("on_")}
        if not hooks:
            return False
        if self._called_methods is None:
            self._called_methods = {n.func.attr for tree in self.trees() for n in ast.walk(tree)
                                    if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)}
        return not hooks & self._called_methods

    def keras_callback(self, cls, seen=0):
        """The class derives (through the project's classes) from Keras' Callback (tf.keras, keras, or
        Horovod's)."""
        for base in cls.bases:
            q = self.qual(base)
            if q.split(".")[-1] == "Callback" and q.split(".")[0] in ("tensorflow", "keras", "tf_keras", "horovod"):
                return True
            b = self.defined(base) if isinstance(base, (ast.Name, ast.Attribute)) and seen < 5 else None
            if isinstance(b, ast.ClassDef) and b is not cls and self.keras_callback(b, seen + 1):
                return True
        return False

    def class_called(self, func):
        """The project's class that calling `func` instantiates: a class by its definition, or a classmethod's
        first parameter (`return cls(**vars(args))` makes its own class); None for anything else."""
        d = enclosing_def(func) if isinstance(func, ast.Name) else None
        if d is not None and any(self.qual(x) == "classmethod" for x in d.decorator_list) and d.args.args and \
                func.id == d.args.args[0].arg:  # the classmethod's first parameter, whatever its name
            return _enclosing_class(d)
        d = self.defined(func) if isinstance(func, (ast.Name, ast.Attribute)) else None
        return d if isinstance(d, ast.ClassDef) else None

    def constructor(self, cls):
        """The project's code that making an instance of `cls` runs: its __init__ (or a base's); for a dataclass
        (no __init__ written), the generated __init__ runs __post_init__, which is then what runs."""
        if self.generated_init(cls):
            return self._method_of(cls, "__post_init__")
        return self._method_of(cls, "__init__")

    def generated_init(self, cls):
        """`cls` is a class of the project decorated @dataclass with no __init__ of its own (nor a base's): the
        dataclass machinery writes it, from the fields."""
        return isinstance(cls, ast.ClassDef) and self._method_of(cls, "__init__") is None and any(
            self.qual(d.func if isinstance(d, ast.Call) else d).split(".")[-1] == "dataclass"
            for d in cls.decorator_list)

    def _method_of(self, cls, name, seen=0, skip_own=False):
        for stmt in () if skip_own else cls.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == name:
                return stmt
        for base in cls.bases:  # a base class of the project
            b = self.defined(base) if isinstance(base, (ast.Name, ast.Attribute)) and seen < 5 else None
            if isinstance(b, ast.ClassDef) and b is not cls:
                found = self._method_of(b, name, seen + 1)
                if found is not None:
                    return found
        return None

    def _enter(self, func, call, ctx, self_class=None):
        if len(ctx.frames) >= MAX_DEPTH or any(f.func is func for f in ctx.frames) or \
                self._walks.get(func, 0) >= MAX_WALKS:
            return
        self._walks[func] = self._walks.get(func, 0) + 1
        self.walked.add(func)
        for test, branch in self._decorator_guards(func):
            ctx = ctx.with_(guard=(test, branch))
        frame = Frame(func, call, ctx.env)
        frame.self_class = self_class or self._receiver_class(func, call, ctx.env)
        self.frames.append(frame)
        for param, b in frame.bindings.items():
            if isinstance(b.expr, ast.Name):
                self._modules_given.setdefault((id(func), param), set()).add(self.qual(b.expr))
        self._walk_body(func.body, ctx.with_(frame=frame))

    def _chosen(self, func, ctx):
        """[(function, class, guards)] a call may run when the object or class it is made from is one of several
        classes chosen by a conditional expression: a class held by a name (`cls = GradAccumTrainer if accum > 1
        else SimpleTrainer`, then `cls(cfg)`: each constructor) or a method of an object so made, also through a
        factory's return (`Reporter.create()` returning `cls(path) if rank == 0 else _Silent()`: each class's
        method). Each comes with the (test, branch) that picks its class; [] when there is a single class or
        none."""
        if isinstance(func, ast.Name):
            found = [(c, g) for v, _ in self.values_of(func) for c, g in self._branch_classes(v, None, 0, ())]
            if len(found) > 1:
                return [(m, c, g) for c, g in found for m in [self.constructor(c)] if m is not None]
            # a function chosen the same way (`step_fn = warmup_step if epoch < k else train_step`): each runs
            # under its branch
            funcs = [(d, g) for v, _ in self.values_of(func) for d, g in self._branch_functions(v, ())]
            return [(d, None, g) for d, g in funcs] if len(funcs) > 1 else []
        if not isinstance(func, ast.Attribute):
            return []
        found = self._classes_made(func.value, ctx.env, 0)
        return [(m, c, g) for c, g in found for m in [self._method_of(c, func.attr)] if m is not None] \
            if len(found) > 1 else []

    def _classes_made(self, node, frame, depth):
        """[(class, guards)] the object `node` holds when it is one of several classes chosen by conditional
        expressions: through names (their values), parameters, and the project's factories' returns."""
        if depth > 4:
            return []
        if isinstance(node, ast.Name) and node.id not in ("self", "cls"):
            b = self._binding(node, frame)
            if b is not None:
                return self._classes_made(b.expr, b.frame, depth + 1)
            return [x for v, _ in self.values_of(node) for x in self._classes_made(v, frame, depth + 1)]
        if isinstance(node, ast.IfExp):
            return self._branch_classes(node, frame, depth + 1, ())
        if isinstance(node, ast.Attribute) and dotted(node):  # `self.reporter`: its last assignment so spelled
            value, where = self._last_attr_value(node)
            return self._classes_made(value, where if isinstance(value, ast.Name) and where is not None else frame,
                                      depth + 1) if value is not None else []
        if isinstance(node, ast.Call):
            made = self._branch_classes(node, frame, depth + 1, ())
            if made:
                return made
            d = self.defined(node.func) if isinstance(node.func, (ast.Name, ast.Attribute)) else None
            if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return [x for r in ast.walk(d) if isinstance(r, ast.Return) and r.value is not None
                        for x in self._classes_made(r.value, None, depth + 1)]
        return []

    def _branch_functions(self, value, guards):
        """[(function, guards)] for the branches of a conditional expression that name a function of the
        project (`warmup_step if epoch < k else train_step`)."""
        if isinstance(value, ast.IfExp):
            return self._branch_functions(value.body, guards + ((value.test, True),)) + \
                self._branch_functions(value.orelse, guards + ((value.test, False),))
        d = self.defined(value) if isinstance(value, (ast.Name, ast.Attribute)) else None
        return [(d, guards)] if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef)) else []

    def _branch_classes(self, value, frame, depth, guards):
        """[(class, guards)] for the branches of a conditional expression that make or name a class of the
        project (`A if c else B`, `cls(path) if c else Silent()`); one entry for a value that is one class."""
        if isinstance(value, ast.IfExp):
            return self._branch_classes(value.body, frame, depth, guards + ((value.test, True),)) + \
                self._branch_classes(value.orelse, frame, depth, guards + ((value.test, False),))
        if isinstance(value, (ast.Name, ast.Attribute)):
            d = self.defined(value)
            return [(d, guards)] if isinstance(d, ast.ClassDef) else []
        if isinstance(value, ast.Call):
            c = self.class_called(value.func) or self._class_of(value, frame, depth)
            if c is None and isinstance(value.func, ast.Name):
                inner = [x for v, _ in self.values_of(value.func) for x in self._branch_classes(v, frame, depth, ())]
                return [(k, guards + g) for k, g in inner]
            return [(c, guards)] if c is not None else []
        return []

    def _receiver_class(self, func, call, caller):
        """The class of the instance the method `func` runs on at `call`, when it is a class deriving from the
        method's own (`trainer.train()` on a GradAccumTrainer runs SimpleTrainer.train, whose `self.run_step`
        is GradAccumTrainer's): the class a constructor call makes, the receiver's class, or for `self.m()` and
        `super().m()` the caller's own; None when the source does not say (then `self` is the method's class)."""
        owner = _enclosing_class(func)
        if call is None or owner is None or func.parent is not owner:
            return None
        made = self.defined(call.func) if isinstance(call.func, (ast.Name, ast.Attribute)) else None
        if not isinstance(made, ast.ClassDef) and isinstance(call.func, ast.Attribute):
            receiver = call.func.value
            if isinstance(receiver, ast.Call) and self.qual(receiver.func) == "super" or \
                    isinstance(receiver, ast.Name) and receiver.id == "self":
                made = caller.self_class if caller is not None else None
            else:
                made = self._class_of(receiver, caller)
        return made if isinstance(made, ast.ClassDef) and made is not owner and owner in self._bases_of(made) else None

    def _bases_of(self, cls, seen=0):
        """The project's classes `cls` derives from, itself included."""
        out = [cls]
        for b in cls.bases if seen < 5 else ():
            d = self.defined(b) if isinstance(b, (ast.Name, ast.Attribute)) else None
            if isinstance(d, ast.ClassDef) and d is not cls:
                out += self._bases_of(d, seen + 1)
        return out

    def _decorator_guards(self, func):
        """[(test, branch)]: the conditions under which the project's decorators of `func` call it (`@rank0_only`
        whose wrapper runs `fn(*args)` under `if hvd.rank() == 0:`). Only tests that read none of the
        decorator's or wrapper's own names (their parameters, locals): those are not known at the call."""
        out = []
        for d in getattr(func, "decorator_list", ()):
            dec = self.defined(d) if isinstance(d, (ast.Name, ast.Attribute)) else None
            if not isinstance(dec, (ast.FunctionDef, ast.AsyncFunctionDef)) or len(dec.args.args) != 1:
                continue
            fn = dec.args.args[0].arg
            own = {n.id for n in ast.walk(dec) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)} | {
                a.arg for n in ast.walk(dec) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                for a in n.args.args + n.args.kwonlyargs + [x for x in (n.args.vararg, n.args.kwarg) if x]}
            for c in ast.walk(dec):
                if not (isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == fn):
                    continue
                node, found = c, []
                while node is not dec and node is not None:
                    parent = getattr(node, "parent", None)
                    if isinstance(parent, ast.If) and (node in parent.body or node in parent.orelse):
                        found.append((parent.test, node in parent.body))
                    node = parent
                if all(not any(isinstance(n, ast.Name) and n.id in own for n in ast.walk(t)) for t, _ in found):
                    out += found
                break
        return out

    def _module_given(self, arg, param):
        """The Horovod module every walked call of the function binds its parameter `param` to
        (`global_mean(hvd, x)` with `hvd` imported in the caller), else None."""
        func = getattr(getattr(arg, "parent", None), "parent", None)
        given = self._modules_given.get((id(func), param), ())
        q = next(iter(given)) if len(given) == 1 else None
        return q if q in {m for m, _ in API_MODULES} else None

    # --- the project's modules -----------------------------------------------------------------
    def _import(self, stmt, ctx):
        """An import runs the project's modules it names (their code at the module's level, once, with the
        import's conditions), as Python does; an import of the project's code that fails is recorded."""
        if self.project is None:
            return
        mod = module_of(stmt, self.main)
        if isinstance(stmt, ast.Import):
            for a in stmt.names:
                self._run_module(a.name, stmt, ctx)
            return
        base = self.project.absolute(mod, stmt.module, stmt.level)
        if base:
            # A relative import names the package's own code, when the file is in a package (a script alone in a
            # folder without __init__.py is a copy away from its package: what it imports is not here to judge).
            relative = bool(stmt.level) and os.path.isfile(os.path.join(os.path.dirname(mod.path), "__init__.py"))
            m = self._run_module(base, stmt, ctx, relative=relative)
            if m is None:
                return
        for a in stmt.names:
            sub = f"{base}.{a.name}" if base else a.name
            if a.name != "*" and (not base or self.project.find(sub) is not None):
                self._run_module(sub, stmt, ctx)

    def _run_module(self, dotted, stmt, ctx, relative=False):
        """Run `dotted` and its packages (each package's __init__ first); the last Module, or None. A
        relative import names the project's own code: when its module is not there, the import fails (no
        installed package can answer it)."""
        parts, m = dotted.split("."), None
        if not parts[0] or not (relative or self.project.local_top(parts[0])):
            return None
        for i in range(1, len(parts) + 1):
            name = ".".join(parts[:i])
            found = self.project.find(name)
            m = self.project.module(name) if found is not None else None
            if m is None:
                self._import_failed(stmt, name, found, ctx)
                return None
            if m not in self.imported:
                self.imported.append(m)
                self._add_sys_paths(m, m.path)
                self._walk_body(m.tree.body, Ctx(ctx.guards, ctx.loops, (), ctx.reached))
        return m

    def _import_failed(self, stmt, name, found, ctx):
        if found is not None:
            exc = self.project.failed.get(os.path.normpath(found[0]))
            if exc is None:
                return  # too many modules, or too large: not read, not a failure
            error = f"{type(exc).__name__}: {getattr(exc, 'msg', None) or exc}"
            self.import_failures.append(ImportFailure(stmt, error, f"{self.project.rel(found[0])} cannot be "
                                                      "read as Python 3", ctx, True))
            return
        parent, _, last = name.rpartition(".")
        where = self.project.find(parent) if parent else None
        if where is None:  # a top-level name (a relative import of the script's own folder): that folder
            folder = os.path.dirname(module_of(stmt, self.main).path)
        else:
            folder = where[0] if where[0].endswith(os.sep) else os.path.dirname(where[0])
        near = [e for e in sorted(self.project._listing(folder)) if e.lower() in (last.lower() + ".py", last.lower())
                ]
        why = f"{self.project.rel(folder)}/ holds no {last}.py" + (
            f" (it has {near[0]}: module names are case-sensitive)" if near else "")
        self.import_failures.append(ImportFailure(stmt, f"ModuleNotFoundError: No module named {name!r}", why, ctx,
                                                  bool(near)))

    def _note_unread(self, call, func=None, kinds=("absent", "unparsed", "library"), event=None):
        """A call that the walk could not follow into code: into a module of the project that is absent or does
        not parse, or a function of a library (other than those the rules know). `func`: a function the call
        is handed, by reference, in place of the call's own callee (then `event` is the call's), `kinds`: those
        to note."""
        func = call.func if func is None else func
        event = self.events[-1] if event is None else event
        found = self.unread_origin(func)
        if found is None:
            return
        top, kind = found
        if kind in kinds and not any(u.event is event for u in self.unread[-3:]):
            self.unread.append(Unread(event, top, kind, func is not call.func))

    def unread_origin(self, expr):
        """(module, kind) when the dotted `expr` (a callee, a module attribute: `dist.local_rank`) is a name of
        code that cannot be read: a module of the project that is absent or does not parse, or a library's (by
        the first name's import; not the frameworks and libraries the rules know, nor the standard library);
        else None. A name the project's modules bind but make at run time is None."""
        root = chain_root(expr)
        if not isinstance(root, ast.Name):
            return None
        defs = self.reaching(root)
        if not defs or not any(isinstance(d, ast.alias) for d in defs):
            return None
        q = self.qual(expr)
        top = q.split(".")[0]
        if not q or top in KNOWN_LIBRARIES or top in sys.stdlib_module_names:
            return None
        if self.project is None:
            return top, "library"
        if not self.project.local_top(top):
            kind = self.project.kind(top)
            return None if kind == "stdlib" else (top, kind)
        prev, parts = None, q.split(".")
        for i in range(1, len(parts)):
            name = ".".join(parts[:i])
            if self.project.find(name) is None:
                if prev is not None and prev.defs.top_level(parts[i - 1]):
                    return None  # an object the module makes (a logger, a model): its methods are a library's
                return name, "absent"
            prev = self.project.module(name)
            if prev is None:
                return name, "unparsed"
        return None  # the modules are there, the name is not bound in them (made at run time)

    def of_unread_project_code(self, expr):
        """The name or attribute `expr` belongs to the project's own code that could not be read (a module
        that is not there or does not parse: `dist.local_rank`, `dist.is_chief` of an absent `dist`)."""
        return isinstance(expr, (ast.Name, ast.Attribute)) and \
            (self.unread_origin(expr) or ("", ""))[1] in ("absent", "unparsed")

    # --- entry points --------------------------------------------------------------------------
    def _walk_entry_points(self):
        """When no code at the module's level trains (no optimizer step or fit reached), the functions that do
        Horovod work or train, and that no other such function calls, are entry points (launched by
        horovod.run, Ray, another module): each is walked as run, from its own defaults, in source order."""
        if any(e.ctx.reached and training_call(self, e) for e in self.events):
            return
        top = [f for f in self._top_level_functions() if f not in self.walked]
        cands = [f for f in top if self._horovod_work(f) is not None]
        called = set()
        for f in cands:
            called |= self._callees(f) - {f}
        for f in cands:
            if f in called or f in self.walked:
                continue
            work = self._horovod_work(f)
            self._enter(f, None, Ctx())
            cls = getattr(f, "parent", None)
            name = f"{cls.name}.{f.name}" if isinstance(cls, ast.ClassDef) else f.name
            self.entry_points.append((f, name, f"nothing in the file calls it (launched by horovod.run, Ray or "
                                      f"another module); it calls {work[0]} at line {work[1]}"))

    def _top_level_functions(self):
        """Functions at the module's level (also under module-level if/try/with) and methods of its classes."""
        out, todo = [], list(self.tree.body)
        while todo:
            s = todo.pop(0)
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.append(s)
            elif isinstance(s, ast.ClassDef):
                out += [m for m in s.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
            elif isinstance(s, (ast.If, ast.Try, ast.With)) or type(s).__name__ == "TryStar":
                todo += [c for c in ast.iter_child_nodes(s) if isinstance(c, ast.stmt)]
                todo += [c for h in getattr(s, "handlers", []) for c in h.body]
        return sorted(out, key=lambda f: f.lineno)

    def _static_callee(self, call, func):
        """The function a call in `func`'s body runs, read without a walk: by definition, or `self.m()`."""
        target = self.defined(call.func) if isinstance(call.func, (ast.Name, ast.Attribute)) else None
        if isinstance(target, ast.ClassDef):
            target = self.constructor(target)
        if target is None and isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) \
                and call.func.value.id == "self":
            cls = _enclosing_class(func)
            target = self._method_of(cls, call.func.attr) if cls is not None else None
        return target

    def _callees(self, func, seen=None):
        """Functions `func` may run, transitively, read without a walk."""
        seen = set() if seen is None else seen
        for call in (n for n in ast.walk(func) if isinstance(n, ast.Call)):
            for node in [call.func] + call.args:
                target = self._static_callee(call, func) if node is call.func else (
                    self.defined(node) if isinstance(node, (ast.Name, ast.Attribute)) else None)
                if isinstance(target, (ast.FunctionDef, ast.AsyncFunctionDef)) and target not in seen \
                        and len(seen) < 500:
                    seen.add(target)
                    self._callees(target, seen)
        return seen

    def _horovod_work(self, func, depth=0):
        """(call text, line) of the first Horovod or hvdkit call other than a query (rank, size...), or
        training call (an optimizer step, a fit), that `func` makes, itself or through the functions it
        calls; None when it makes none."""
        if func in self._work:
            return self._work[func]
        self._work[func] = None
        found = None
        for call in sorted((n for n in ast.walk(func) if isinstance(n, ast.Call)), key=lambda n: n.lineno):
            a = self.api(call.func)
            if a and a[1].split(".")[-1] not in QUERIES or _trains(self, call):
                found = (f"{self.qual(call.func).split('.')[-1]}()", call.lineno)
                break
            target = self._static_callee(call, func) if depth < MAX_DEPTH else None
            if isinstance(target, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                    self._horovod_work(target, depth + 1) is not None:
                found = (f"{ast.unparse(call.func)}()", call.lineno)
                break
        self._work[func] = found
        return found

    # --- queries -------------------------------------------------------------------------------
    def library_bases(self, node, seen=0):
        """The dotted names of the library classes that the project's class `node` (a ClassDef, or a Name or
        Attribute naming one) derives from, through the project's own classes."""
        cls = node if isinstance(node, ast.ClassDef) else self.defined(node) if isinstance(
            node, (ast.Name, ast.Attribute)) else None
        if not isinstance(cls, ast.ClassDef) or seen > 5:
            return set()
        out = set()
        for base in cls.bases:
            b = self.defined(base) if isinstance(base, (ast.Name, ast.Attribute)) else None
            local = isinstance(b, ast.ClassDef) and b is not cls
            out |= self.library_bases(b, seen + 1) if local else {self.qual(base)}
        return out - {""}

    def trees(self):
        """The script's tree, then those of the project's modules whose code ran (imported on the walk): what
        a rule that scans the source (rather than the walk's events) should scan."""
        return [self.tree] + [m.tree for m in self.imported]

    def nodes(self):
        """Every node of trees(), as ast.walk gives them (each tree walked once: the rules scan them often)."""
        walked = self.__dict__.setdefault("_walked", {})
        for tree in self.trees():
            if id(tree) not in walked:
                walked[id(tree)] = (tree, list(ast.walk(tree)))  # the tree kept: its id is not reused
            yield from walked[id(tree)][1]

    def calls(self, pred):
        return [e for e in self.events if pred(e)]

    def api_calls(self, *names, owner=None):
        return [e for e in self.events if e.api and (owner is None or e.api[0] == owner)
                and (not names or e.api[1] in names or e.api[1].split(".")[-1] in names)]

    def events_at(self, node):
        """The walk's events (calls and assignments) of the statement or call `node`: one per walk that reached it
        ([] for code no walk reached)."""
        return self._index("_at", (self.events, self.assigns), lambda e: e.node).get(id(node), [])

    def frames_of_call(self, call):
        """The frames the walk made entering the project's code at `call`, in walk order (one call site may be
        walked in several frames of its function); [] when the walk never entered code there."""
        return self._index("_frames_at", (self.frames,), lambda fr: fr.call).get(id(call), [])

    def arguments_of(self, arg):
        """The bindings (not defaults) the walked calls of its function gave the parameter `arg` (an ast.arg),
        in walk order: per (function, parameter), never by the parameter's name."""
        frames = self._index("_frames_by_func", (getattr(self, "frames", ()),), lambda fr: fr.func)
        out = []
        for fr in frames.get(id(owner_of_arg(arg)), ()):
            b = fr.bindings.get(arg.arg)
            if b is not None and not b.default:
                out.append(b)
        return out

    def _index(self, attr, lists, key):
        # {id(key(x)): [x, ...]} over the lists in order, kept in `attr`; rebuilt when they have grown since (a
        # query made during the walk)
        index, size = getattr(self, attr, None) or ({}, -1)
        if size != sum(len(items) for items in lists):
            index = {}
            for items in lists:
                for x in items:
                    k = key(x)
                    if k is not None:
                        index.setdefault(id(k), []).append(x)
            setattr(self, attr, (index, sum(len(items) for items in lists)))
        return index

    def assignments_to(self, name):
        """Assignment events that bind `name`. Given a Name node (a read), by its reaching definitions: the
        assignments Python's scoping says may have bound it there (a global read in a function: the
        module's; a parameter: none, see Facts.frames_binding). Given a dotted string (`args.lr`) or an
        Attribute node, by spelling over the whole walk: the documented fallback for attributes, whose
        objects are not tracked; an Attribute node on `self` (`self.model` in a method) keeps only the
        assignments made in methods of its class and of the project classes it derives from or that derive
        from it (a Trainer's `self.model` is not an Evaluator's)."""
        if self._by_target is None or self._indexed != len(self.assigns):
            # indexed once the walk is done (the rules ask thousands of times); again when asked during the
            # walk (a dataclass's default factories read a mapping) and the walk has assigned more since
            self._by_target, self._by_node, self._indexed = {}, {}, len(self.assigns)
            for e in self.assigns:
                targets = e.node.targets if isinstance(e.node, ast.Assign) else [e.node.target]
                for t in targets:
                    for sub, one in _unpacked(t, e):
                        key = dotted(sub)
                        if key is not None:
                            self._by_target.setdefault(key, []).append(one)
                        self._by_node.setdefault(sub, []).append(one)
        if isinstance(name, ast.Name):
            if isinstance(getattr(name, "ctx", None), ast.Store):  # a target: the assignment it is a target of, if any
                return list(self._by_node.get(name, ()))
            defs = self.reaching(name)
            if defs is None or (not defs and name.id not in _BUILTINS):
                return list(self._by_target.get(name.id, ()))  # not a read beniget knows: by spelling
            return sorted((a for d in defs for a in self._by_node.get(d, ())), key=lambda a: a.order)
        if isinstance(name, ast.AST):
            found = list(self._by_target.get(dotted(name), ()))
            cls = self.self_class(name)
            if cls is None:
                return found
            family = self._family(cls)
            return [a for a in found if self.self_class(_target_of(a, dotted(name))) in family]
        return list(self._by_target.get(name, ()))

    _by_target = None
    _indexed = 0

    def module_assignments(self, node):
        """The walked assignments that bind, at the top level of a project module, the name `node` reads from it:
        `C.LR` with `import config as C`, `LR` with `from config import LR` (what `config.LR` is once the module
        has run); [] for any other read."""
        if self.project is None:
            return []
        where = None
        if isinstance(node, ast.Name):
            d = next((d for d, m in self._defs_of(node) or () if isinstance(d, ast.alias) and
                      isinstance(d.parent, ast.ImportFrom)), None)
            if d is not None:
                mod = module_of(d.parent, self.main)
                where = (self.project.module(self.project.absolute(mod, d.parent.module, d.parent.level)), d.name)
        elif isinstance(node, ast.Attribute):
            module, _, name = self.qual(node).rpartition(".")
            if module and self._module_rooted(node) and self.project.local_top(module.split(".")[0]) and \
                    self.project.find(module) is not None:
                where = (self.project.module(module), name)
        if where is None or where[0] is None:
            return []
        self.assignments_to(where[1])  # the index, built once
        top = [a for d in where[0].defs.top_level(where[1]) for a in self._by_node.get(d, ())]
        return top + self._global_assignments(where[0], where[1])

    def _global_assignments(self, mod, name):
        """The walked assignments to a module's global made in its functions under `global name` (`def
        setup(): global world_size; world_size = hvd.size()`), in walk order: what `dist.world_size` reads once
        setup() has run."""
        out = []
        for a in self._by_target.get(name, ()):
            func = enclosing_def(a.node)
            if func is not None and module_of(func, self.main) is mod and declares_global(func, name):
                out.append(a)
        return sorted(out, key=lambda a: a.order)

    def self_class(self, node):
        """The class of `self` in `self.x...` read or written in one of its methods (by the definition of
        `self`: the method's first parameter); None for any other receiver."""
        root = chain_root(node)
        if not isinstance(root, ast.Name) or node is root:
            return None
        defs = self.reaching(root)
        if isinstance(getattr(root, "ctx", None), ast.Store) or defs is None:
            func = enclosing_def(root)
            first = func.args.posonlyargs + func.args.args if func is not None else []
            owner = func if first and first[0].arg == root.id else None
        else:
            args = [d for d in defs if isinstance(d, ast.arg)]
            owner = owner_of_arg(args[0]) if len(args) == len(defs) == 1 else None
            if owner is not None and (owner.args.posonlyargs + owner.args.args)[:1] != args:
                owner = None
        cls = getattr(owner, "parent", None)
        return cls if isinstance(cls, ast.ClassDef) else None

    def instance_attribute_assigns(self, node):
        """`rt.size` read off an instance of a class of the project (`rt = Runtime(...)`, by its value): the
        assignments its class's methods make to `self.size` ([Event]); [] when the class is not known."""
        name = dotted(node) if isinstance(node, ast.Attribute) else None
        if not name or not isinstance(node.value, ast.Name) or node.value.id in ("self", "cls"):
            return []
        cls = self._class_of(node.value, None)
        if cls is None:
            return []
        family = self._family(cls)
        return [a for a in self.assignments_to("self." + node.attr)
                if a.ctx.frames and _enclosing_class(a.ctx.frames[-1].func) in family]

    def class_field_defaults(self, node):
        """`dist.rank` read off an instance of a class of the project (`dist = DistConfig()`): the values its
        class body (or a base's) gives `rank` (`rank: int = hvd.rank()`, a dataclass field's default or a class
        attribute); [] when the class is not known or sets none."""
        if not isinstance(node, ast.Attribute) or not isinstance(node.value, ast.Name) or \
                node.value.id in ("self", "cls"):
            return []
        cls = self._class_of(node.value, None)
        if cls is None:
            return []
        return [st.value for c in self._family(cls) for st in c.body
                if isinstance(st, (ast.AnnAssign, ast.Assign)) and st.value is not None and any(
                    isinstance(t, ast.Name) and t.id == node.attr
                    for t in (st.targets if isinstance(st, ast.Assign) else [st.target]))]

    def _family(self, cls):
        """A class of the project with its project bases (transitively) and the read classes deriving from it."""
        if cls not in self._families:
            ups, todo = set(), [cls]
            while todo and len(ups) < 50:
                c = todo.pop()
                if c in ups:
                    continue
                ups.add(c)
                todo += [b for b in (self.defined(x) for x in c.bases if isinstance(x, (ast.Name, ast.Attribute)))
                         if isinstance(b, ast.ClassDef)]
            trees = [self.tree] + [m.tree for m in (self.project.modules.values() if self.project else ()) if m]
            downs = {c for t in trees for c in ast.walk(t) if isinstance(c, ast.ClassDef) and c not in ups
                     and any(self.defined(x) in ups for x in c.bases if isinstance(x, (ast.Name, ast.Attribute)))}
            self._families[cls] = ups | downs
        return self._families[cls]

    def line_text(self, line):
        file = getattr(line, "file", None)
        mod = self.main if file is None or self.project is None else next(
            (m for m in self.project.modules.values() if m is not None and m.rel == file), self.main)
        return mod.line_text(line)


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# Keras' training calls and the Model method each runs for every batch.
KERAS_STEPS = {"fit": "train_step", "fit_generator": "train_step", "train_on_batch": "train_step",
               "evaluate": "test_step", "test_on_batch": "test_step", "predict": "predict_step",
               "predict_on_batch": "predict_step"}
_BUILTINS = set(dir(builtins))
# Horovod's queries: calling them is no Horovod work of a function (a logging helper asks for the rank).
QUERIES = ("rank", "size", "local_rank", "local_size", "cross_rank", "cross_size", "is_initialized",
           "mpi_threads_supported", "nccl_built", "gloo_enabled", "mpi_enabled")


def training_call(script, e, scheduler=None):
    """An optimizer step or a fit: the training. `scheduler(receiver)` says whether the receiver of a
    `.step()` is an LR scheduler (Facts: by what made it); by default the spelling fallback below."""
    return _trains(script, e.node, scheduler)


def environment_step(call):
    """`obs, reward, done = env.step(action)`: an environment's step, which returns a transition (unpacked
    into several names); an optimizer's step returns nothing (or a closure's loss)."""
    stmt = getattr(call, "parent", None)
    return isinstance(call.func, ast.Attribute) and call.func.attr == "step" and isinstance(stmt, ast.Assign) \
        and stmt.value is call and any(isinstance(t, ast.Tuple) and len(t.elts) > 1 for t in stmt.targets)


def class_fit(script, call):
    """`TextCodec.fit(texts)`: a `fit` called on an imported name itself, a class (a tokenizer's or a scaler's
    classmethod), not on a model instance: no training step. A class of the code read is known by its
    definition; an import from a module that is not there is taken as a class (instances are made, not
    imported)."""
    recv = call.func.value if isinstance(call.func, ast.Attribute) and call.func.attr in ("fit", "fit_generator") \
        else None
    if not isinstance(recv, ast.Name) or recv.id not in script.aliases:
        return False
    if script.module_assignments(recv):
        return False  # `from models import model`: an instance a module of the project made
    made = script.defined(recv)
    return made is None or isinstance(made, ast.ClassDef)


def _trains(script, call, scheduler=None):
    if not (isinstance(call.func, ast.Attribute) and call.func.attr in OPTIMIZER_STEPS):
        return False
    if environment_step(call) or class_fit(script, call):
        return False
    return not (scheduler or (lambda r: spelled_scheduler(script, r)))(call.func.value)


# The library calls that make LR schedulers (their `.step()` is no optimizer step): torch's lr_scheduler
# module, transformers' get_*_schedule*, timm's create_scheduler, Keras' schedules, classes named ...LR.
SCHEDULER_MAKERS = re.compile(r"lr_scheduler|schedul|LR$|LROnPlateau$", re.I)
# The modules of LR scheduler classes themselves, handed whole to a factory that picks a class by name.
SCHEDULER_MODULES = ("torch.optim.lr_scheduler", "keras.optimizers.schedules", "tensorflow.keras.optimizers.schedules")


def spelled_scheduler(script, receiver):
    """The documented spelling fallback for a receiver whose making is not seen: named like a scheduler."""
    return "sched" in script.qual(receiver).lower()


def parents(node):
    """The nodes enclosing `node`, innermost first (the tree's `parent` links)."""
    while getattr(node, "parent", None) is not None:
        node = node.parent
        yield node


def enclosing_def(node):
    """The function (def or async def) whose body holds `node`; None at a module's or class's level."""
    return next((p for p in parents(node) if isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef))), None)


def loop_bindings(node):
    """The (target, iter) pairs a loop or comprehension node binds; [] for any other node."""
    if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)):
        return node.generators
    return [node] if isinstance(node, (ast.For, ast.AsyncFor)) else []


def _target_of(event, name):
    """The target node of an assignment event spelled `name`."""
    targets = event.node.targets if isinstance(event.node, ast.Assign) else [event.node.target]
    return next((n for t in targets for n in ast.walk(t) if isinstance(n, ast.Attribute) and dotted(n) == name),
                targets[0])


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
    # `(x_tr, y_tr), (x_va, y_va) = load(...)`: each name of a nested target is bound to the whole value too
    return [(name, event) for sub in target.elts for name in _names_in_target(sub)]


def _names_in_target(target):
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for sub in target.elts for n in _names_in_target(sub)]
    return [target.value if isinstance(target, ast.Starred) else target]


# Launchers that call the function they are handed with `args=(...)` / `kwargs={...}` as given.
LAUNCHERS_WITH_ARGS = ("horovod.run", "horovod.runner.run", "horovod.spark.run", "multiprocessing.Process",
                       "torch.multiprocessing.Process", "threading.Thread")


# torch.nn.Module's methods that return the module itself (`model = Net().to(device)` holds the Net).
SELF_RETURNING = ("to", "cuda", "cpu", "train", "eval", "float", "half", "double", "bfloat16", "requires_grad_")


def unmoved(node):
    """`Net(...).to(device).train()` is the Net(...): the module under its self-returning calls."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in SELF_RETURNING:
        node = node.func.value
    return node


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


def _loop_variable(name):
    """The Name is the target of a for loop around it over a name or an attribute (`for h in self.hooks:`),
    not over a call (`model.modules()`, `range(n)`)."""
    for p in parents(name):
        if isinstance(p, (ast.For, ast.AsyncFor)) and isinstance(p.target, ast.Name) and \
                p.target.id == name.id and isinstance(p.iter, (ast.Name, ast.Attribute)):
            return True
        if isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return False
    return False


def _branches(value):
    """The values an expression may take: both branches of a conditional (`Keeper(m) if rank == 0 else None`)."""
    if isinstance(value, ast.IfExp):
        return _branches(value.body) + _branches(value.orelse)
    return [value]


def result_discarded(call):
    """The call's value is thrown away: it is an expression statement of its own."""
    return isinstance(getattr(call, "parent", None), ast.Expr)


def sums(call):
    """The call's `op=` asks for a sum: Horovod's hvd.Sum (any spelling of the module), or hvdkit's op="sum"."""
    op = next((k.value for k in call.keywords if k.arg == "op"), None)
    if isinstance(op, ast.Constant) and isinstance(op.value, str):
        return bool(SUM_OPS.match(op.value))
    return op is not None and bool(SUM_OPS.match(ast.unparse(op).split(".")[-1]))


class NodeAt:
    """A node where rules expect an event (`.node`, `.line`): a partition or a batch width found in the source
    rather than in a walked call (`x[rank::size]`, `perm[s * bs:(s + 1) * bs]`)."""

    def __init__(self, node):
        self.node, self.line = node, node.lineno


def instance_names(name, at):
    """`self.opt` inside a method is also `trainer.opt` where the walk called `trainer.fit()` (or made
    `trainer = Trainer(...)`): the names of one attribute of one instance, in every frame of the walk."""
    out = [name]
    for frame in reversed(at.ctx.frames):
        if not name.startswith("self.") or frame.call is None:
            break
        func = frame.call.func
        if isinstance(func, ast.Attribute):
            owner = dotted(func.value)
        else:  # Trainer(...): the instance is what the call is assigned to
            parent = getattr(frame.call, "parent", None)
            targets = parent.targets if isinstance(parent, ast.Assign) else []
            owner = dotted(targets[0]) if len(targets) == 1 else None
        if not owner:
            break
        name = owner + name[len("self"):]
        out.append(name)
    return out


def remainders(test):
    """The `a % b` nodes of a condition (`if (it + 1) % accum == 0:`, `if step % log_every == 0:`): what runs
    once every b passes of a loop."""
    return [n for n in ast.walk(test) if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod)]


def assigned_name(call):
    """The name a call's result is assigned to (`x = call(...)`), else None."""
    parent = getattr(call, "parent", None)
    if isinstance(parent, (ast.Assign, ast.AnnAssign)):
        targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
        if len(targets) == 1:
            return dotted(targets[0])
    return None


def named_in_function(value):
    """(name, function) when `value` is assigned to a plain name in a function's body (`groups = []`), the
    function a reader of what the name is later filled with looks in; else None."""
    stmt = getattr(value, "parent", None)
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
        return None
    scope = enclosing_def(stmt)
    return (stmt.targets[0].id, scope) if scope is not None else None


def same_walk(a, b):
    """Both events come from the same walk of their outermost function (not two separate calls of main)."""
    fa, fb = a.ctx.frames, b.ctx.frames
    return (not fa and not fb) or (bool(fa) and bool(fb) and (fa[0] is fb[0] or _chained(fa[0], fb[0])
                                                              or _chained(fb[0], fa[0]) or _one_object(fa[0], fb[0])
                                                              )) or not fa or not fb


def _one_object(a, b):
    """`learner.restore(path)`, then `learner.train()`: two methods called on the object one name holds, in
    the same function (or at the same module's level)."""
    fa = a.call.func if a.call is not None else None
    fb = b.call.func if b.call is not None else None
    return isinstance(fa, ast.Attribute) and isinstance(fb, ast.Attribute) and isinstance(fa.value, ast.Name) and \
        isinstance(fb.value, ast.Name) and fa.value.id == fb.value.id and enclosing_def(a.call) is enclosing_def(b.call)


def _chained(made, method):
    """`Trainer(cfg).fit()`, or `t = Trainer(cfg)` then `t.fit()` in the same function: the method's walk is
    called on the object the constructor's walk made."""
    func = method.call.func if method.call is not None else None
    if made.call is None or not isinstance(func, ast.Attribute):
        return False
    if func.value is made.call:
        return True
    stmt = getattr(made.call, "parent", None)
    return isinstance(func.value, ast.Name) and isinstance(stmt, ast.Assign) and stmt.value is made.call and \
        any(isinstance(t, ast.Name) and t.id == func.value.id for t in stmt.targets) and \
        enclosing_def(stmt) is enclosing_def(func)
