"""PyTorch constraints that raise before training, read from the arguments alone:

- torch's DataLoader checks its options when it is built (torch/utils/data/dataloader.py):
  a sampler with shuffle=True, a batch_sampler with batch_size / shuffle / sampler / drop_last,
  persistent_workers or prefetch_factor without worker processes, a negative num_workers: ValueError;
- Horovod's torch DistributedOptimizer names every parameter the optimizer holds from `named_parameters`,
  and raises ValueError when some are not named (horovod/torch/optimizer.py): the optimizer trains a
  module that the named module does not contain (`named_parameters=gen.body.named_parameters()` while a
  param group holds `gen.style.parameters()`). A superset is fine, as is naming a wrapper's inner module.

Only values the source states count: `shuffle=True` as written, a sampler that is an object built right
there (a sampler class of torch or Horovod, or a class of the script), not a name that may hold None.
"""
import ast

from hvdkit.check.crash_names import enclosing_function
from hvdkit.check.defs import assigned_value
from hvdkit.check.project import module_of
from hvdkit.check.script import dotted as _dotted

LOADERS = ("torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader")
# DataLoader's parameters in order (torch 2.x), for arguments passed by position.
LOADER_PARAMS = ("dataset", "batch_size", "shuffle", "sampler", "batch_sampler", "num_workers", "collate_fn",
                 "pin_memory", "drop_last")
WRAPS = ("horovod.torch.DistributedOptimizer", "horovod.torch.optimizer.DistributedOptimizer")


def find(names):
    out = []
    for node in names.nodes:
        if isinstance(node, ast.Call):
            q = names.qual(node.func)
            if q in LOADERS:
                out += _loader(node, names)
            elif q in WRAPS:
                out += _unnamed_parameters(node, names)
    return out


# --- DataLoader ------------------------------------------------------------------------------------
def _loader(call, names):
    a = dict(zip(LOADER_PARAMS, call.args))
    a.update({k.arg: k.value for k in call.keywords if k.arg})
    if any(isinstance(x, ast.Starred) for x in call.args) or any(k.arg is None for k in call.keywords):
        return []
    built = lambda key: key in a and _built_object(a[key], names)  # noqa: E731 - a local predicate
    true = lambda key: key in a and _constant(a[key]) is True  # noqa: E731
    workers = _constant(a["num_workers"]) if "num_workers" in a else 0
    msg = None
    if isinstance(workers, int) and not isinstance(workers, bool) and workers < 0:
        msg = "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing."
    elif workers == 0 and "prefetch_factor" in a and _constant(a["prefetch_factor"]) not in (None, "?"):
        msg = "prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 to enable " \
              "multiprocessing, otherwise set prefetch_factor to None."
    elif workers == 0 and true("persistent_workers"):
        msg = "persistent_workers option needs num_workers > 0"
    elif built("sampler") and true("shuffle"):
        msg = "sampler option is mutually exclusive with shuffle"
    elif built("batch_sampler") and ("batch_size" in a and _constant(a["batch_size"]) not in (1, "?") or
                                     true("shuffle") or built("sampler") or true("drop_last")):
        msg = "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last"
    if msg is None:
        return []
    return [(call, f"ValueError: {msg}", "torch's DataLoader checks its options when it is built", "ValueError")]


def _constant(node):
    """The value of a literal (True, 0, None, ...), else '?'."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and isinstance(node.operand.value, (int, float)):
        return -node.operand.value
    return "?"


def _built_object(node, names, depth=0):
    """The expression is an object built right there (never None): a class of torch.utils.data or Horovod,
    or a class of the project, called; or a name every definition of which is one."""
    if isinstance(node, ast.Call):
        q = names.qual(node.func)
        if q.startswith(("torch.utils.data.", "horovod.")) and q.rsplit(".", 1)[-1][:1].isupper():
            return True
        return isinstance(node.func, (ast.Name, ast.Attribute)) and isinstance(names.sole(node.func), ast.ClassDef)
    if isinstance(node, ast.Name) and depth < 5:
        values = names.values(node)
        return bool(values) and all(_built_object(v, names, depth + 1) for v in values)
    return False


# --- DistributedOptimizer(named_parameters=...) ----------------------------------------------------
def _unnamed_parameters(call, names):
    named = next((k.value for k in call.keywords if k.arg == "named_parameters"), None)
    if named is None and len(call.args) > 1:
        named = call.args[1]
    opt = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "optimizer"), None)
    if named is None or not isinstance(opt, ast.Name):
        return []
    naming = _modules(named, names, "named_parameters")
    trained = _optimizer_modules(opt, call, names)
    if not naming or not trained or len(naming) != 1:
        return []
    (n,) = naming
    for m in trained:
        if _disjoint(m, n):
            return [(call, "ValueError: named_parameters was specified, but one or more model parameters were "
                           "not named", f"the optimizer holds {m}.parameters(), which {n}.named_parameters() "
                                        "does not contain", "ValueError")]
    return []


def _modules(node, names, method, depth=0):
    """The dotted module expressions whose `method()` (parameters / named_parameters) the expression lists:
    a set, or None when it holds anything else."""
    if depth > 5:
        return None
    if isinstance(node, ast.Call):
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr == method and not node.args and _dotted(f.value):
            return {_dotted(f.value)}
        if isinstance(f, ast.Name) and f.id in ("list", "tuple") and len(node.args) == 1:
            return _modules(node.args[0], names, method, depth + 1)
        if isinstance(f, ast.Name) and f.id == "filter" and len(node.args) == 2:
            return _modules(node.args[1], names, method, depth + 1)
        if isinstance(f, ast.Attribute) and f.attr == "chain" and node.args:
            parts = [_modules(a, names, method, depth + 1) for a in node.args]
            return None if any(p is None for p in parts) else set().union(*parts)
        return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = _modules(node.left, names, method, depth + 1), _modules(node.right, names, method, depth + 1)
        return None if a is None or b is None else a | b
    if isinstance(node, (ast.List, ast.Tuple)) and node.elts:
        parts = []
        for e in node.elts:
            if isinstance(e, ast.Dict):
                params = [v for k, v in zip(e.keys, e.values) if isinstance(k, ast.Constant) and k.value == "params"]
                if len(params) != 1 or None in e.keys:
                    return None
                parts.append(_modules(params[0], names, method, depth + 1))
            else:
                parts.append(_modules(e, names, method, depth + 1))
        return None if any(p is None for p in parts) else set().union(*parts)
    if isinstance(node, ast.Name):
        values = names.values(node)
        if values and len(values) == 1:
            return _modules(values[0], names, method, depth + 1)
    return None


def _optimizer_modules(opt, wrap, names):
    """The modules whose parameters the optimizer `opt` holds when `wrap` runs: from the one torch.optim
    construction that reaches it, plus its add_param_group calls; None when anything else may have
    changed it (it was passed to other code, or built in more than one place)."""
    defs = names.definitions(opt)
    if not defs or len(defs) != 1 or not isinstance(defs[0][0], ast.Name):
        return None
    made = defs[0][0]
    built = assigned_value(made)
    if not isinstance(built, ast.Call) or not names.qual(built.func).startswith("torch.optim."):
        return None
    params = built.args[0] if built.args else next((k.value for k in built.keywords if k.arg == "params"), None)
    found = _modules(params, names, "parameters") if params is not None else None
    if found is None:
        return None
    scope, mod = enclosing_function(wrap), module_of(wrap)
    for node in names.loads.get(opt.id, ()):
        if module_of(node) is not mod or enclosing_function(node) is not scope or \
                not built.lineno < node.lineno < wrap.lineno or made not in (names.s.reaching(node) or ()):
            continue
        parent = node.parent
        if isinstance(parent, ast.Attribute) and parent.attr == "add_param_group" and \
                isinstance(parent.parent, ast.Call) and len(parent.parent.args) == 1:
            more = _modules(ast.List(elts=[parent.parent.args[0]]), names, "parameters")
            if more is None:
                return None
            found |= more
        elif isinstance(parent, ast.Attribute) and parent.attr in ("zero_grad", "state_dict", "param_groups") \
                and isinstance(parent.ctx, ast.Load) and not isinstance(parent.parent, (ast.Attribute, ast.Subscript)):
            continue
        else:
            return None
    return found


def _disjoint(m, n):
    """Module m's parameters cannot be among module n's: two different attributes of one object
    (`g.style` and `g.body`), neither holding the other."""
    a, b = m.split("."), n.split(".")
    if m == n or a[:len(b)] == b or b[:len(a)] == a:
        return False  # the same module, a sub-module of the named one, or the named one inside it
    return a[0] == b[0]

