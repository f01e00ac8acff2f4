"""The options a script declares and their defaults: what it does when the user passes nothing.

argparse (`add_argument(..., default=...)`, `store_true` / `store_false`, `set_defaults`), absl
(`flags.DEFINE_bool("amp", False, ...)` read as `FLAGS.amp`) and click (`@click.option("--amp",
is_flag=True)` on the function whose parameter it fills). The evaluator (values.py) gives a guard on an
option its declared default, and names the option (`--amp`) when a step's code runs only with it on.

    flag = declared(script).get("amp")     # Flag("--amp", <default expr>) or None
"""
import ast
import weakref
from typing import NamedTuple, Optional

from hvdkit.check.script import dotted

NO_DEFAULT = ast.Constant(value=None)  # argparse's default when none is declared


class Flag(NamedTuple):
    option: str  # as the user types it: "--amp"
    default: Optional[ast.expr]  # the default's expression; None: unknown (required, declared twice, dynamic)


_DECLARED = weakref.WeakKeyDictionary()


def declared(script):
    """{dest: Flag} for every option the script and the project's modules read so far declare (argparse and
    absl; click options are per function): a parser built in `options.py` declares the script's options."""
    by_reach = _DECLARED.setdefault(script.tree, {})  # keyed by how many modules the walk has imported
    n = len(script.imported)
    if n not in by_reach:
        by_reach[n] = _argparse(script) if not _dynamic(script) else {}
        by_reach[n].update(_absl(script))
    return by_reach[n]


def _argparse(script):
    out, overrides = {}, {}
    for node in script.nodes():
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr == "add_argument":
            dest, option = _dest(node)
            if dest is None:
                continue
            flag = Flag(option, _argparse_default(node))
            # the same dest declared twice (two parsers, sub-commands): its default is not one value
            out[dest] = flag if dest not in out or _same(out[dest], flag) else Flag(option, None)
        elif node.func.attr == "set_defaults":
            overrides.update({k.arg: k.value for k in node.keywords if k.arg})
    for dest, value in overrides.items():
        if dest in out:
            out[dest] = Flag(out[dest].option, value)
    return out


def _same(a, b):
    return a.default is not None and b.default is not None and ast.dump(a.default) == ast.dump(b.default)


def _dest(call):
    """(dest, the option as typed) of an add_argument call; (None, None) when not a plain declaration."""
    kw = {k.arg: k.value for k in call.keywords}
    opts = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    if not opts or len(opts) != len(call.args):
        return None, None
    longs = [o for o in opts if o.startswith("--")]
    option = longs[0] if longs else opts[0]
    if "dest" in kw:
        d = kw["dest"]
        return (d.value, option) if isinstance(d, ast.Constant) and isinstance(d.value, str) else (None, None)
    return option.lstrip("-").replace("-", "_"), option


def _argparse_default(call):
    kw = {k.arg: k.value for k in call.keywords}
    if isinstance(kw.get("required"), ast.Constant) and kw["required"].value is True:
        return None  # the user must give it: no default to read
    if "default" in kw:
        return kw["default"]
    action = kw.get("action")
    action = action.value if isinstance(action, ast.Constant) else None
    if action == "store_true":
        return ast.Constant(value=False)
    if action == "store_false":
        return ast.Constant(value=True)
    return NO_DEFAULT


def _dynamic(script):
    """Options set from elsewhere after parsing (`setattr(args, k, v)`, `vars(args).update(cfg)`,
    `args.__dict__.update(...)`): the declared defaults are not what the script runs with."""
    parsed = {dotted(t) for n in script.nodes() if isinstance(n, ast.Assign) and parses(script, n.value)
              for t in n.targets} | {dotted(n.targets[0].elts[0]) for n in script.nodes()
                                     if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Tuple)
                                     and n.targets[0].elts and parses(script, n.value)}
    for node in script.nodes():
        if not isinstance(node, ast.Call):
            continue
        q = script.qual(node.func)
        if q == "setattr" and node.args and dotted(node.args[0]) in parsed:
            return True
        receiver = node.func.value if isinstance(node.func, ast.Attribute) and node.func.attr == "update" else None
        if isinstance(receiver, ast.Call) and script.qual(receiver.func) == "vars" or \
                isinstance(receiver, ast.Attribute) and receiver.attr == "__dict__":
            return True
    return False


def _absl(script):
    out = {}
    for node in script.nodes():
        if isinstance(node, ast.Call) and script.qual(node.func).startswith("absl.flags.DEFINE") and node.args:
            name = node.args[0]
            if isinstance(name, ast.Constant) and isinstance(name.value, str):
                default = node.args[1] if len(node.args) > 1 else \
                    next((k.value for k in node.keywords if k.arg == "default"), None)
                out[name.value] = Flag(f"--{name.value}", default)
    return out


def namespace_attribute(script, node, is_namespace):
    """The Flag that `node` reads (`args.amp`, `FLAGS.amp`), else None. `is_namespace(receiver)` says whether
    the receiver holds a parsed argparse namespace (the evaluator follows parameters and names for it)."""
    if not isinstance(node, ast.Attribute):
        return None
    flag = declared(script).get(node.attr)
    if flag is None:
        return None
    if script.qual(node.value) == "absl.flags.FLAGS" or is_namespace(node.value):
        return flag
    return None


def parses(script, value):
    """The expression is a parsed namespace: `p.parse_args()`, `p.parse_known_args()[0]`."""
    if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant) and value.slice.value == 0:
        value = value.value
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and \
        value.func.attr in ("parse_args", "parse_known_args")


def returns_namespace(script, func):
    """A function of the script that returns a parsed namespace (`def get_args(): ... return p.parse_args()`)."""
    rets = [n.value for n in ast.walk(func) if isinstance(n, ast.Return) and n.value is not None]
    names = {dotted(a.targets[0]) for a in ast.walk(func) if isinstance(a, ast.Assign) and len(a.targets) == 1
             and parses(script, a.value)}
    return any(parses(script, r) or dotted(r) in names for r in rets)


def returned_argument(func, call):
    """The argument of `call` that `func` returns as it was given (`def update(opt): ...; return opt`), else None."""
    params = [a.arg for a in func.args.posonlyargs + func.args.args]
    rets = [n.value for n in ast.walk(func) if isinstance(n, ast.Return) and n.value is not None]
    if len(rets) != 1 or not isinstance(rets[0], ast.Name) or rets[0].id not in params:
        return None
    i = params.index(rets[0].id)
    if i < len(call.args):
        return call.args[i]
    return next((k.value for k in call.keywords if k.arg == rets[0].id), None)


def click_default(script, func, param):
    """The Flag a click option on `func` declares for its parameter `param`, else None."""
    if func is None:
        return None
    for d in func.decorator_list:
        if not (isinstance(d, ast.Call) and script.qual(d.func) in ("click.option", "click.argument")):
            continue
        opts = [a.value for a in d.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        names = [o for o in opts if not o.startswith("-")] or [o.lstrip("-").replace("-", "_") for o in opts[:1]]
        if param in names:
            kw = {k.arg: k.value for k in d.keywords}
            default = kw.get("default")
            if default is None and isinstance(kw.get("is_flag"), ast.Constant) and kw["is_flag"].value:
                default = ast.Constant(value=False)
            return Flag(opts[0] if opts else param, default if default is not None else NO_DEFAULT)
    return None


def namespace_dict(script, node):
    """`vars(args)` / `vars(parser.parse_args())`: the parsed options as a dict, written out as an ast.Dict of
    each declared option's default (an option whose default is not one value maps to a name that evaluates to
    nothing), or None when `node` is not such a call or the options are rewritten after parsing."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "vars" and
            len(node.args) == 1 and not node.keywords and holds_namespace(script, node.args[0])):
        return None
    if _dynamic(script):
        return None
    flags = declared(script)
    return ast.Dict(keys=[ast.Constant(value=k) for k in flags],
                    values=[f.default if f.default is not None else ast.Name(id="<no single default>")
                            for f in flags.values()])


def holds_namespace(script, node, depth=0):
    """The expression is a parsed namespace: a parse call, a name every plain assignment of which is one, or a
    call of the script's function that returns one."""
    if depth > 4:
        return False
    if parses(script, node):
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
        # by its definition (`options.parse()` of a project module), else a function of the script so named
        func = script.defined(node.func)
        if func is None and isinstance(node.func, ast.Name):
            func = script.funcs.get(node.func.id)
        return isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) and returns_namespace(script, func)
    if isinstance(node, ast.Name):
        values = [a.node.value for a in script.assignments_to(node) if isinstance(a.node, ast.Assign)]
        return bool(values) and all(holds_namespace(script, v, depth + 1) for v in values)
    return False
