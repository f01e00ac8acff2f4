"""What Horovod 0.28.1's Python modules export, and the signatures of their functions and classes: the facts
the crash finding needs to say that `hvd.callbacks` on horovod.tensorflow is an AttributeError, or that
`LearningRateWarmupCallback(warmup_epochs=5)` omits the required `initial_lr`, without importing Horovod.

The facts are generated from the installed Horovod package's source with `ast` (nothing is imported) and
committed as horovod_api.json beside this file:

    python -m hvdkit.check.horovod_api            # rewrite horovod_api.json from the installed Horovod
    python -m hvdkit.check.horovod_api --check    # exit 1 when the committed file differs from a fresh one

Per module (horovod, horovod.torch, horovod.tensorflow, horovod.tensorflow.keras, horovod.keras and the
modules of those packages), every name the module may bind (all branches of its `if`s and `try`s, star
imports followed, its submodules), each resolved to what it is: a module, a function with its parameters,
a class with its attributes and constructor, or a value. A module whose names cannot all be known (a star
import from outside Horovod, a module `__getattr__`) is marked open, and nothing is reported on it.
"""
import argparse
import ast
import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "horovod_api.json")
# The packages whose modules users import; others (runner, spark, ray internals) are left out: unknown.
PACKAGES = ("horovod.torch", "horovod.tensorflow", "horovod.keras", "horovod._keras", "horovod.common")
TOP = ("horovod", "horovod.runner", "horovod.spark", "horovod.ray")


# What every module has without binding it.
MODULE_ATTRIBUTES = ("__name__", "__file__", "__doc__", "__package__", "__loader__", "__spec__", "__path__",
                     "__dict__", "__builtins__", "__cached__", "__class__", "__all__")

# --- reading the facts (the static pass) -----------------------------------------------------------
_loaded = None


def load():
    """The committed facts: {"version", "modules": {module: {"open", "names": {name: entry}}}}."""
    global _loaded
    if _loaded is None:
        with open(DATA, encoding="utf-8") as fh:
            _loaded = json.load(fh)
    return _loaded


def lookup(path):
    """What a dotted path into Horovod is: ('missing', module, name) when an attribute of a closed module
    or class does not exist; ('entry', entry) for a known entry; None when the path leaves what is known."""
    modules = load()["modules"]
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        if ".".join(parts[:cut]) in modules:
            break
    else:
        return None
    module = ".".join(parts[:cut])
    entry = {"kind": "module", "target": module}
    held = module
    for name in parts[cut:]:
        if entry["kind"] == "module":
            m = modules.get(entry["target"])
            if m is None or m["open"]:
                return None
            if name not in m["names"]:
                if name in MODULE_ATTRIBUTES:
                    return None
                return "missing", entry["target"], name
            held, entry = f"{entry['target']}.{name}", m["names"][name]
        elif entry["kind"] == "class":
            if entry.get("attrs") is None:
                return None
            if name not in entry["attrs"]:
                return "missing", held, name
            return None  # a class attribute: what it is is not recorded
        else:
            return None
    return "entry", entry


# --- generating them (from the installed Horovod's source) -----------------------------------------
class _Source:
    """Horovod's modules as syntax trees, looked up by dotted name."""

    def __init__(self, root):
        self.root = root  # the folder that holds the horovod package
        self.trees, self.paths = {}, {}

    def path(self, module):
        base = os.path.join(self.root, *module.split("."))
        for p in (os.path.join(base, "__init__.py"), base + ".py"):
            if os.path.isfile(p):
                return p
        return None

    def is_package(self, module):
        return os.path.isfile(os.path.join(self.root, *module.split("."), "__init__.py"))

    def submodules(self, module):
        folder = os.path.join(self.root, *module.split("."))
        if not self.is_package(module):
            return []
        out = set()
        for name in os.listdir(folder):
            stem = name.split(".")[0]
            if name.startswith("__") or not stem.isidentifier():
                continue
            if name.endswith((".py", ".so", ".pyd")) or os.path.isfile(os.path.join(folder, name, "__init__.py")):
                out.add(stem)
        return sorted(out)

    def tree(self, module):
        if module not in self.trees:
            p = self.path(module)
            with open(p, encoding="utf-8") as fh:
                self.trees[module] = ast.parse(fh.read(), p)
        return self.trees[module]


class _Generator:
    def __init__(self, source):
        self.src = source
        self._bindings, self._resolving = {}, set()

    def modules(self):
        out = []
        for top in TOP + PACKAGES:
            if self.src.path(top):
                out.append(top)
        for pkg in PACKAGES:
            folder = os.path.join(self.src.root, *pkg.split("."))
            for dirpath, dirnames, files in os.walk(folder):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith("__"))
                rel = os.path.relpath(dirpath, self.src.root).replace(os.sep, ".")
                for f in sorted(files):
                    if f.endswith(".py"):
                        name = rel if f == "__init__.py" else f"{rel}.{f[:-3]}"
                        if name not in out:
                            out.append(name)
        return out

    def bindings(self, module):
        """{name: [binding node or ('star', module)]} at the module's level, every branch; 'open' flag."""
        if module in self._bindings:
            return self._bindings[module]
        out, opened = {}, False
        self._bindings[module] = (out, True)  # a cycle reads it as open
        for node in _module_level(self.src.tree(module).body):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.setdefault(node.name, []).append(node)
                if node.name == "__getattr__":
                    opened = True
            elif isinstance(node, ast.Import):
                for a in node.names:
                    out.setdefault(a.asname or a.name.split(".")[0], []).append(("import", a))
            elif isinstance(node, ast.ImportFrom):
                base = _absolute(module, node, self.src.is_package(module))
                for a in node.names:
                    if a.name == "*":
                        if base and self.src.path(base) and base.startswith("horovod"):
                            names, sub_open = self.bindings(base)
                            opened |= sub_open
                            for n in names:
                                if not n.startswith("_"):
                                    out.setdefault(n, []).append(("from", base, n))
                        else:
                            opened = True
                    else:
                        out.setdefault(a.asname or a.name, []).append(("from", base, a.name))
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    single = isinstance(t, ast.Name) and not isinstance(node, ast.AugAssign)
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            out.setdefault(n.id, []).append(("value", node.value) if single else ("value", None))
            elif isinstance(node, ast.ExceptHandler):
                out.setdefault(node.name, []).append(("value", None))
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)):
                targets = [node.target] if isinstance(node, (ast.For, ast.AsyncFor)) else \
                    [i.optional_vars for i in node.items if i.optional_vars]
                for t in targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            out.setdefault(n.id, []).append(("value", None))
            elif isinstance(node, ast.Expr) and _mutates_globals(node):
                opened = True
        for sub in self.src.submodules(module):
            out.setdefault(sub, []).append(("submodule", f"{module}.{sub}"))
        self._bindings[module] = (out, opened)
        return out, opened

    def entry(self, module, name):
        """What `module.name` is: {"kind": "module"|"function"|"class"|"value", ...}."""
        key = (module, name)
        if key in self._resolving:
            return {"kind": "value"}
        self._resolving.add(key)
        try:
            names, _ = self.bindings(module)
            entries = [self._one(module, b) for b in names.get(name, [])]
        finally:
            self._resolving.discard(key)
        if not entries:
            return {"kind": "value"}
        first = entries[0]
        if all(e == first for e in entries):
            return first
        if all(e["kind"] == "function" for e in entries):
            return {"kind": "function", "params": None}
        return {"kind": "value"}

    def _one(self, module, b):
        if isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return {"kind": "function", "params": None if b.decorator_list else _params(b.args)}
        if isinstance(b, ast.ClassDef):
            return self._class(module, b)
        kind = b[0]
        if kind == "submodule":
            return {"kind": "module", "target": b[1]}
        if kind == "import":
            a = b[1]
            target = a.name if a.asname else a.name.split(".")[0]
            return {"kind": "module", "target": target} if self._known(target) else {"kind": "value"}
        if kind == "from":
            base, name = b[1], b[2]
            if base and self._known(f"{base}.{name}"):
                return {"kind": "module", "target": f"{base}.{name}"}
            if base and self._known(base):
                return self.entry(base, name)
            return {"kind": "value"}
        if kind == "value" and b[1] is not None:
            return self._expr(module, b[1])
        return {"kind": "value"}

    def _expr(self, module, node):
        """`x = other_name`, `x = module.attr`, `size = _basics.size` (a bound method of an instance)."""
        if isinstance(node, ast.Name):
            return self.entry(module, node.id)
        if isinstance(node, ast.Attribute):
            owner = self._expr(module, node.value) if isinstance(node.value, (ast.Name, ast.Attribute)) else None
            if owner and owner["kind"] == "module" and self._known(owner["target"]):
                return self.entry(owner["target"], node.attr)
            if owner and owner["kind"] == "instance":
                method = owner["methods"].get(node.attr)
                if method is not None:
                    return {"kind": "function", "params": method}
            return {"kind": "value"}
        if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
            cls = self._expr(module, node.func)
            if cls["kind"] == "class" and cls.get("methods") is not None:
                return {"kind": "instance", "methods": cls["methods"]}
        return {"kind": "value"}

    def _class(self, module, node):
        """A class: its attribute names and constructor parameters (None when a base outside Horovod, a
        metaclass or a __new__ could change them), and its methods' parameters (bound: self dropped)."""
        attrs, methods, own_init = set(), {}, None
        closed = not node.keywords
        for stmt in node.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                attrs.add(stmt.name)
                decorated = [ast.unparse(d) for d in stmt.decorator_list]
                params = None if decorated else _params(stmt.args, bound=True)
                if decorated == ["staticmethod"]:
                    params = _params(stmt.args)
                methods[stmt.name] = params
                if stmt.name == "__init__":
                    own_init = params if params is not None else "unknown"
                if stmt.name in ("__new__", "__getattr__", "__init_subclass__"):
                    closed = False
            elif isinstance(stmt, ast.ClassDef):
                attrs.add(stmt.name)
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                for t in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
                    attrs |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}
        init = None if own_init == "unknown" else own_init
        for base in node.bases:
            b = self._expr(module, base) if isinstance(base, (ast.Name, ast.Attribute)) else {"kind": "value"}
            if b["kind"] != "class" or b.get("attrs") is None:
                if not (isinstance(base, ast.Name) and base.id == "object"):
                    closed = False
                continue
            attrs |= set(b["attrs"])
            for k, v in (b.get("methods") or {}).items():
                methods.setdefault(k, v)
            if own_init is None and init is None:
                init = b.get("init")
        if own_init is None and not closed:
            init = None  # a base outside Horovod may define the constructor
        return {"kind": "class", "attrs": sorted(attrs) if closed else None, "init": init,
                "methods": methods if closed else None}

    def _known(self, module):
        return module.startswith("horovod") and self.src.path(module) is not None or \
            module.startswith("horovod") and bool(self._submodule_file(module))

    def _submodule_file(self, module):
        parent, _, stem = module.rpartition(".")
        return stem in self.src.submodules(parent) if parent else False


def _generate(root):
    gen = _Generator(_Source(root))
    modules = {}
    for module in gen.modules():
        names, opened = gen.bindings(module)
        entries = {}
        for n in sorted(names):
            e = gen.entry(module, n)
            if e["kind"] == "instance":
                e = {"kind": "value"}
            if e["kind"] == "class":
                e = {k: v for k, v in e.items() if k != "methods"}
            entries[n] = e
        modules[module] = {"open": opened, "names": entries}
    version = None
    vfile = os.path.join(root, "horovod", "version.py")
    init = os.path.join(root, "horovod", "__init__.py")
    for p in (vfile, init):
        if os.path.isfile(p):
            for node in ast.parse(open(p, encoding="utf-8").read()).body:
                if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__version__"
                                                        for t in node.targets) and isinstance(node.value, ast.Constant):
                    version = node.value.value
    return {"version": version, "generated_by": "python -m hvdkit.check.horovod_api", "modules": modules}


def _params(args, bound=False):
    """[[name, kind, has_default]]; kind: posonly, pos, vararg, kwonly, varkw. bound: drop self/cls."""
    pos = args.posonlyargs + args.args
    n_def = len(args.defaults)
    out = [[a.arg, "posonly" if i < len(args.posonlyargs) else "pos", i >= len(pos) - n_def]
           for i, a in enumerate(pos)]
    if args.vararg:
        out.append([args.vararg.arg, "vararg", True])
    out += [[a.arg, "kwonly", d is not None] for a, d in zip(args.kwonlyargs, args.kw_defaults)]
    if args.kwarg:
        out.append([args.kwarg.arg, "varkw", True])
    if bound and out and out[0][1] in ("posonly", "pos"):
        out = out[1:]
    return out


def _absolute(module, node, is_package):
    if not node.level:
        return node.module
    parts = module.split(".")
    if not is_package:
        parts = parts[:-1]
    parts = parts[:len(parts) - (node.level - 1)] if node.level > 1 else parts
    return ".".join(parts + ([node.module] if node.module else []))


def _module_level(body):
    """Statements at a module's level, through every branch of if/try/with/for (not into functions)."""
    for node in body:
        yield node
        if isinstance(node, (ast.If, ast.For, ast.While, ast.With, ast.AsyncWith, ast.AsyncFor)):
            yield from _module_level(node.body + getattr(node, "orelse", []))
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            yield from _module_level(node.body + node.orelse + node.finalbody)
            for h in node.handlers:
                if h.name:
                    yield h
                yield from _module_level(h.body)


def _mutates_globals(node):
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("globals", "exec")
               for n in ast.walk(node))


def installed_root():
    spec = importlib.util.find_spec("horovod")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("Horovod is not installed here: nothing to generate from")
    return os.path.dirname(list(spec.submodule_search_locations)[0])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if the committed file is not current")
    args = ap.parse_args(argv)
    text = json.dumps(_generate(installed_root()), indent=0, sort_keys=True) + "\n"
    if args.check:
        with open(DATA, encoding="utf-8") as fh:
            same = fh.read() == text
        print("current" if same else f"{DATA} differs from the installed Horovod's: regenerate it")
        return 0 if same else 1
    with open(DATA, "w", encoding="utf-8") as fh:
        fh.write(text)
    print(f"wrote {DATA}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
