"""Definitions of one module: which definitions may reach each name it reads.

beniget's def-use chains (the library pythran uses) over the stdlib `ast` tree: `reaching(name)` gives the
nodes that may have bound a read name at that point (an `alias` of an import, a `FunctionDef`/`ClassDef`,
the `Name` target of an assignment, loop or `with`, a parameter's `arg`), by Python's scoping rules:
function scopes, closures, `global`/`nonlocal`, comprehensions, shadowing and rebinding in order. No
framework is imported and the module is never run.
"""
import ast

import beniget


class _Chains(beniget.DefUseChains):
    """beniget prints a warning for every name it cannot bind (`from x import *`, names made at run time);
    an unbound name is simply one with no definition here."""

    def warn(self, msg, node):
        pass


class Defs:
    """Computed when first asked: a module whose code is never read costs its parse alone."""

    def __init__(self, tree):
        self.tree = tree
        self._uses, self._top, self._globals = None, None, None

    def reaching(self, name):
        """The definition nodes that may bind the Name `name` where it is read: [] when none is known (a
        builtin, a name from `import *`), None when the node is not a read of this module (a node the rules
        made, or a store)."""
        if self._uses is None:
            try:
                chains = _Chains()
                chains.visit(self.tree)
                self._uses = beniget.UseDefChains(chains).chains
            except Exception:  # noqa: BLE001 - syntax beniget does not know: every name falls back to its spelling
                self._uses = {}
        defs = self._uses.get(name)
        if defs is None:
            return None
        found = [d.node for d in defs if isinstance(d.node, ast.AST)]
        # beniget leaves unbound a module variable that only functions bind through `global args`; Python
        # reads their assignments wherever the module's scope is searched
        return found or self._global_binds(name.id)

    def _global_binds(self, name):
        if self._globals is None:
            self._globals = {}
            for func in ast.walk(self.tree):
                if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                declared = {n for g in ast.walk(func) if isinstance(g, ast.Global) for n in g.names}
                for n in ast.walk(func):
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in declared:
                        self._globals.setdefault(n.id, []).append(n)
        return list(self._globals.get(name, ()))

    def top_level(self, name):
        """The definition nodes of `name` in the module's own scope, in source order: what `module.name`
        may be once the module has run (several when it is bound in branches or rebound)."""
        if self._top is None:
            self._top = {}
            for node in _module_scope(self.tree.body):
                for key, d in _binds(node):
                    self._top.setdefault(key, []).append(d)
        return list(self._top.get(name, ()))

    def set_globally(self, name):
        """The Name targets that bind the module's `name` from inside its functions (`global _hvd` then
        `_hvd = hvd` in a backend's init): what `module.name` may also be once that function has run."""
        out = []
        for func in ast.walk(self.tree):
            if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) and declares_global(func, name):
                out += [n for n in ast.walk(func) if isinstance(n, ast.Name) and n.id == name and
                        isinstance(n.ctx, ast.Store)]
        return out


def _module_scope(body):
    """The statements of a module's own scope, in order: those under if/try/with/for/while too."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            yield from _module_scope(getattr(stmt, field, None) or [])
        for h in getattr(stmt, "handlers", None) or []:
            yield from _module_scope(h.body)


def _binds(stmt):
    """(name, definition node) for the names a statement binds in its scope."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [(stmt.name, stmt)]
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name.split(".")[0], a) for a in stmt.names if a.name != "*"]
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(
        stmt, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)) else [
        i.optional_vars for i in stmt.items if i.optional_vars is not None] if isinstance(
        stmt, (ast.With, ast.AsyncWith)) else []
    return [(n.id, n) for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]


def dotted(node):
    """`a.b.c` of an Attribute chain that ends in a Name (`args.lr`, `os.path`), else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id] + parts[::-1]) if isinstance(node, ast.Name) else None


def element_of(target, name, value, resolve=lambda n: None, depth=0):
    """The part of `value` that the unpacking `target = value` binds to the dotted `name`, through nested
    tuples (`(x_tr, y_tr), (x_va, y_va) = (a, b), (c, d)` binds x_va to c) and names that `resolve` gives the
    one value of (`return train, val` with `val = (x, y)`); None when `name` is not in the target or `value`
    is not of the target's shape there."""
    if dotted(target) == name:
        return value
    if not isinstance(target, (ast.Tuple, ast.List)) or any(isinstance(t, ast.Starred) for t in target.elts):
        return None
    if isinstance(value, ast.Name) and depth < 8:
        value = resolve(value)
    for i, sub in enumerate(target.elts):
        if name in {dotted(n) for n in ast.walk(sub)}:
            if not isinstance(value, (ast.Tuple, ast.List)) or len(value.elts) != len(target.elts):
                return None
            return element_of(sub, name, value.elts[i], resolve, depth + 1)
    return None


def chain_root(node):
    """The first expression of an attribute chain: `hvd` of `hvd.callbacks.X`, the call of `f().x`."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node


def declares_global(func, name):
    """The function declares `global name`: its assignments to `name` set the module's variable."""
    return func is not None and any(isinstance(n, ast.Global) and name in n.names for n in ast.walk(func))


def owner_of_arg(arg):
    """The function (or lambda) whose parameter the `ast.arg` node is."""
    node = getattr(arg, "parent", None)
    while node is not None and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        node = getattr(node, "parent", None)
    return node


def _tuple_path(node):
    """(the outermost tuple or list display `node` is an element of, or `node` itself; the element indices
    from it down to `node`, innermost first)."""
    path = []
    while isinstance(getattr(node, "parent", None), (ast.Tuple, ast.List)):
        path.append(node.parent.elts.index(node))
        node = node.parent
    return node, path


def _at_path(node, path):
    """The element of the nested tuple or list displays `node` at `path` (as _tuple_path gives it); None where
    the shape differs or a starred element leaves the positions unknown."""
    for i in reversed(path):
        if not isinstance(node, (ast.Tuple, ast.List)) or len(node.elts) <= i or \
                any(isinstance(e, ast.Starred) for e in node.elts):
            return None
        node = node.elts[i]
    return node


def binding_loop(target):
    """(loop, path): the `for` loop or comprehension whose target binds the Name `target`, and the element
    indices from the loop's target down to it, innermost first (`x` of `for i, (x, y) in ...` is at [0, 1];
    None below a starred element); (None, None) when no loop binds it."""
    node, path = target, []
    while isinstance(getattr(node, "parent", None), (ast.Tuple, ast.List, ast.Starred)):
        parent = node.parent
        path = None if path is None or isinstance(parent, ast.Starred) or isinstance(node, ast.Starred) \
            else path + [parent.elts.index(node)]
        node = parent
    loop = getattr(node, "parent", None)
    if isinstance(loop, (ast.For, ast.AsyncFor, ast.comprehension)) and loop.target is node:
        return loop, path
    return None, None


def assigned_value(target):
    """The expression a Name target of an assignment statement binds (`a, b = x, y` binds a to x alone);
    None for a target of another kind of statement (a loop, `with`, an augmented assignment) or an uneven
    unpacking."""
    node, path = _tuple_path(target)
    stmt = getattr(node, "parent", None)
    if isinstance(stmt, ast.Assign) and node in stmt.targets or isinstance(stmt, ast.AnnAssign) and node is stmt.target:
        return _at_path(stmt.value, path)
    if isinstance(stmt, ast.NamedExpr) and node is stmt.target:
        return _at_path(stmt.value, path)
    return None


def bound_targets(value):
    """The targets an element of an assignment's value binds, the inverse of assigned_value (`a, self.b =
    x, y` binds y to self.b alone); [] when the value is not an element of one, or the unpacking is uneven."""
    node, path = _tuple_path(value)
    stmt = getattr(node, "parent", None)
    # a starred element on the value's side leaves its position unknown too
    if not (path and isinstance(stmt, ast.Assign) and stmt.value is node) or _at_path(node, path) is not value:
        return []
    targets = [_at_path(t, path) for t in stmt.targets]
    return [] if None in targets else targets
