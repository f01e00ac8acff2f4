"""Calls and attributes that raise by their definitions alone, in the script and the project's modules
that run: an attribute or imported name Horovod 0.28.1's module does not have (`hvd.callbacks` on
horovod.tensorflow: AttributeError), a call of Horovod's API that its signature rejects
(`LearningRateWarmupCallback(warmup_epochs=5)` without the required `initial_lr`,
`BroadcastGlobalVariablesCallback(root=0)`: TypeError), a call of the project's own function or class with
arguments its definition does not take (`train(a, b, c)` for `def train(a, b)`), and Horovod's queries
(`hvd.size()`, `hvd.rank()`) evaluated before `hvd.init()` (ValueError: Horovod has not been initialized).

Horovod's facts come from horovod_api.json (generated from the installed package's source). A project
function counts only when its name is bound to that one definition where it is called, without a
decorator that could change its signature; a method only through `self` in a class nothing subclasses.
"""
import ast
import itertools

from hvdkit.check import horovod_api, values
from hvdkit.check.crash_names import FUNCS

# Decorators that keep a function's signature (what the call binds is what the def declares).
KEEPS_SIGNATURE = ("tensorflow.function", "torch.no_grad", "torch.inference_mode", "torch.enable_grad",
                   "functools.lru_cache", "functools.cache", "functools.wraps")


def find(names):
    """(node, error, why, kind) for each call or attribute that raises by definition."""
    out = []
    for node in names.nodes:
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and \
                not isinstance(getattr(node, "parent", None), ast.Attribute):
            out += _horovod_attribute(node, names.qual, names.stored_attrs)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out += _horovod_import(node)
        if isinstance(node, ast.Call):
            out += _call(node, names)
    return out


# Horovod's queries that raise ValueError until hvd.init() has run (horovod/common/basics.py).
BEFORE_INIT = ("rank", "size", "local_rank", "local_size", "cross_rank", "cross_size")
# Horovod 0.28.1's other calls that raise before hvd.init(), by module (tried on this machine, one process, no
# init): torch's optimizer wrapper asks size() when made; collectives reach the uninitialised core. TF's
# optimizer wrapper, gradient tape and Keras callbacks raise nothing when made.
RAISING_BEFORE_INIT = {
    "horovod.torch": {"DistributedOptimizer": "ValueError", "broadcast_optimizer_state": "ValueError",
                      "broadcast_object": "ValueError", "broadcast_parameters": "HorovodInternalError",
                      "allreduce": "HorovodInternalError", "allreduce_": "HorovodInternalError",
                      "allgather": "HorovodInternalError", "broadcast": "HorovodInternalError"},
    "horovod.tensorflow": {"allreduce": "ValueError", "broadcast_variables": "FailedPreconditionError"},
}
RAISING_BEFORE_INIT["horovod.tensorflow.keras"] = {"allreduce": "ValueError"}


def _raises_before_init(facts, e):
    """The error `e`'s Horovod call raises when no hvd.init() has run, or None."""
    if e.api[1] in BEFORE_INIT:
        return "ValueError"
    q = facts.s.qual(e.node.func)
    module, _, name = q.rpartition(".")
    return RAISING_BEFORE_INIT.get(module, {}).get(name)


def before_init(facts):
    """(node, error, why, kind) for Horovod's queries that run before the first hvd.init() the walk reaches,
    or, when no init is reached at all, every query that runs: then only when all the code that runs first
    has been read (no call into unread code could init: Facts.init_candidates, and Horovod is not taken from
    a module that is not there: Facts.horovod_from), the evidence step 1's "missing" rests on.
    Only calls reached through call sites count: a Keras callback's methods or a function handed to another
    are walked where the instance is made or handed, not where they run; an entry point judged on its own (a
    function nothing calls, launched by horovod.run or another module) may be handed an initialised Horovod."""
    # an init behind a condition false on every Horovod run (`if int(os.environ.get("WORLD_SIZE", "1")) > 1:`,
    # torchrun's variable) initialises nothing there
    reached = [e for e in facts.s.api_calls("init") if e.api == ("horovod", "init") and e.ctx.reached]
    never = [e for e in reached if values.runs(facts.s, e, facts.path_guards(e), defaults=True).kind == "never"]
    every = sorted((e for e in reached if e not in never), key=lambda e: e.order)
    if not every and (facts.init_candidates or facts.horovod_from):
        return []
    out = []
    for e in facts.s.api_calls(owner="horovod"):
        error = _raises_before_init(facts, e) if e.ctx.reached else None
        if error is None:
            continue
        launcher = fresh_launcher(facts, e)
        if not all(fr.call is not None for fr in e.ctx.frames) and launcher is None:
            continue
        # a worker that horovod.run starts is a new process: only an init in that worker counts
        inits = [i for i in every if fresh_launcher(facts, i) is launcher]
        if not inits or e.order < inits[0].order:
            where = f", in the worker `{ast.unparse(launcher)[:50]}` starts" if launcher is not None else ""
            why = f"{ast.unparse(e.node.func)}() runs before {ast.unparse(inits[0].node.func)}() at line " \
                f"{inits[0].line}" if inits else f"{ast.unparse(e.node.func)}() runs and no hvd.init() does{where}, " \
                "in all the code read" + (_why_never(facts, never[0]) if never else "")
            out.append((e.node, f"{error}: Horovod has not been initialized; use hvd.init().", why, error))
    return out


def _why_never(facts, init):
    """Why the init the walk reaches does not run: an option off by default, or a condition false on any
    Horovod run (torchrun's WORLD_SIZE)."""
    options = values.off_by_default(facts.s, init, facts.path_guards(init))
    if options:
        return f" (the one at line {init.line} runs only with {', '.join(options)}, off by default)"
    return f" (the one at line {init.line} is behind a condition false on a Horovod run)"


# Launchers that run the function handed to them in new processes, where Horovod starts uninitialised.
FRESH_PROCESSES = ("horovod.run", "horovod.runner.run", "horovod.spark.run", "horovod.spark.run_elastic",
                   "torch.multiprocessing.spawn", "multiprocessing.Process", "torch.multiprocessing.Process")


def fresh_launcher(facts, e):
    """The call that started the new process `e` runs in (`horovod.run(train_fn, ...)` handing the function
    whose walk holds `e`), when every frame of `e` is a call or such a hand-over; else None."""
    launcher = None
    for lp in e.ctx.loops:
        if isinstance(lp, ast.Call) and facts.s.qual(lp.func) in FRESH_PROCESSES:
            launcher = lp
    return launcher


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


def _call(call, names):
    q = names.qual(call.func)
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
        return _op_and_average(call, q, params) + _generator_params(call, q, names) + \
            _state_dict_optimizer(call, q, names) + _predivide_not_average(call, q, params, names)
    target = _local_signature(call, names)
    if target is None:
        return []
    params, name, where, bound = target
    error = bind_error(params, call, name, bound)
    return [(call, f"TypeError: {error}", f"{where} takes ({_signature(params)})", "TypeError")] if error else []


def _given(call, params):
    """{parameter name: argument expression} of a call that binds (positional ones by position, up to a
    `*args`, after which positions are not known)."""
    positional = [p[0] for p in params if p[1] in ("posonly", "pos")]
    out = dict(zip(positional, itertools.takewhile(lambda a: not isinstance(a, ast.Starred), call.args)))
    out.update({k.arg: k.value for k in call.keywords if k.arg})
    return out


def _op_and_average(call, q, params):
    """Horovod's allreduce family given both `op` and `average` (neither the literal None): its
    handle_average_backwards_compatibility (horovod/common/util.py) raises ValueError before reducing."""
    if not {"op", "average"} <= {p[0] for p in params}:
        return []
    given = _given(call, params)
    if not all(k in given and not (isinstance(given[k], ast.Constant) and given[k].value is None)
               for k in ("op", "average")):
        return []
    return [(call, "ValueError: The op parameter supersedes average. Please provide only one of them.",
             f"Horovod {_version()}'s {q} takes `op` or the older `average`, never both", "ValueError")]


def _predivide_not_average(call, q, params, names):
    """A DistributedOptimizer / DistributedGradientTape given `op=hvd.Sum` (or Adasum) and a
    gradient_predivide_factor that is not 1 on more than one rank (a literal, or made of hvd.size()): Horovod
    raises ValueError when it wraps (horovod/torch/optimizer.py, horovod/tensorflow/__init__.py)."""
    if "gradient_predivide_factor" not in {p[0] for p in params}:
        return []
    given = _given(call, params)
    op, factor = given.get("op"), given.get("gradient_predivide_factor")
    if op is None or factor is None or names.qual(op).rsplit(".", 1)[-1] not in ("Sum", "Adasum") or \
            not names.qual(op).startswith("horovod."):
        return []
    literal = isinstance(factor, ast.Constant) and isinstance(factor.value, (int, float)) and factor.value != 1
    sized = any(isinstance(n, ast.Call) and names.qual(n.func).startswith("horovod.") and
                names.qual(n.func).endswith(".size") for n in ast.walk(factor))
    if not (literal or sized):
        return []
    return [(call, "ValueError: gradient_predivide_factor not supported with op != Average",
             f"Horovod {_version()}'s {q} takes a gradient_predivide_factor other than 1 only with op=Average"
             + (" (hvd.size() is more than 1 on a distributed run)" if sized and not literal else ""), "ValueError")]


# nn.Module's methods that return generators, not the dict or list horovod.torch.broadcast_parameters takes.
_GENERATORS = ("parameters", "named_parameters", "buffers", "named_buffers", "children", "modules")


def _generator_params(call, q, names):
    """horovod.torch.broadcast_parameters(model.parameters()): Horovod accepts a state_dict, a dict or a
    list, and raises ValueError ("invalid params of type: <class 'generator'>") for anything else: the
    generator nn.Module's parameters() and named_parameters() return."""
    if q.rsplit(".", 1)[-1] != "broadcast_parameters" or not q.startswith("horovod.torch"):
        return []
    arg = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "params"), None)
    if not (isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute) and arg.func.attr in _GENERATORS
            and not arg.args and not names.qual(arg.func).startswith(("torch.", "horovod."))):
        return []
    return [(call, "ValueError: invalid params of type: <class 'generator'>",
             f"{ast.unparse(arg)} is a generator; Horovod {_version()}'s broadcast_parameters takes a state_dict, "
             "a dict or a list (`model.state_dict()`)", "ValueError")]


def _state_dict_optimizer(call, q, names):
    """horovod.torch.broadcast_optimizer_state(optimizer.state_dict(), ...): Horovod calls state_dict() on
    what it is given (horovod/torch/functions.py), and a state_dict is a dict: AttributeError."""
    if q.rsplit(".", 1)[-1] != "broadcast_optimizer_state" or not q.startswith("horovod.torch"):
        return []
    arg = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "optimizer"), None)
    if not (isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute) and arg.func.attr == "state_dict"
            and not arg.args and not names.qual(arg.func).startswith(("torch.", "horovod."))):
        return []
    return [(call, "AttributeError: 'dict' object has no attribute 'state_dict'",
             f"{ast.unparse(arg)} is a dict; Horovod {_version()}'s broadcast_optimizer_state takes the optimizer "
             "itself and calls its state_dict()", "AttributeError")]


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


def _local_signature(call, names):
    """(params, name, 'where', bound) of the project's own function, class or self-method a call runs, else
    None; bound: a method's parameters after self or cls."""
    func = call.func
    target = names.sole(func) if isinstance(func, (ast.Name, ast.Attribute)) else None
    if isinstance(target, FUNCS) and _plain(target, names):
        return params_of(target.args), target.name, f"{target.name}() defined at line {target.lineno}", False
    if isinstance(target, ast.ClassDef):
        init = _constructor(target, names)
        params = params_of(init.args, bound=True) if init is not None else None
        if params is not None:
            return params, f"{target.name}.__init__", f"{target.name}() (its __init__ at line {init.lineno})", True
        return None
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        cls = _self_class(func, names)
        if cls is None:
            return None
        methods = [f for f in cls.body if isinstance(f, FUNCS) and f.name == func.attr]
        if len(methods) != 1 or func.attr in names.stored_attrs:  # an instance attribute may hide it
            return None
        m = methods[0]
        decorators = [ast.unparse(d) for d in m.decorator_list]
        if decorators == ["staticmethod"]:
            return params_of(m.args), f"{cls.name}.{func.attr}", \
                f"{cls.name}.{func.attr}() defined at line {m.lineno}", False
        params = params_of(m.args, bound=True)
        if params is not None and (decorators in ([], ["classmethod"]) or
                                   all(_keeps(d, names) for d in m.decorator_list)):
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


def _plain(func, names):
    return all(_keeps(d, names) for d in func.decorator_list) and \
        not isinstance(getattr(func, "parent", None), ast.ClassDef)


def _keeps(decorator, names):
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    q = names.qual(target)
    return q in KEEPS_SIGNATURE or q.startswith("horovod.") and q.endswith(".elastic.run")


def _constructor(cls, names, depth=0):
    """The __init__ a call of the class runs, when the source shows it: defined in the class (or in a base
    class of the project that it inherits from), with no decorator, metaclass or __new__ in the way."""
    if cls.decorator_list or cls.keywords or depth > 5:
        return None
    own = {f.name for f in cls.body if isinstance(f, FUNCS)}
    if "__new__" in own or any(not isinstance(b, (ast.Name, ast.Attribute)) or
                               names.qual(b).startswith(_METACLASS_BASES) for b in cls.bases):
        return None
    inits = [f for f in cls.body if isinstance(f, FUNCS) and f.name == "__init__"]
    if len(inits) == 1:
        return inits[0] if not inits[0].decorator_list else None
    if inits or len(cls.bases) != 1:
        return None
    base = names.sole(cls.bases[0])
    return _constructor(base, names, depth + 1) if isinstance(base, ast.ClassDef) else None


# Bases whose metaclass decides what calling the class does (Enum(value), NamedTuple fields, pydantic).
_METACLASS_BASES = ("enum.", "typing.", "pydantic", "attr", "collections.")


def _self_class(func, names):
    """The class of `self` in `self.m` in its method, when nothing the project runs subclasses that class."""
    cls = names.self_class(func)
    if cls is None or names.subclassed(cls) or cls.decorator_list or cls.keywords:
        return None
    return cls
