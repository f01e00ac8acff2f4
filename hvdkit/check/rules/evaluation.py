"""What the script evaluates and trains on, by what the code does with the data (step 8 and the notes):
evaluation data is data the model runs on without an optimizer step (a loop that calls the model and takes
no step, `model.evaluate(x)`, `predict`, fit's validation data), training data is what the loops that step
iterate (and fit's x). Whether each rank reads its own part: a partition step 3 recognises on the data's
path, or a data source told the rank (a file named by the rank or local rank); "cannot tell" when the data
comes from code the pass cannot read. What a report prints is a metric when its value comes from the
model's output, a loss, or fit/evaluate's results."""
import ast
import sys
from typing import NamedTuple, Optional

from hvdkit.check import names
from hvdkit.check.defs import chain_root, dotted
from hvdkit.check.rules.held import (depends_on_rank, memo, imported, mutations, never, placement, property_returns,
                                    property_values, reaching, returned, sources)
from hvdkit.check.rules.models import MODEL_METHODS, STATE, is_model
from hvdkit.check.sources import sources as sources_of
from hvdkit.check.script import enclosing_def, environment_step, parents
from hvdkit.check.values import Evaluator, Where, truthy

# Libraries whose calls the pass reads as what they are (a framework's data set does not know the rank unless
# told): the standard library, the frameworks, and the data and ML libraries scripts load data with. A call
# into any other module (the project's own, or a helper library) is code the pass does not read.
READABLE = set(sys.stdlib_module_names) | {
    "torch", "torchvision", "torchaudio", "torchtext", "tensorflow", "tensorflow_datasets", "keras", "tf_keras",
    "numpy", "scipy", "pandas", "sklearn", "PIL", "cv2", "h5py", "yaml", "omegaconf", "transformers", "datasets",
    "tqdm", "horovod", "hvdkit", "mpi4py", "matplotlib", "tensorboard", "tensorboardX", "wandb", "timm"}
_COUNTERS = ("range", "itertools.count", "itertools.repeat", "enumerate", "zip")
# Model methods that run it on data without a step, and fit, whose validation data is evaluated.
_EVALUATING = ("evaluate", "predict", "evaluate_generator", "predict_generator", "test_on_batch",
               "predict_on_batch")


# The frameworks' methods of a model that do not run it on data.
_NOT_FORWARD = STATE + MODEL_METHODS + ("to", "cuda", "cpu", "train", "eval", "apply", "half", "float", "double",
                                        "modules", "children", "named_modules", "requires_grad_", "build", "save",
                                        "summary", "get_layer", "evaluate", "predict", "fit", "fit_generator",
                                        "add_module", "register_buffer", "share_memory", "type", "get_config")


class Evaluation(NamedTuple):
    """The model run on `data` without an optimizer step, at `line` (`event`: a model call of it, or the
    evaluate / fit call); per_rank: each rank reads its own part (True), the same data (False), or cannot
    tell (None)."""
    event: object
    data: ast.expr
    per_rank: Optional[bool]
    line: int
    loop: Optional[ast.AST]


def evaluations(f):
    """The script's evaluations, computed once."""
    return f.memo("evaluations", lambda: _find_evaluations(f))


def _find_evaluations(f):
    out, seen = [], set()
    # loops that train, and loops that act in an environment (a rollout collects experience: no evaluation)
    stepping = set(training_loops(f))
    stepping |= {id(lp) for e in f.s.events if e.ctx.reached and environment_step(e.node) for lp in e.ctx.loops[-1:]}
    for e in f.s.events:
        if not e.ctx.reached or not calls_model(f, e):
            continue
        for lp in reversed(e.ctx.loops):  # the innermost loop around the model's call that iterates
            data = _iterable(lp)
            if data is None:
                continue
            if _counter(f, data):  # for i in range(0, n, bs): model(x[i:i + bs]) reads what it is given
                if _in_training_step(f, e, lp):
                    break  # `for k in range(K): h = model(h)` of a rollout loss the batch loop computes
                data = _fed(e.node) if session_run(f, e.node) else \
                    (e.node.args or [k.value for k in e.node.keywords] or [None])[0]
                if data is None:
                    break
            # once per call that runs the loop: `evaluate(model, loader)` on a shard, then on the whole set
            key = (id(lp), id(running(e, lp)))
            if id(lp) not in stepping and key not in seen:
                seen.add(key)
                where = _in_frame_of(f, e, lp) if data is _iterable(lp) else e
                out.append(Evaluation(e, data, data_per_rank(f, data, where), getattr(lp, "lineno", e.line), lp))
            break
    for e in f.s.events:
        # the model run once on a whole array, in no loop (`pred = model(torch.from_numpy(x_test))` in an
        # evaluate function): an evaluation of that array, counted when a report prints what it computes
        if e.ctx.reached and not _own_loop(f, e) and e.node.args and not isinstance(e.node.args[0], ast.Starred) and \
                calls_model(f, e) and getattr(e.node.func, "attr", "") not in _EVALUATING and \
                not _in_a_training_step(f, e):
            eval_mode = _in_eval_mode(f, e)
            if not eval_mode and not _outside_every_tape(f, e):
                continue
            per_rank = data_per_rank(f, e.node.args[0], e)
            # under no tape, counted only on data alike on every rank: a critic's value of this rank's last
            # observation, fed to the next update, is no evaluation
            if eval_mode or per_rank is False:
                out.append(Evaluation(e, e.node.args[0], per_rank, e.line, None))
    for e in f.s.events:
        attr = getattr(e.node.func, "attr", "")
        if e.ctx.reached and attr in _EVALUATING[:4] and is_model(f, e.node.func.value, e):
            x = e.node.args[0] if e.node.args else next((k.value for k in e.node.keywords if k.arg == "x"), None)
            if x is not None:
                out.append(Evaluation(e, x, data_per_rank(f, x, e), e.line, None))
    for fit in f.fits:
        for v in validation_inputs(fit.node):
            out.append(Evaluation(fit, v, data_per_rank(f, v, fit), fit.line, None))
    return [ev._replace(per_rank=True) if ev.per_rank is False and _outputs_split(f, ev) else ev for ev in out]


def _outputs_split(f, ev):
    """The loop runs the model on the same data on every rank, and then the same function cuts a part by the
    rank out of what it computed (`mine = torch.arange(hvd.rank(), len(queries), hvd.size())`, then
    `queries[mine]`): the metrics it goes on to compute are this rank's part's."""
    func = enclosing_def(ev.loop) if isinstance(ev.loop, (ast.For, ast.AsyncFor, ast.While)) else None
    if func is None:
        return False
    end = ev.loop.end_lineno
    sh = f.shares
    return any(getattr(p.node, "lineno", 0) > end and enclosing_def(p.node) is func for p in sh.parts + sh.eval_parts)


def _own_loop(f, e):
    """A loop of the event's own function (or a comprehension) runs it once per item: not a caller's epoch
    loop, nor an epoch loop of its own (one whose body holds the loop of the training's steps: `for epoch ...:
    for batch ...: opt.step()` then the whole set evaluated once per epoch)."""
    ancestors = {id(p) for p in parents(e.node)}
    if any(isinstance(p, (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)) for p in parents(e.node)):
        return True
    own = [lp for lp in e.ctx.loops if id(lp) in ancestors]
    if not own:
        return False
    inner = own[-1]
    return not any(lp is not inner and id(inner) in {id(p) for p in parents(lp)} for s in f.steps
                   for lp in s.ctx.loops)


def _in_eval_mode(f, e):
    """The model call runs with gradients off or the model in eval mode: inside `with torch.no_grad()` /
    `torch.inference_mode()`, a function decorated with them, after `model.eval()` in the same function, or
    called with Keras's `training=False`."""
    if any(k.arg == "training" and isinstance(k.value, ast.Constant) and k.value.value is False
           for k in e.node.keywords):
        return True
    for p in parents(e.node):
        if isinstance(p, (ast.With, ast.AsyncWith)) and any(
                f.s.qual(i.context_expr.func if isinstance(i.context_expr, ast.Call) else i.context_expr).split(".")[-1]
                in ("no_grad", "inference_mode") for i in p.items):
            return True
        if isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if any(f.s.qual(d.func if isinstance(d, ast.Call) else d).split(".")[-1] in ("no_grad", "inference_mode")
                   for d in p.decorator_list):
                return True
            return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "eval"
                       and not n.args and n.lineno < e.node.lineno for n in ast.walk(p))
    return False


def _outside_every_tape(f, e):
    """In a script that trains by GradientTape (and by nothing else), the model call runs under no tape: not in
    a `with tf.GradientTape()` block, nor in a function called from one (`rel_l2()` computing `model(X_ref)` for
    a log): TensorFlow takes no gradient of it, so it is the model run without a step."""
    trains = training_events(f)
    if not trains or not all(getattr(t.node.func, "attr", "") in ("gradient", "apply_gradients") for t in trains):
        return False
    for node in [e.node] + [fr.call for fr in e.ctx.frames if fr.call is not None]:
        for p in parents(node):
            if isinstance(p, (ast.With, ast.AsyncWith)) and any(
                    f.s.qual(i.context_expr.func if isinstance(i.context_expr, ast.Call) else i.context_expr)
                    .split(".")[-1] == "GradientTape" for i in p.items):
                return False
    return True


def running(event, loop):
    """The frame of the call that runs `loop` where `event` happens inside it; None at the module's level."""
    func = enclosing_def(loop)
    return next((fr for fr in reversed(event.ctx.frames) if fr.func is func), None)


def _in_a_training_step(f, e):
    """The model call is made in the same call of a function, and in the same loops, as a gradient or an
    optimizer step (a training step's `predictions = model(images, training=False)` on its own batch): a
    metric of that batch, not an evaluation. (An evaluation after the loop over batches, in the same
    function, is one.)"""
    frame = e.ctx.frames[-1] if e.ctx.frames else None
    return frame is not None and any(x.ctx.frames and x.ctx.frames[-1] is frame and len(x.ctx.loops) == len(
        e.ctx.loops) and all(a is b for a, b in zip(x.ctx.loops, e.ctx.loops)) for x in training_events(f))


def training_events(f):
    """Optimizer steps, and gradients taken (loss.backward(), tape.gradient: a loop that takes them trains,
    whatever the step is called, `optimizer.apply(grads, vars)` included). Computed once: asked per event."""
    return f.memo("evaluation.training_events", lambda: f.steps + [e for e in f.s.events if e.ctx.reached and (
        getattr(e.node.func, "attr", "") in ("backward", "gradient") or session_run(f, e.node) == "trains")])


def _in_training_step(f, e, lp):
    """The loop `lp` around the model's call runs on every pass of a batch loop of the training: the next loop
    out is the innermost loop around an optimizer's step (or a training event), and no condition inside that
    loop decides whether `lp` runs (a validation every N steps is under one)."""
    loops = list(e.ctx.loops)
    at = loops.index(lp) if lp in loops else 0
    outer = loops[at - 1] if at > 0 else None
    return outer is not None and id(outer) in _innermost_training_loops(f) and \
        not any(g.loop_depth == at for g in e.ctx.guards)


def _innermost_training_loops(f):
    """Ids of the innermost loop around each training event (a batch loop of the training). Computed once."""
    return f.memo("evaluation.innermost_training_loops", lambda: frozenset(
        id(s.ctx.loops[-1]) for s in training_events(f) if s.ctx.loops))


def training_loops(f):
    """Ids of the loops around the training events (training_events): the loops that train. Computed once."""
    return f.memo("evaluation.training_loops", lambda: frozenset(
        id(lp) for s in training_events(f) for lp in s.ctx.loops))


def per_batch(f, e):
    """The event runs once per batch: the innermost of its loops that runs the model or takes a step at its
    own level is reached before any epoch loop around a loop over batches. Loops inside the batch loop that
    do neither (`for met in metric_fns: tracker.update(...)`) still run per batch."""
    loops = [lp for lp in e.ctx.loops if id(lp) not in f.s.dispatch_loops]  # not a loop over a trainer's hooks
    stepped = training_events(f) + _model_calls(f)
    for inner in reversed(loops):
        if any(any(lp is inner for lp in x.ctx.loops[:-1]) for x in training_events(f)):
            return False  # the steps are in a loop inside it: an epoch loop (sample images drawn there are no batch)
        if any(x.ctx.loops and x.ctx.loops[-1] is inner for x in stepped):
            return True
    return False


def _model_calls(f):
    return f.memo("model_calls", lambda: [e for e in f.s.events if e.ctx.reached and calls_model(f, e)])


def validation_inputs(fit):
    """fit's validation data: validation_data, or the training data validation_split takes its tail from."""
    kw = {k.arg: k.value for k in fit.keywords}
    if "validation_data" in kw:
        return [kw["validation_data"]]
    if "validation_split" in kw:
        return fit.args[:1] + [v for k, v in kw.items() if k == "x"]
    return []


def _in_frame_of(f, e, loop):
    """An event of the call that runs `loop` (where its iterable is read): `e` itself, or the call, made from
    that frame, through which the walk reached `e` (`for x, y in val_ds: self.val_step(x, y)`)."""
    frames = e.ctx.frames
    for k in range(len(frames) - 1, -1, -1):
        node = loop
        while node is not None and node is not frames[k].func:
            node = getattr(node, "parent", None)
        if node is None:
            continue
        if k == len(frames) - 1:
            return e
        call = frames[k + 1].call
        return next((x for x in f.s.events if x.node is call and x.ctx.frames == frames[:k + 1]), e)
    return e


def training_data(f):
    """[(data, event)]: what the loops that take optimizer steps iterate, and the data fit trains on."""
    out, seen = [], set()
    for s in f.steps:
        if getattr(s.node.func, "attr", "") in ("fit", "fit_generator"):
            x = s.node.args[0] if s.node.args else next((k.value for k in s.node.keywords if k.arg == "x"), None)
            if x is not None:
                out.append((x, s))
            continue
        for lp in reversed(s.ctx.loops):
            data = _iterable(lp)
            if data is not None and not _counter(f, data):
                if id(lp) not in seen:
                    seen.add(id(lp))
                    out.append((data, _in_frame_of(f, s, lp)))
                break
    return out


def calls_model(f, e):
    """The event runs the model on something: `model(x)`, `model(**batch)`, `model.predict_on_batch(x)`."""
    func = e.node.func
    if session_run(f, e.node) == "evaluates":
        return True
    if isinstance(func, ast.Attribute) and func.attr in _EVALUATING[4:]:
        return is_model(f, func.value, e)
    if isinstance(func, ast.Attribute) and func.attr in _NOT_FORWARD:
        return False  # a method of the model (model.state_dict()), not the model run on data
    return isinstance(func, (ast.Name, ast.Attribute)) and not f.s.api(func) and is_model(f, func, e)


# TensorFlow 1's sessions: what they run is the graph the script built (the model), on the data fed to it.
_SESSIONS = ("Session", "InteractiveSession", "MonitoredSession", "MonitoredTrainingSession",
             "SingularMonitoredSession")


def session_run(f, call):
    """A TF1 session's run() given data (feed_dict): "trains" when what it fetches is made of an optimizer's
    step (`train_op = opt.minimize(loss)`), "evaluates" otherwise (the graph run on the data fed, no step);
    None for anything else (a run without data: initialisers, broadcasts)."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "run") or _fed(call) is None:
        return None
    if not any(isinstance(m, ast.Call) and f.s.qual(m.func).split(".")[-1] in _SESSIONS and
               f.s.qual(m.func).split(".")[0] in ("tensorflow", "tf", "horovod") for m in sources_of(f, [func.value])):
        return None
    fetches = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "fetches"), None)
    steps = {id(s.node) for s in f.steps}
    return "trains" if fetches is not None and f.mentions(fetches, lambda n: id(n) in steps) else "evaluates"


def _fed(call):
    """The data a session's run() is fed: its feed_dict."""
    return call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "feed_dict"),
                                                         None)


def _iterable(loop):
    if isinstance(loop, (ast.For, ast.AsyncFor)):
        return loop.iter
    gens = getattr(loop, "generators", None)
    return gens[0].iter if gens else None


def _counter(f, it):
    """An iterable of counts or constants, not of data: range(n), itertools.count(), a literal list; through
    enumerate / zip, every part of it."""
    if isinstance(it, (ast.Constant, ast.List, ast.Tuple, ast.Set)):
        return True
    if isinstance(it, ast.Call):
        q = f.s.qual(it.func)
        if q in ("enumerate", "zip"):
            return all(_counter(f, a) for a in it.args)
        return q in _COUNTERS
    return False


def data_per_rank(f, node, at):
    """Each rank reads its own part of the data `node` is, where `at` reads it: on the values that reach it
    (through names, parameters and the script's functions' returns), a slice by the rank, a call given the
    rank or local rank (a sampler, shard(), a loader, a file named by the rank: `TFDataset(prefix +
    str(hvd.local_rank()))`) or Horovod's and hvdkit's own partitions -> True; built from code the pass
    cannot read -> None; else False (the same data on every rank)."""
    found = _per_rank(f, _data_sources(f, node, at))
    if found is not False:
        return found
    # A container filled by appends (`out.append((DataLoader(ds, sampler=sampler), sampler))` in a loop over the
    # splits): the element taken is not known, so its parts say it only when they all agree.
    puts = [_per_rank(f, _data_sources(f, v, e)) for expr, a in _data_sources(f, node, at)
            for n in ast.walk(expr) if isinstance(n, ast.Name) for v, e in mutations(f, n, a)]
    return None if None in puts or True in puts and False in puts else True if True in puts else False


def _per_rank(f, found):
    """data_per_rank over [(expr, event)] sources: True, None (made by code the pass cannot read) or False."""
    unread = False
    for expr, a in found:
        cached = {id(x) for c in ast.walk(expr) if isinstance(c, ast.Call) and _cached_download(f, c)
                  for x in ast.walk(c)}
        for n in _taken(f, expr, a):
            if id(n) in cached:
                continue
            if isinstance(n, ast.Subscript) and depends_on_rank(f, n.slice, a):
                return True
            if isinstance(n, ast.Call) and f.s.is_api(n, *names.SELF_PARTITIONING):
                return True  # hk.shard, hvd.elastic.ElasticSampler: they read the rank themselves
            if isinstance(n, ast.Call) and f.s.qual(n.func).split(".")[-1] in names.SAMPLERS and len(n.args) < 2 and \
                    not any(k.arg in ("num_replicas", "rank") for k in n.keywords):
                return True  # torch's DistributedSampler(ds): a part by torch.distributed's own rank
            if not isinstance(n, ast.Call) or f.s.api(n.func):
                continue
            if id(n) in _partitioning_calls(f):
                return True  # `QM9Shards(data_dir, "val")` whose __init__ keeps this rank's files
            if placement(f, n):
                continue  # `x.to(device)` with the device chosen by the local rank: the same data, placed
            # the rank handed to the call may pick the part; to a function of the project read, only where
            # this call uses it (`input_fn(..., ctx, training=False)` reads ctx only under `if training:`)
            handed = n.args + [k.value for k in n.keywords]
            if any((depends_on_rank(f, x, a) or depends_on_rank(f, x, a, local=True) or _reads_rank(f, x)) and
                   not _held_by_some(f, x) and not _unused_here(f, n, x) for x in handed):
                return True
            module = None if f.local_function(n) else imported(f, n.func)
            unread |= module is not None and module.split(".")[0] not in READABLE
    return None if unread else False


def _unused_here(f, call, arg):
    """The walked call of a function of the project binds `arg` to a parameter that this call never reads: every
    reached event of the call that names it sits under a condition false in it (`if training: ds =
    ds.shard(size, rank)` in the call given training=False). Asked for every argument of every call in the
    data's sources: computed once per (call, argument)."""
    return f.memo(("unused here", id(call), id(arg)), lambda: _unused_in_call(f, call, arg))


def _unused_in_call(f, call, arg):
    frames = f.s.frames_of_call(call)
    if not frames:
        return False
    frame = frames[0]
    param = next((name for name, b in frame.bindings.items() if b.expr is arg), None)
    if param is None:
        return False
    uses = [e for e in f.s.events + f.s.assigns if e.ctx.reached and any(fr is frame for fr in e.ctx.frames)
            and any(isinstance(m, ast.Name) and m.id == param for m in ast.walk(e.node))]
    reads = [m for m in ast.walk(frame.func) if isinstance(m, ast.Name) and m.id == param and
             isinstance(m.ctx, ast.Load)]
    # a read no event holds (a closure's, a `with` item's) may run: only events that never run leave it unused
    held = {id(m) for e in uses for m in ast.walk(e.node)}
    return bool(uses) and all(never(f, e) for e in uses) and all(id(m) in held for m in reads)


def _held_by_some(f, x):
    """The rank decides only whether the value is there, not what it is: every value that reaches it is
    `Frames(root, "test") if rank == 0 else None` (rank 0 holds the whole split, the others nothing), an
    element of it, or a count read off it (`len(frames[0])`), so what a rank reads of it is all of it."""
    values = f.origins(x)
    return bool(values) and all(_none_elsewhere(f, v) for v in values)


def _none_elsewhere(f, v):
    if isinstance(v, ast.Call) and f.s.qual(v.func) in ("len", "list", "range"):
        return bool(v.args) and all(_held_by_some(f, a) for a in v.args)
    if isinstance(v, ast.Subscript) and not f.mentions(v.slice, f.is_any_rank):
        return _held_by_some(f, v.value)  # `frames[0]`: an element of it
    if not isinstance(v, ast.IfExp):
        return False
    none = [b for b in (v.body, v.orelse) if isinstance(b, ast.Constant) and b.value is None]
    other = [b for b in (v.body, v.orelse) if not (isinstance(b, ast.Constant) and b.value is None)]
    return len(none) == 1 and not f.mentions(other[0], f.is_any_rank)


def _cached_download(f, call):
    """Keras' `datasets.<name>.load_data(path=...)`: the path names the file the download is cached in, so a
    per-rank path (`path=f"mnist-{hvd.rank()}.npz"`, Horovod's own examples) still gives every rank the whole
    data set."""
    qual = f.s.qual(call.func).split(".")
    return qual[0] in ("tensorflow", "keras", "tf_keras") and "datasets" in qual and qual[-1] == "load_data"


def _ranked_here(f, node, at):
    """The partition `node` depends on the rank (or the local rank) in the walk of `at`."""
    return depends_on_rank(f, node, at) or depends_on_rank(f, node, at, local=True)


def _partitioning_calls(f):
    """ids of the walked calls inside which one of step 3's partitions, by the rank or the local rank, is made
    (a data set class of the project whose __init__ keeps `files[hvd.local_rank()::hvd.local_size()]`): what
    they make is this rank's part."""
    def find():
        sh = f.shares
        out = set()
        for p in sh.parts + sh.eval_parts + sh.local:
            frames = list(p.ctx.frames) if hasattr(p, "ctx") else []
            if not frames:
                # a partition found in the source: the walked assignments that make it (`files = files[r::n]`
                # under `if not keep_all:`, reached in some calls only), else every call of its function (a
                # `return files[i::n]`)
                made = [a for a in f.s.assigns if a.node.value is p.node or a.node.value is not None and any(
                    n is p.node for n in ast.walk(a.node.value))]
                if made:
                    # the calls in which it is a part: a helper that draws from what it is handed
                    # (`streams[rng.integers(n)]`) partitions where it is handed a rank-seeded generator, not
                    # where the evaluation hands it one seeded alike on every rank
                    frames += [fr for a in made if a.ctx.reached and not never(f, a) and _ranked_here(f, p.node, a)
                               for fr in a.ctx.frames]
                else:  # the calls of its function that hand it the rank (or that it needs none from)
                    func = enclosing_def(p.node)
                    calls = {id(fr.call) for fr in f.s.frames if fr.func is func and fr.call is not None}
                    params = {a.arg for a in func.args.args + func.args.kwonlyargs} if func is not None else set()
                    own = not any(isinstance(n, ast.Name) and n.id in params for n in ast.walk(p.node))
                    ranked = lambda a: f.mentions(a, f.is_rank) or f.mentions(a, f.is_local_rank)  # noqa: E731
                    for e in f.s.events:
                        if id(e.node) in calls and e.ctx.reached and (own or any(
                                ranked(a) for a in e.node.args + [k.value for k in e.node.keywords])):
                            out.add(id(e.node))
                            frames += list(e.ctx.frames)
            out |= {id(fr.call) for fr in frames if fr.call is not None}
        return out
    return f.memo("partitioning_calls", find)


def _taken(f, expr, at):
    """The nodes of `expr` the default run evaluates: of a conditional expression whose test the options'
    declared defaults decide (`RandomSampler(ds) if args.local_rank == -1 else DistributedSampler(ds)` with
    --local_rank -1 by default), the test and the branch taken; both branches when it is not known."""
    ev = Evaluator(f.s, Where(None, True, defaults=True))
    frame = at.ctx.frames[-1] if at.ctx.frames else None
    todo = [expr]
    while todo:
        n = todo.pop()
        yield n
        taken = truthy(ev.value(n.test, frame, at)) if isinstance(n, ast.IfExp) else None
        if taken is True or taken is False:
            todo += [n.test, n.body if taken else n.orelse]
        else:
            todo += list(ast.iter_child_nodes(n))


def _reads_rank(f, node):
    """A function of the project handed to the code that makes the data (a loader's worker_init_fn or
    collate_fn, a dataset's map) that reads the rank other than to print it: what it makes differs per rank
    (`np.random.seed(worker_seed + hvd.rank())` in a worker_init_fn: each rank draws its own samples)."""
    func = node if isinstance(node, ast.Lambda) else f.s.defined(node) if isinstance(
        node, (ast.Name, ast.Attribute)) else None
    if not isinstance(func, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    return any(f.is_any_rank(n) and not _in_report(f, n) for n in ast.walk(func))


def _in_report(f, node):
    while node is not None:
        node = getattr(node, "parent", None)
        if isinstance(node, ast.Call) and f.s.qual(node.func).split(".")[-1] in names.REPORTERS:
            return True
    return False


def _data_sources(f, node, at, depth=0, seen=None):
    """sources() and, for each call of the script's own functions among them, what it returns."""
    seen = set() if seen is None else seen
    out = []
    for expr, a in sources(f, node, at, skip_arg=lambda c, x: _unused_here(f, c, x)):
        out.append((expr, a))
        for n in ast.walk(expr):
            if isinstance(n, ast.Call) and id(n) not in seen and depth < 6:
                seen.add(id(n))
                for v, b in returned(f, n, a):
                    out += _data_sources(f, v, b, depth + 1, seen)
            elif isinstance(n, ast.Name) and id(n) not in seen and depth < 6 and not reaching(f, n, a):
                seen.add(id(n))
                loop = _batch_loop(n, a)  # `for sic, frc, tgt in loader:` then `sic.to(device)`: from the loader
                if loop is not None:
                    out += _data_sources(f, loop.iter, a, depth + 1, seen)
    return out


def _batch_loop(name, at):
    """The `for` loop around the event, in its function, that unpacks batches into names, one of them the
    name (`for x, y in loader:`); None when no such loop binds it (a loop over segments or keys is no batch)."""
    for p in parents(at.node):
        if isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return None
        if isinstance(p, (ast.For, ast.AsyncFor)) and isinstance(p.target, ast.Tuple) and any(
                isinstance(t, ast.Name) and t.id == name.id for t in p.target.elts):
            return p
    return None


def unread_calls(f, node, at, depth=0):
    """Calls whose result the value is made of (not the calls that made the objects it calls: a model built
    by a project class is not where a metric is averaged) into code the pass does not read (a function of a
    module that is not in READABLE), through names and the script's own functions' returns."""
    if depth > 10 or node is None:
        return []
    deeper = lambda n, a=at: unread_calls(f, n, a, depth + 1)  # noqa: E731 - a local shorthand
    if isinstance(node, ast.Call):
        module = None if f.local_function(node) else imported(f, node.func)  # a walked call is read
        if module is not None and not f.s.api(node.func) and module.split(".")[0] not in READABLE:
            # once per batch it computes the metric (a loss function), it does not average it over ranks; handed
            # the model, it may evaluate it (and average) whenever it runs; made before the batch loop, it is an
            # accumulator (`val_loss = Metric("val_loss")`, read as `val_loss.avg`), which may average its values
            given = node.args + [k.value for k in node.keywords]
            inner = at.ctx.loops[-1] if at.ctx.loops else None
            root = chain_root(node.func)
            made = [v for v, _ in reaching(f, root, at)] if isinstance(node.func, ast.Attribute) and \
                isinstance(root, ast.Name) else [node]
            made_in_loop = inner is not None and all(any(p is inner for p in parents(m)) for m in made)
            if per_batch(f, at) and made_in_loop and not any(is_model(f, p, at) for p in given) and \
                    not _fed_in_inner_loop(f, node, at):
                # (what it is given may still be read off an accumulator that unread code made before the loop:
                # `to_bpd(meter.result(), dims)` with `meter = Mean()` of an absent module)
                return [c for p in given for c in _unread_accumulators(f, p, at, inner)]
            return [node]
        if returned(f, node, at):  # the script's own function: the value is what it returns
            return [c for v, a in returned(f, node, at) for c in deeper(v, a)]
        out = []
        if isinstance(node.func, ast.Attribute) and module is None and not is_model(f, node.func.value, at):
            out += deeper(node.func.value)  # total.item(): total's calls; not the model's construction
        args = [p for p in node.args + [k.value for k in node.keywords] if not is_model(f, p, at)]
        return out + [c for p in args for c in deeper(p)]
    if isinstance(node, (ast.Name, ast.Attribute)):
        found = reaching(f, node, at)
        if not found and isinstance(node, ast.Attribute):
            return deeper(node.value)  # `val_loss.avg` nothing in the code read sets: what made `val_loss`
        return [c for v, a in found for c in deeper(v, a)]
    return [c for n in ast.iter_child_nodes(node) if isinstance(n, ast.expr) for c in deeper(n)]


def _fed_in_inner_loop(f, call, at):
    """The object the call makes (`te = Mean()` in a periodic evaluation inside the loop over steps) is fed by
    its methods in a loop the report is not in (`for batch in te_ds: te.update(...)`): an accumulator over
    that loop, not a value computed once per batch."""
    stmt = getattr(call, "parent", None)
    if not (isinstance(stmt, ast.Assign) and stmt.value is call and len(stmt.targets) == 1 and
            isinstance(stmt.targets[0], ast.Name)):
        return False
    target, around = stmt.targets[0], {id(lp) for lp in at.ctx.loops}
    # the receiver by its reaching definitions: `te.update(...)` reads the `te` this statement binds
    return any(isinstance(e.node.func, ast.Attribute) and isinstance(e.node.func.value, ast.Name) and
               target in (f.s.reaching(e.node.func.value) or ()) and any(id(lp) not in around for lp in e.ctx.loops)
               for e in f.s.events if e.ctx.reached)


def _unread_accumulators(f, node, at, loop):
    """The calls into unread code, made outside `loop`, that made the receivers of the method calls in `node`
    (`meter.result()` with `meter = Mean()` of a module that is not there, made before the loop)."""
    out = []
    for n in ast.walk(node):
        if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)):
            continue
        for v, _ in reaching(f, n.func.value, at):
            module = imported(f, v.func) if isinstance(v, ast.Call) and not f.local_function(v) else None
            if module is not None and module.split(".")[0] not in READABLE and not f.s.api(v.func) and \
                    not any(p is loop for p in parents(v)):
                out.append(v)
    return out


def metric_value(f, node, at, depth=0):
    """The value comes from running the model (its output, a loss of it, an accumulation of those), from
    fit / evaluate's results, or from a collective of such a value: True; from nothing of that: False; a
    name the pass cannot follow (a parameter Keras fills, `logs`): None."""
    if depth > 10 or node is None:
        return False
    cache, key = memo(f, "metric"), (id(node), id(at))
    if key not in cache:
        cache[key] = False  # cycle-safe
        cache[key] = _metric_value(f, node, at, depth)
    return cache[key]


def _metric_value(f, node, at, depth):
    # The depth counts hops to other code (a name's values, a call's return), not the sub-expressions of one
    # expression: `2.0 * inter / denom if denom else 1.0` is as near its names as `inter` is.
    deeper = lambda n, a=at: metric_value(f, n, a, depth + 1)  # noqa: E731 - a local shorthand
    inside = lambda n: metric_value(f, n, at, depth)  # noqa: E731 - a local shorthand
    if isinstance(node, (ast.Lambda, ast.Constant)):
        return False  # a function handed on (timeit(lambda: step())) is no value of the model's output
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _EVALUATING + ("fit", "fit_generator", "train_on_batch"):
            return True
        if session_run(f, node):
            return True  # what a TF1 session fetches on data fed to it: the graph's (the model's) values
        if isinstance(func, (ast.Name, ast.Attribute)) and not f.s.api(func) and is_model(f, func, at):
            return True
        if returned(f, node, at):
            return _any(deeper(v, a) for v, a in returned(f, node, at))
        parts = node.args + [k.value for k in node.keywords]
        module = None if f.local_function(node) else imported(f, func)
        if module is not None and module.split(".")[0] not in READABLE and any(is_model(f, p, at) for p in parts):
            return None  # code the pass does not read, given the model: it may well evaluate it
        if isinstance(func, ast.Attribute) and imported(f, func) is None:
            parts = [func.value] + parts  # loss.item(), total.cpu(), acc.numpy()
        return _any(inside(p) for p in parts)
    if isinstance(node, ast.Attribute) and dotted(node) is None:
        return inside(node.value)  # `sim.topk(k).indices`: a field of what the call computes
    if isinstance(node, (ast.Name, ast.Attribute)):
        values = reaching(f, node, at) + mutations(f, node, at)
        if not values and isinstance(node, ast.Attribute) and at is not None and (
                props := property_values(f, node, at)):
            # `te.bpd` of a meter the evaluation returns: what the property computes from the meter's fields
            return _any(_property_metric(f, v, depth + 1) for v in props)
        if not values:
            return False if isinstance(node, ast.Attribute) and _module(f, node) else None
        return _any(deeper(v, a) for v, a in values)
    return _any(inside(c) for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr))


def _property_metric(f, expr, depth):
    """A property's returned expression (in its method, not walked) is a metric when a name or `self.` field
    it reads is assigned, in the class's methods the walk entered, a metric value (`self.sum += nll.sum()`)."""
    for n in ast.walk(expr):
        if isinstance(n, ast.Call) and isinstance(n.func, (ast.Name, ast.Attribute)) and not f.s.api(n.func):
            if any(_property_metric(f, r, depth + 1) for r in _returned_anywhere(f, n) if depth < 6):
                return True  # `bits_per_dim(self.avg_nll, ...)`: through the helper it calls
        if not isinstance(n, ast.Attribute) or not dotted(n) or not dotted(n).startswith("self."):
            continue
        assigned = f.s.assignments_to(n)
        for a in assigned:
            value = getattr(a.node, "value", None)
            if value is not None and metric_value(f, value, a, depth + 1) is True:
                return True
        if not assigned and depth < 6 and any(_property_metric(f, r, depth + 1) for r in property_returns(
                f, f.s.self_class(n), n.attr)):
            return True  # `self.avg_nll`, another property of the class
    return False


def _returned_anywhere(f, call):
    func = f.s.defined(call.func)
    return [r.value for r in ast.walk(func) if isinstance(r, ast.Return) and r.value is not None] \
        if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) else []


def _module(f, node):
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id in f.s.aliases


def _any(results):
    """True if any is True; None if none is True and one is None; False otherwise."""
    out = False
    for r in results:
        if r is True:
            return True
        if r is None:
            out = None
    return out
