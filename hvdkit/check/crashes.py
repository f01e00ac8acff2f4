"""Code that cannot run: names never defined (pyflakes' undefined-name messages) and `args.x` read from
an argparse namespace that never declares x. A step whose own statement is one of these never happens."""
import ast
from typing import NamedTuple

from pyflakes import checker as _pyflakes
from pyflakes import messages as _messages

from hvdkit.check.script import dotted


class Crash(NamedTuple):
    line: int
    error: str  # 'NameError: name 'x' is not defined'


def find(script):
    """[Crash] for the whole script, in line order."""
    out = [Crash(m.lineno, f"NameError: name {m.message_args[0]!r} is not defined")
           for m in _pyflakes.Checker(script.tree, filename=script.path).messages
           if isinstance(m, _messages.UndefinedName)]
    out += _undeclared_args(script)
    return sorted(out)


def at(crashes, script, line):
    """The crash in the statement that holds `line` (a step's own code), else None."""
    if not line:
        return None
    stmt = statement_at(script, line)
    if stmt is None:
        return None
    used = {dotted(n) for n in ast.walk(stmt) if isinstance(n, (ast.Name, ast.Attribute))} - {None}
    for c in crashes:
        if stmt.lineno <= c.line <= (stmt.end_lineno or stmt.lineno):
            return c
        # or in the statement that computes one of its arguments: `x = args.typo` then `step(x)`
        source = statement_at(script, c.line)
        if isinstance(source, ast.Assign) and source.lineno < stmt.lineno and \
                any(dotted(t) in used for t in source.targets):
            return c
    return None


def statement_at(script, line):
    best = None
    for node in ast.walk(script.tree):
        if isinstance(node, ast.stmt) and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                                                 ast.If, ast.For, ast.While, ast.With, ast.Try)):
            if node.lineno <= line <= (node.end_lineno or node.lineno):
                if best is None or node.lineno >= best.lineno:
                    best = node
    return best


def _undeclared_args(script):
    """`args.x` where args = parser.parse_args() of a parser built here that declares no x."""
    parsers = {}
    for node in ast.walk(script.tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and len(node.targets) == 1:
            if script.qual(node.value.func) == "argparse.ArgumentParser":
                if any(k.arg == "parents" for k in node.value.keywords):
                    return []
                parsers[dotted(node.targets[0])] = set()
    if len(parsers) != 1:
        return []  # several parsers (or none): which namespace is which is not worth guessing
    (parser, dests), = parsers.items()
    for node in ast.walk(script.tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        owner, method = dotted(node.func.value), node.func.attr
        if method in ("add_argument_group", "add_mutually_exclusive_group", "add_subparsers", "set_defaults",
                      "parse_known_args") and owner == parser:
            if method == "set_defaults":
                dests |= {k.arg for k in node.keywords if k.arg}
                if any(k.arg is None for k in node.keywords):
                    return []
            else:
                return []  # groups and sub-commands: declarations elsewhere
        if method == "add_argument" and owner == parser:
            dest = _dest(node)
            if dest is None:
                return []
            dests.add(dest)
    namespaces = _namespaces(script, parser)
    if not namespaces:
        return []
    written = {dotted(t) for n in ast.walk(script.tree) if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign))
               for t in (n.targets if isinstance(n, ast.Assign) else [n.target])}
    dynamic = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("setattr", "vars")
                  and n.args and dotted(n.args[0]) in namespaces for n in ast.walk(script.tree))
    if dynamic:
        return []
    out = []
    for node in ast.walk(script.tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and dotted(node.value) in namespaces \
                and node.attr not in dests and f"{dotted(node.value)}.{node.attr}" not in written:
            out.append(Crash(node.lineno, f"AttributeError: the argparse namespace has no {node.attr!r} "
                                          f"(no add_argument declares it)"))
    return out


def _dest(call):
    kw = {k.arg: k.value for k in call.keywords}
    if "dest" in kw:
        return kw["dest"].value if isinstance(kw["dest"], ast.Constant) else None
    opts = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    if len(opts) != len(call.args) or not opts:
        return None
    longs = [o for o in opts if o.startswith("--")]
    name = longs[0][2:] if longs else opts[0].lstrip("-")
    return name.replace("-", "_")


def _namespaces(script, parser):
    """Names holding the parsed namespace: `args = parser.parse_args()`, or `args = f()` where the local
    function f returns it."""
    def parses(value):
        return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and \
            value.func.attr == "parse_args" and dotted(value.func.value) == parser
    returning = {name for name, fn in script.funcs.items()
                 if any(isinstance(n, ast.Return) and parses(n.value) for n in ast.walk(fn))}
    out = set()
    for node in ast.walk(script.tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            v = node.value
            if parses(v) or isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id in returning:
                out.add(node.targets[0].id)
    return out
