"""Static rules for steps 5-8: gradient averaging, broadcast, checkpoints, metrics; and the notes."""
import ast
import re

from hvdkit.check import MISSING, OK, UNKNOWN, WRONG, Finding
from hvdkit.check.script import assigned_name, dotted, result_discarded
from hvdkit.check.values import RANK, truthy

_WRAPPERS = ("DistributedOptimizer", "distributed_optimizer", "DistributedGradientTape", "allreduce_gradients",
             "PartialDistributedGradientTape")
_SUMMING = re.compile(r"^(Sum|sum)$")


def optimizer(f):
    wraps = [e for e in f.s.events if f.api(e, *_WRAPPERS) and e.ctx.reached]
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
        if (op is not None and _SUMMING.match(ast.unparse(op).split(".")[-1])) or (
                isinstance(kw.get("average"), ast.Constant) and kw["average"].value is False):
            return Finding(WRONG, f"gradients summed, not averaged (line {e.line}): the step is hvd.size() times too "
                           "large on top of the LR scaling", e.line, "use op=hvd.Average (the default)")
        if "average" in kw:
            f.notes.append(f"line {e.line}: `average=` is deprecated in Horovod: use op=hvd.Average")
        unused = _unwrapped_used(f, e)
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


_BROADCASTS = ("broadcast_parameters", "broadcast_optimizer_state", "broadcast_variables", "broadcast_global_variables",
               "broadcast_state", "BroadcastGlobalVariablesCallback", "BroadcastGlobalVariablesHook", "BroadcastCallback",
               "broadcast_object", "broadcast", "broadcast_")
_CALLBACKS = ("BroadcastGlobalVariablesCallback", "BroadcastCallback")
_ELASTIC = ("TorchState", "TensorFlowKerasState", "KerasState", "TensorFlowState", "ObjectState")


def broadcast(f):
    casts = [e for e in f.s.events if f.api(e, *_BROADCASTS) and not f.api(e, "broadcast_optimizer_state")]
    opt_only = [e for e in f.s.events if f.api(e, "broadcast_optimizer_state")]
    elastic = [e for e in f.s.events if f.api(e, *_ELASTIC)]
    if elastic and any(e.api[1] == "elastic.run" for e in f.s.api_calls("run")) or elastic and any(
            "elastic.run" in ast.unparse(d) for node in ast.walk(f.s.tree)
            for d in getattr(node, "decorator_list", [])):
        return Finding(OK, f"elastic state synchronised by hvd.elastic.run: {f.text(elastic[0].line)}", elastic[0].line)
    opt_only += [e for e in casts if _optimizer_only(f, e)]
    casts = [e for e in casts if not _optimizer_only(f, e)]
    if not casts:
        e = opt_only[0] if opt_only else None
        why = "only the optimizer state is broadcast: replicas keep their own initial weights" if e else \
            "no broadcast from rank 0: replicas start from different weights and never agree"
        return Finding(MISSING if not e else WRONG, why, e.line if e else None,
                       "hvd.broadcast_parameters(model.state_dict(), root_rank=0) / hvd.broadcast_variables(model."
                       "variables, 0) / callbacks=[hvd.callbacks.BroadcastGlobalVariablesCallback(0)]")
    problems = []
    for e in casts:
        p = _broadcast_problem(f, e)
        if p is None:
            return Finding(OK, f.text(e.line), e.line)
        problems.append(p)
    order = {WRONG: 0, UNKNOWN: 1}
    return min(problems, key=lambda p: order[p.verdict])


def _optimizer_only(f, e):
    arg = ast.unparse(e.node.args[0]) if e.node.args else ""
    return bool(re.search(r"opt", arg)) and not re.search(r"model|variables\b|weights", arg.replace("opt.variables", ""))


def _broadcast_problem(f, e):
    if not e.ctx.reached:
        return Finding(WRONG, f"the broadcast at line {e.line} is in a function that nothing calls", e.line,
                       "call it before the first step")
    if f.api(e, *_CALLBACKS) and not f.flows_to_callbacks(e):
        return Finding(WRONG, f"the broadcast callback made at line {e.line} is never passed to fit(callbacks=...)",
                       e.line, "add it to the callbacks list given to model.fit")
    kind = f.guard_kind(e)
    if kind == "rank":
        return Finding(WRONG, f"the broadcast at line {e.line} runs on some ranks only: a collective every rank must "
                       "call (the others hang or never receive)", e.line, "call it on every rank")
    if kind == "never":
        test = next((ast.unparse(t) for (t, _), _, _ in e.ctx.guards), "")
        return Finding(WRONG, f"the broadcast at line {e.line} is behind `{test}`, which is never true on the first "
                       "step: replicas keep different weights", e.line,
                       "make the condition true on the first step (e.g. pass batch == 0), or broadcast before the loop")
    after = _after_training(f, e)
    if after is not None:
        return Finding(WRONG, f"the broadcast at line {e.line} comes after the training loop (step at line "
                       f"{after.line}): replicas trained from different weights", e.line,
                       "broadcast right after building the model and optimizer, before the first step")
    if kind == "unknown":
        test = " and ".join(ast.unparse(t) for (t, _), _, _ in e.ctx.guards)
        return Finding(UNKNOWN, f"the broadcast at line {e.line} is behind `{test}`: cannot tell if it is true on the "
                       "first step", e.line, "run `hvdkit check --run` to see")
    return None


def _after_training(f, e):
    """A step that ran earlier in a loop the broadcast is not part of, in the same walk of the script."""
    for s in f.steps:
        if s.order > e.order or not same_walk(s, e):
            continue
        outer = [lp for lp in s.ctx.loops if not any(lp is m for m in e.ctx.loops)]
        if any(isinstance(lp, (ast.For, ast.While, ast.AsyncFor)) for lp in outer):
            return s
    return None


def same_walk(a, b):
    """Both events come from the same walk of their outermost function (not two separate calls of main)."""
    fa, fb = a.ctx.frames, b.ctx.frames
    return (not fa and not fb) or (bool(fa) and bool(fb) and fa[0] is fb[0]) or not fa or not fb


_SAVES = ("save", "save_weights", "save_model", "write", "ModelCheckpoint", "BackupAndRestore", "save_state_dict")
_NOT_SAVES = ("numpy", "np", "plt", "matplotlib", "json", "pickle", "fig", "f", "file", "sys", "os")


def checkpoint(f):
    hk = [e for e in f.s.events if f.api(e, "Checkpointer")]
    if hk:
        return Finding(OK, f"hvdkit's Checkpointer writes on rank 0 only: {f.text(hk[0].line)}", hk[0].line)
    saves = []
    for e in f.s.events:
        q = f.s.qual(e.node.func)
        parts = q.split(".")
        if parts[-1] not in _SAVES or not e.ctx.reached:
            continue
        if parts[-1] == "write" and "heckpoint" not in ast.unparse(e.node.func):
            continue
        if parts[0] in _NOT_SAVES and q != "torch.save" or parts[0] == "torch" and parts[-1] != "save":
            continue
        if parts[-1] in ("ModelCheckpoint", "BackupAndRestore") and not f.flows_to_callbacks(e):
            continue
        saves.append(e)
    if not saves:
        return Finding(MISSING, "no checkpoint is written: a job killed at its time limit loses everything", None,
                       "save every epoch on rank 0: if hvd.rank() == 0: torch.save(...) / model.save(...)")
    for e in saves:
        guards = f.rank_guards(e)
        if not guards:
            return Finding(WRONG, f"every rank writes the checkpoint at line {e.line}: ranks overwrite each other",
                           e.line, "write on rank 0 only: if hvd.rank() == 0: ...")
        if any(re.search(r"local_rank", ast.unparse(t)) for t, _ in guards):
            return Finding(WRONG, f"the checkpoint at line {e.line} is written by local rank 0: one writer per node, "
                           "which collide on a shared file system", e.line, "guard with hvd.rank() == 0")
        every = _every_step(f, e)
        if every is not None:
            return Finding(WRONG, f"the checkpoint at line {e.line} is written at every step (the loop of the step at "
                           f"line {every.line})", e.line, "save once per epoch (or every N steps)")
    return Finding(OK, f"rank 0 writes: {f.text(saves[0].line)}", saves[0].line)


def _every_step(f, e):
    for s in f.steps:
        if not s.ctx.loops or getattr(s.node.func, "attr", "") in ("fit", "fit_generator"):
            continue
        inner = s.ctx.loops[-1]
        idx = next((i for i, l in enumerate(e.ctx.loops) if l is inner), None)
        if idx is None or len(e.ctx.loops) != idx + 1:
            continue
        inside = [(t, fr) for (t, _), fr, depth in e.ctx.guards if depth > idx]
        if all(truthy(f.ev.value(t, fr, e)) == RANK for t, fr in inside):
            return s
    return None


_METRIC_AVG = ("average_metrics", "MetricAverageCallback", "allreduce", "allreduce_", "grouped_allreduce",
               "allgather", "allgather_object", "metric_average")
_REPORT = re.compile(r"loss|acc|metric|score|error|top1|top5", re.I)


def metrics(f):
    avgs = [e for e in f.s.events if f.api(e, *_METRIC_AVG) and not re.search(r"grad", ast.unparse(e.node), re.I)]
    for e in avgs:
        if f.api(e, "MetricAverageCallback") and not f.flows_to_callbacks(e):
            return Finding(WRONG, f"MetricAverageCallback made at line {e.line} is never passed to fit", e.line,
                           "add it to fit(callbacks=[...]), before other metric-based callbacks")
        if f.rank_guards(e):
            return Finding(WRONG, f"metrics averaged at line {e.line} on some ranks only: the collective hangs or "
                           "mixes with others", e.line, "average on every rank, then print on rank 0")
        kw = {k.arg: ast.unparse(k.value) for k in e.node.keywords}
        if _SUMMING.match(kw.get("op", "x").split(".")[-1]) or kw.get("average") == "False":
            if not _divided_later(f, e):
                return Finding(WRONG, f"line {e.line} sums a metric over ranks and reports the sum as its value",
                               e.line, "divide the summed total by the summed count")
        elif f.api(e, "allreduce", "allreduce_") and e.node.args and f.mentions(e.node.args[0], _is_division):
            return Finding(WRONG, f"line {e.line} averages per-rank means: exact only if every rank saw the same "
                           "number of samples (uneven shards, a short last batch, padded samplers)", e.line,
                           "allreduce the (sum, count) pair with op=hvd.Sum, then divide")
    if avgs:
        return Finding(OK, f.text(avgs[0].line), avgs[0].line)
    reports = [e for e in f.s.events if f.s.qual(e.node.func).split(".")[-1] in ("print", "info", "print0", "log", "add")
               and _REPORT.search(ast.unparse(e.node)) and e.ctx.reached]
    if f.fits:
        return Finding(MISSING, "fit's metrics are each rank's own (rank 0's shard in the log)", f.fits[0].line,
                       "callbacks=[hvd.callbacks.MetricAverageCallback(), ...]")
    if reports:
        who = "rank 0's alone" if f.rank_guards(reports[0]) else "each rank's own"
        return Finding(MISSING, f"the metrics reported (line {reports[0].line}) are {who}: never averaged over ranks",
                       reports[0].line, "allreduce (sum, count) pairs, then divide: hvd.allreduce(t, op=hvd.Sum)")
    return Finding(UNKNOWN, "no metric is reported", None, None)


def _is_division(n):
    return isinstance(n, (ast.BinOp, ast.AugAssign)) and isinstance(n.op, (ast.Div, ast.FloorDiv))


def _divided_later(f, e):
    name = assigned_name(e.node)
    parent = getattr(e.node, "parent", None)
    if isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Div):
        return True
    return bool(name) and any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Div) and name in
                              {dotted(x) for x in ast.walk(n)} for n in ast.walk(f.s.tree))


def notes(f):
    """Observations that are not a step's verdict."""
    prints = [e for e in f.s.events if f.s.qual(e.node.func) == "print" and e.ctx.loops and e.ctx.reached
              and not f.rank_guards(e)]
    if prints:
        f.notes.append(f"line {prints[0].line}: printed from every rank inside a loop (hvd.size() copies): "
                       "guard with hvd.rank() == 0")
    calls = [e for e in f.s.events if isinstance(e.node.func, ast.Attribute) and e.node.func.attr == "variables"
             and not e.node.args and "tensorflow" in f.frameworks]
    if calls:
        f.notes.append(f"line {calls[0].line}: `.variables()` fails on stock Keras 3, where variables is a list "
                       "(hvdkit's patched Horovod makes it callable): write `.variables`")
    for e in f.fits:
        if any(k.arg in ("validation_data", "validation_split") for k in e.node.keywords) and not any(
                k.arg == "validation_steps" for k in e.node.keywords):
            f.notes.append(f"line {e.line}: every rank validates on the whole validation set (hvd.size() times the "
                           "work); shard it or pass validation_steps // hvd.size()")
    return f.notes
