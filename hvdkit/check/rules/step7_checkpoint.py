"""Step 7: checkpoints written by rank 0 only, and not at every step."""
import ast
import re

from hvdkit.check import mappings, names
from hvdkit.check.defs import owner_of_arg
from hvdkit.check.facts import handed
from hvdkit.check.findings import MISSING, OK, UNKNOWN, WRONG, Finding
from hvdkit.check.rules.evaluation import READABLE
from hvdkit.check.rules.flags import condition
from hvdkit.check.rules.held import depends_on_rank, imported, origin, sources
from hvdkit.check.rules.models import holds_model_state, is_model
from hvdkit.check.script import dotted, in_handler, loop_bindings, parents, result_discarded
from hvdkit.check.values import RANK, Evaluator, Where, rank_test_off_by_default, truthy


_CHECKPOINT_FILE = re.compile(r"\.(pt|pth|ckpt|h5|keras|tar|bin|pkl|safetensors)$", re.I)
_NOT_CHECKPOINT_FILES = re.compile(r"\.(png|jpe?g|gif|bmp|svg|pdf|csv|txt|json|ya?ml|log|npy|npz)$", re.I)
# TF1 writers of checkpoints that are no save() call: the session saves into checkpoint_dir (on its chief),
# the hook into its first argument.
_SESSION = "MonitoredTrainingSession"
_TF1_WRITERS = (_SESSION, "CheckpointSaverHook")


def judge(f):
    hk = [e for e in f.s.events if f.api(e, "Checkpointer")]
    if hk:
        return Finding(OK, f"hvdkit's Checkpointer writes on rank 0 only: {f.text(hk[0].line)}", hk[0].line)
    saves = [e for e in f.s.events if is_checkpoint(f, e)]
    if not saves:
        return _unread_writers(f) or Finding(
            MISSING, "no checkpoint is written: a job killed at its time limit loses everything", None, _missing_fix(f))
    unknown = None
    events = saves + _copies(f, saves)
    verdicts = [_writers(f, e) for e in events]
    # a hook walked where its object is made (its `trainer` parameter unbound) and again where the trainer
    # calls it (bound): the walk that sees the argument says who writes
    seen_rank0 = {id(e.node) for e, (who, _) in zip(events, verdicts) if who == "rank0"}
    for e, (who, why) in zip(events, verdicts):
        if who == "unknown" and id(e.node) in seen_rank0 or who == "shards":
            continue  # (shards: each rank writes files of its own, no file written twice)
        if who == "every" and id(e.node) in seen_rank0 and _dispatched(f, e):
            continue  # a hook added to the list on rank 0 only: the trainer's loop over the list cannot see that
        what = "the checkpoint" if e in saves else f"a copy of the checkpoint ({f.text(e.line)[:50]})"
        if who == "every":
            return Finding(WRONG, f"{condition(f, e)}every rank writes {what} at line {e.line}{why}: ranks overwrite "
                           "each other", e.line, "write on rank 0 only: if hvd.rank() == 0: ...")
        if who == "local":
            return Finding(WRONG, f"{what[0].upper()}{what[1:]} at line {e.line} is written by local rank 0: one "
                           "writer per node, which collide on a shared file system", e.line,
                           "guard with hvd.rank() == 0")
        if who == "unknown" and unknown is None:
            unknown = Finding(UNKNOWN, f"cannot tell which ranks write {what} at line {e.line}: {why}", e.line,
                              "run `hvdkit check --run` to see")
        if e not in saves:
            continue
        hang = _collective_on_rank0(f, e) if who == "rank0" else None
        if hang is not None:
            return Finding(WRONG, f"line {hang.line} runs {hang.api[1]} while rank 0 alone computes what it writes "
                           f"at line {e.line}: the other ranks never join the collective, and the job hangs",
                           hang.line, "compute it on every rank before the rank-0 guard, then write on rank 0")
        every = _every_step(f, e)
        if every is not None:
            return Finding(WRONG, f"the checkpoint at line {e.line} is written at every step (the loop of the step at "
                           f"line {every.line})", e.line, "save once per epoch (or every N steps)")
        never = _best_without_validation(f, e)
        if never is not None:
            return never
    if unknown is not None:
        return unknown
    shown = next((e for e, (who, _) in zip(events, verdicts) if who == "rank0" and e in saves), saves[0])
    if all(who == "shards" for e, (who, _) in zip(events, verdicts) if e in saves):
        return Finding(OK, f"each rank writes shards of its own: {f.text(shown.line)}", shown.line)
    return Finding(OK, f"rank 0 writes: {f.text(shown.line)}", shown.line)


def _collective_on_rank0(f, e):
    """A Horovod collective (allreduce, allgather, broadcast) run while the write `e` computes its arguments
    (`torch.save({"ema": synced(ema)})` with synced() allreducing the EMA weights), on rank 0 alone: the
    event, else None."""
    for c in f.s.events:
        if c.api and c.api[1].split(".")[-1] in names.COLLECTIVES and c.ctx.reached and f.inside(c, e.node):
            r = f.runs(c, first_step=False)
            if r.rank1 is False and r.rank0 is not False:
                return c
    return None


def _dispatched(f, e):
    """The walk reached `e` through a trainer's call over its hooks (Script._dispatched)."""
    return any(fr.call is not None and id(fr.call) in f.s.dispatch_loops for fr in e.ctx.frames)


def _unbound_attribute(f, test, frame=None):
    """An attribute of a parameter that this walk's frame (`frame`, else any walked call) does not bind
    (`trainer.is_chief` in a callback's `on_epoch_end(self, trainer, logs)`, entered where the callback is
    made): the object, and so whether the flag tells ranks apart, is not seen. None when the test reads
    none."""
    for n in ast.walk(test):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id not in ("self", "cls"):
            defs = f.s.reaching(n.value)
            if not defs or not all(isinstance(d, ast.arg) for d in defs):
                continue
            if frame is not None and frame.func is owner_of_arg(defs[0]):
                b = frame.bindings.get(n.value.id)
                bound = b is not None and not b.default
            else:
                bound = bool(f.frames_binding(n.value))
            if not bound:
                return n
    return None


def _writers(f, e):
    """('rank0' | 'local' | 'every' | 'unknown', why): which ranks run a write, from the conditions around
    it (those it shares with the training steps decide whether the script trains, not who writes). A
    condition that tells ranks apart, by its value on rank 0 and rank 1 or by data flow from the rank, makes
    it rank 0's; one on the local rank alone, one per node; none, every rank (a condition on a flag or a
    constant holds alike on every rank); a condition read from code the pass cannot read, cannot tell."""
    if _session_off_rank1(f, e):
        return "rank0", ""
    skip = f.path_guards(e)
    guards = [g for g in e.ctx.guards if not any(g.test is t and g.branch == b for t, b in skip)]
    runs = f.runs(e, first_step=False)
    alike = [g for g in guards if _alike_on_ranks(f, g, e)]  # `is_main_process()` of an uninitialised DDP
    # `if step % k == 0 or hvd.rank() == 0:` holds on every rank when the rank-free alternative does: one that
    # changes as the loops run (not `not args.distributed or hvd.rank() == 0`, alike on every step)
    either = next(((g, alt) for g in guards if g.branch and isinstance(g.test, ast.BoolOp) and isinstance(
        g.test.op, ast.Or) for alt in g.test.values if _periodic(alt, e) and not depends_on_rank(f, alt, e)), None)
    if either is not None and any(depends_on_rank(f, alt, e) for alt in either[0].test.values):
        return "every", f" (`{ast.unparse(either[0].test)[:70]}`: whenever `{ast.unparse(either[1])[:40]}` holds)"
    by_rank = [g for g in guards if depends_on_rank(f, g.test, e) and g not in alike]
    by_local = [g for g in guards if depends_on_rank(f, g.test, e, local=True) and g not in alike]
    if by_local and not by_rank:
        return "local", ""
    offs = [rank_test_off_by_default(f.s, e, g) for g in by_rank]
    if by_rank and all(offs):
        options = ", ".join(dict.fromkeys(o for off in offs for o in off))
        return "every", f" (by default: {options} off, its rank test is never reached)"
    if by_rank or runs.rank1 is False and runs.rank0 is not False or _kept_on_rank0(f, e):
        return "rank0", ""
    if _own_shards(f, e):
        return "shards", ""
    unread = next((c for g in guards for part in _conjuncts(g.test) if not _best_so_far(f, part, e)
                   for c in _unread_calls(f, part, e)), None)
    if unread is not None:
        return "unknown", f"its condition reads {ast.unparse(unread)[:60]}, whose code is not read"
    handed = next((n for g in guards for part in _conjuncts(g.test) if not _best_so_far(f, part, e)
                   for n in [_unbound_attribute(f, part, g.frame)] if n is not None), None)
    if handed is not None:
        return "unknown", (f"its condition reads `{ast.unparse(handed)}`, of an object `{handed.value.id}` that no "
                           "call read hands in (a hook's argument, given by code that calls it by name)")
    writer = _unread_writer(f, e)
    if writer is not None:
        return "unknown", f"the writer, {f.describe(writer, e.node)}, is code not read: it may write on rank 0 only"
    wrapped = next(((fr.func, d) for fr in e.ctx.frames for d in getattr(fr.func, "decorator_list", ())
                    if f.s.of_unread_project_code(d)), None)
    if wrapped is not None:  # `@rank0_only` of a module that is not there: its wrapper may call it on rank 0 only
        return "unknown", (f"`{wrapped[0].name}` is decorated by `{ast.unparse(wrapped[1])}`, whose code is not read: "
                           "it may call it on rank 0 only")
    rank1 = f.runs(e, first_step=False).rank1
    constant = [g for g in guards if _mentions_name(g.test) and
                (rank1 is True or truthy(f.ev.value(g.test, g.frame, e)) is True)]
    return "every", f" (`{ast.unparse(constant[0].test)}` holds on every rank)" if constant else ""


def _periodic(test, e):
    """The test reads a target of a loop the event runs in, or takes a remainder (`step % k == 0`)."""
    looped = {n.id for lp in e.ctx.loops for b in loop_bindings(lp) for n in ast.walk(b.target)
              if isinstance(n, ast.Name)}
    return any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod) or isinstance(n, ast.Name) and n.id in looped
               for n in ast.walk(test))


def _own_shards(f, e):
    """The write is in a loop that strides over shards by rank (`for sh in range(hvd.rank(), n, hvd.size())`)
    and its path reads the loop's variable: each rank writes its own files, no two ranks the same one."""
    path = _path_argument(e.node, f.s.qual(e.node.func))
    if path is None:
        return False
    for lp in e.ctx.loops:
        it = getattr(lp, "iter", None)
        if not (isinstance(lp, ast.For) and isinstance(lp.target, ast.Name) and isinstance(it, ast.Call) and
                f.s.qual(it.func) == "range" and len(it.args) == 3):
            continue
        start, step = it.args[0], it.args[2]
        if f.mentions(start, f.is_rank) and f.mentions(step, f.is_size) and not f.mentions(step, f.is_rank) and \
                any(isinstance(n, ast.Name) and n.id == lp.target.id and lp.target in (f.s.reaching(n) or ())
                    for n in ast.walk(path)):
            return True
    return False


def _kept_on_rank0(f, e):
    """The writer (a Keras callback made on every rank) is handed, in a list, to a function of the project that
    gives it back on rank 0 alone: `return callbacks if is_chief() else []`, or `if not is_chief(): return
    []` before `return callbacks` (a `chief_only([...])` filter)."""
    child = e.node
    for p in parents(e.node):
        if isinstance(p, ast.stmt):
            return False
        if isinstance(p, ast.Call) and child in p.args:
            func = f.s.defined(p.func) if isinstance(p.func, (ast.Name, ast.Attribute)) else None
            if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) and p.args.index(child) < len(func.args.args):
                return _gives_back_on_rank0(f, func, func.args.args[p.args.index(child)].arg, e)
        child = p
    return False


def _gives_back_on_rank0(f, func, param, e):
    """Every return of `func` that gives `param` back is chosen by a test of the rank (its conditional
    expression's, or an earlier `if <test>: return ...`), and one return gives something else."""
    def gives(node):
        return node is not None and any(isinstance(n, ast.Name) and n.id == param for n in ast.walk(node))
    returns = [r for r in ast.walk(func) if isinstance(r, ast.Return)]
    if not any(gives(r.value) for r in returns):
        return False
    for r in returns:
        v = r.value
        if isinstance(v, ast.IfExp) and gives(v.body) != gives(v.orelse):
            if not depends_on_rank(f, v.test, e):
                return False
        elif gives(v):
            early = [st for st in func.body if isinstance(st, ast.If) and st.lineno < r.lineno and
                     any(isinstance(x, ast.Return) and not gives(x.value) for x in st.body)]
            if not any(depends_on_rank(f, st.test, e) for st in early):
                return False
    return True


def _alike_on_ranks(f, g, e):
    """The guard holds, known, on rank 0 and rank 1 alike (a DDP helper's `get_rank() == 0` when
    torch.distributed is never initialised: 0 on every rank), whatever rank-named calls it is made of. (One
    false on both, a switch that is off, leaves the rank test in it to say whose write it would be.)"""
    values = [truthy(Evaluator(f.s, Where(r, False)).value(g.test, g.frame, e)) for r in (0, 1)]
    return values[0] is True and values[1] is True


def _unread_writer(f, e):
    """The Unread whose code the write `e` runs, when that code could write on rank 0 only by itself
    (Facts.acts_itself): `save_checkpoint(...)` of a module that is not there, `saver.save(...)` of an object
    such code made. A model's own method (`net.save(path)` of a Keras model an absent module built) is the
    framework's."""
    u = f.unread_code(e.node)
    if u is None or not f.acts_itself(u, 7):
        return None
    if e.node is not u.event.node and is_model(f, e.node.func.value, e) and not (
            u.kind != "library" and _given_a_model(f, u.event)):
        return None  # (a library's call given the model, `amp.initialize(model, opt)`, gives it back)
    return u


def _given_a_model(f, made):
    """The project's absent code's object is made from a model (`Trainer(model, opt)`): it holds one, and its
    `fit` and `save` are its own code, not the framework's model methods."""
    return any(isinstance(a, (ast.Name, ast.Attribute)) and is_model(f, a, made) for a in handed(made.node))


def _unread_writers(f):
    """Finding(cannot tell) when no save is seen but code that could not be read could write the checkpoint:
    a call into it (or a method of an object it made) that is handed a model's or optimizer's state and more
    (where to write it), and whose result is not used, so that it works by what it does with that state
    (`export_model(model, path)`, `save_on_master(state, path)`; not `sync_parameters(model.state_dict())`,
    which has nowhere to write); or one whose value ends up in fit's callbacks (a ModelCheckpoint among
    them). A library's call counts for the state only when it knows Horovod (Facts.acts_itself)."""
    calls = []
    for e in f.s.events:
        if not e.ctx.reached or f.off_path(e) or f.local_function(e.node):
            continue
        u = f.unread_code(e.node)
        if u is None:
            continue
        state = [holds_model_state(f, a, e) for a in handed(e.node)]
        if e.node is u.event.node and f.feeds_callbacks(u) or result_discarded(e.node) and f.acts_itself(u, 7) \
                and any(state) and not all(state) or _saver_object(f, e, u):
            calls.append((e.node, u))
    return f.cannot_tell("a checkpoint", calls)


def _saver_object(f, e, u):
    """Code of the project that is not there, given a checkpoint file's path: a method of an object it made
    with the path (`EarlyStopper(os.path.join(out, "best.pt"), patience)`) or a folder (`BestTracker(cfg.out_dir)`,
    _a_folder), handed the model or its state
    (`stopper.step(score, model)`), whatever it returns; or a call handed the path itself whose result is
    unused (`save_on_rank0(state.model, args.ckpt)` with --ckpt defaulting to "twotower.pt"). It may write
    the checkpoint."""
    if u.kind not in ("absent", "unparsed"):
        return False
    if e.node is u.event.node:
        return result_discarded(e.node) and any(_checkpoint_path(f, a, e) for a in handed(e.node))
    if not any(is_model(f, a, e) or holds_model_state(f, a, e) for a in handed(e.node)):
        return False
    return any(_checkpoint_path(f, a, u.event) or _a_folder(f, a, u.event) for a in handed(u.event.node))


def _a_folder(f, node, at):
    """The value may name where to write: a path with a folder in it ("runs/best"), or a value the default
    run does not know (`cfg.out_dir` of a config that is not read). `mode="max"` is neither."""
    if is_model(f, node, at) or holds_model_state(f, node, at):
        return False
    v = Evaluator(f.s, Where(0, defaults=True)).value(node, at.ctx.env, at)
    return v is None or isinstance(v, str) and "/" in v and not _NOT_CHECKPOINT_FILES.search(v)


def _checkpoint_path(f, node, at):
    """The value names a checkpoint file by its extension (.pt, .ckpt, .h5...): a literal in it, or its value
    in the default run (an option's declared default)."""
    if any(isinstance(c, ast.Constant) and isinstance(c.value, str) and _CHECKPOINT_FILE.search(c.value)
           for c in ast.walk(node)):
        return True
    v = Evaluator(f.s, Where(0, defaults=True)).value(node, at.ctx.env, at)
    return isinstance(v, str) and bool(_CHECKPOINT_FILE.search(v))


def _conjuncts(test):
    """The parts of an `and` (a single test is its own part)."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return [p for v in test.values for p in _conjuncts(v)]
    return [test]


def _best_so_far(f, test, at):
    """`score > best` (or <, >=, <=) where the code assigns best from score (`best = score`, `best =
    max(best, score)`): it picks the epochs whose score improved, not ranks, whatever code computes the
    score. A helper that tells ranks apart returns a rank or a truth value (`if is_main():`, `get_rank() <
    1`): compared with a value of its own past, it could only pick epochs."""
    if not isinstance(test, ast.Compare) or len(test.ops) != 1 or \
            not isinstance(test.ops[0], (ast.Gt, ast.GtE, ast.Lt, ast.LtE)):
        return False
    sides = [test.left, test.comparators[0]]
    if not all(isinstance(s, (ast.Name, ast.Attribute)) and dotted(s) for s in sides):
        return False
    for score, best in (sides, sides[::-1]):
        for a in f.s.assignments_to(best if isinstance(best, ast.Name) else dotted(best)):
            value = getattr(a.node, "value", None)
            reads = [dotted(n) for n in ast.walk(value) if isinstance(n, (ast.Name, ast.Attribute))] if value else []
            if isinstance(a.node, ast.Assign) and a.ctx.frames == at.ctx.frames and dotted(score) in reads:
                return True
    return False


def _mentions_name(node):
    return any(isinstance(n, ast.Name) for n in ast.walk(node))


def _unread_calls(f, test, at):
    """Calls in a condition (through the names it reads) into code the pass cannot read: a function imported
    from a module that is neither the standard library nor a framework (a project module not analysed, a
    helper library); and the values of the project's own code that is not there (`dist.is_chief` of an absent
    module: Script.of_unread_project_code)."""
    out = []
    for expr, _ in sources(f, test, at):
        for n in ast.walk(expr):
            if getattr(getattr(n, "parent", None), "func", None) is not n and f.s.of_unread_project_code(n):
                out.append(n)
            if not isinstance(n, ast.Call) or f.local_function(n) or f.s.api(n.func):
                continue
            module = imported(f, n.func)
            if module is not None and module.split(".")[0] not in READABLE:
                out.append(n)
    return out


_COPIERS = ("os.system", "subprocess.run", "subprocess.call", "subprocess.check_call", "subprocess.Popen",
            "shutil.copy", "shutil.copy2", "shutil.copyfile", "shutil.copytree", "shutil.move", "os.rename",
            "os.replace", "tensorflow.io.gfile.copy", "tensorflow.io.gfile.rename")


def _copies(f, saves):
    """Writes of a checkpoint's file that are no save call: a copy or move of it (shutil, os.rename, a shell
    `cp`), recognised by its arguments reading the path the checkpoint was saved to."""
    paths = [p for e in saves for p in [_path_argument(e.node, f.s.qual(e.node.func))] if p is not None]
    held = {n for p in paths for n in _path_names(f, p)}
    out = []
    for e in f.s.events:
        if f.s.qual(e.node.func) not in _COPIERS or not e.ctx.reached or not held:
            continue
        if any(n in held for a in e.node.args for n in _path_names(f, a)):
            out.append(e)
    return out


def _path_names(f, expr):
    """The names a path is made of, whole (`a.out`, not `a`; `ckpt_dir`; `C.SAVE_FILE` of the project's config
    module), not the functions and library constants it is made with (`os.path.join`, `os.sep`)."""
    calls = {id(n.func) for n in ast.walk(expr) if isinstance(n, ast.Call)}
    out = set()
    for n in ast.walk(expr):
        whole = isinstance(n, (ast.Name, ast.Attribute)) and not isinstance(getattr(n, "parent", None), ast.Attribute)
        name = dotted(n) if whole and id(n) not in calls else None
        module = f.s.aliases.get(name.split(".")[0]) if name else None
        if name and (module is None or f.s.project.find(module.split(".")[0]) is not None
                     or f.s.project.kind(module) == "absent"):
            out.add(name)
    return out


def _missing_fix(f):
    """The idiom of the script's framework: a TF/Keras script is not told to torch.save."""
    if "tensorflow" in f.frameworks and "torch" not in f.frameworks:
        return ("save every epoch on rank 0: callbacks.append(keras.callbacks.ModelCheckpoint(...)) if "
                "hvd.rank() == 0, or if hvd.rank() == 0: checkpoint.save(...) / model.save(...)")
    if "torch" in f.frameworks and "tensorflow" not in f.frameworks:
        return "save every epoch on rank 0: if hvd.rank() == 0: torch.save({'model': model.state_dict(), ...}, path)"
    return "save every epoch on rank 0: if hvd.rank() == 0: torch.save(...) / model.save(...)"


def is_checkpoint(f, e):
    q = f.s.qual(e.node.func)
    parts = q.split(".")
    if parts[-1] in _TF1_WRITERS and e.ctx.reached and not f.off_path(e):
        return _tf1_writes(f, e.node)
    if q in _STATE_DUMPS and e.ctx.reached and not f.off_path(e) and not in_handler(e):
        # `np.savez(path, **{v.name: v.numpy() for v in model.trainable_variables})`: the weights, by what is
        # written, whatever library writes them
        return any(holds_model_state(f, a, e) for a in e.node.args + [k.value for k in e.node.keywords])
    if parts[-1] not in names.SAVES or not e.ctx.reached or f.local_function(e.node) or f.off_path(e):
        return False
    if in_handler(e):
        return False  # a save in `except KeyboardInterrupt:` is an emergency dump, not the checkpoint
    if parts[-1] == "write" and not _checkpoint_object(f, e.node.func.value if isinstance(e.node.func, ast.Attribute)
                                                      else e.node.func):
        return False
    library = imported(f, e.node.func)  # np.save, plt.savefig...: a library's function, known by its module
    if library and (parts[0] in names.NOT_SAVES and q != "torch.save" or parts[0] == "torch" and parts[-1] != "save"):
        return False
    if parts[-1] in names.SAVE_CALLBACKS and not f.flows_to_callbacks(e):
        return False
    saved = _saves_model_state(f, e, parts[-1])
    if saved is not None:
        return saved
    # Nothing says what is saved: an image, a log or a table written with .save() is told by its path
    path = _path_argument(e.node, q)
    return path is None or not _names_a_file(f, path, set())


# Libraries' writers of arrays and objects: a checkpoint when what they write is a model's state.
_STATE_DUMPS = ("numpy.save", "numpy.savez", "numpy.savez_compressed", "pickle.dump", "joblib.dump")
# Libraries whose objects' save() writes no model: images, figures, tables, arrays, files.
_NOT_MODELS = ("PIL", "matplotlib", "pandas", "numpy", "imageio", "cv2", "open", "io", "json", "csv", "scipy")
# The frameworks' calls that write a model's weights whatever they are given.
_WEIGHT_WRITERS = ("save_weights", "save_pretrained", "ModelCheckpoint", "BackupAndRestore")


def _saves_model_state(f, e, method):
    """What a save writes: True when it is a model's (or optimizer's) state (torch.save of a state_dict or
    a model, a model's own save, a tf.train.Checkpoint, a helper given the model's state), False when it is
    something else the code shows (torch.save of features, an image's save), None when the code does not
    say (the path then tells)."""
    call = e.node
    func = call.func
    if method in _WEIGHT_WRITERS:
        return True
    if isinstance(func, ast.Attribute) and imported(f, func) is None:  # a method of an object: what it is
        receiver = func.value
        if _checkpoint_object(f, receiver) or is_model(f, receiver, e):
            return True
        made = origin(f, receiver, e)
        if made is not None and (f.s.qual(made.func) or "").split(".")[0] in _NOT_MODELS:
            return False
        return None
    # a function given what it writes: torch.save(obj, f), save_model(model, path), a helper's (state, ...) or
    # (path, epoch, model, optimizer): torch.save's object is its first argument, a helper's any of them
    first = f.s.qual(func) == "torch.save"
    given = (call.args[:1] if first else list(call.args)) + [
        k.value for k in call.keywords if k.arg in ("obj", "model", "state") or not first]
    if given and isinstance(given[0], ast.Starred):  # `torch.save(*args, **kwargs)` of a wrapper: its callers'
        return None
    # `def save_ckpt(path, **state): torch.save(state, ...)`: the keywords each walked call gives
    given += [k.value for g in given if isinstance(g, ast.Name) for c in mappings.kwargs_calls(f, g) or ()
              for k in c.keywords]
    return any(holds_model_state(f, g, e) for g in given) if given else None


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
    return f.mentions(node, lambda n: isinstance(n, ast.Call) and re.search(
        r"(^|\.)Checkpoint(Manager)?$", f.s.qual(n.func) or "") is not None)


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
