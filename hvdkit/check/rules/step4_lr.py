"""Step 4: the learning rate scaled by the number of ranks (gradients are averaged)."""
import ast

from hvdkit.check import names
from hvdkit.check.findings import MISSING, OK, UNKNOWN, WRONG, Finding


def optimizers(f):
    return [e for e in f.s.events if names.OPTIMIZER_CLASS.match(f.s.qual(e.node.func)) and "schedule" not in f.s.qual(e.node.func)
            and e.ctx.reached]


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
                           "scaled", strings[0].value.lineno, "build the optimizer with learning_rate=base_lr * hvd.size()")
        return Finding(UNKNOWN, "no optimizer construction found")
    verdicts = [_judge_lr(f, e) for e in opts]
    order = {WRONG: 0, MISSING: 1, UNKNOWN: 2, OK: 3}
    return min(verdicts, key=lambda v: order[v.verdict])


def _judge_lr(f, e):
    kw = {k.arg: k.value for k in e.node.keywords}
    torch_opt = f.s.qual(e.node.func).startswith("torch")
    expr = kw.get("lr", kw.get("learning_rate"))
    if expr is None and len(e.node.args) > (1 if torch_opt else 0):
        expr = e.node.args[1 if torch_opt else 0]
    if "lr" in kw and not torch_opt:
        f.notes.append(f"line {e.line}: `lr=` is `learning_rate=` in Keras 3 (a TypeError there)")
    if expr is None:
        return Finding(MISSING, f"optimizer at line {e.line} uses its default LR, not scaled by hvd.size()", e.line,
                       "pass learning_rate=base_lr * hvd.size()")
    hk = lambda n: isinstance(n, ast.Call) and _hvdkit_scaling(f, n)  # noqa: E731
    if f.mentions(expr, hk):
        return Finding(OK, f"scaled by hvdkit: {f.text(e.line)}", e.line)
    divides = lambda n: isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Div, ast.FloorDiv)) and \
        f.mentions(n.right, f.is_size)  # noqa: E731
    if f.mentions(expr, divides):
        return Finding(WRONG, f"LR divided by hvd.size() (line {e.line}): it must grow with the global batch", e.line,
                       "multiply the base LR by hvd.size()")
    if f.mentions(expr, f.is_rank) or f.mentions(expr, f.is_local_rank):
        return Finding(WRONG, f"LR depends on the rank (line {e.line}): ranks step with different LRs", e.line,
                       "scale by hvd.size(), not hvd.rank()")
    if f.mentions(expr, f.is_size):
        return Finding(OK, f"scaled by hvd.size(): {f.text(e.line)}", e.line)
    return Finding(MISSING, f"LR not scaled by the number of ranks: {f.text(e.line)}", e.line,
                   "multiply the base LR by hvd.size() (and warm up over the first epochs)")


def _hvdkit_scaling(f, call):
    """hk.scale_lr(...). hvdkit's warmup (either framework) ramps up to the optimizer's LR and scales nothing."""
    api = f.s.api(call.func)
    return bool(api) and api[0] == "hvdkit" and api[1] == "scale_lr"
