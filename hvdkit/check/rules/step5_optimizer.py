"""Step 5: gradients averaged over the ranks before every optimizer step."""
import ast
import re

from hvdkit.check import names
from hvdkit.check.findings import MISSING, OK, WRONG, Finding
from hvdkit.check.script import assigned_name, dotted, loop_bindings, parents, result_discarded, sums


def judge(f):
    wraps = [e for e in f.s.events if f.api(e, *names.WRAPPERS) and e.ctx.reached]
    by_hand = gradient_allreduces(f)
    manual = [e for e in f.s.events if f.api(e, "allreduce", "grouped_allreduce", "allreduce_")
              and re.search(r"grad", ast.unparse(e.node), re.I) or e in by_hand]
    if not wraps and not manual:
        return f.unread_finding("gradient averaging", f.hands_horovod) or Finding(
            MISSING, "gradients are never averaged over ranks: each rank steps with its own", None,
            "opt = hvd.DistributedOptimizer(opt) (Keras/torch) or tape = hvd.DistributedGradientTape(tape)")
    for e in wraps:
        kw = {k.arg: k.value for k in e.node.keywords}
        if result_discarded(e.node):
            return Finding(WRONG, f"the wrapper made at line {e.line} is thrown away", e.line,
                           "assign it: opt = hvd.DistributedOptimizer(opt) / tape = hvd.DistributedGradientTape(tape)")
        if sums(e.node) or (isinstance(kw.get("average"), ast.Constant) and kw["average"].value is False):
            return Finding(WRONG, f"gradients summed, not averaged (line {e.line}): the step is hvd.size() times too "
                           "large on top of the LR scaling", e.line, "use op=hvd.Average (the default)")
        typo = _unknown_keyword(f, e)
        if typo:
            return Finding(WRONG, f"line {e.line} passes `{typo}=`, which {e.api[1]} does not take: Horovod raises "
                           "TypeError there, so gradients are never averaged", e.line,
                           f"spell it as in Horovod's signature ({', '.join(names.signature(_horovod_qual(e))[1:])})")
        unused = (_unwrapped_used(f, e) or _unsynchronized_amp(f, e) or _partial_named_parameters(f, e)
                  or _gradient_before_wrapping(f, e))
        if unused:
            return unused
    summed = next((e for e in by_hand if sums(e.node) and not _divided_by_size(f, e.node)), None)
    if summed is not None:
        return Finding(WRONG, f"gradients summed, not averaged (line {summed.line}): the step is hvd.size() times "
                       "too large on top of the LR scaling", summed.line,
                       "use op=hvd.Average (the default), or divide the sum by hvd.size()")
    second = _optimizer_left_unwrapped(f, wraps)
    if second is not None:
        return second
    e = (wraps or manual)[0]
    return Finding(OK, f.text(e.line), e.line)


def _unwrapped_used(f, e):
    """`dtape = DistributedGradientTape(tape)` then `tape.gradient(...)`: the wrapper is never the one used."""
    new, old = assigned_name(e.node), dotted(e.node.args[0]) if e.node.args else None
    if not new or not old or new == old:
        return None
    methods = ("gradient", "step", "apply_gradients", "minimize")
    used = lambda who: [x for x in f.s.events if x.order > e.order and isinstance(x.node.func, ast.Attribute)  # noqa
                        and x.node.func.attr in methods and dotted(x.node.func.value) == who]
    passed = lambda who: [x for x in f.s.events if x.order > e.order and any(  # noqa: E731
        k.arg == "optimizer" and dotted(k.value) == who for k in x.node.keywords)]
    if (used(old) or passed(old)) and not (used(new) or passed(new)):
        x = (used(old) or passed(old))[0]
        return Finding(WRONG, f"line {e.line} wraps `{old}` as `{new}`, but line {x.line} uses the unwrapped `{old}`: "
                       "gradients are not averaged", x.line,
                       f"use `{new}` there (or assign the wrapper back to `{old}`)")
    return None




def _horovod_qual(e):
    """hvdkit re-exports Horovod's modules (hvdkit.torch.hvd is horovod.torch)."""
    q = e.qual
    for mine, theirs in (("hvdkit.torch.hvd.", "horovod.torch."), ("hvdkit.tensorflow.hvd.", "horovod.tensorflow.")):
        if q.startswith(mine):
            return theirs + q[len(mine):]
    return q


def _unknown_keyword(f, e):
    accepted = names.signature(_horovod_qual(e))
    if accepted is None:
        return None
    return next((k.arg for k in e.node.keywords if k.arg and k.arg not in accepted), None)


def _unsynchronized_amp(f, e):
    """AMP's GradScaler, or gradient clipping, on a torch DistributedOptimizer without synchronize(): they read
    the gradients before Horovod has averaged them (Horovod's docs: synchronize(), then skip_synchronize())."""
    if not e.qual.endswith("DistributedOptimizer") or "torch" not in e.qual:
        return None
    opt = assigned_name(e.node)
    if not opt:
        return None
    synced = any(isinstance(x.node.func, ast.Attribute) and x.node.func.attr == "synchronize"
                 and dotted(x.node.func.value) == opt for x in f.s.events)
    if synced:
        return None
    scalers = {assigned_name(x.node) for x in f.s.events if f.s.qual(x.node.func).endswith("GradScaler")} - {None}
    for x in f.s.events:
        func = x.node.func
        if not x.ctx.reached or not isinstance(func, ast.Attribute):
            continue
        via_scaler = dotted(func.value) in scalers and func.attr in ("step", "unscale_") and x.node.args and \
            dotted(x.node.args[0]) == opt
        clipping = func.attr in ("clip_grad_norm_", "clip_grad_value_") and x.order > e.order
        if via_scaler or clipping:
            what = "AMP's GradScaler" if via_scaler else "gradient clipping"
            return Finding(WRONG, f"{what} at line {x.line} reads the gradients of the DistributedOptimizer made at "
                           f"line {e.line} before they are averaged (no {opt}.synchronize())", x.line,
                           f"call {opt}.synchronize() before it, then step inside `with {opt}.skip_synchronize():`")
    return None


def _root(node):
    name = dotted(node.func.value if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) else node)
    return name.split(".")[0] if name else None


def _params_owner(f, node):
    """`model` for model.parameters() / model.named_parameters() (through assignments), else None."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call) and getattr(sub.func, "attr", "") in ("parameters", "named_parameters"):
            return dotted(sub.func.value)
    if isinstance(node, ast.Name):
        for a in f.s.assignments_to(node.id):
            if a.node.value is not None:
                return _params_owner(f, a.node.value)
    return None


def _partial_named_parameters(f, e):
    """DistributedOptimizer(opt, named_parameters=a.named_parameters()) where opt trains b's parameters:
    Horovod allreduces only the parameters it was given names for."""
    named = next((k.value for k in e.node.keywords if k.arg == "named_parameters"), None)
    if named is None or not e.node.args:
        return None
    given = _params_owner(f, named)
    base = e.node.args[0]
    made = [a for a in f.s.assignments_to(dotted(base) or "")
            if a.order < e.order and isinstance(a.node.value, ast.Call)]
    trained = _params_owner(f, made[-1].node.value.args[0]) if made and made[-1].node.value.args else None
    if given and trained and given != trained and not given.startswith(trained + ".") and trained != "self":
        return Finding(WRONG, f"line {e.line} names the parameters of `{given}`, but the optimizer trains those of "
                       f"`{trained}`: the others are never averaged", e.line,
                       f"named_parameters={trained}.named_parameters()")
    return None


def _gradient_before_wrapping(f, e):
    """`grads = tape.gradient(...)` and only then `tape = hvd.DistributedGradientTape(tape)`: those
    gradients were never averaged."""
    if not e.qual.endswith("GradientTape") or not e.node.args:
        return None
    tape = dotted(e.node.args[0])
    early = [x for x in f.s.events if isinstance(x.node.func, ast.Attribute) and x.node.func.attr == "gradient"
             and dotted(x.node.func.value) == tape and x.order < e.order and x.ctx.reached
             and x.ctx.frames[-1:] == e.ctx.frames[-1:]]
    later = [x for x in f.s.events if isinstance(x.node.func, ast.Attribute) and x.node.func.attr == "gradient"
             and x.order > e.order and x.ctx.frames[-1:] == e.ctx.frames[-1:]]
    if early and not later:
        return Finding(WRONG, f"the gradients at line {early[0].line} are taken from the tape before line {e.line} "
                       "wraps it: they are this rank's own", early[0].line,
                       "wrap the tape first, then call .gradient on the wrapper")
    return None


def _optimizer_left_unwrapped(f, wraps):
    """Two torch optimizers (a GAN's), one wrapped: the other steps with this rank's gradients."""
    torch_wraps = [e for e in wraps if "torch" in e.qual and e.qual.endswith("DistributedOptimizer")]
    if not torch_wraps:
        return None
    covered = set()
    for e in torch_wraps:
        covered |= {assigned_name(e.node), dotted(e.node.args[0]) if e.node.args else None}
    from hvdkit.check.rules.step4_lr import optimizers
    for o in optimizers(f):
        name = assigned_name(o.node)
        if not name or name in covered or not f.s.qual(o.node.func).startswith("torch"):
            continue
        steps = [x for x in f.s.events if isinstance(x.node.func, ast.Attribute) and x.node.func.attr == "step"
                 and dotted(x.node.func.value) == name and x.ctx.reached]
        if steps:
            return Finding(WRONG, f"the optimizer `{name}` (line {o.line}) is never wrapped in DistributedOptimizer "
                           f"but steps at line {steps[0].line}: its gradients are this rank's own", o.line,
                           f"{name} = hvd.DistributedOptimizer({name}, named_parameters=...)")
    return None


GRADIENT_CALLS = ("gradient", "compute_gradients", "gradients")  # tape.gradient, opt.compute_gradients, tf.gradients
ALLREDUCES = ("allreduce", "grouped_allreduce", "allreduce_")


def _is_gradient(n):
    """A gradient's source: tape.gradient(...), opt.compute_gradients(...), tf.gradients(...), or p.grad."""
    return isinstance(n, ast.Call) and getattr(n.func, "attr", "") in GRADIENT_CALLS or \
        isinstance(n, ast.Attribute) and n.attr == "grad"


def _gradient_value(f, node, held=None):
    """The expression is (an element of) gradients: through names assigned them, names gradients were
    accumulated into, and the variables of a loop or comprehension over them (`[hvd.allreduce(g) for g in
    grads]`, `for g in grads:`)."""
    held = _holders_of_gradients(f) if held is None else held
    source = lambda n: _is_gradient(n) or isinstance(n, (ast.Name, ast.Attribute)) and dotted(n) in held  # noqa: E731
    if f.mentions(node, source):
        return True
    used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    for p in parents(node):
        for g in loop_bindings(p):
            bound = {n.id for n in ast.walk(g.target) if isinstance(n, ast.Name)}
            if bound & used and f.mentions(g.iter, source):
                return True
    return False


def _holders_of_gradients(f):
    """Names that gradients are accumulated into (`a.assign_add(g)`, `acc[k] += p.grad`, `buf.add_(g)`,
    through `for a, g in zip(accum, grads)`): they hold gradients, and averaging them averages gradients.
    Computed once; repeated until no new name, since one holder may be added into another."""
    if getattr(f, "_gradient_holders", None) is None:
        held = set()
        while True:
            new = set()
            for node in ast.walk(f.s.tree):
                into, value = _accumulation(node)
                if into is not None and _gradient_value(f, value, held):
                    new |= _holder_names(into) - held
            if not new:
                break
            held |= new
        f._gradient_holders = held
    return f._gradient_holders


def _accumulation(node):
    """(what is added into, what is added) for `x.assign_add(v)`, `x.add_(v)`, `x += v`, `x = x + v`.
    `p.add_(g, alpha=-lr)` is an update of the parameters, not an accumulation."""
    if isinstance(node, ast.Call) and getattr(node.func, "attr", "") in ("assign_add", "add_") and node.args \
            and not any(k.arg == "alpha" for k in node.keywords):
        return node.func.value, node.args[0]
    if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add):
        return node.target, node.value
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.BinOp) \
            and isinstance(node.value.op, ast.Add):
        return node.targets[0], node.value
    return None, None


def _holder_names(into):
    """The names an accumulator lives in: `acc[k]` is in acc; a loop variable `a` of `for a, g in
    zip(accum, grads)` (or `for i, a in enumerate(accum)`) is accum."""
    name = _root(into)
    out = set()
    for p in parents(into):
        for g in loop_bindings(p):
            target, it = g.target, g.iter
            if isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(it, ast.Call) \
                    and dotted(it.func) == "enumerate" and it.args:
                target, it = target.elts[1], it.args[0]
            pairs = zip(target.elts, it.args) if isinstance(target, ast.Tuple) and isinstance(it, ast.Call) \
                and dotted(it.func) == "zip" else [(target, it)]
            out |= {_root(i) for t, i in pairs if isinstance(t, ast.Name) and t.id == name} - {None}
    # A loop variable stands for its container only: names are matched file-wide, and a short loop name
    # (`a`) elsewhere in the file (`x + a` in a model builder) is no accumulator.
    return out or {name} - {None}


def _root(node):
    """The name holding a value or its elements: accum for accum[i], accum.values(), self.acc[k]."""
    while isinstance(node, ast.Subscript) or isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr in ("values", "items") and not node.args:
        node = node.value if isinstance(node, ast.Subscript) else node.func.value
    return dotted(node) if isinstance(node, (ast.Name, ast.Attribute)) else None


def gradient_allreduces(f):
    """Gradients averaged by hand, whatever their names: an allreduce given gradients, or map(hvd.allreduce,
    grads). Computed once (step 8 leaves them out of the metrics)."""
    if getattr(f, "_gradient_allreduces", None) is None:
        f._gradient_allreduces = _find_gradient_allreduces(f)
    return f._gradient_allreduces


def _find_gradient_allreduces(f):
    out = []
    for e in f.s.events:
        if f.api(e, *ALLREDUCES):
            arg = e.node.args[0] if e.node.args else next((k.value for k in e.node.keywords if k.arg == "tensor"),
                                                          None)
            if arg is not None and _gradient_value(f, arg):
                out.append(e)
        elif f.s.qual(e.node.func) == "map" and len(e.node.args) > 1 and _names_allreduce(f, e.node.args[0]) \
                and _gradient_value(f, e.node.args[1]):
            out.append(e)
    return out


def _names_allreduce(f, node):
    a = f.s.api(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
    return bool(a) and a[1].split(".")[-1] in ALLREDUCES


def _divided_by_size(f, call):
    """A sum made an average: divided by hvd.size() where it is made, or where its holder is reassigned, or
    scaled by Horovod's prescale_factor / postscale_factor."""
    if any(k.arg in ("prescale_factor", "postscale_factor") for k in call.keywords):
        return True
    by_size = lambda n: isinstance(n, ast.BinOp) and isinstance(n.op, ast.Div) and f.mentions(  # noqa: E731
        n.right, f.is_size) or isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Div) and f.mentions(
        n.value, f.is_size)
    stmt = next((p for p in parents(call) if isinstance(p, ast.stmt)), None)
    if stmt is None or any(by_size(n) for n in ast.walk(stmt)):
        return stmt is not None
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
    held = {dotted(t) for t in targets if t is not None} - {None}
    if any(by_size(a.node) or a.node.value is not None and any(by_size(n) for n in ast.walk(a.node.value))
           for h in held for a in f.s.assignments_to(h) if a.node is not stmt):
        return True
    # or into a new name: grads = [s / hvd.size() for s in summed]
    return any(isinstance(a.node, ast.Assign) and a.node is not stmt and any(by_size(n) for n in ast.walk(a.node.value))
               and {n.id for n in ast.walk(a.node.value) if isinstance(n, ast.Name)} & held for a in f.s.assigns)
