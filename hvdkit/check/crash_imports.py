"""Crashes while the script imports its own project's modules, before any of its code runs: a module-level
statement that needs a terminal. `a, b = os.popen("stty size").read().split()` (a progress-bar helper
copied between many training repositories) gets nothing from stty when stdin is not a terminal, and the
unpacking raises ValueError. Ranks started by mpirun (Open MPI 4, tried: every rank, even when mpirun
itself runs in a terminal) or horovodrun, and batch jobs, have none. (`os.get_terminal_size()` is no such
case: under mpirun it returns 0 x 0.)

Modules are looked up as Python does for `python script.py`: the script's folder first (sys.path[0]),
then the project's root. Only code that runs whenever a module is imported counts (statements at its
top level, not inside an `if`, `try`, `with`, loop, function or class), in modules the script imports at
its own level for sure (crashes.certain decides) and in what those import in turn.

A module the project folder lacks is not reported: a project may be read from a partial copy (modules
over a size or count limit left out), where a missing file is no evidence that the import fails.
Once the project layer resolves imports, its resolution should replace `_resolve` here.
"""
import ast
import os

MAX_MODULES = 60


def find(script, root=None):
    """[(line, file, error, why, kind, the script's import statement)] for each import-time crash; `file` is
    the module's path relative to the project's root. Whether the script's import statement runs for sure
    is for the caller to decide."""
    if not script.path or not os.path.isfile(script.path):
        return []
    here = os.path.dirname(os.path.abspath(script.path))
    paths = [here] + ([os.path.abspath(root)] if root and os.path.abspath(root) != here else [])
    walker = _Walker(paths, os.path.abspath(root) if root else here)
    walker.seen.add(os.path.abspath(script.path))
    out = []
    for stmt in _module_level(script.tree.body):
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            for line, file, error, why in walker.statement(stmt, None)[:1]:
                out.append((line, file, error, why, error.split(":")[0], stmt))
    return out


def needs_terminal(stmt):
    """(error, why) for a statement that needs a terminal, else None."""
    for node in ast.walk(stmt):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "popen" and \
                node.args and isinstance(node.args[0], ast.Constant) and \
                str(node.args[0].value).split()[:2] == ["stty", "size"] and isinstance(stmt, ast.Assign) and \
                any(isinstance(t, (ast.Tuple, ast.List)) for t in stmt.targets):
            n = max(len(t.elts) for t in stmt.targets if isinstance(t, (ast.Tuple, ast.List)))
            return (f"ValueError: not enough values to unpack (expected {n}, got 0)",
                    "`stty size` needs a terminal on stdin; ranks started by mpirun or horovodrun have none, so it "
                    "prints nothing")
    return None


class _Walker:
    def __init__(self, paths, base):
        self.paths, self.base, self.seen = paths, base, set()

    def statement(self, stmt, package):
        """Crashes in the local modules one import statement runs (`package`: the importing module's
        package, for relative imports)."""
        out = []
        for module, names in _imports(stmt, package):
            path = self._resolve(module)
            if path is None:
                continue
            out += self._module(module, path)
            for name in names:  # from pkg import mod: the submodule runs too
                sub = self._resolve(f"{module}.{name}")
                if sub is not None:
                    out += self._module(f"{module}.{name}", sub)
        return out

    def _module(self, module, path):
        if path in self.seen or len(self.seen) > MAX_MODULES:
            return []
        self.seen.add(path)
        try:
            with open(path, encoding="utf-8") as fh:
                tree = ast.parse(fh.read(), path)
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
            return []
        package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
        for stmt in tree.body:  # what runs whenever the module is imported, in order
            found = self.statement(stmt, package) if isinstance(stmt, (ast.Import, ast.ImportFrom)) else []
            terminal = needs_terminal(stmt) if not found else None
            if terminal:
                found = [(stmt.lineno, os.path.relpath(path, self.base), *terminal)]
            if found:
                return found  # the first crash stops the import
        return []

    def _resolve(self, module):
        """The file of a module of the project (a .py file or a package's __init__.py), else None."""
        for entry in self.paths:
            folder = entry
            parts = module.split(".")
            for i, part in enumerate(parts):
                last = i == len(parts) - 1
                if os.path.isfile(os.path.join(folder, part + ".py")):
                    return os.path.join(folder, part + ".py") if last else None
                if not os.path.isdir(os.path.join(folder, part)):
                    break
                folder = os.path.join(folder, part)
                if last:
                    init = os.path.join(folder, "__init__.py")
                    return init if os.path.isfile(init) else None
        return None


def _imports(stmt, package):
    """[(module, [names imported from it])] for an import statement, relative ones made absolute."""
    if isinstance(stmt, ast.Import):
        return [(a.name, []) for a in stmt.names]
    if stmt.level:
        if package is None:
            return []
        parts = package.split(".") if package else []
        parts = parts[:len(parts) - (stmt.level - 1)] if stmt.level > 1 else parts
        module = ".".join(parts + ([stmt.module] if stmt.module else []))
    else:
        module = stmt.module
    return [(module, [a.name for a in stmt.names if a.name != "*"])] if module else []


def _module_level(body):
    """The script's statements that may run at its top level: the top level and `if` blocks (the
    `__main__` block); which run for sure is decided by the caller."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, ast.If):
            yield from _module_level(stmt.body)
