"""Step 4: the learning rate scaled by the number of ranks (gradients are averaged)."""
import ast
import re

from hvdkit.check import names
from hvdkit.check.findings import MISSING, OK, UNKNOWN, WRONG, Finding


_WRAPPING = re.compile(r"LossScale|Distributed|Lookahead|SWA|Wrapper|Schedule", re.I)


def optimizers(f):
    """Optimizer constructions: the frameworks' own, and other libraries' (BertAdam, snt.optimizers.Adam,
    tfa's AdamW, timm's create_optimizer results are not: no class name) by the shape of their name."""
    out = []
    for e in f.s.events:
        q = f.s.qual(e.node.func)
        if not e.ctx.reached or not q or "schedule" in q or e.api or f.local_function(e.node) or _WRAPPING.search(q):
            continue
        last = q.split(".")[-1]
        factory = names.OPTIMIZER_FACTORY.match(last) and any(k.arg in names.LR_KEYWORDS for k in e.node.keywords)
        if names.OPTIMIZER_CLASS.match(q) or names.FOREIGN_OPTIMIZER.search(q) and last[:1].isupper() or factory:
            out.append(e)
    return out


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
    overwritten = _overwritten_by_scheduler(f)
    if overwritten is not None:
        verdicts.append(overwritten)
    order = {WRONG: 0, MISSING: 1, UNKNOWN: 2, OK: 3}
    return min(verdicts, key=lambda v: order[v.verdict])


def _lr_expr(f, e):
    kw = {k.arg: k.value for k in e.node.keywords}
    expr = next((kw[k] for k in names.LR_KEYWORDS if k in kw), None)
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
    if expr is None:
        if foreign:
            return Finding(UNKNOWN, f"optimizer at line {e.line} uses its library's default LR", e.line)
        return Finding(MISSING, f"optimizer at line {e.line} uses its default LR, not scaled by hvd.size()", e.line,
                       "pass learning_rate=base_lr * hvd.size()")
    hk = lambda n: isinstance(n, ast.Call) and _hvdkit_scaling(f, n)  # noqa: E731 - a predicate for mentions()
    if f.mentions(expr, hk):
        return Finding(OK, f"scaled by hvdkit: {f.text(e.line)}", e.line)
    divides = lambda n: isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Div, ast.FloorDiv)) and \
        f.mentions(n.right, f.is_size)  # noqa: E731 - a predicate for mentions()
    if f.mentions(expr, divides):
        return Finding(WRONG, f"LR divided by hvd.size() (line {e.line}): it must grow with the global batch", e.line,
                       "multiply the base LR by hvd.size()")
    if f.mentions(expr, f.is_rank) or f.mentions(expr, f.is_local_rank):
        return Finding(WRONG, f"LR depends on the rank (line {e.line}): ranks step with different LRs", e.line,
                       "scale by hvd.size(), not hvd.rank()")
    if f.mentions(expr, f.is_global_size) or f.mentions(expr, lambda n: _schedule_scaled(f, n)):
        return Finding(OK, f"scaled by hvd.size(): {f.text(e.line)}", e.line)
    local = lambda n: f.s.is_hvd_query(n, "local_size")  # noqa: E731 - a predicate for mentions()
    if f.mentions(expr, local) and not _adasum(f):
        return Finding(WRONG, f"LR scaled by hvd.local_size() (line {e.line}), the Adasum rule, while gradients are "
                       "averaged over all ranks: on several nodes the LR is too small by the number of nodes", e.line,
                       "scale by hvd.size() (local_size() only with op=hvd.Adasum)")
    return Finding(MISSING, f"LR not scaled by the number of ranks: {f.text(e.line)}", e.line,
                   "multiply the base LR by hvd.size() (and warm up over the first epochs)")


def _schedule_scaled(f, node):
    """A local LR schedule (a class or function of this file) whose code scales by hvd.size()."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        return False
    body = f.s.classes.get(node.func.id) or f.s.funcs.get(node.func.id)
    return body is not None and any(f.is_global_size(n) for n in ast.walk(body))


def _adasum(f):
    return any(k.arg == "op" and ast.unparse(k.value).endswith("Adasum") for e in f.s.events
               if f.api(e, *names.WRAPPERS) for k in e.node.keywords)


def _overwritten_by_scheduler(f):
    """OneCycleLR(opt, max_lr=...) sets the LR itself: the optimizer's scaled lr is overwritten."""
    for e in f.s.events:
        last = f.s.qual(e.node.func).split(".")[-1]
        if last not in names.LR_OVERWRITING_SCHEDULERS or not e.ctx.reached:
            continue
        kw = {k.arg: k.value for k in e.node.keywords}
        for key in names.LR_OVERWRITING_SCHEDULERS[last]:
            value = kw.get(key, e.node.args[1] if key == "max_lr" and len(e.node.args) > 1 else None)
            if value is not None and not f.mentions(value, f.is_global_size):
                return Finding(WRONG, f"{last} at line {e.line} sets the LR from {key}={ast.unparse(value)}, not "
                               "scaled by hvd.size(): the optimizer's scaled lr is overwritten", e.line,
                               f"scale {key} by hvd.size() too")
    return None


def _hvdkit_scaling(f, call):
    """hk.scale_lr(...). hvdkit's warmup (either framework) ramps up to the optimizer's LR and scales nothing."""
    api = f.s.api(call.func)
    return bool(api) and api[0] == "hvdkit" and api[1] == "scale_lr"
