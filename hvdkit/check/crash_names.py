"""The crash finding's questions to the core's definitions (script.py, defs.py, project.py), asked so that
the answer is certain: a crash is reported only when every definition that may reach a name agrees.

    names = Names(script)       # the checked script and the project's modules whose code runs
    names.qual(node)            # 'horovod.tensorflow.callbacks' for hvd.callbacks; '' unless certain
    names.definitions(name)     # [(definition, module)], `from <project module> import x` followed
    names.sole(call.func)       # the one FunctionDef / ClassDef a call runs, or None
    names.references(func)      # every node that names a function or class of the project, or None

Spelling is never enough here: a parameter named `hvd` is not the module, a method name alone is not
the project's method.
"""
import ast
import builtins

from hvdkit.check.defs import assigned_value
from hvdkit.check.project import module_of
from hvdkit.check.script import parents

DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


class Names:
    def __init__(self, script):
        self.s = script
        # the checked script and the project's modules whose code ran on the walk, in import order
        self.modules = [script.main] + [m for m in script.imported if m is not None and m is not script.main]
        self.nodes_of = {id(m): list(ast.walk(m.tree)) for m in self.modules}  # by module, as ast.walk gives them
        self.nodes = [n for m in self.modules for n in self.nodes_of[id(m)]]
        self.loads, self.stores = {}, {}  # Name nodes read, by name; attributes assigned (or deleted), by name
        self.stored_attrs, self.classes = set(), []
        for node in self.nodes:
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                self.loads.setdefault(node.id, []).append(node)
            elif isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
                self.stores.setdefault(node.attr, []).append(node)
                self.stored_attrs.add(node.attr)
            elif isinstance(node, ast.ClassDef):
                self.classes.append(node)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" and \
                    len(node.args) > 1 and isinstance(node.args[1], ast.Constant):
                self.stored_attrs.add(node.args[1].value)
        self._refs, self._bases, self._found = None, None, {}

    # --- names ------------------------------------------------------------------------------------
    def qual(self, node):
        """The dotted name an expression refers to through the imports that bind its root name where it is
        read; '' when the root is not an import, or may be bound to different things (`hvd = None` on the
        path without Horovod does not count: any attribute of it raises there too). A builtin is its name."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return ""
        found = self._quals(node)
        if found is None:
            return ""
        if not found:
            root = node.id if hasattr(builtins, node.id) else ""
        else:
            targets = {q for d, _, q in found if not _assigns_none(d)}
            root = targets.pop() if len(targets) == 1 and None not in targets else ""
        return ".".join([root] + parts[::-1]) if root else ""

    def _quals(self, name):
        """Script.quals, once per set of definitions (a module's `torch` is read hundreds of times)."""
        defs = self.s.reaching(name)
        if defs is None:
            return None
        key = (name.id, tuple(map(id, defs)))
        if key not in self._found:
            self._found[key] = self.s.quals(name)
        return self._found[key]

    def definitions(self, name):
        """[(definition node, its Module)] that may bind a Name where it is read; a name imported from a
        module of the project is followed to the definitions at that module's level. [] for a builtin or a
        name nothing binds, None for a node beniget does not know."""
        found = self._quals(name)
        if found is None:
            return None
        return [x for d, mod, _ in found for x in self._followed(d, mod, 0)]

    def _followed(self, d, mod, depth):
        imp = getattr(d, "parent", None)
        if isinstance(d, ast.alias) and isinstance(imp, ast.ImportFrom) and self.s.project is not None and depth < 4:
            source = self.s.project.module(self.s.project.absolute(mod, imp.module, imp.level))
            top = source.defs.top_level(d.name) if source is not None and source is not mod else []
            if top:  # `from utils import args`: utils' own `args = ...` (a re-export followed on)
                return [x for t in top for x in self._followed(t, source, depth + 1)]
        return [(d, mod)]

    def values(self, name):
        """The expressions every definition of a Name assigns it, or None when some definition is not a
        plain assignment (a parameter, an import, a loop target, an unpacking)."""
        defs = self.definitions(name)
        if not defs:
            return None
        out = []
        for d, _ in defs:
            v = assigned_value(d) if isinstance(d, ast.Name) else None
            if v is None:
                return None
            out.append(v)
        return out

    def sole(self, func):
        """The one function or class of the project a call's `func` runs when the source fixes it: a name
        bound to that one definition (also through an import of the project), or `module.name` of a module
        of the project that binds the name once; None otherwise."""
        if isinstance(func, ast.Name):
            defs = self.definitions(func)
            return defs[0][0] if defs and len(defs) == 1 and isinstance(defs[0][0], DEFS) else None
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            defs = self.definitions(func.value)
            if not defs or len(defs) != 1 or not isinstance(defs[0][0], ast.alias):
                return None
            target = self.s.defined(func)
            mod = module_of(target) if target is not None else None
            if isinstance(target, DEFS) and mod is not None and mod.defs.top_level(func.attr) == [target]:
                return target
        return None

    def references(self, definition):
        """Every Name or `module.name` Attribute of the script and the modules that ran that names a function
        or class of the project (by its definitions)."""
        if self._refs is None:
            self._refs = {}
            wanted = {d.name for d in self.nodes if isinstance(d, DEFS)}
            wanted |= {a.asname for a in self.nodes
                       if isinstance(a, ast.alias) and a.asname and a.name.split(".")[-1] in wanted}
            for node in self.nodes:
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in wanted:
                    target = self.s.defined(node)
                elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and node.attr in wanted \
                        and isinstance(node.value, ast.Name):
                    target = self.s.defined(node)
                else:
                    continue
                if target is not None:
                    self._refs.setdefault(id(target), []).append(node)
        return list(self._refs.get(id(definition), ()))

    def calls_of(self, definition):
        """The calls of a function or class of the project, or None when it is also named otherwise."""
        out = []
        for node in self.references(definition):
            parent = getattr(node, "parent", None)
            if not (isinstance(parent, ast.Call) and parent.func is node):
                return None
            out.append(parent)
        return out

    # --- classes ------------------------------------------------------------------------------------
    def self_class(self, attribute):
        """The class of `self` in `self.x` read in one of its methods (undecorated, self its first
        parameter), else None."""
        cls = self.s.self_class(attribute)
        method = next((p for p in parents(attribute) if getattr(p, "parent", None) is cls), None)
        return cls if isinstance(method, FUNCS) and not method.decorator_list else None

    def self_assignments(self, cls, attr):
        """The values the methods of `cls` assign to `self.<attr>`; None when one of them sets it otherwise
        (augmented, unpacked from one value, through another name) or code outside the class sets an
        attribute so named."""
        out = []
        for n in self.stores.get(attr, ()):
            value = assigned_value(n) if isinstance(n.value, ast.Name) and self.self_class(n) is cls else None
            if value is None:
                return None
            out.append(value)
        return out

    def subclassed(self, cls):
        """Some class of the script or the modules that ran names `cls` among its bases."""
        if self._bases is None:
            self._bases = {id(self.s.defined(b)) for c in self.classes for b in c.bases
                           if isinstance(b, (ast.Name, ast.Attribute)) and self.s.defined(b) is not c}
        return id(cls) in self._bases


def bound_arguments(call, params):
    """{parameter name: the expression the call passes for it}, by position (`params`: the names in order)
    and by keyword; None when the call unpacks `*args` or `**kwargs` (what binds where is not written)."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    given = dict(zip(params, call.args))
    given.update({k.arg: k.value for k in call.keywords})
    return given


def returns(func):
    """The return statements of a function, not of functions nested in it."""
    todo = list(func.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Return):
            yield node
        if not isinstance(node, DEFS + (ast.Lambda,)):
            todo.extend(ast.iter_child_nodes(node))


def _assigns_none(d):
    value = assigned_value(d) if isinstance(d, ast.Name) else None
    return isinstance(value, ast.Constant) and value.value is None


def enclosing_function(node):
    while node is not None and not isinstance(node, FUNCS + (ast.Lambda,)):
        node = getattr(node, "parent", None)
    return node
