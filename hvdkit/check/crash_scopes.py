"""Which statements bind a name where it is read, by Python's scoping rules over the `ast` tree: module,
function, lambda, comprehension and class scopes, `global` and `nonlocal`. The crash finding asks it
whether `hvd` in `hvd.callbacks` is the import of horovod.tensorflow, whether `args` is only ever the
parsed namespace, whether `train` is the one function of that name. Spelling is never enough: a
parameter named `hvd` is not the module.

    scopes = Scopes(tree)
    scope, bindings = scopes.resolve(name_node)     # bindings: [Binding] (empty: a builtin or undefined)
"""
import ast
from typing import NamedTuple

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_COMPS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


class Binding(NamedTuple):
    """kind: 'assign' (value: the expression assigned to the name alone), 'param' (value: the function),
    'import' (value: the module path the name holds), 'from' (value: (module, name, level)), 'def',
    'class' (node: the definition), 'other' (for/with/except targets, unpacking, `+=`, walrus)."""
    kind: str
    node: ast.AST
    value: object = None


class Scopes:
    def __init__(self, tree):
        self.tree = tree
        self.bindings = {}  # id(scope) -> {name: [Binding]}
        self.parent = {}  # id(scope) -> enclosing scope node (None for the module)
        self.star = set()  # ids of scopes with `from x import *`
        self._decl = {}  # id(scope) -> {name: 'global' | 'nonlocal'}
        self._scope_of = {}  # id(Name node) -> its scope
        self._nodes = {id(tree): tree}
        self._enter(tree, None)
        self.nodes = list(ast.walk(tree))  # every node once, for the finders' passes
        self.loads, self.stored_attrs = {}, set()  # Name nodes read, by name; attribute names assigned
        for node in self.nodes:
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                self.loads.setdefault(node.id, []).append(node)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                self.stored_attrs.add(node.attr)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" and \
                    len(node.args) > 1 and isinstance(node.args[1], ast.Constant):
                self.stored_attrs.add(node.args[1].value)

    # --- queries ---------------------------------------------------------------------------------
    def scope_of(self, name_node):
        return self._scope_of.get(id(name_node))

    def resolve(self, name_node):
        """(scope, [Binding]) of the definition a Name node reads; (None, []) for builtins or undefined
        names. Names a star import may bind are returned with scope as given and no bindings: callers
        treat an empty list as 'cannot tell'."""
        scope = self.scope_of(name_node)
        if scope is None:
            return None, []
        return self.lookup(name_node.id, scope)

    def lookup(self, name, scope):
        decl = self._decl.get(id(scope), {}).get(name)
        if decl == "global":
            return self.tree, self.bindings[id(self.tree)].get(name, [])
        first = True
        s = scope
        while s is not None:
            if first or not isinstance(s, ast.ClassDef):  # a class body does not enclose its methods
                found = self.bindings.get(id(s), {}).get(name)
                if found:
                    return s, found
                if id(s) in self.star:
                    return s, []
            first = False
            s = self.parent.get(id(s))
        return None, []

    def scopes(self):
        """Every scope node, the module first."""
        return list(self._nodes.values())

    def names_in(self, scope):
        return self.bindings.get(id(scope), {})

    # --- building --------------------------------------------------------------------------------
    def _enter(self, scope, parent):
        self._nodes[id(scope)] = scope
        self.parent[id(scope)] = parent
        self.bindings.setdefault(id(scope), {})
        self._decl[id(scope)] = decl = {}
        if isinstance(scope, _FUNCS + (ast.ClassDef,)) or scope is self.tree:
            for node in _own_nodes(scope):
                if isinstance(node, ast.Global):
                    decl.update(dict.fromkeys(node.names, "global"))
                elif isinstance(node, ast.Nonlocal):
                    decl.update(dict.fromkeys(node.names, "nonlocal"))
        if isinstance(scope, _FUNCS):
            a = scope.args
            for arg in a.posonlyargs + a.args + a.kwonlyargs + [x for x in (a.vararg, a.kwarg) if x]:
                self._bind(scope, arg.arg, Binding("param", arg, scope))
            body = scope.body if isinstance(scope.body, list) else [scope.body]
        elif isinstance(scope, _COMPS):
            for i, gen in enumerate(scope.generators):
                if i:
                    self._visit(gen.iter, scope)
                self._targets(gen.target, scope, Binding("other", gen))
                for cond in gen.ifs:
                    self._visit(cond, scope)
            body = [scope.key, scope.value] if isinstance(scope, ast.DictComp) else [scope.elt]
        else:
            body = scope.body
        for node in body:
            self._visit(node, scope)

    def _bind(self, scope, name, binding):
        decl = self._decl.get(id(scope), {}).get(name)
        if decl == "global":
            scope = self.tree
        elif decl == "nonlocal":
            s = self.parent.get(id(scope))
            while s is not None and (isinstance(s, ast.ClassDef) or name not in self.bindings.get(id(s), {})):
                s = self.parent.get(id(s))
            scope = s if s is not None else scope
        self.bindings.setdefault(id(scope), {}).setdefault(name, []).append(binding)

    def _targets(self, target, scope, binding):
        if isinstance(target, ast.Name):
            self._bind(scope, target.id, binding)
            self._scope_of[id(target)] = scope
        elif isinstance(target, (ast.Tuple, ast.List)):
            for e in target.elts:
                self._targets(e, scope, binding)
        elif isinstance(target, ast.Starred):
            self._targets(target.value, scope, binding)
        else:  # obj.x = ..., obj[i] = ...: reads obj, binds no name
            self._visit(target, scope)

    def _visit(self, node, scope):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self._bind(scope, node.name, Binding("class" if isinstance(node, ast.ClassDef) else "def", node))
            outer = node.decorator_list + (node.bases + [k.value for k in node.keywords]
                                           if isinstance(node, ast.ClassDef) else _signature_parts(node))
            for part in outer:
                self._visit(part, scope)
            self._enter(node, scope)
            return
        if isinstance(node, ast.Lambda):
            for part in _signature_parts(node):
                self._visit(part, scope)
            self._enter(node, scope)
            return
        if isinstance(node, _COMPS):
            self._visit(node.generators[0].iter, scope)
            self._enter(node, scope)
            return
        if isinstance(node, ast.Name):
            self._scope_of[id(node)] = scope
            return
        if isinstance(node, ast.Assign):
            self._visit(node.value, scope)
            for t in node.targets:
                self._assign(t, node.value, node, scope)
            return
        if isinstance(node, ast.AnnAssign):
            if node.value is not None:
                self._visit(node.value, scope)
            self._visit(node.annotation, scope)
            self._assign(node.target, node.value, node, scope) if node.value is not None else \
                self._targets(node.target, scope, Binding("other", node))
            return
        if isinstance(node, ast.AugAssign):
            self._visit(node.value, scope)
            if isinstance(node.target, ast.Name):
                self._scope_of[id(node.target)] = scope
            self._targets(node.target, scope, Binding("other", node))
            return
        if isinstance(node, ast.NamedExpr):
            self._visit(node.value, scope)
            self._targets(node.target, scope, Binding("assign", node, node.value))
            return
        if isinstance(node, (ast.For, ast.AsyncFor)):
            self._visit(node.iter, scope)
            self._targets(node.target, scope, Binding("other", node))
            for child in node.body + node.orelse:
                self._visit(child, scope)
            return
        if isinstance(node, ast.withitem):
            self._visit(node.context_expr, scope)
            if node.optional_vars is not None:
                self._targets(node.optional_vars, scope, Binding("other", node))
            return
        if isinstance(node, ast.ExceptHandler):
            if node.type is not None:
                self._visit(node.type, scope)
            if node.name:
                self._bind(scope, node.name, Binding("other", node))
            for child in node.body:
                self._visit(child, scope)
            return
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    self._bind(scope, a.asname, Binding("import", node, a.name))
                else:
                    top = a.name.split(".")[0]
                    self._bind(scope, top, Binding("import", node, top))
            return
        if isinstance(node, ast.ImportFrom):
            for a in node.names:
                if a.name == "*":
                    self.star.add(id(scope))
                else:
                    self._bind(scope, a.asname or a.name, Binding("from", node, (node.module, a.name, node.level)))
            return
        for child in ast.iter_child_nodes(node):
            self._visit(child, scope)

    def _assign(self, target, value, stmt, scope):
        if isinstance(target, ast.Name):
            self._bind(scope, target.id, Binding("assign", stmt, value))
            self._scope_of[id(target)] = scope
        elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)) and \
                len(target.elts) == len(value.elts) and \
                not any(isinstance(e, ast.Starred) for e in target.elts + value.elts):
            for t, v in zip(target.elts, value.elts):
                self._assign(t, v, stmt, scope)
        else:
            self._targets(target, scope, Binding("other", stmt))


def class_of_self(scopes, name):
    """The class whose method binds `name` as its first parameter (self), else None."""
    _, bindings = scopes.resolve(name)
    if len(bindings) != 1 or bindings[0].kind != "param":
        return None
    func = bindings[0].value
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) or func.decorator_list:
        return None
    params = func.args.posonlyargs + func.args.args
    cls = getattr(func, "parent", None)
    if not params or params[0] is not bindings[0].node or not isinstance(cls, ast.ClassDef):
        return None
    return cls


def subclassed(scopes, cls):
    """Some class of the file names `cls` among its bases."""
    return any(isinstance(b, ast.Name) and isinstance(b.ctx, ast.Load) and isinstance(getattr(b, "parent", None),
                                                                                       ast.ClassDef)
               and b in b.parent.bases for b in scopes.loads.get(cls.name, ()))


def _signature_parts(func):
    """What a def or lambda evaluates in its enclosing scope: defaults and annotations."""
    a = func.args
    out = a.defaults + [d for d in a.kw_defaults if d is not None]
    if not isinstance(func, ast.Lambda):
        out += [x.annotation for x in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]
                if x is not None and x.annotation is not None]
        out += [func.returns] if func.returns is not None else []
    return out


def _own_nodes(scope):
    """The nodes of a scope's body that belong to it, not to nested functions or classes."""
    todo = list(scope.body) if isinstance(scope.body, list) else [scope.body]
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda) + _COMPS):
            todo.extend(ast.iter_child_nodes(node))
