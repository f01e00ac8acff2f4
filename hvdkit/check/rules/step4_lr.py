"""Step 4: the learning rate scaled by the number of ranks (gradients are averaged)."""
import ast
import re

from hvdkit.check import mappings, names
from hvdkit.check.findings import MISSING, OK, UNKNOWN, WRONG, Finding
from hvdkit.check.script import dotted


_WRAPPING = re.compile(r"LossScale|Distributed|Lookahead|SWA|Wrapper|Schedule", re.I)


def optimizers(f):
    """Optimizer constructions: the frameworks' own, and other libraries' (BertAdam, snt.optimizers.Adam,
    tfa's AdamW, timm's create_optimizer results are not: no class name) by the shape of their name."""
    out = []
    for e in f.s.events:
        q = f.s.qual(e.node.func)
        if not e.ctx.reached or not q or "schedule" in q or e.api or _WRAPPING.search(q) or \
                f.local_function(e.node) and not _optimizer_class(f, e):
            continue
        last = q.split(".")[-1]
        factory = names.OPTIMIZER_FACTORY.match(last) and any(k.arg in names.LR_KEYWORDS for k in e.node.keywords)
        if names.OPTIMIZER_CLASS.match(q) or names.FOREIGN_OPTIMIZER.search(q) and last[:1].isupper() or factory:
            out.append(e)
    return out


def _optimizer_class(f, e):
    """A class of the project deriving from a framework's optimizer (BertAdam(torch.optim.Optimizer)): made
    like one, its LR is its argument."""
    return any(names.OPTIMIZER_CLASS.match(b) for b in f.s.library_bases(e.node.func))


def judge(f):
    hk = [e for e in f.s.events if _hvdkit_scaling(f, e.node)]
    opts = optimizers(f)
    if hk and not opts:
        return Finding(OK, f"hvdkit scales the LR: {f.text(hk[0].line)}", hk[0].line)
    if not opts:
        strings = [k for e in f.fits + f.s.calls(lambda e: getattr(e.node.func, "attr", "") == "compile")
                   for k in e.node.keywords if k.arg == "optimizer" and isinstance(k.value, ast.Constant)]
        if strings:
            return Finding(MISSING, f"optimizer given by name ({strings[0].value.value!r}): its default LR is not "
                           "scaled", strings[0].value.lineno,
                           "build the optimizer with learning_rate=base_lr * hvd.size()")
        return Finding(UNKNOWN, "no optimizer construction found")
    verdicts = [_judge_lr(f, e) for e in opts]
    verdicts = _with_multiplier_schedulers(f, verdicts)
    verdicts = _with_lr_setting_schedulers(f, opts, verdicts)
    by_callbacks, from_start = _lr_callbacks(f)
    verdicts = by_callbacks + ([] if from_start and by_callbacks else verdicts)
    order = {WRONG: 0, MISSING: 1, UNKNOWN: 2, OK: 3}
    return min(verdicts, key=lambda v: order[v.verdict])


def _lr_expr(f, e):
    """The LR argument of an optimizer construction; None when none is given (its default LR); UNRESOLVED (of
    hvdkit.check.mappings) when a `**mapping` may hold it and the mapping cannot be read."""
    kw = {k.arg: k.value for k in e.node.keywords}
    expr = next((kw[k] for k in names.LR_KEYWORDS if k in kw), None)
    if expr is None:
        expr = _expanded_lr(f, [k.value for k in e.node.keywords if k.arg is None])
    if expr is None and e.node.args:
        # torch-style optimizers take the parameters first: Adam(model.parameters(), 1e-3)
        first = ast.unparse(e.node.args[0])
        params_first = f.s.qual(e.node.func).startswith("torch") or re.search(r"param", first, re.I)
        index = 1 if params_first else 0
        expr = e.node.args[index] if len(e.node.args) > index else None
    return expr


def _judge_lr(f, e):
    kw = {k.arg: k.value for k in e.node.keywords}
    torch_opt = f.s.qual(e.node.func).startswith("torch")
    foreign = not names.OPTIMIZER_CLASS.match(f.s.qual(e.node.func))
    expr = _lr_expr(f, e)
    if "lr" in kw and not torch_opt and not foreign:
        f.notes.append(f"line {e.line}: `lr=` is `learning_rate=` in Keras 3 (a TypeError there)")
    if expr is mappings.UNRESOLVED:
        return Finding(UNKNOWN, f"the optimizer at line {e.line} takes its arguments from a `**` mapping that cannot "
                       "be read: cannot tell its LR", e.line)
    if expr is None:
        if foreign:
            return Finding(UNKNOWN, f"optimizer at line {e.line} uses its library's default LR", e.line)
        return Finding(MISSING, f"optimizer at line {e.line} uses its default LR, not scaled by hvd.size()", e.line,
                       "pass learning_rate=base_lr * hvd.size()")
    hk = lambda n: isinstance(n, ast.Call) and _hvdkit_scaling(f, n)  # noqa: E731 - a predicate for mentions()
    if f.mentions(expr, hk):
        return Finding(OK, f"scaled by hvdkit: {f.text(e.line)}", e.line)
    if -1 in _size_powers(f, expr):
        return Finding(WRONG, f"LR divided by hvd.size() (line {e.line}): it must grow with the global batch", e.line,
                       "multiply the base LR by hvd.size()")
    if _size_powers(f, expr, lambda n: f.is_rank(n) or f.is_local_rank(n)):
        return Finding(WRONG, f"LR depends on the rank (line {e.line}): ranks step with different LRs", e.line,
                       "scale by hvd.size(), not hvd.rank()")
    if 1 in _size_powers(f, expr) and f.mentions(expr, f.is_global_size) or \
            f.mentions(expr, lambda n: _schedule_scaled(f, n)):
        return Finding(OK, f"scaled by hvd.size(): {f.text(e.line)}", e.line)
    local = lambda n: f.s.is_hvd_query(n, "local_size")  # noqa: E731 - a predicate for mentions()
    if f.mentions(expr, local) and not _adasum(f):
        return Finding(WRONG, f"LR scaled by hvd.local_size() (line {e.line}), the Adasum rule, while gradients are "
                       "averaged over all ranks: on several nodes the LR is too small by the number of nodes", e.line,
                       "scale by hvd.size() (local_size() only with op=hvd.Adasum)")
    return Finding(MISSING, f"LR not scaled by the number of ranks: {f.text(e.line)}", e.line,
                   "multiply the base LR by hvd.size() (and warm up over the first epochs)")


# Keras schedules' positional parameters, in order: only the learning-rate ones are on the LR's path.
_SCHEDULE_PARAMS = {
    "ExponentialDecay": ("initial_learning_rate", "decay_steps", "decay_rate"),
    "InverseTimeDecay": ("initial_learning_rate", "decay_steps", "decay_rate"),
    "PolynomialDecay": ("initial_learning_rate", "decay_steps", "end_learning_rate", "power"),
    "CosineDecay": ("initial_learning_rate", "decay_steps", "alpha", "name", "warmup_target", "warmup_steps"),
    "CosineDecayRestarts": ("initial_learning_rate", "first_decay_steps", "t_mul", "m_mul", "alpha"),
    "PiecewiseConstantDecay": ("boundaries", "values"),
}
# Arguments that count steps or shape the curve: dividing them by hvd.size() does not divide the LR.
_NOT_LR_ARGS = re.compile(r"step|epoch|iter|boundar|batch|cycle|total|power|decay_rate|alpha|t_mul|m_mul|name|momentum|"
                          r"weight_decay|eps|beta|params|parameters", re.I)


def _size_powers(f, node, pred=None, seen=None, depth=0):
    """On which side of the LR value hvd.size() (or local_size; or what `pred` holds for) stands: {1} multiplies
    it, {-1} divides it. Only the value's own path is followed (factors, dividends, a schedule's LR arguments,
    names' assigned values), not step counts such as decay_steps = epochs * (n // hvd.size())."""
    seen = set() if seen is None else seen
    pred = pred or f.is_size
    if node is None or depth > 40:
        return set()
    down = lambda n: _size_powers(f, n, pred, seen, depth + 1)  # noqa: E731 - a local shorthand
    if pred(node):
        return {1}
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, ast.FloorDiv):
            return set()  # an integer division makes a count (steps = n // (batch * size)), never a learning rate
        if isinstance(node.op, ast.Div):
            return down(node.left) | {-p for p in down(node.right)}
        return down(node.left) | (down(node.right) if not isinstance(node.op, (ast.Pow, ast.Mod)) else set())
    if isinstance(node, (ast.Name, ast.Attribute)):
        return _name_powers(f, node, seen, down)
    if isinstance(node, ast.Subscript):
        return down(mappings.entry_of(f, node) or node.value)
    if isinstance(node, ast.Call):
        return set().union(*[down(a) for a in _lr_arguments(f, node)])
    if isinstance(node, ast.UnaryOp):
        return down(node.operand)
    if isinstance(node, ast.IfExp):
        return down(node.body) | down(node.orelse)
    if isinstance(node, (ast.List, ast.Tuple)):  # PiecewiseConstantDecay(values=[peak, peak * 0.1, ...])
        return set().union(*[down(v) for v in node.elts])
    if isinstance(node, ast.BoolOp):
        return set().union(*[down(v) for v in node.values])
    return set()


def _name_powers(f, node, seen, down):
    """A name's assigned values (`lr /= hvd.size()` divides it) and, for a parameter, its arguments."""
    name = dotted(node)
    if not name:
        return down(node.value) if isinstance(node, ast.Attribute) else set()
    if name in seen:
        return set()
    seen.add(name)
    out = set()
    for a in f.s.assignments_to(name):
        got = down(a.node.value)  # assignments_to() gives `a, b = x, y` each its own element
        divided = isinstance(a.node, ast.AugAssign) and isinstance(a.node.op, (ast.Div, ast.FloorDiv))
        out |= {-p for p in got} if divided else got
    if isinstance(node, ast.Name):
        for expr in f.frames_binding(node.id):
            out |= down(expr)
    return out


def _expanded_lr(f, expanded):
    """Optimizer(**kwargs): the learning-rate entry of the expanded mappings (the last one given wins)."""
    found = None
    for m in expanded:
        for key in names.LR_KEYWORDS:
            got = mappings.lookup(f, m, key)
            if got is not None:
                found = got
                break
    return found


def _lr_arguments(f, call):
    """The arguments of a call that carry the LR value: all but step counts and curve shapes."""
    last = f.s.qual(call.func).split(".")[-1]
    params = _SCHEDULE_PARAMS.get(last, ())
    out = [a for i, a in enumerate(call.args)
           if not (i < len(params) and _NOT_LR_ARGS.search(params[i])) and not isinstance(a, ast.Starred)]
    return out + [k.value for k in call.keywords if k.arg and not _NOT_LR_ARGS.search(k.arg)]


def _schedule_scaled(f, node):
    """A local LR schedule (a class or function of this file) whose code scales by hvd.size()."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        return False
    body = f.s.classes.get(node.func.id) or f.s.funcs.get(node.func.id)
    return body is not None and any(f.is_global_size(n) for n in ast.walk(body))


# Schedulers whose function multiplies the optimizer's LR (torch) or returns the LR (Keras' LearningRateScheduler).
_MULTIPLIER_SCHEDULERS = {"LambdaLR": "lr_lambda", "MultiplicativeLR": "lr_lambda", "LearningRateScheduler": "schedule"}


def _with_multiplier_schedulers(f, verdicts):
    """LambdaLR(opt, lr_lambda=f) with f growing with hvd.size(): the scheduler scales the optimizer's LR."""
    for e in f.s.events:
        last = f.s.qual(e.node.func).split(".")[-1]
        if last not in _MULTIPLIER_SCHEDULERS or not e.ctx.reached:
            continue
        key = _MULTIPLIER_SCHEDULERS[last]
        fn = next((k.value for k in e.node.keywords if k.arg == key), None)
        if fn is None and e.node.args:
            fn = e.node.args[1] if last != "LearningRateScheduler" and len(e.node.args) > 1 else e.node.args[0]
        if fn is not None and _function_scales(f, fn):
            ok = Finding(OK, f"the LR factor of {last} grows with hvd.size(): {f.text(e.line)}", e.line)
            return [ok if v.verdict == MISSING else v for v in verdicts]
    return verdicts


def _function_scales(f, fn, depth=0):
    """A lambda, or a function of this file followed through its returns, whose value grows with hvd.size()."""
    if depth > 4:
        return False
    if isinstance(fn, ast.Lambda):
        return _value_scales(f, fn.body, depth)
    if isinstance(fn, ast.Name) and fn.id in f.s.funcs:
        func = f.s.funcs[fn.id]
        # the last return is the value the factor settles at (after a warmup's early returns)
        returns = [n.value for n in ast.walk(func) if isinstance(n, ast.Return) and n.value is not None]
        return bool(returns) and _value_scales(f, max(returns, key=lambda r: r.lineno), depth)
    if isinstance(fn, ast.Name):
        return any(_function_scales(f, a.node.value, depth + 1) for a in f.s.assignments_to(fn.id)
                   if a.node.value is not None)
    return False


def _value_scales(f, expr, depth):
    """hvd.size() multiplies the value, directly or in the return of a local function it calls."""
    if 1 in _size_powers(f, expr) and f.mentions(expr, f.is_global_size):
        return True
    return any(_function_scales(f, n.func, depth + 1) for n in ast.walk(expr) if isinstance(n, ast.Call))


# Horovod's Keras callbacks that set the optimizer's LR themselves from initial_lr (Horovod 0.28.1
# _keras/callbacks.py): the warmup ramps from initial_lr / size to initial_lr and leaves it there; the schedule
# sets initial_lr * multiplier(epoch) from start_epoch on.
_LR_CALLBACKS = ("LearningRateWarmupCallback", "LearningRateScheduleCallback")


def _lr_callbacks(f):
    """Verdicts for the LR callbacks given to fit, and whether one of them sets the LR from the first epoch."""
    out, from_start = [], False
    for e in f.s.events:
        if not f.api(e, *_LR_CALLBACKS) or not e.ctx.reached or not f.flows_to_callbacks(e):
            continue
        kw = {k.arg: k.value for k in e.node.keywords}
        initial = kw.get("initial_lr", e.node.args[0] if e.node.args else None)
        multiplier = kw.get("multiplier", e.node.args[1] if len(e.node.args) > 1 else None)
        start = kw.get("start_epoch", e.node.args[2] if len(e.node.args) > 2 else None)
        name = e.api[1].split(".")[-1]
        from_start |= start is None or isinstance(start, ast.Constant) and start.value == 0
        if initial is None:
            continue
        if 1 in _size_powers(f, initial) and f.mentions(initial, f.is_global_size) or \
                multiplier is not None and (_function_scales(f, multiplier) or _value_scales(f, multiplier, 0)):
            out.append(Finding(OK, f"{name} sets the LR from a scaled initial_lr: {f.text(e.line)}", e.line))
        else:
            out.append(Finding(WRONG, f"{name} at line {e.line} sets the LR from an unscaled initial_lr="
                               f"{ast.unparse(initial)}: the optimizer's LR is overwritten", e.line,
                               f"initial_lr={ast.unparse(initial)} * hvd.size()"))
    return out, from_start


def _adasum(f):
    return any(k.arg == "op" and ast.unparse(k.value).endswith("Adasum") for e in f.s.events
               if f.api(e, *names.WRAPPERS) for k in e.node.keywords)


def _with_lr_setting_schedulers(f, opts, verdicts):
    """OneCycleLR(opt, max_lr=...) / CyclicLR(opt, base_lr, max_lr) set the LR themselves: the optimizer's own lr
    is overwritten, so their arguments decide step 4 for the optimizer they drive, scaled or not."""
    out = list(verdicts)
    for e in f.s.events:
        last = f.s.qual(e.node.func).split(".")[-1]
        if last not in names.LR_OVERWRITING_SCHEDULERS or not e.ctx.reached:
            continue
        verdict = _scheduler_verdict(f, e, last)
        driven = _driven_optimizers(f, e, opts)
        out = [verdict if o in driven else v for o, v in zip(opts, out)] + out[len(opts):]
    return out


def _scheduler_verdict(f, e, last):
    """Every LR argument scaled by hvd.size(): ok; one unscaled (or divided, or rank-dependent): wrong."""
    kw = {k.arg: k.value for k in e.node.keywords}
    for i, key in enumerate(names.LR_OVERWRITING_SCHEDULERS[last]):
        # positional order after the optimizer: OneCycleLR(opt, max_lr), CyclicLR(opt, base_lr, max_lr)
        value = kw.get(key, e.node.args[i + 1] if len(e.node.args) > i + 1 else None)
        if value is None:
            continue
        powers = _size_powers(f, value)
        rank = _size_powers(f, value, lambda n: f.is_rank(n) or f.is_local_rank(n))
        if -1 in powers or rank or not (1 in powers and f.mentions(value, f.is_global_size)):
            return Finding(WRONG, f"{last} at line {e.line} sets the LR from {key}={ast.unparse(value)}, not "
                           "scaled by hvd.size(): it overwrites the optimizer's lr", e.line,
                           f"scale {key} by hvd.size()")
    return Finding(OK, f"{last} sets the LR from an argument scaled by hvd.size(): {f.text(e.line)}", e.line)


def _driven_optimizers(f, e, opts):
    """The optimizer constructions the scheduler's optimizer argument comes from (through names and wrappers);
    all of them when it cannot be traced."""
    arg = e.node.args[0] if e.node.args else next((k.value for k in e.node.keywords if k.arg == "optimizer"), None)
    driven = [] if arg is None else [o for o in opts if f.mentions(arg, lambda n, o=o: n is o.node)]
    return driven or list(opts)


def _hvdkit_scaling(f, call):
    """hk.scale_lr(...). hvdkit's warmup (either framework) ramps up to the optimizer's LR and scales nothing."""
    api = f.s.api(call.func)
    return bool(api) and api[0] == "hvdkit" and api[1] == "scale_lr"
