"""What the training uses as its optimizer, traced back to the call that made it, and where the script sets
the LR of a built optimizer (steps 4 and 5)."""
import ast

from hvdkit.check import mappings, names
from hvdkit.check.script import dotted, loop_bindings, named_in_function, parents

def optimizers(f):
    """The optimizer constructions (Facts.optimizers: computed once, find_optimizers())."""
    return f.optimizers


def find_optimizers(f):
    """Optimizer constructions [Event]: the frameworks' own classes (by the module path their import resolves
    to), and what the training uses as its optimizer (a receiver of step / apply_gradients / minimize, what
    Horovod wraps or broadcasts, what `compile` gets, what an LR scheduler drives), traced back through names,
    parameters, wrappers (a call given the optimizer itself) and the script's functions to the call that made
    it with a learning rate (`BertAdam(params, lr=...)`, `get_optimizer(name)(learning_rate=0.1)`)."""
    made = {id(o): o for o in origins(f, optimizer_uses(f))}
    return [e for e in f.s.events if e.ctx.reached and not e.api
            and (not f.local_function(e.node) or _project_optimizer(f, e))
            and (optimizer_class(f, e.node) or id(e.node) in made or _project_optimizer(f, e))]


def _project_optimizer(f, e):
    """A class of the project deriving from a framework's optimizer (BertAdam(torch.optim.Optimizer)): made
    like one, its LR is its argument (the walk enters its __init__, which is no reason to pass it by)."""
    return any(names.OPTIMIZER_CLASS.match(b) for b in f.s.library_bases(e.node.func))


def optimizer_uses(f):
    """Expressions the training uses as an optimizer."""
    out = []
    for e in f.s.events:
        func, kw = e.node.func, {k.arg: k.value for k in e.node.keywords}
        attr = func.attr if isinstance(func, ast.Attribute) else ""
        if attr in ("step", "apply_gradients", "minimize", "apply") and not e.api:  # Sonnet 2 applies updates
            out.append(func.value)
        if f.api(e, *names.WRAPPERS, "broadcast_optimizer_state") or attr == "compile" or _scheduler(f, e):
            out += e.node.args[:1] + [kw[k] for k in ("optimizer",) if k in kw]
    return out


def _scheduler(f, e):
    """A torch LR scheduler (torch.optim.lr_scheduler.X(optimizer, ...)): it drives the optimizer it is given."""
    return f.s.qual(e.node.func).startswith("torch.optim.lr_scheduler.")


def origins(f, exprs, depth=0, seen=None):
    """The calls that make the values of `exprs`: through names, parameters, the returns of the script's
    functions, containers, and calls given an optimizer to wrap (their first argument or `optimizer=`). A call
    given a learning rate (`lr=`, `learning_rate=`, or a `**` mapping holding one) or a framework optimizer
    class makes an optimizer; other calls are followed into their first argument only."""
    seen = set() if seen is None else seen
    out = []
    for node in exprs:
        if node is None or depth > 12 or id(node) in seen:
            continue
        seen.add(id(node))
        down = lambda xs: origins(f, xs, depth + 1, seen)  # noqa: E731 - a local shorthand
        if isinstance(node, (ast.Name, ast.Attribute)) and dotted(node):
            out += down([a.node.value for a in f.s.assignments_to(node) if a.node.value is not None])
            out += down(f.frames_binding(node)) if isinstance(node, ast.Name) else []
        elif isinstance(node, ast.Call) and f.local_function(node):
            func = f.s.funcs.get(node.func.id) if isinstance(node.func, ast.Name) else None
            out += down([r.value for r in ast.walk(func) if isinstance(r, ast.Return)] if func else [])
        elif isinstance(node, ast.Call) and (optimizer_class(f, node) or _given_lr(f, node)):
            out.append(node)
        elif isinstance(node, ast.Call):
            out += down(node.args[:1] + [k.value for k in node.keywords if k.arg == "optimizer"])
        elif isinstance(node, (ast.List, ast.Tuple)):
            out += down(node.elts)
        elif isinstance(node, ast.IfExp):
            out += down([node.body, node.orelse])
        elif isinstance(node, ast.Subscript):
            out += down([node.value])
    return out


def optimizer_class(f, call):
    q = f.s.qual(call.func)
    return bool(names.OPTIMIZER_CLASS.match(q) or names.LIBRARY_OPTIMIZER.match(q))


def _given_lr(f, call):
    return any(k.arg in names.LR_KEYWORDS for k in call.keywords) or \
        expanded_lr(f, [k.value for k in call.keywords if k.arg is None]) not in (None, mappings.UNRESOLVED)


def lr_expr(f, e):
    """The LR argument of an optimizer construction; None when none is given (its default LR); UNRESOLVED (of
    hvdkit.check.mappings) when a `**mapping` may hold it and the mapping cannot be read."""
    kw = {k.arg: k.value for k in e.node.keywords}
    expr = next((kw[k] for k in names.LR_KEYWORDS if k in kw), None)
    if expr is None:
        expr = expanded_lr(f, [k.value for k in e.node.keywords if k.arg is None])
    if expr is None and e.node.args:
        # PyTorch's optimizers (and its libraries') take the parameters first: Adam(model.parameters(), 1e-3)
        module = f.s.qual(e.node.func).split(".")[0]
        lr_first = ("tensorflow", "keras", "sonnet", "tensorflow_addons")
        params_first = module in names.TORCH_LIBRARIES or module not in lr_first and f.frameworks == {"torch"}
        index = 1 if params_first else 0
        expr = e.node.args[index] if len(e.node.args) > index else None
        if expr is None and params_first:
            expr = group_lr(f, e.node.args[0])
    return expr


def group_lr(f, params):
    """torch's param groups given as a list of dicts that each set "lr" (`[{"params": body.parameters(), "lr":
    lr}, {"params": head.parameters(), "lr": lr * 10}]`): no group takes the optimizer's default LR, so the
    first group's LR is the one judged (the others are multiples of it or set alike). None when a group
    leaves "lr" out (it trains at the default) or the list is not written out."""
    made = [params] + (list(f.origins(params)) if isinstance(params, ast.Name) else [])
    for call in [m for m in made if isinstance(m, ast.Call) and isinstance(m.func, (ast.Name, ast.Attribute))]:
        func = f.s.defined(call.func)  # the project's helper returning the groups it built
        if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            made += [o for r in ast.walk(func) if isinstance(r, ast.Return) and isinstance(r.value, ast.Name)
                     for o in f.origins(r.value)]
    lists = [m for m in made if isinstance(m, (ast.List, ast.Tuple))]
    if len(lists) != 1:
        return None
    groups = list(lists[0].elts) + _appended(lists[0])
    if not groups:
        return None
    lrs = []
    for group in groups:
        keys = {k.value: v for k, v in zip(group.keys, group.values) if isinstance(k, ast.Constant)} \
            if isinstance(group, ast.Dict) and None not in group.keys else {}
        if "lr" not in keys:
            return None
        lrs.append(keys["lr"])
    return lrs[0]


def _appended(made):
    """What the function that assigns the list `made` to a name appends to it (`groups = []`, then
    `groups.append({"params": ..., "lr": ...})` in a loop)."""
    named = named_in_function(made)
    if named is None:
        return []
    name, scope = named
    return [c.args[0] for c in ast.walk(scope) if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
            and c.func.attr == "append" and isinstance(c.func.value, ast.Name) and c.func.value.id == name
            and len(c.args) == 1]


def expanded_lr(f, expanded):
    """Optimizer(**kwargs): the learning-rate entry of the expanded mappings (the last one given wins)."""
    found = None
    for m in expanded:
        for key in names.LR_KEYWORDS:
            got = mappings.lookup(f, m, key)
            if got is not None:
                found = got
                break
    return found




class Setter:
    """A statement that sets the LR of a built optimizer: `g["lr"] = v` over `opt.param_groups`, `opt.lr = v`,
    `K.set_value(opt.lr, v)`, `opt.learning_rate.assign(v)`. `value` is the LR it sets (`g["lr"] *= k` sets
    `g["lr"] * k`), `optimizer` the expression of the optimizer, `event` the walked statement or call."""

    def __init__(self, event, value, optimizer):
        self.event, self.value, self.optimizer, self.line = event, value, optimizer, event.node.lineno


def lr_setters(f):
    out = []
    for a in f.s.assigns:
        targets = a.node.targets if isinstance(a.node, ast.Assign) else [a.node.target]
        for t in targets:
            opt = optimizer_of_lr(f, t)
            if opt is None or a.node.value is None:
                continue
            value = a.node.value
            if isinstance(a.node, ast.AugAssign):
                value = ast.copy_location(ast.BinOp(left=_load(t), op=a.node.op, right=a.node.value), a.node)
            out.append(Setter(a, value, opt))
    for e in f.s.events:
        func = e.node.func
        if f.s.qual(func).endswith("backend.set_value") and len(e.node.args) == 2:
            opt = _lr_variable(f, e.node.args[0])
            value = e.node.args[1]
        elif isinstance(func, ast.Attribute) and func.attr == "assign" and e.node.args:
            opt, value = _lr_variable(f, func.value), e.node.args[0]
        else:
            continue
        if opt is not None:
            out.append(Setter(e, value, opt))
    return [s for s in out if s.event.ctx.reached or _handed_on(f, s.event)]


def optimizer_of_lr(f, node, keys=("lr",)):
    """The optimizer whose LR `node` is, else None: `g["lr"]` with g a param group of `opt.param_groups` (a loop
    over it, or an index into it), `opt.lr` / `opt.learning_rate` of an optimizer the script builds, or of a
    Keras model's `optimizer` attribute."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value in keys:
        group = node.value
        if isinstance(group, ast.Subscript) and _param_groups(group.value):
            return group.value.value
        if isinstance(group, ast.Name):
            for p in parents(node):
                for g in loop_bindings(p):
                    bound = {n.id for n in ast.walk(g.target) if isinstance(n, ast.Name)}
                    if group.id in bound and _param_groups(g.iter):
                        return g.iter.value
        return None
    if isinstance(node, ast.Attribute) and node.attr in ("lr", "learning_rate"):
        receiver = node.value
        if isinstance(receiver, ast.Attribute) and receiver.attr == "optimizer" or origins(f, [receiver]):
            return receiver
    return None


def _lr_variable(f, node):
    """The optimizer whose LR variable `node` is (optimizer_of_lr), also through a name holding it (`lr =
    opt.learning_rate; lr.assign(v)` sets the optimizer's LR: one variable object), else None."""
    if isinstance(node, ast.Name):
        held = [a.node.value for a in f.s.assignments_to(node) if isinstance(a.node, (ast.Assign, ast.AnnAssign))]
        return next((o for v in held for o in [optimizer_of_lr(f, v)] if o is not None), None)
    return optimizer_of_lr(f, node)


def reads_lr(f, node):
    """`node` reads an optimizer's current LR (`g["lr"]`, `g["initial_lr"]`, `opt.lr`, `opt.learning_rate`)."""
    ctx = getattr(node, "ctx", None)
    return isinstance(ctx, ast.Load) and optimizer_of_lr(f, node, keys=("lr", "initial_lr")) is not None


def _param_groups(node):
    return isinstance(node, ast.Attribute) and node.attr == "param_groups"


def _load(target):
    """The target of `x op= v`, read."""
    node = ast.parse(ast.unparse(target), mode="eval").body
    ast.copy_location(node, target)
    for n in ast.walk(node):
        n.parent = getattr(target, "parent", None)
    return node


def _handed_on(f, event):
    """A function nothing calls whose name is handed to a call (in a list too: Horovod's elastic
    `state.register_reset_callbacks([on_reset])`): its statements run there, each time it is called back."""
    func = event.ctx.frames[-1].func if event.ctx.frames else None
    if func is None:
        return False
    return any(isinstance(n, ast.Name) and n.id == func.name and isinstance(n.ctx, ast.Load)
               and any(isinstance(p, ast.Call) for p in parents(n)) for n in f.s.nodes())
