"""Step 7: checkpoints written by rank 0 only, and not at every step."""
import ast
import re

from hvdkit.check import names
from hvdkit.check.findings import MISSING, OK, WRONG, Finding
from hvdkit.check.script import in_handler


_NOT_CHECKPOINT_FILES = re.compile(r"\.(png|jpe?g|gif|bmp|svg|pdf|csv|txt|json|ya?ml|log|npy|npz)$", re.I)


def judge(f):
    hk = [e for e in f.s.events if f.api(e, "Checkpointer")]
    if hk:
        return Finding(OK, f"hvdkit's Checkpointer writes on rank 0 only: {f.text(hk[0].line)}", hk[0].line)
    saves = [e for e in f.s.events if _is_checkpoint(f, e)]
    if not saves:
        return Finding(MISSING, "no checkpoint is written: a job killed at its time limit loses everything", None,
                       "save every epoch on rank 0: if hvd.rank() == 0: torch.save(...) / model.save(...)")
    for e in saves:
        later = f.runs(e, first_step=False)
        if later.rank1 is not False and not f.rank_guards(e) and not _rank_named(f, e):
            return Finding(WRONG, f"every rank writes the checkpoint at line {e.line}: ranks overwrite each other",
                           e.line, "write on rank 0 only: if hvd.rank() == 0: ...")
        if any(re.search(r"local_rank", ast.unparse(g.test)) for g in e.ctx.guards):
            return Finding(WRONG, f"the checkpoint at line {e.line} is written by local rank 0: one writer per node, "
                           "which collide on a shared file system", e.line, "guard with hvd.rank() == 0")
        every = _every_step(f, e)
        if every is not None:
            return Finding(WRONG, f"the checkpoint at line {e.line} is written at every step (the loop of the step at "
                           f"line {every.line})", e.line, "save once per epoch (or every N steps)")
        never = _best_without_validation(f, e)
        if never is not None:
            return never
    return Finding(OK, f"rank 0 writes: {f.text(saves[0].line)}", saves[0].line)


def _is_checkpoint(f, e):
    q = f.s.qual(e.node.func)
    parts = q.split(".")
    if parts[-1] not in names.SAVES or not e.ctx.reached or f.local_function(e.node) or f.off_path(e):
        return False
    if in_handler(e):
        return False  # a save in `except KeyboardInterrupt:` is an emergency dump, not the checkpoint
    if parts[-1] == "write" and not _checkpoint_object(f, e.node.func.value if isinstance(e.node.func, ast.Attribute)
                                                      else e.node.func):
        return False
    if parts[0] in names.NOT_SAVES and q != "torch.save" or parts[0] == "torch" and parts[-1] != "save":
        return False
    if parts[-1] in names.SAVE_CALLBACKS and not f.flows_to_callbacks(e):
        return False
    # an image, a log or a table written with .save(): not the model's state
    files = lambda n: isinstance(n, ast.Constant) and isinstance(n.value, str) and \
        bool(_NOT_CHECKPOINT_FILES.search(n.value.strip()))  # noqa: E731 - a predicate for mentions()
    args = e.node.args + [k.value for k in e.node.keywords]
    return not any(f.mentions(a, files) for a in args[:1])


def _checkpoint_object(f, node):
    """tf.train.Checkpoint(...) (or a manager), directly or through the names it was assigned to."""
    return "heckpoint" in ast.unparse(node) or f.mentions(node, lambda n: isinstance(n, ast.Call) and re.search(
        r"Checkpoint(Manager)?$", f.s.qual(n.func) or "") is not None)


def _rank_named(f, e):
    """A guard on a flag named after rank 0 (`if is_master:`) whose value the script does not give here."""
    return any(re.search(r"rank|master|root|chief|main_proc", ast.unparse(g.test), re.I) for g in e.ctx.guards)


def _best_without_validation(f, e):
    """ModelCheckpoint(save_best_only=True) watching a val_ metric that no fit ever computes: never written."""
    if f.s.qual(e.node.func).split(".")[-1] != "ModelCheckpoint":
        return None
    kw = {k.arg: k.value for k in e.node.keywords}
    best = kw.get("save_best_only")
    if not (isinstance(best, ast.Constant) and best.value is True):
        return None
    monitor = kw.get("monitor")
    watched = monitor.value if isinstance(monitor, ast.Constant) else "val_loss" if monitor is None else None
    if not isinstance(watched, str) or not watched.startswith("val_"):
        return None
    if any(k.arg in ("validation_data", "validation_split") for fit in f.fits for k in fit.node.keywords) or \
            any(len(fit.node.args) > 6 for fit in f.fits):
        return None
    return Finding(WRONG, f"the checkpoint at line {e.line} saves only the best `{watched}`, but fit gets no "
                   "validation data: Keras warns and never writes it", e.line,
                   "pass validation_data to fit, or monitor a training metric ('loss')")


def _every_step(f, e):
    for s in f.steps:
        if not s.ctx.loops or getattr(s.node.func, "attr", "") in ("fit", "fit_generator"):
            continue
        inner = s.ctx.loops[-1]
        idx = next((i for i, loop in enumerate(e.ctx.loops) if loop is inner), None)
        if idx is None or len(e.ctx.loops) != idx + 1:
            continue
        if f.runs(e, first_step=False).rank0 is True:
            return s
    return None
