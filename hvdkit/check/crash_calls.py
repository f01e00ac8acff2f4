"""Calls and attributes that raise by their definitions alone: an attribute or imported name Horovod
0.28.1's module does not have (`hvd.callbacks` on horovod.tensorflow: AttributeError), a call of Horovod's
API that its signature rejects (`LearningRateWarmupCallback(warmup_epochs=5)` without the required
`initial_lr`, `DistributedGradientTape(tape, odevice_dense=...)`: TypeError), and a call of the script's
own function or class with arguments its definition does not take (`train(a, b, c)` for `def train(a, b)`).

Horovod's facts come from horovod_api.json (generated from the installed package's source). A script
function counts only when its name is bound to that one definition where it is called, without a
decorator that could change its signature; a method only through `self` in a class nothing subclasses.
"""
import ast

from hvdkit.check import horovod_api
from hvdkit.check.crash_scopes import class_of_self, subclassed

# Decorators that keep a function's signature (what the call binds is what the def declares).
KEEPS_SIGNATURE = ("tensorflow.function", "torch.no_grad", "torch.inference_mode", "torch.enable_grad",
                   "functools.lru_cache", "functools.cache", "functools.wraps")


def find(script, scopes, qualname):
    """(node, error, why, kind) for each call or attribute that raises by definition."""
    out = []
    for node in scopes.nodes:
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and \
                not isinstance(getattr(node, "parent", None), ast.Attribute):
            out += _horovod_attribute(node, qualname, scopes.stored_attrs)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out += _horovod_import(node)
        if isinstance(node, ast.Call):
            out += _call(node, scopes, qualname)
    return out


def _horovod_attribute(node, qualname, stored):
    """The first attribute of a chain rooted at a Horovod module that the module (or class) lacks, unless
    the script sets an attribute of that name somewhere (`hvd.profiled = {}`)."""
    q = qualname(node)
    if not q.startswith("horovod."):
        return []
    found = horovod_api.lookup(q)
    if not found or found[0] != "missing" or found[2] in stored:
        return []
    _, owner, name = found
    bad = node
    while isinstance(bad, ast.Attribute) and not (bad.attr == name and qualname(bad) == f"{owner}.{name}"):
        bad = bad.value
    if not isinstance(bad, ast.Attribute):
        return []
    return [(bad, f"AttributeError: module {owner!r} has no attribute {name!r}",
             f"Horovod {_version()}'s {owner} defines no {name}{_hint(owner, name)}", "AttributeError")]


def _horovod_import(node):
    out = []
    for a in node.names:
        if a.name == "*" or not node.module.startswith("horovod"):
            continue
        found = horovod_api.lookup(f"{node.module}.{a.name}")
        if found and found[0] == "missing" and found[1] == node.module:
            out.append((node, f"ImportError: cannot import name {a.name!r} from {node.module!r}",
                        f"Horovod {_version()}'s {node.module} defines no {a.name}{_hint(node.module, a.name)}",
                        "ImportError"))
    return out


def _hint(owner, name):
    """Where the name does exist, when another of Horovod's framework modules has it."""
    modules = horovod_api.load()["modules"]
    elsewhere = [m for m in ("horovod.tensorflow.keras", "horovod.keras", "horovod.torch", "horovod.tensorflow")
                 if m != owner and name in modules.get(m, {}).get("names", {})]
    return f" (it is in {' and '.join(elsewhere)})" if elsewhere else ""


def _version():
    return horovod_api.load().get("version") or "0.28.1"


def _call(call, scopes, qualname):
    q = qualname(call.func)
    if q.startswith("horovod."):
        found = horovod_api.lookup(q)
        if not found or found[0] != "entry":
            return []
        entry = found[1]
        params = entry.get("params") if entry["kind"] == "function" else \
            entry.get("init") if entry["kind"] == "class" else None
        name = q.rsplit(".", 1)[-1] + (".__init__" if entry["kind"] == "class" else "")
        if params is None:
            return []
        error = bind_error([tuple(p) for p in params], call, name, bound=entry["kind"] == "class")
        if error:
            return [(call, f"TypeError: {error}", f"Horovod {_version()}'s {q}({_signature(params)})", "TypeError")]
        return []
    target = _local_signature(call, scopes)
    if target is None:
        return []
    params, name, where, bound = target
    error = bind_error(params, call, name, bound)
    return [(call, f"TypeError: {error}", f"{where} takes ({_signature(params)})", "TypeError")] if error else []


def bind_error(params, call, name, bound=False):
    """Python's TypeError message for binding `call`'s arguments to `params` ([(name, kind, has_default)],
    kind posonly / pos / vararg / kwonly / varkw), or None when they bind (or the call's * or ** hide it).
    bound: params are a method's after self, which Python's count includes."""
    starred = any(isinstance(a, ast.Starred) for a in call.args)
    splat = any(k.arg is None for k in call.keywords)
    positional = [p for p in params if p[1] in ("posonly", "pos")]
    vararg = any(p[1] == "vararg" for p in params)
    varkw = any(p[1] == "varkw" for p in params)
    n = len(call.args)
    if not starred and not vararg and n > len(positional):
        takes, given = len(positional) + bound, n + bound
        return f"{name}() takes {takes} positional argument{'s' * (takes != 1)} but " \
               f"{given} {'was' if given == 1 else 'were'} given"
    filled = {p[0] for p in positional[:n]}
    by_name = {p[0]: p for p in params if p[1] in ("pos", "kwonly")}
    for k in call.keywords:
        if k.arg is None:
            continue
        if k.arg in by_name:
            if k.arg in filled and not starred:
                return f"{name}() got multiple values for argument {k.arg!r}"
            filled.add(k.arg)
        elif not varkw:
            return f"{name}() got an unexpected keyword argument {k.arg!r}"
    if starred or splat:
        return None
    missing = [p for p in params if p[1] in ("posonly", "pos") and not p[2] and p[0] not in filled]
    if missing:
        names = [repr(p[0]) for p in missing]
        listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        return f"{name}() missing {len(missing)} required positional argument{'s' * (len(missing) != 1)}: {listed}"
    kw_missing = [p for p in params if p[1] == "kwonly" and not p[2] and p[0] not in filled]
    if kw_missing:
        return f"{name}() missing {len(kw_missing)} required keyword-only argument" \
               f"{'s' * (len(kw_missing) != 1)}: {', '.join(repr(p[0]) for p in kw_missing)}"
    return None


def _signature(params):
    out = []
    for name, kind, default in params:
        star = "*" if kind == "vararg" else "**" if kind == "varkw" else ""
        out.append(star + name + ("=..." if default and not star else ""))
    return ", ".join(out)


def _local_signature(call, scopes):
    """(params, name, 'where', bound) of the script's own function, class or self-method a call runs, else
    None; bound: a method's parameters after self or cls."""
    func = call.func
    if isinstance(func, ast.Name):
        _, bindings = scopes.resolve(func)
        if len(bindings) != 1:
            return None
        b = bindings[0]
        if b.kind == "def" and _plain(b.node, scopes):
            return params_of(b.node.args), func.id, f"{func.id}() defined at line {b.node.lineno}", False
        if b.kind == "class":
            init = _constructor(b.node, scopes)
            params = params_of(init.args, bound=True) if init is not None else None
            if params is not None:
                return params, f"{func.id}.__init__", f"{func.id}() (its __init__ at line {init.lineno})", True
        return None
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        cls = _self_class(func.value, scopes)
        if cls is None:
            return None
        methods = [f for f in cls.body
                   if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.name == func.attr]
        if len(methods) != 1 or func.attr in scopes.stored_attrs:  # an instance attribute may hide it
            return None
        m = methods[0]
        decorators = [ast.unparse(d) for d in m.decorator_list]
        if decorators == ["staticmethod"]:
            return params_of(m.args), f"{cls.name}.{func.attr}", \
                f"{cls.name}.{func.attr}() defined at line {m.lineno}", False
        params = params_of(m.args, bound=True)
        if params is not None and (decorators in ([], ["classmethod"]) or
                                   all(_keeps(d, scopes) for d in m.decorator_list)):
            return params, f"{cls.name}.{func.attr}", f"{cls.name}.{func.attr}() defined at line {m.lineno}", True
    return None


def params_of(args, bound=False):
    pos = args.posonlyargs + args.args
    n_def = len(args.defaults)
    out = [(a.arg, "posonly" if i < len(args.posonlyargs) else "pos", i >= len(pos) - n_def)
           for i, a in enumerate(pos)]
    if args.vararg:
        out.append((args.vararg.arg, "vararg", True))
    out += [(a.arg, "kwonly", d is not None) for a, d in zip(args.kwonlyargs, args.kw_defaults)]
    if args.kwarg:
        out.append((args.kwarg.arg, "varkw", True))
    if bound:
        out = out[1:] if out and out[0][1] in ("posonly", "pos") else None
    return out


def _plain(func, scopes):
    return all(_keeps(d, scopes) for d in func.decorator_list) and \
        not isinstance(getattr(func, "parent", None), ast.ClassDef)


def _keeps(decorator, scopes):
    from hvdkit.check.crashes import Qualnames
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    q = Qualnames(scopes)(target)
    return q in KEEPS_SIGNATURE or q.startswith("horovod.") and q.endswith(".elastic.run")


def _constructor(cls, scopes, depth=0):
    from hvdkit.check.crashes import Qualnames
    """The __init__ a call of the class runs, when the source shows it: defined in the class (or in a base
    class of the script that it inherits from), with no decorator, metaclass or __new__ in the way."""
    if cls.decorator_list or cls.keywords or depth > 5:
        return None
    names = {f.name for f in cls.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if "__new__" in names or any(not isinstance(b, (ast.Name, ast.Attribute)) or
                                 Qualnames(scopes)(b).startswith(_METACLASS_BASES) for b in cls.bases):
        return None
    inits = [f for f in cls.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.name == "__init__"]
    if len(inits) == 1:
        return inits[0] if not inits[0].decorator_list else None
    if inits or len(cls.bases) != 1 or not isinstance(cls.bases[0], ast.Name):
        return None
    _, bindings = scopes.resolve(cls.bases[0])
    if len(bindings) == 1 and bindings[0].kind == "class":
        return _constructor(bindings[0].node, scopes, depth + 1)
    return None


# Bases whose metaclass decides what calling the class does (Enum(value), NamedTuple fields, pydantic).
_METACLASS_BASES = ("enum.", "typing.", "pydantic", "attr", "collections.")


def _self_class(name, scopes):
    """The class of `self` in its method, when nothing in the file subclasses that class."""
    cls = class_of_self(scopes, name)
    if cls is None or subclassed(scopes, cls) or cls.decorator_list or cls.keywords:
        return None
    return cls
