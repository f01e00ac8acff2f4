"""Step 7: checkpoints written by rank 0 only, and not at every step."""
import ast
import re

from hvdkit.check import mappings, names
from hvdkit.check.findings import MISSING, OK, WRONG, Finding
from hvdkit.check.script import dotted, in_handler
from hvdkit.check.values import RANK, Evaluator, Where, truthy


_NOT_CHECKPOINT_FILES = re.compile(r"\.(png|jpe?g|gif|bmp|svg|pdf|csv|txt|json|ya?ml|log|npy|npz)$", re.I)
# TF1 writers of checkpoints that are no save() call: the session saves into checkpoint_dir (on its chief),
# the hook into its first argument.
_SESSION = "MonitoredTrainingSession"
_TF1_WRITERS = (_SESSION, "CheckpointSaverHook")


def judge(f):
    hk = [e for e in f.s.events if f.api(e, "Checkpointer")]
    if hk:
        return Finding(OK, f"hvdkit's Checkpointer writes on rank 0 only: {f.text(hk[0].line)}", hk[0].line)
    saves = [e for e in f.s.events if _is_checkpoint(f, e)]
    if not saves:
        return Finding(MISSING, "no checkpoint is written: a job killed at its time limit loses everything", None,
                       _missing_fix(f))
    for e in saves:
        later = f.runs(e, first_step=False)
        if later.rank1 is not False and not f.rank_guards(e) and not _rank_named(f, e) and not _session_off_rank1(f, e):
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


def _missing_fix(f):
    """The idiom of the script's framework: a TF/Keras script is not told to torch.save."""
    if "tensorflow" in f.frameworks and "torch" not in f.frameworks:
        return ("save every epoch on rank 0: callbacks.append(keras.callbacks.ModelCheckpoint(...)) if "
                "hvd.rank() == 0, or if hvd.rank() == 0: checkpoint.save(...) / model.save(...)")
    if "torch" in f.frameworks and "tensorflow" not in f.frameworks:
        return "save every epoch on rank 0: if hvd.rank() == 0: torch.save({'model': model.state_dict(), ...}, path)"
    return "save every epoch on rank 0: if hvd.rank() == 0: torch.save(...) / model.save(...)"


def _is_checkpoint(f, e):
    q = f.s.qual(e.node.func)
    parts = q.split(".")
    if parts[-1] in _TF1_WRITERS and e.ctx.reached and not f.off_path(e):
        return _tf1_writes(f, e.node)
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
    # an image, a log or a table written with .save(): not the model's state (judged by the path alone)
    path = _path_argument(e.node, q)
    return path is None or not _names_a_file(f, path, set())


def _path_argument(call, q):
    """Where a save writes: torch.save(obj, f) and np.save-like calls take the path second, methods
    (`model.save(path)`, `ckpt.save(prefix)`, `ModelCheckpoint(filepath)`) first."""
    position = 1 if q == "torch.save" else 0
    keyword = next((k.value for k in call.keywords if k.arg in ("f", "filepath", "filename", "path", "file_prefix",
                                                                 "save_directory", "fname")), None)
    return call.args[position] if len(call.args) > position else keyword


def _tf1_writes(f, call):
    """The session is given a checkpoint_dir (and not both save intervals None); the hook always writes."""
    if f.s.qual(call.func).split(".")[-1] != _SESSION:
        return True
    kw = {k.arg: k.value for k in call.keywords}
    where = kw.get("checkpoint_dir", call.args[2] if len(call.args) > 2 else None)
    none = lambda n: isinstance(n, ast.Constant) and n.value is None  # noqa: E731 - a predicate
    every = [kw.get("save_checkpoint_secs"), kw.get("save_checkpoint_steps")]
    return where is not None and not none(where) and not all(none(v) for v in every)


def _session_off_rank1(f, e):
    """Horovod's TF1 idiom: `checkpoint_dir = logdir if hvd.rank() == 0 else None` (or is_chief false off rank 0):
    the session writes on rank 0 only."""
    if f.s.qual(e.node.func).split(".")[-1] != _SESSION:
        return False
    kw = {k.arg: k.value for k in e.node.keywords}
    rank1 = Evaluator(f.s, Where(rank=1, first_step=False))
    chief = kw.get("is_chief")
    if chief is not None and truthy(rank1.value(chief, e.ctx.env, e)) is False:
        return True
    where = kw.get("checkpoint_dir", e.node.args[2] if len(e.node.args) > 2 else None)
    return _none_on_rank1(f, rank1, where, e, 0)


def _none_on_rank1(f, rank1, node, e, depth):
    """`node` is None on rank 1: a None constant, a conditional on the rank whose rank-1 branch is None,
    or a name whose every assignment that runs on rank 1 gives None."""
    if depth > 4 or node is None:
        return False
    if isinstance(node, ast.Constant):
        return node.value is None
    if isinstance(node, ast.IfExp):
        t = truthy(rank1.value(node.test, e.ctx.env, e))
        return t not in (None, RANK) and _none_on_rank1(f, rank1, node.body if t else node.orelse, e, depth + 1)
    name = dotted(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
    sets = [a for a in f.s.assignments_to(name) if a.order < e.order and isinstance(a.node, ast.Assign)] if name \
        else []
    on_rank1 = [a for a in sets if f.runs(a, first_step=False).rank1 is not False]
    return bool(on_rank1) and all(_none_on_rank1(f, rank1, a.node.value, a, depth + 1) for a in on_rank1)


def _names_a_file(f, node, seen):
    """The path names an image, a log or a table (a string ending .png/.csv/...), through the names it was
    assigned; `cfg["ckpt_dir"]` is followed to that key's value only, never to the dict's other strings."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and bool(_NOT_CHECKPOINT_FILES.search(node.value.strip()))
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        value = mappings.lookup(f, node.value, node.slice.value)  # that key's value only
        return value is not None and value is not mappings.UNRESOLVED and _names_a_file(f, value, seen)
    name = dotted(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
    if name:
        if name in seen:
            return False
        seen.add(name)
        if any(a.node.value is not None and _names_a_file(f, a.node.value, seen) for a in f.s.assignments_to(name)):
            return True
        if isinstance(node, ast.Name):  # a parameter: the arguments of the walked calls
            return any(_names_a_file(f, b, seen) for b in f.frames_binding(node.id))
    if isinstance(node, ast.Call) and not _builds_a_path(f, node):
        return False  # a value computed from data (read_csv(...).mean()) is no path, whatever it was read from
    return any(_names_a_file(f, c, seen) for c in ast.iter_child_nodes(node))


def _builds_a_path(f, call):
    """os.path.join, Path(...), str(...), '...'.format(...), p.joinpath / with_suffix / with_name."""
    last = (f.s.qual(call.func) or "").split(".")[-1]
    return last in ("join", "Path", "PurePath", "str", "format", "joinpath", "with_suffix", "with_name", "fspath",
                    "expanduser", "abspath", "realpath", "normpath")


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
