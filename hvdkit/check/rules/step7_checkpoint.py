"""Step 7: checkpoints written by rank 0 only, and not at every step."""
import ast
import re

from hvdkit.check import names
from hvdkit.check.findings import MISSING, OK, WRONG, Finding
from hvdkit.check.values import RANK, truthy


def judge(f):
    hk = [e for e in f.s.events if f.api(e, "Checkpointer")]
    if hk:
        return Finding(OK, f"hvdkit's Checkpointer writes on rank 0 only: {f.text(hk[0].line)}", hk[0].line)
    saves = []
    for e in f.s.events:
        q = f.s.qual(e.node.func)
        parts = q.split(".")
        if parts[-1] not in names.SAVES or not e.ctx.reached:
            continue
        if parts[-1] == "write" and "heckpoint" not in ast.unparse(e.node.func):
            continue
        if parts[0] in names.NOT_SAVES and q != "torch.save" or parts[0] == "torch" and parts[-1] != "save":
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
        if any(re.search(r"local_rank", ast.unparse(t)) for t in (g.test for g in guards)):
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
        inside = [(g.test, g.frame) for g in e.ctx.guards if g.loop_depth > idx]
        if all(truthy(f.ev.value(t, fr, e)) == RANK for t, fr in inside):
            return s
    return None


