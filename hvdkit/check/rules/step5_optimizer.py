"""Step 5: gradients averaged over the ranks before every optimizer step."""
import ast
import re

from hvdkit.check import names
from hvdkit.check.findings import MISSING, OK, WRONG, Finding
from hvdkit.check.script import assigned_name, dotted, result_discarded


def judge(f):
    wraps = [e for e in f.s.events if f.api(e, *names.WRAPPERS) and e.ctx.reached]
    manual = [e for e in f.s.events if f.api(e, "allreduce", "grouped_allreduce", "allreduce_")
              and re.search(r"grad", ast.unparse(e.node), re.I)]
    if not wraps and not manual:
        return Finding(MISSING, "gradients are never averaged over ranks: each rank steps with its own", None,
                       "opt = hvd.DistributedOptimizer(opt) (Keras/torch) or tape = hvd.DistributedGradientTape(tape)")
    for e in wraps:
        kw = {k.arg: k.value for k in e.node.keywords}
        if result_discarded(e.node):
            return Finding(WRONG, f"the wrapper made at line {e.line} is thrown away", e.line,
                           "assign it: opt = hvd.DistributedOptimizer(opt) / tape = hvd.DistributedGradientTape(tape)")
        op = kw.get("op")
        if (op is not None and names.SUM_OPS.match(ast.unparse(op).split(".")[-1])) or (
                isinstance(kw.get("average"), ast.Constant) and kw["average"].value is False):
            return Finding(WRONG, f"gradients summed, not averaged (line {e.line}): the step is hvd.size() times too "
                           "large on top of the LR scaling", e.line, "use op=hvd.Average (the default)")
        typo = _unknown_keyword(f, e)
        if typo:
            return Finding(WRONG, f"line {e.line} passes `{typo}=`, which {e.api[1]} does not take: Horovod raises "
                           "TypeError there, so gradients are never averaged", e.line,
                           f"spell it as in Horovod's signature ({', '.join(names.signature(_horovod_qual(e))[1:])})")
        unused = _unwrapped_used(f, e) or _unsynchronized_amp(f, e)
        if unused:
            return unused
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
                       "gradients are not averaged", x.line, f"use `{new}` there (or assign the wrapper back to `{old}`)")
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
            return Finding(WRONG, f"{what} at line {x.line} reads the gradients of the DistributedOptimizer made at line "
                           f"{e.line} before they are averaged (no {opt}.synchronize())", x.line,
                           f"call {opt}.synchronize() before it, then step inside `with {opt}.skip_synchronize():`")
    return None
