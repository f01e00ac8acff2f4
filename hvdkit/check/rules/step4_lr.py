"""Step 4: the learning rate scaled by the number of ranks (gradients are averaged)."""
import ast
import builtins
import re

from hvdkit.check import mappings, names, values
from hvdkit.check.facts import same_walk
from hvdkit.check.defs import chain_root, owner_of_arg
from hvdkit.check.findings import MISSING, OK, UNKNOWN, WRONG, Finding
from hvdkit.check.flags import declared, holds_namespace
from hvdkit.check.rules.data_flow import data_iterable
from hvdkit.check.rules.held import field_values, property_returns, set_on_self
from hvdkit.check.rules.optimizers import lr_expr, lr_setters, optimizer_uses, optimizers, origins, reads_lr
from hvdkit.check.script import NodeAt, dotted, enclosing_def, loop_bindings, named_in_function, parents, sums
from hvdkit.check.sources import NAMESPACES, called_def, derived, namespace_entries, returns, sources, unpacked


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
    # an optimizer that steps unwrapped beside a wrapped one updates from this rank's own gradients (step 5's
    # fault): the LR scaling of an averaged gradient is not its question
    opts = [e for e in opts if id(e.node) not in f.unaveraged_optimizers] or opts
    # an optimizer rank 0 alone builds (an LR range test on a copy of the model) trains no replica
    opts = [e for e in opts if not f.on_rank0_alone(e)] or opts
    same = _same_update(f)
    verdicts = [_judge_lr(f, e, same) for e in opts]
    verdicts = _with_multiplier_schedulers(f, verdicts)
    verdicts = _with_lr_setting_schedulers(f, opts, verdicts)
    verdicts = _with_lr_setters(f, opts, verdicts, same)
    verdicts = _with_keras_schedules(f, opts, verdicts, same)
    by_callbacks, from_start = _lr_callbacks(f, same)
    verdicts = by_callbacks + ([] if from_start and by_callbacks else verdicts)
    order = {WRONG: 0, MISSING: 1, UNKNOWN: 2, OK: 3}
    found = min(verdicts, key=lambda v: order[v.verdict])
    return (_unread_lr(f, opts) or _unread_share(f) if found.verdict == MISSING else None) or found


def _unread_lr(f, opts):
    """Finding(cannot tell) when code that could not be read could set the LR (Facts.unread_for): a factor of
    the LR's value comes from it (`lr = cfg["lr"] * world` with `rank, world = setup()`), or it is handed the
    optimizer or the mapping the LR is read from; else None."""
    given = {id(e): lr_expr(f, e) for e in opts}
    lrs = [x for x in given.values() if x is not None and x is not mappings.UNRESOLVED]
    visible = [e.node for e in opts if given[id(e)] is not None]  # judged by the LR they are given
    absent = next((n for x in lrs for n in [_absent_read(f, x)] if n is not None), None)
    if absent is not None:
        called = isinstance(getattr(absent, "parent", None), ast.Call) and absent.parent.func is absent
        what = f"`{ast.unparse(absent)}(...)`, a call into" if called else f"{ast.unparse(absent)}, read from"
        return Finding(UNKNOWN, f"the LR is made of {what} module `{f.s.qual(absent).split('.')[0]}` (line "
                       f"{absent.lineno}), which is not in the project: it could be scaled there: cannot tell",
                       absent.lineno, "give --root the project's folder, or run `hvdkit check --run`")
    what = "an LR scaled by the number of ranks"
    if not f.unread_on_path:
        return None
    knows = lambda a: _grows(f, a)  # noqa: E731 - handed the size as a factor (a step count made from it is not)
    return f.unread_finding(what, 4, lrs, lambda c: _lr_arguments(f, c), visible, knows) or \
        f.unread_finding(what, 4, optimizer_uses(f) + [e.node for e in opts], skip=visible, knows=knows)


def scaled_once(f, expr):
    """The LR expression is multiplied by hvd.size() once (Facts.lr_scaled_once), or scaled by hvdkit."""
    return 1 in _size_powers(f, expr) and f.mentions(expr, f.is_global_size) or \
        f.mentions(expr, lambda n: isinstance(n, ast.Call) and _hvdkit_scaling(f, n))


def _unread_share(f):
    """Finding(cannot tell) for an unscaled LR when code that could not be read makes the training data and is
    handed a per-rank share of a number (`make_loader(path, rank, size, cfg.global_batch // hvd.size())`): if
    that share is the batch, the global batch is fixed and the unscaled LR is right (_same_update); the code
    that would say so is not there. None when no such call runs, or the loss is divided by the global batch
    (then the LR must grow all the same)."""
    if _loss_over_global_batch(f):
        return None
    for sink, e in _batch_sinks(f):
        divisor = next((d for d in _divisors(f, sink) for n in [_absent_read(f, d)] if n is not None), None)
        if divisor is not None:
            return Finding(UNKNOWN, f"the LR is not scaled, and the batch at line {e.line} is divided by "
                           f"`{ast.unparse(divisor)}` (line {divisor.lineno}), a value made by code that is not in "
                           "the project: if it is the number of ranks, the global batch is fixed and the unscaled "
                           "LR right: cannot tell", e.line, "give --root the project's folder, or run `hvdkit check "
                           "--run`")
    data = f.flows.train | _iterated(f)
    for u in f.unread_on_path:
        node = u.event.node
        handed = node.args + [k.value for k in node.keywords]
        # a number divided by hvd.size(), or by a value code that is not there makes (`cfg.global_batch //
        # dist.size` with `dist = init_horovod()` of an absent module): the share of a fixed global batch maybe
        share = next((a for a in handed if _divided(_size_powers(f, a, counts=True)) or any(
            _absent_read(f, d) is not None for d in _divisors(f, a))), None)
        if share is None or id(node) not in data:
            continue
        return Finding(UNKNOWN, f"the LR is not scaled, and the data is made by {f.describe(u)}, handed "
                       f"`{ast.unparse(share)}`, a number divided by what may be the number of ranks: if that is "
                       "the batch, the global batch is fixed and the unscaled LR right: cannot tell", u.line,
                       "give --root the project's folder, or run `hvdkit check --run`")
    return None


def _iterated(f):
    """Ids of the nodes that what the code read iterates or draws batches from is made of (`for x, y in ds`,
    `next(it)` of `it = iter(ds)`): where the training step is made by code not read (`train_step =
    make_train_step(model, opt)`), f.flows.train does not see its data."""
    def find():
        drawn = [n.iter for n in f.s.nodes() if isinstance(n, (ast.For, ast.AsyncFor)) and
                 data_iterable(f, n.iter)]
        drawn += [e.node.args[0] for e in f.s.events if f.s.qual(e.node.func) == "next" and e.node.args]
        return {id(n) for n in sources(f, drawn, derived)}
    return f.memo("step4_iterated", find)


def _judge_lr(f, e, same):
    kw = {k.arg: k.value for k in e.node.keywords}
    keras_opt = f.s.qual(e.node.func).split(".")[0] in ("keras", "tensorflow")
    foreign = not names.OPTIMIZER_CLASS.match(f.s.qual(e.node.func))
    expr = lr_expr(f, e)
    if "lr" in kw and keras_opt and not foreign:
        f.notes.append(f"line {e.line}: `lr=` is `learning_rate=` in Keras 3 (a TypeError there)")
    if expr is mappings.UNRESOLVED:
        return Finding(UNKNOWN, f"the optimizer at line {e.line} takes its arguments from a `**` mapping that cannot "
                       "be read: cannot tell its LR", e.line)
    if expr is None:
        if foreign:
            return Finding(UNKNOWN, f"optimizer at line {e.line} uses its library's default LR", e.line)
        if same is not None:
            return Finding(OK, f"optimizer at line {e.line} keeps its default LR: {same[1]}", e.line)
        return Finding(MISSING, f"optimizer at line {e.line} uses its default LR, not scaled by hvd.size()", e.line,
                       "pass learning_rate=base_lr * hvd.size()")
    given = _argument_given(f, e, expr)
    handed = f" ({ast.unparse(given)} handed in at line {given.lineno})" if given is not expr else ""
    expr = given
    hk = lambda n: isinstance(n, ast.Call) and _hvdkit_scaling(f, n)  # noqa: E731 - a predicate for mentions()
    if f.mentions(expr, hk):
        return Finding(OK, f"scaled by hvdkit: {f.text(e.line)}", e.line)
    powers = _size_powers(f, expr)
    if _divided(powers):
        return Finding(WRONG, f"LR divided by hvd.size() (line {e.line}): it must grow with the global batch", e.line,
                       "multiply the base LR by hvd.size()")
    if _size_powers(f, expr, f.is_any_rank) != {0}:
        return Finding(WRONG, f"LR depends on the rank (line {e.line}): ranks step with different LRs", e.line,
                       "scale by hvd.size(), not hvd.rank()")
    if max(_size_powers(f, expr, f.is_global_size)) >= 2:
        return Finding(WRONG, f"LR multiplied by hvd.size() twice (line {e.line}: {f.text(e.line)}): hvd.size()**2 "
                       "times the base LR", e.line, "multiply the base LR by hvd.size() once")
    # a schedule of the project that scales, on the LR value's own path (not a step count handed to it,
    # `warmup_steps=epochs * steps_per_epoch` with steps_per_epoch from a loader factory given hvd.size())
    if _grows(f, expr) or \
            _scaled(_size_powers(f, expr, lambda n: f.is_global_size(n) or _schedule_scaled(f, n))):
        late = _scaled_after(f, e, expr)
        if late is not None and same is None:
            return Finding(MISSING, f"the LR is scaled at line {late.line} ({f.text(late.line)}), after the optimizer "
                           f"at line {e.line} was built with its value: the optimizer keeps the unscaled LR",
                           late.line, "scale the LR before building the optimizer")
        if same is not None and same[0] == "fixed":
            return Finding(WRONG, f"LR scaled by hvd.size() (line {e.line}: {f.text(e.line)}) while {same[1]}: "
                           "the LR grows with the ranks and the batch does not", e.line,
                           "keep the LR tuned for the global batch (or let each rank take the whole batch)")
        return Finding(OK, f"scaled by hvd.size(): {f.text(e.line)}", e.line)
    local = lambda n: f.s.is_hvd_query(n, "local_size")  # noqa: E731 - a predicate for mentions()
    if f.mentions(expr, local) and _adasum(f):
        return Finding(OK, f"LR scaled by hvd.local_size() with op=hvd.Adasum, Horovod's rule for Adasum on GPUs: "
                       f"{f.text(e.line)}", e.line)
    if f.mentions(expr, local):
        return Finding(WRONG, f"LR scaled by hvd.local_size() (line {e.line}), the Adasum rule, while gradients are "
                       "averaged over all ranks: on several nodes the LR is too small by the number of nodes", e.line,
                       "scale by hvd.size() (local_size() only with op=hvd.Adasum)")
    if same is not None:
        return Finding(OK, f"LR not scaled ({f.text(e.line)}), and rightly: {same[1]}", e.line)
    unbound = next((n for n in sources(f, [expr]) if isinstance(n, ast.Name) and _unbound_parameter(f, n)), None)
    if unbound is not None:
        return Finding(UNKNOWN, f"the LR at line {e.line} is the parameter `{unbound.id}`, which no call the pass "
                       "follows binds: cannot tell whether it is scaled", e.line)
    return Finding(MISSING, f"LR not scaled by the number of ranks: {f.text(e.line)}{handed}", e.line,
                   "multiply the base LR by hvd.size() (and warm up over the first epochs)")


def _same_update(f):
    """(kind, why) when an unscaled LR makes the update of the sequential run (or of averaged gradients with the
    LR x hvd.size()), else None: gradients summed over ranks (op=hvd.Sum), or a fixed global batch (each rank
    takes global // hvd.size(), and its loss is its own batch's mean)."""
    for e in f.s.events:
        if e.ctx.reached and f.api(e, *names.WRAPPERS) and sums(e.node):
            return "sum", (f"the gradients are summed over ranks (op=hvd.Sum, line {e.line}): the update is that of "
                           "averaged gradients with the LR x hvd.size()")
    sinks = _batch_sinks(f)
    for x, e in sinks:
        if _divided(_size_powers(f, x, counts=True)) and not _loss_over_global_batch(f):
            func = getattr(e.node, "func", None)
            line = func.end_lineno if isinstance(func, ast.Attribute) else e.line  # .batch( of a chain
            return "fixed", (f"the global batch is fixed (line {line}: {f.text(line)}): each rank takes 1/size "
                             "of it, the averaged gradient is the sequential batch's, and so is the LR")
    part = _full_batch(f) if not sinks else None
    if part is not None:
        return "full", (f"full-batch training: every step takes all of this rank's part (line {part.line}: "
                         f"{f.text(part.line)}), so the averaged gradient is the whole data set's, as in the "
                         "sequential run, and so is the LR")
    return None


def _scaled_after(f, e, expr):
    """`opt = Adam(learning_rate=hp.lr)`, then `hp.lr = hp.lr * hvd.size()`: every assignment of the attribute
    that scales it runs after the construction (made once, in no loop) read its value, in the same walk: the
    optimizer holds the number it was given. The assignment, else None. (A plain name is read by its reaching
    definitions already; an attribute is followed by spelling, over the whole walk.)"""
    if not isinstance(expr, ast.Attribute) or not dotted(expr):
        return None
    assigned = [a for a in f.s.assignments_to(dotted(expr)) if isinstance(a.node, (ast.Assign, ast.AugAssign))]
    scaled = [a for a in assigned if f.mentions(a.node.value, f.is_global_size)]
    if scaled and all(a.order > e.order and same_walk(a, e) and not e.ctx.loops for a in scaled):
        return scaled[0]
    return None


def _strides_over_data(f, it):
    """`range(0, data.size(0) - 1, bptt)` (or inside enumerate): a loop over batches by index, from 0 to a
    measure of the data (len(x), x.size(0), x.shape[0]) in strides."""
    if isinstance(it, ast.Call) and f.s.qual(it.func) == "enumerate" and it.args:
        it = it.args[0]
    if not (isinstance(it, ast.Call) and f.s.qual(it.func) == "range" and len(it.args) == 3):
        return False
    return any(isinstance(n, ast.Call) and (f.s.qual(n.func) == "len" or getattr(n.func, "attr", "") == "size") or
               isinstance(n, ast.Attribute) and n.attr == "shape" for n in ast.walk(it.args[1]))


def _full_batch(f):
    """Training with no batches: no batch size anywhere, and every optimizer step in loops over counts (epochs),
    none over data (a graph network's step on its whole node set), while the ranks read disjoint parts of the
    data by index (`idx_train[hvd.rank()::hvd.size()]`): the partition event, else None."""
    steps = [s for s in f.steps if s.ctx.reached]
    if not steps or any(data_iterable(f, lp.iter) or _strides_over_data(f, lp.iter) for s in steps
                        for lp in s.ctx.loops if isinstance(lp, (ast.For, ast.AsyncFor))):
        return None
    if any(not isinstance(lp, (ast.For, ast.AsyncFor, ast.While)) for s in steps for lp in s.ctx.loops):
        return None  # a comprehension or a callback's loop: not the simple epoch loop
    funcs = {id(fr.func) for s in steps for fr in s.ctx.frames}
    loops = {id(lp) for s in steps for lp in s.ctx.loops}
    in_steps = lambda n: id(enclosing_def(n)) in funcs or any(id(a) in loops for a in parents(n))  # noqa: E731
    loads = [n for n in f.s.nodes() if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    whole = lambda reads: not any(isinstance(n.parent, ast.Subscript) and n.parent.value is n or  # noqa: E731
                                  isinstance(n.parent, ast.Attribute) for n in reads)
    nodes = [p for p in f.shares.parts if isinstance(p, NodeAt)]
    # an index cut by rank, assigned to a name that the steps' code reads whole, never sliced or indexed again
    for p in nodes:
        value = _converted_up(p.node)  # `torch.from_numpy(np.array_split(idx, size)[rank]).long()`
        stmt = getattr(value, "parent", None)
        if not (isinstance(stmt, ast.Assign) and stmt.value is value and len(stmt.targets) == 1 and
                isinstance(stmt.targets[0], ast.Name)):
            continue
        reads = [n for n in loads if n.id == stmt.targets[0].id]
        if any(in_steps(n) for n in reads) and whole(reads):
            return p
    # this rank's part of the arrays themselves, read whole by the steps' code (`xyt, temp = load(h5, rank,
    # size)` returning `xyt[mine], temp[mine]`, and the loss a closure over xyt): through names and returns
    # (none of those names cut again there: `pts[idx]` draws mini-batches from the part). The steps' code is
    # here the loops around the steps and the functions called from them (a loss closure).
    in_loop = set()
    for e in f.s.events:
        for fr in e.ctx.frames:
            if fr.call is not None and (any(id(a) in loops for a in parents(fr.call)) or
                                        id(enclosing_def(fr.call)) in in_loop):
                in_loop.add(id(fr.func))
    looped = [n for n in loads if any(id(a) in loops for a in parents(n)) or id(enclosing_def(n)) in in_loop]
    parts = {id(p.node): p for p in nodes}
    made = {id(n): (n, parts[id(m)]) for n in looped for m in sources(f, [n], _converted) if id(m) in parts}
    if made and not any(isinstance(n.parent, ast.Subscript) and n.parent.value is n for n, _ in made.values()):
        return next(iter(made.values()))[1]
    return None


def _converted_up(node):
    """The outermost expression that only converts or moves `node` (_CONVERSIONS): `torch.from_numpy(part).long()`
    for `part`."""
    while True:
        parent = getattr(node, "parent", None)
        call = parent.parent if isinstance(parent, ast.Attribute) and parent.value is node else parent
        if not isinstance(call, ast.Call):
            return node
        name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
        if name not in _CONVERSIONS or not (call.func is parent or node in call.args[:1]):
            return node
        node = call


# Calls whose value is the array they are given, converted, cast or moved (`torch.from_numpy(x).long().to(dev)`).
_CONVERSIONS = ("to", "cuda", "float", "double", "long", "int", "float32", "astype", "from_numpy", "tensor",
                "as_tensor", "asarray", "array", "numpy", "to_numpy", "constant", "convert_to_tensor", "requires_grad_",
                "contiguous")


def _converted(call):
    """sources()'s follow_call for conversions only: a computation on the data (a model's output, a loss, a
    gradient) is not the data."""
    last = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
    if last not in _CONVERSIONS:
        return []
    return ([call.func.value] if isinstance(call.func, ast.Attribute) else []) + call.args[:1]


def _batch_sinks(f):
    """[(batch size expression, event)] on the default run: a `batch_size=` argument, `.batch(n)`, the stride of
    hand-cut batches."""
    batching = [e for e in f.s.events if e.ctx.reached and (any(k.arg == "batch_size" for k in e.node.keywords) or
                                                           getattr(e.node.func, "attr", "") == "batch")]
    batching += [e for e in f.s.events if e.ctx.reached and _batch_stride(e.node) is not None]
    out = []
    for e in _default_run(f, batching):
        sinks = [k.value for k in e.node.keywords if k.arg == "batch_size"]
        sinks += e.node.args[:1] if isinstance(e.node.func, ast.Attribute) and e.node.func.attr == "batch" else []
        sinks += [x for x in [_batch_stride(e.node)] if x is not None]
        out += [(x, e) for x in sinks]
    return out + f.memo("batch slices", lambda: _batch_slices(f)) + f.memo("batch draws", lambda: _batch_draws(f))


def _batch_draws(f):
    """Batches drawn at random by a generator (`idx = self.rng.choice(len(self.real), self.batch)`, `idx =
    rng.integers(0, len(points), self.batch)`): the count drawn, where the draw runs in the loop of the
    optimizer steps, or in the `__iter__` / `__next__` of a class the code read makes an instance of
    (`next(batches)` runs it where the walk does not enter it): [(the count drawn, where)]."""
    stepping = {id(lp) for s in f.steps for lp in s.ctx.loops}
    out = []
    for e in f.s.events:
        func = enclosing_def(e.node)
        attr = getattr(e.node.func, "attr", "")
        if attr not in names.COUNTED_DRAWS or func is None:
            continue
        if not (e.ctx.reached and stepping & {id(lp) for lp in e.ctx.loops} or func.name in ("__iter__", "__next__")
                and (e.ctx.reached or any(func in c.body for c in f.s.instantiated))):
            continue
        at = names.COUNTED_DRAWS[attr]
        count = e.node.args[at] if len(e.node.args) > at else next(
            (k.value for k in e.node.keywords if k.arg == "size"), None)
        # drawn from the data (`len(points)`), not from a fixed range (`randint(0, 4, (n,))`: a side of a square)
        population = e.node.args[at - 1] if len(e.node.args) >= at else None
        if count is not None and not isinstance(count, ast.Constant) and population is not None and \
                not isinstance(population, ast.Constant):
            out.append((count, e))
    return out + _one_by_one(f, stepping)


def _one_by_one(f, stepping):
    """Batches filled one sample at a time in a counted loop (`for _ in range(local_batch): img =
    images[np.random.randint(len(images))]`, `random.choice(self.images)`), run by the optimizer steps' loop:
    [(the count, where)]. Only a draw of one element of the data counts (a crop's offset or a scale picked
    from a literal tuple is no sample)."""
    out = []
    for e in f.s.events:
        if not (e.ctx.reached and stepping & {id(lp) for lp in e.ctx.loops} and _draws_one(f, e.node)):
            continue
        func = enclosing_def(e.node)
        loop = next((p for p in parents(e.node) if p is func or isinstance(p, (ast.For, ast.AsyncFor))), None)
        it = getattr(loop, "iter", None)
        if isinstance(loop, (ast.For, ast.AsyncFor)) and isinstance(it, ast.Call) and \
                f.s.qual(it.func) == "range" and len(it.args) == 1 and not isinstance(it.args[0], ast.Constant):
            count = it.args[0]
            frame = e.ctx.frames[-1] if e.ctx.frames else None
            b = frame.bindings.get(count.id) if isinstance(count, ast.Name) and frame is not None and \
                frame.func is func else None
            # a parameter (`def sample_batch(streams, rng, batch)`): what this call hands it (`cfg.micro_batch`)
            out.append((b.expr if b is not None and not b.default else count, NodeAt(it)))
    return out


def _draws_one(f, call):
    """`random.choice(items)` of data (not of a literal), or an index drawn below a data's length
    (`np.random.randint(len(images))`, `rng.integers(0, len(x))`, `random.randrange(len(x))`)."""
    q = f.s.qual(call.func)
    if q.split(".")[0] not in ("random", "numpy") and getattr(call.func, "attr", "") not in names.GENERATOR_DRAWS:
        return False
    attr = q.split(".")[-1]
    if attr == "choice" and len(call.args) == 1:
        return not isinstance(call.args[0], (ast.Constant, ast.Tuple, ast.List, ast.Set))
    return attr in ("randint", "integers", "randrange") and 0 < len(call.args) <= 2 and not call.keywords and any(
        isinstance(n, ast.Call) and f.s.qual(n.func) == "len" for n in ast.walk(call.args[-1]))


def _batch_slices(f):
    """Hand-cut batches `x[s * bs:(s + 1) * bs]` (also `perm[b * gb:(b + 1) * gb][rank * local:(rank + 1) *
    local]`) in code the walk ran: [(the width bs, where)]."""
    out = []
    for n in f.s.nodes():
        if not isinstance(n, ast.Slice):
            continue
        func = enclosing_def(n)
        if func is not None and func not in f.s.walked and func.name not in ("__iter__", "__next__", "__getitem__"):
            continue  # code no walk ran; a batch iterator's methods run where a loop iterates its instance
        width, k = _slice_width(n)
        if width is None:
            continue
        if f.mentions(k, f.is_any_rank):
            # a rank's block: of the whole data, a partition (step 3's); of a batch just cut, the rank's batch
            outer = n.parent.value if isinstance(n.parent, ast.Subscript) else None
            cut = outer.slice if isinstance(outer, ast.Subscript) else None
            if not (isinstance(cut, ast.Slice) and _slice_width(cut)[0] is not None and
                    not f.mentions(_slice_width(cut)[1], f.is_any_rank)):
                continue
        out.append((width, NodeAt(n)))
    return out


def _slice_width(n):
    """(width, index) of a slice `[k * w:(k + 1) * w]`, else (None, None)."""
    if not (isinstance(n, ast.Slice) and isinstance(n.lower, ast.BinOp) and isinstance(n.lower.op, ast.Mult)
            and isinstance(n.upper, ast.BinOp) and isinstance(n.upper.op, ast.Mult)):
        return None, None
    for k, width in ((n.lower.left, n.lower.right), (n.lower.right, n.lower.left)):
        nxt = [o for o, w in ((n.upper.left, n.upper.right), (n.upper.right, n.upper.left))
               if ast.dump(w) == ast.dump(width) and isinstance(o, ast.BinOp) and isinstance(o.op, ast.Add)]
        if any(ast.dump(k) in (ast.dump(o.left), ast.dump(o.right)) for o in nxt):
            return width, k
    return None, None


def _divisors(f, node, depth=0):
    """The divisors of the divisions a value is made by, through names' assignments: `comm.size()` of
    `local = cfg.global_batch // comm.size()`."""
    if depth > 6 or node is None:
        return []
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Div, ast.FloorDiv)):
        return [node.right] + _divisors(f, node.left, depth + 1)
    if isinstance(node, ast.BinOp):
        return _divisors(f, node.left, depth + 1) + _divisors(f, node.right, depth + 1)
    if isinstance(node, ast.Call) and f.s.qual(node.func) in ("max", "min", "int"):
        return [d for a in node.args for d in _divisors(f, a, depth + 1)]
    if isinstance(node, ast.Name):
        return [d for a in f.s.assignments_to(node) if getattr(a.node, "value", None) is not None
                for d in _divisors(f, a.node.value, depth + 1)]
    return []


def _batch_stride(call):
    """The batch size of hand-made batching: `for s in range(0, n, bs): ... x[s:s + bs]`, the step of a range
    whose loop cuts slices that wide (the stride of the batches); else None."""
    if not (isinstance(call.func, ast.Name) and call.func.id == "range" and len(call.args) == 3):
        return None
    loop = getattr(call, "parent", None)
    if not (isinstance(loop, ast.For) and loop.iter is call and isinstance(loop.target, ast.Name)):
        return None
    step, var = ast.dump(call.args[2]), loop.target.id
    for n in ast.walk(loop):
        if isinstance(n, ast.Slice) and isinstance(n.lower, ast.Name) and n.lower.id == var and \
                isinstance(n.upper, ast.BinOp) and isinstance(n.upper.op, ast.Add) and \
                {ast.dump(n.upper.left), ast.dump(n.upper.right)} == {ast.dump(n.lower), step}:
            return call.args[2]
    return None


def _loss_over_global_batch(f):
    """A loss divided by the whole global batch on each rank (tf.nn.compute_average_loss(global_batch_size=G)):
    averaged over ranks, its gradient is 1/size of the sequential one, so the LR must still grow."""
    for e in f.s.events:
        if f.s.qual(e.node.func).split(".")[-1] == "compute_average_loss":
            gb = next((k.value for k in e.node.keywords if k.arg == "global_batch_size"), None)
            if gb is not None and not _divided(_size_powers(f, gb, counts=True)):
                return True
    return False


def _with_lr_setters(f, opts, verdicts, same):
    """A statement that sets a built optimizer's LR (a hand-written schedule over `param_groups`, `K.set_value`,
    an elastic reset callback) decides the LR of the optimizer it drives from then on."""
    out = list(verdicts)
    setters = [(st, _setter_verdict(f, st, same)) for st in lr_setters(f)]
    scaled = {(id(g.test), g.branch) for st, v in setters if v is not None and v.verdict == OK
              for g in st.event.ctx.guards}
    noted = set()  # the optimizers whose unscaled LR has been told to be set scaled only later
    for st, v in setters:
        if v is None:
            continue
        skip = f.path_guards(st.event)
        driven = [o for o in opts if any(x is o.node for x in origins(f, [st.optimizer]))] or opts
        later = _set_later(f, st, skip, scaled)
        if v.verdict == OK and later is not None:
            # the optimizer trains with the LR it was built with until the condition first holds (a decay
            # milestone): a scaled LR set only then does not make an unscaled construction right
            note = f"; line {st.line} sets it scaled only when {ast.unparse(later.test)}"
            out = [Finding(old.verdict, old.evidence + note, old.line, old.fix)
                   if o in driven and old.verdict == MISSING and id(o) not in noted else old
                   for o, old in zip(opts, out)] + out[len(opts):]
            noted |= {id(o) for o in driven}
            continue
        if values.runs(f.s, st.event, skip, defaults=True).kind == "never":
            if v.verdict == OK:
                continue  # a scaled LR set only with an option on: the default run does not have it
            off = values.off_by_default(f.s, st.event, skip)
            v = Finding(WRONG, f"with {', '.join(off)}: {v.evidence}", v.line, v.fix)
        out = [v if o in driven and (v.verdict == WRONG or old.verdict == MISSING) else old
               for o, old in zip(opts, out)] + out[len(opts):]
    return out


def _with_keras_schedules(f, opts, verdicts, same):
    """keras.callbacks.LearningRateScheduler(schedule) given to fit sets the optimizer's LR at the start of every
    epoch to what schedule(epoch) returns: an absolute LR decides step 4 from the first epoch on, as a setter's
    does; `schedule(epoch, lr)` returning a value made of the current lr is relative: no verdict."""
    out = list(verdicts)
    for e in f.s.events:
        if f.s.qual(e.node.func).split(".")[-1] != "LearningRateScheduler" or not e.ctx.reached or \
                not f.flows_to_callbacks(e):
            continue
        arg = next((k.value for k in e.node.keywords if k.arg == "schedule"), e.node.args[0] if e.node.args else None)
        func = _schedule_function(f, arg)
        returns = [n.value for n in ast.walk(func) if isinstance(n, ast.Return) and n.value is not None] \
            if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) else [func.body] if func else []
        if not returns:
            continue
        value = settled(returns)
        current = func.args.args[1].arg if len(func.args.args) > 1 else None
        if current and any(isinstance(n, ast.Name) and n.id == current for n in ast.walk(value)):
            continue
        v = _schedule_verdict(f, e, value, same)
        if v is not None:
            out = [v if v.verdict == WRONG or old.verdict == MISSING else old for old in out]
    return out


def _schedule_function(f, node, depth=0):
    """The lambda or function a schedule argument is: by its definition, through names assigned it, or the
    function a factory of the project returns (`step_decay(base_lr, 10)` returning its inner `schedule`)."""
    if node is None or depth > 4:
        return None
    if isinstance(node, ast.Lambda):
        return node
    if isinstance(node, (ast.Name, ast.Attribute)):
        d = f.s.defined(node)
        if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return d
        values = [a.node.value for a in f.s.assignments_to(node if isinstance(node, ast.Name) else dotted(node))
                  if getattr(a.node, "value", None) is not None]
        return next((g for v in values for g in [_schedule_function(f, v, depth + 1)] if g is not None), None)
    if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
        factory = f.s.defined(node.func)
        if isinstance(factory, (ast.FunctionDef, ast.AsyncFunctionDef)):
            made = [r.value for r in ast.walk(factory) if isinstance(r, ast.Return) and r.value is not None]
            return next((g for v in made for g in [_schedule_function(f, v, depth + 1)] if g is not None), None)
    return None


def _schedule_verdict(f, e, value, same):
    """The verdict on the LR a Keras schedule returns (`value`): an absolute LR (_absolute_verdict)."""
    what = f"LearningRateScheduler at line {e.line} sets the LR every epoch to {ast.unparse(value)}"
    return _absolute_verdict(f, value, same, what, e.line, "return base_lr * hvd.size() (times the schedule's factor)")


def _absolute_verdict(f, value, same, what, line, fix):
    """The verdict on code that sets the optimizer's LR to the absolute value `value` from then on (`what` says
    which, at `line`): wrong when divided by hvd.size(), rank-dependent, multiplied by it twice, or not scaled;
    ok when scaled, or unscaled where that is right (`same`: gradients summed, a fixed global batch); None (no
    evidence) when a call it is made of is not read (_readable)."""
    if _divided(_size_powers(f, value)):
        return Finding(WRONG, f"{what}, divided by hvd.size()", line, fix)
    if _size_powers(f, value, f.is_any_rank) != {0}:
        return Finding(WRONG, f"{what}, which depends on the rank: ranks step with different LRs", line, fix)
    if max(_size_powers(f, value, f.is_global_size)) >= 2:
        return Finding(WRONG, f"{what}, multiplied by hvd.size() twice", line, fix)
    if _grows(f, value):
        return Finding(OK, f"{what}, scaled by hvd.size()", line)
    if same is not None:
        return Finding(OK, f"{what}, unscaled, and rightly: {same[1]}", line)
    unread = _unread_share(f)
    if unread is not None:
        return unread
    if not _readable(f, value):
        return None  # the value comes from code not shown here (a project's scheduler): no evidence either way
    return Finding(WRONG, f"{what}, not scaled by hvd.size(): it overwrites the optimizer's LR from then on", line, fix)


def _set_later(f, st, skip, scaled):
    """The guard, evaluated inside the training loops, that keeps the setter `st` from running from the start
    when the checker cannot tell its value on the default run (`if iter_sum in cfg["lr_steps"]:`), else None.
    A branch whose other side sets a scaled LR too (`if epoch < warmup: ... else: ...`) sets it either way."""
    for g in st.event.ctx.guards:
        if g.loop_depth == 0 or (g.test, g.branch) in skip or (id(g.test), not g.branch) in scaled:
            continue
        if values.runs(f.s, st.event, skip, defaults=True, guards=[g]).kind == "unknown":
            return g
    return None


def _setter_verdict(f, st, same):
    """Setting an absolute LR: scaled, unscaled, divided, rank-dependent or scaled twice; setting one relative
    to the current LR (`g["lr"] *= 0.1`): no verdict, unless it multiplies by hvd.size() each time it runs
    (every epoch, or at every elastic reset), which compounds."""
    text = f.text(st.line)
    if f.mentions(st.value, lambda n: reads_lr(f, n)):
        if _grows(f, st.value) and \
                (st.event.ctx.loops or not st.event.ctx.reached):
            return Finding(WRONG, f"line {st.line} multiplies the optimizer's current LR by hvd.size() each time it "
                           f"runs ({text}): the LR, already scaled, grows by hvd.size() again at every call", st.line,
                           "set it from the base LR: lr = base_lr * hvd.size()")
        return None
    return _absolute_verdict(f, st.value, same, f"line {st.line} sets the LR to {ast.unparse(st.value)}", st.line,
                             "set it from base_lr * hvd.size()")


# Modules whose functions cannot scale an LR by the number of ranks on their own (math, arrays, the frameworks,
# Python's builtins such as dict(lr=...), and the readers of configuration files: a file's "lr" is an option the
# user writes, as --lr is).
_PLAIN = ("math", "numpy", "torch", "tensorflow", "keras", "horovod", "hvdkit", "json", "yaml", "toml", "tomllib",
          *dir(builtins))


def _readable(f, expr):
    """Every call the value is made of is shown: the script's own functions (followed), Python's numbers and
    the frameworks' math; no name it reads comes from a module that is not there (_absent_read). A call into a
    project module or another library may scale it unseen."""
    if _absent_read(f, expr) is not None:
        return False
    for n in sources(f, [expr]):
        if isinstance(n, ast.Call) and not f.local_function(n) and not f.s.is_hvd_query(n, "size", "rank"):
            if f.s.qual(n.func).split(".")[0] not in _PLAIN and not _group_entry(n):
                return False
    return True


def _argument_given(f, e, expr):
    """The LR given as a parameter of the function that builds the optimizer (`build_optimizer(model, lr)`),
    read as the argument of the call that made this construction: a factory called for pre-training with
    `lr * hvd.size()` and again for fine-tuning with the bare LR builds two optimizers, judged apart. A name
    the function assigns again first (`lr = lr * hvd.size()`) is that assignment's, not the argument."""
    frame = e.ctx.frames[-1] if e.ctx.frames else None
    for _ in range(8):
        b = frame.bindings.get(expr.id) if isinstance(expr, ast.Name) and frame is not None else None
        if b is None or b.default or not all(isinstance(d, ast.arg) for d in f.s.reaching(expr) or ()):
            break
        expr, frame = b.expr, b.frame
    return expr


def _unbound_parameter(f, name):
    """A lambda's parameter no walked call binds (`lambda o, lr: keras.optimizers.AdamW(learning_rate=lr)` in a
    registry dict called as `OPTIMIZERS[key](cfg, cfg["lr"] * scale)`): what it holds was not seen. (A function
    nothing calls is judged as an entry point, on what it does with what it is given.)"""
    defs = f.s.reaching(name)
    return bool(defs) and all(isinstance(d, ast.arg) and isinstance(owner_of_arg(d), ast.Lambda) for d in defs) \
        and not f.frames_binding(name)


def _group_entry(call):
    """`group.get("lr_mult", 1.0)` with `group` bound by a loop over an optimizer's `param_groups` (torch's list
    of dicts): an entry the script wrote into the group, read; no computation."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "get" and isinstance(func.value, ast.Name)):
        return False
    return any(isinstance(g.iter, ast.Attribute) and g.iter.attr == "param_groups" and
               any(isinstance(t, ast.Name) and t.id == func.value.id for t in ast.walk(g.target))
               for p in parents(call) for g in loop_bindings(p))


def _absent_read(f, expr):
    """The first name the value reads or calls from a module of the project that is not there (`C.LR` with
    `import config as C`, `LR` with `from config import LR`, `get_world_size()` with `from utils import
    get_world_size`, and no such module): that module's code could make it from
    hvd.size(), as a call into it could (Facts.unread_for); None when there is none."""
    project = f.s.project
    made = sources(f, [expr]) if project is not None else []
    # an attribute nothing assigns, of an object made by such code and told the number of ranks (`cfg.peak_lr`
    # with `cfg = RunConfig.from_json(path) if path else RunConfig()` and `cfg.world_size = hvd.size()`): the
    # object's class may compute it from the size
    made += [c for n in made if isinstance(n, ast.Attribute) and not f.s.assignments_to(n) and _told_size(f, n.value)
             for o in f.origins(n.value) for c in ast.walk(o) if isinstance(c, ast.Call)]
    # a factor of the LR (or a divisor of a batch) read off an object such code made (`base_lr * job.size` with
    # `job = describe_job()`, `global_batch // dist.size`): that object's attribute may be the number of ranks
    made += [c.func for n in made if isinstance(n, ast.Attribute) and isinstance(getattr(n, "parent", None), ast.BinOp)
             and (isinstance(n.parent.op, ast.Mult) or isinstance(n.parent.op, (ast.Div, ast.FloorDiv)) and
                  n.parent.right is n) and not f.s.assignments_to(n)
             for o in f.origins(n.value) for c in ast.walk(o)
             if isinstance(c, ast.Call) and f.s.of_unread_project_code(c.func)]
    for n in made:
        n = n.func if isinstance(n, ast.Call) else n  # `lr * get_world_size()` of `from utils import ...`
        root = chain_root(n)
        if not isinstance(n, (ast.Name, ast.Attribute)) or not isinstance(root, ast.Name):
            continue
        defs = f.s.quals(root)
        if defs and all(isinstance(d, ast.arg) for d, _, _ in defs) and isinstance(
                getattr(n, "parent", None), ast.BinOp) and _handed_to_unread(f, defs[0][0]):
            return n  # a factor or divisor passed in by a launcher not read (`global_batch // ctx.size`)
        if not defs or not all(isinstance(d, ast.alias) for d, _, _ in defs):
            continue
        top = f.s.qual(n).split(".")[0]
        if project.find(top) is None and project.kind(top) == "absent" or f.s.of_unread_project_code(n):
            return n
    return None


def _handed_to_unread(f, param):
    """The parameter's function is called by code that could not be read and by nothing in the code read
    (`launch.run(worker, args)` of a module that is not there): what that code passes it is unknown."""
    fn = owner_of_arg(param)
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    calls = [c for c in f.s.nodes() if isinstance(c, ast.Call)]
    if any(isinstance(c.func, ast.Name) and c.func.id == fn.name for c in calls):
        return False
    return any(isinstance(a, ast.Name) and a.id == fn.name and f.s.of_unread_project_code(c.func)
               for c in calls for a in c.args + [k.value for k in c.keywords])


def _told_size(f, obj):
    """The object is handed the number of ranks: where it is made (`Config(world=hvd.size())`) or by an
    assignment to one of its attributes (`cfg.world_size = world` with `rank, world = setup()`)."""
    made = [c for o in f.origins(obj) for c in ast.walk(o) if isinstance(c, ast.Call)]
    if any(f.mentions(a, f.is_size) for c in made for a in c.args + [k.value for k in c.keywords]):
        return True
    name = dotted(obj)
    # (a value set on it that code not read made may be the size too: `rank, world = init_horovod()` of a
    # module that is not there)
    unread = lambda v: any(isinstance(n, ast.Call) and f.s.of_unread_project_code(n.func)  # noqa: E731
                           for n in sources(f, [v]))
    return bool(name) and any(
        isinstance(a.node, ast.Assign) and any((dotted(t) or "").startswith(name + ".") for t in a.node.targets)
        and (f.mentions(a.node.value, f.is_size) or unread(a.node.value)) for a in f.s.assigns)


# Keras schedules' positional parameters, in order: only the learning-rate ones are on the LR's path.
_SCHEDULE_PARAMS = {
    "ExponentialDecay": ("initial_learning_rate", "decay_steps", "decay_rate"),
    "InverseTimeDecay": ("initial_learning_rate", "decay_steps", "decay_rate"),
    "PolynomialDecay": ("initial_learning_rate", "decay_steps", "end_learning_rate", "power"),
    "CosineDecay": ("initial_learning_rate", "decay_steps", "alpha", "name", "warmup_target", "warmup_steps"),
    "CosineDecayRestarts": ("initial_learning_rate", "first_decay_steps", "t_mul", "m_mul", "alpha"),
    "PiecewiseConstantDecay": ("boundaries", "values"),
}
# Arguments that count steps or shape the curve: dividing them by hvd.size() does not divide the LR.
_NOT_LR_ARGS = re.compile(r"step|epoch|iter|boundar|batch|cycle|total|power|decay_rate|alpha|t_mul|m_mul|name|momentum|"
                          r"weight_decay|eps|beta|params|parameters", re.I)


def _size_powers(f, node, pred=None, seen=None, depth=0, counts=False):
    """The power of hvd.size() (or of what `pred` holds for) in the LR value, one per path the value may take:
    {1} multiplied once, {2} twice, {-1} divided, {0} not at all. Only the value's own path is followed
    (factors, dividends, a schedule's LR arguments, names' assigned values on the default run), not step counts
    such as decay_steps = epochs * (n // hvd.size()) (an integer division makes a count; with `counts`, as
    for a batch size, it divides too)."""
    seen = set() if seen is None else seen
    pred = pred or f.is_size
    if node is None or depth > 40:
        return {0}
    down = lambda n: _size_powers(f, n, pred, seen, depth + 1, counts)  # noqa: E731 - a local shorthand
    if pred(node):
        return {1}
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, ast.FloorDiv) and not counts:
            return {0}  # an integer division makes a count (steps = n // (batch * size)), never a learning rate
        if isinstance(node.op, (ast.Div, ast.FloorDiv)):
            return _combine(down(node.left), down(node.right), -1)
        if isinstance(node.op, ast.Mult):
            return _combine(down(node.left), down(node.right), 1)
        if isinstance(node.op, (ast.Pow, ast.Mod)):
            return down(node.left)
        # each side of a sum on its own: `start + (target - start) * t` reads target's name on both
        before = set(seen)
        return down(node.left) | _size_powers(f, node.right, pred, before, depth + 1, counts)
    if isinstance(node, ast.Name) and (container := _comprehended(node)) is not None:
        return down(container)  # `v` of `{k: v * decay for k, v in lrs.items()}`: an entry of lrs
    if isinstance(node, ast.Name) and (bound := _loop_values(node)):
        return set().union(*[down(v) for v in bound])
    if isinstance(node, (ast.Name, ast.Attribute)):
        return _name_powers(f, node, seen, down)
    if isinstance(node, ast.Subscript):
        # `kw["lr"] = kw["lr"] * hvd.size()`: the entry read on the right is the one before the store
        text = ast.unparse(node)
        before = any(isinstance(p, ast.Assign) and any(ast.unparse(t) == text for t in p.targets)
                     for p in parents(node))
        entry = mappings.entry_of(f, node, stores=not before)
        stored = _attribute_stores(f, node) if entry is None else []
        if stored:
            seen.update(spelled for spelled, _ in stored)  # followed once, as _name_powers follows an attribute
            return set().union(*[down(v) for _, v in stored])
        return down(entry or node.value)
    parts = []
    if isinstance(node, ast.Call) and f.local_function(node) and returns(f, node):
        # the script's own function: the values it may settle at (not a warmup's early return), on the run
        # with the defaults (`if args.use_adasum: return local_size` is not taken by default)
        parts = _by_default(f, node, settled_values(returns(f, node)))
    elif isinstance(node, ast.Call) and f.s.qual(node.func) != "len":  # a count of items is no factor of the LR
        # and a callable value (a schedule object called with the step) carries the LR it was made with
        parts = _lr_arguments(f, node) + ([node.func] if isinstance(node.func, (ast.Name, ast.Attribute)) else [])
    elif isinstance(node, ast.Lambda):
        parts = [node.body]
    elif isinstance(node, ast.UnaryOp):
        parts = [node.operand]
    elif isinstance(node, ast.IfExp):
        parts = [node.body, node.orelse]
    elif isinstance(node, (ast.List, ast.Tuple)):  # PiecewiseConstantDecay(values=[peak, peak * 0.1, ...])
        parts = node.elts + _stored_into(node)
    elif isinstance(node, ast.Dict):  # a table of LRs, also filled entry by entry: `lrs[name] = top * decay`
        parts = [v for v in node.values if v is not None] + _stored_into(node)
    elif isinstance(node, (ast.DictComp, ast.ListComp, ast.SetComp, ast.GeneratorExp)):
        parts = [node.value if isinstance(node, ast.DictComp) else node.elt]
    elif isinstance(node, ast.BoolOp):
        parts = node.values
    return set().union(*[down(p) for p in parts]) if parts else {0}


def _aliased_attribute(f, node):
    """[(spelling, value)] for `self.opts.lr` that nothing assigns by that spelling, when `self.opts` is
    assigned a name (`self.opts = opts`, a parameter bound to the caller's `opts`) whose `.lr` is assigned:
    the same object's attribute, by the other spelling (the documented fallback for attributes)."""
    base = node.value
    if not isinstance(base, ast.Attribute) or not dotted(base):
        return []
    values = [a.node.value for a in f.s.assignments_to(base) if isinstance(a.node, ast.Assign)]
    names = [v for v in values if isinstance(v, ast.Name)]
    bases = names + [b for n in names for b in f.frames_binding(n)]
    spelled = {f"{dotted(b)}.{node.attr}" for b in bases if dotted(b)} - {dotted(node)}
    return [(name, a.node.value) for name in sorted(spelled) for a in f.s.assignments_to(name)
            if isinstance(a.node, ast.Assign)]


def _attribute_stores(f, node):
    """[(spelling, value)] for `ocfg["lr"]` of a mapping with attribute access (an attribute-dict config:
    `cfg.optimizer.lr = base_lr * hvd.size()`, then `get_optimizer(cfg.optimizer)` reads `ocfg["lr"]`): the
    values assigned to the key spelled as an attribute of the mapping, or of what the caller hands in for it.
    By spelling: an attribute's objects are not tracked (the documented fallback of Script.assignments_to)."""
    key = node.slice.value if isinstance(node.slice, ast.Constant) else None
    if not isinstance(key, str) or not key.isidentifier():
        return []
    bases = [node.value] + (f.frames_binding(node.value) if isinstance(node.value, ast.Name) else [])
    spelled = [f"{dotted(b)}.{key}" for b in bases if dotted(b)]
    return [(name, a.node.value) for name in spelled for a in f.s.assignments_to(name)
            if isinstance(a.node, ast.Assign)]


def _stored_into(container):
    """The values a function stores into the container it assigns to a name (`lrs = {}`, then `lrs[name] =
    top * decay`, in the same function): the entries a reader of the table may get."""
    named = named_in_function(container)
    if named is None:
        return []
    name, scope = named
    return [st.value for st in ast.walk(scope) if isinstance(st, ast.Assign) and enclosing_def(st) is scope and any(
        isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == name for t in st.targets)]


def _loop_values(name):
    """The values a `for` loop over a written-out sequence binds the name to (`group_lr` of `for name, module,
    group_lr in (("backbone", m.backbone, lr * mult), ("head", m.head, lr))`), else []."""
    for p in parents(name):
        if not isinstance(p, (ast.For, ast.AsyncFor)):
            continue
        bound = [n for n in ast.walk(p.target) if isinstance(n, ast.Name) and n.id == name.id]
        if not bound or not isinstance(p.iter, (ast.List, ast.Tuple)):
            continue
        if isinstance(p.target, ast.Name):
            return list(p.iter.elts)
        if not isinstance(p.target, ast.Tuple) or bound[0] not in p.target.elts:
            return []
        i, n = p.target.elts.index(bound[0]), len(p.target.elts)
        items = [e for e in p.iter.elts if isinstance(e, (ast.Tuple, ast.List)) and len(e.elts) == n]
        return [e.elts[i] for e in items] if len(items) == len(p.iter.elts) else []
    return []


def _comprehended(name):
    """The container a comprehension's variable takes its values from (`lrs` for `v` of `for k, v in
    lrs.items()`, `for v in lrs.values()`, `for v in groups`), else None (a key, or another binding)."""
    for p in parents(name):
        if not isinstance(p, (ast.DictComp, ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            continue
        for g in p.generators:
            it, target = g.iter, g.target
            method = it.func.attr if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) else None
            if method == "items" and isinstance(target, ast.Tuple) and len(target.elts) == 2:
                target = target.elts[1]
            elif method not in (None, "values"):
                continue
            if isinstance(target, ast.Name) and target.id == name.id:
                return it.func.value if method else it
        return None
    return None


def _combine(left, right, sign):
    """The powers of a product (sign 1) or a quotient (sign -1), kept within [-3, 3]."""
    return {max(-3, min(3, a + sign * b)) for a in left for b in right}


def _name_powers(f, node, seen, down):
    """A name's assigned values on the default run (`lr *= hvd.size()` multiplies what it was assigned before,
    `lr /= hvd.size()` divides it) and, for a parameter, its arguments."""
    name = dotted(node)
    if not name:
        return down(node.value) if isinstance(node, ast.Attribute) else {0}
    key = _binding_key(f, node, name)
    if key in seen:
        return {0}
    seen.add(key)
    plain, out = set(), set()
    # a Name by the definitions that reach it, an attribute by spelling; a name read from a module of the project
    # (`C.LR`, `from config import LR`) by that module's own assignments; an instance's attribute (`cluster.size`
    # of `cluster = Cluster(...)`) by what its class's methods set on `self`
    assigned = f.s.assignments_to(node) or f.s.module_assignments(node) or f.s.instance_attribute_assigns(node)
    for a in _default_run(f, assigned):
        if isinstance(a.node, ast.AugAssign) and isinstance(a.node.op, (ast.Mult, ast.Div, ast.FloorDiv)):
            continue
        # assignments_to() gives `a, b = x, y` each its own element; `a, b = f()` takes f's returned element
        plain |= set().union(*[down(v) for v in unpacked(f, a, name)])
    for a in _default_run(f, assigned):
        if isinstance(a.node, ast.AugAssign) and isinstance(a.node.op, (ast.Mult, ast.Div, ast.FloorDiv)):
            sign = 1 if isinstance(a.node.op, ast.Mult) else -1
            out |= _combine(plain or {0}, down(a.node.value), sign)
    out |= plain
    if isinstance(node, ast.Name):
        for expr in f.frames_binding(node):
            out |= down(expr)
    elif not assigned and (aliased := _aliased_attribute(f, node)):
        # `self.opts.lr` in a Trainer given `opts`, whose `opts.lr = opts.lr * hvd.size()` the caller ran
        seen.update(spelled for spelled, _ in aliased)
        out |= set().union(*[down(v) for _, v in aliased])
    elif not assigned:
        # an option read off the parsed namespace: its declared default (`--global-batch` defaulting to
        # `32 * hvd.size()` grows with the ranks)
        flag = declared(f.s).get(node.attr) if holds_namespace(f.s, node.value) else None
        if flag is not None and flag.default is not None:
            out |= down(flag.default)
        for expr in _fields(f, node) + _property_returns(f, node):
            out |= down(expr)
    return out or {0}


def _property_returns(f, node):
    """What a property of the project's class returns for `obj.attr` (`cfg.peak_lr` returning
    `self.base_lr * self.global_batch_size / 256`), with `self` read as the object it is read off (`cfg`):
    `cfg.global_batch_size`, then `cfg.world_size` as the script assigns it. The object by the class a walked
    call makes it with, directly or through a classmethod (`RunConfig.from_json(path)` returning `cls(...)`)."""
    classes, todo, seen = [], list(f.origins(node.value)), set()
    while todo and len(seen) < 20:
        made = todo.pop()
        if isinstance(made, ast.IfExp):  # `RunConfig.from_json(path) if path else RunConfig()`
            todo += list(f.origins(made.body)) + list(f.origins(made.orelse))
            continue
        if id(made) in seen or not isinstance(made, ast.Call):
            continue
        seen.add(id(made))
        cls = f.s.class_called(made.func)
        if cls is not None:
            classes.append(cls)
        elif f.local_function(made):
            todo += [o for r in returns(f, made) for o in f.origins(r)]
    return [_on_object(r, node.value) for cls in {id(c): c for c in classes}.values()
            for r in property_returns(f, cls, node.attr)]


def _on_object(expr, obj):
    """A copy of `expr` with `self` replaced by (a copy of) `obj`, each new node given the place of the node it
    copies (line, module, parent) so the walk's queries read it where the property is."""
    def copy_of(n, parent):
        if isinstance(n, ast.Name) and n.id == "self" and n is not obj:
            return copy_of(obj, parent)
        new = type(n)()
        for name in n._fields:
            v = getattr(n, name, None)
            if isinstance(v, ast.AST):
                v = copy_of(v, new)
            elif isinstance(v, list):
                v = [copy_of(x, new) if isinstance(x, ast.AST) else x for x in v]
            setattr(new, name, v)
        for name in n._attributes + ("hk_module",):
            if hasattr(n, name):
                setattr(new, name, getattr(n, name))
        new.parent = parent
        return new
    return copy_of(expr, getattr(expr, "parent", None))


def _fields(f, node):
    """What an attribute never assigned by its spelling holds: the field of that name of the object it is read
    from (`rt.world_size` with `rt = start()` returning `Runtime(hvd.rank(), hvd.size())`, a dataclass or a class
    whose __init__ takes it), through names, attributes and the returns of the project's functions."""
    out, todo, seen = [], list(f.origins(node.value)), set()
    while todo and len(seen) < 50:
        made = todo.pop()
        if id(made) in seen or not isinstance(made, ast.Call):
            continue
        seen.add(id(made))
        if f.s.qual(made.func) in ("dataclasses.replace", "copy.replace") and made.args:
            # `dataclasses.replace(cfg, data_dir=...)`: the fields given anew, the others the object's
            given = {k.arg: k.value for k in made.keywords if k.arg}
            out += [given[node.attr]] if node.attr in given else []
            todo += [] if node.attr in given else list(f.origins(made.args[0]))
        elif f.s.class_called(made.func) is not None:
            out += field_values(f, made, node.attr)
        elif (fields := _namedtuple_fields(f, made.func)) is not None:  # `DistContext(rank=..., size=hvd.size())`
            given = dict(zip(fields, made.args)) if not any(isinstance(a, ast.Starred) for a in made.args) else {}
            given.update({k.arg: k.value for k in made.keywords if k.arg})
            out += [given[node.attr]] if node.attr in given else []
        elif f.s.qual(made.func) in NAMESPACES:  # `SimpleNamespace(**cfg).lr`: the entry cfg["lr"]
            out += namespace_entries(f, made, node.attr)
        elif f.local_function(made) and isinstance(made.func, ast.Attribute) and any(
                isinstance(r, ast.Name) and r.id == "self" for r in returns(f, made)):
            # `TFConfig(...).finalize(hvd.size())` gives the object back as its method left it
            set_there = set_on_self(called_def(f, made), node.attr)
            out += set_there
            todo += [] if set_there else f.origins(made.func.value)
        elif f.local_function(made):
            todo += [o for r in returns(f, made) for o in f.origins(r)]
    return out


def _namedtuple_fields(f, func):
    """The field names of a `collections.namedtuple("Name", [...])` class the name `func` holds (written out as
    a list, a tuple or a string), else None."""
    if not isinstance(func, (ast.Name, ast.Attribute)):
        return None
    for value, _ in f.s.values_of(func) if isinstance(func, ast.Name) else ():
        if isinstance(value, ast.Call) and f.s.qual(value.func) in ("collections.namedtuple", "namedtuple") and \
                len(value.args) >= 2:
            spec = value.args[1]
            if isinstance(spec, ast.Constant) and isinstance(spec.value, str):
                return spec.value.replace(",", " ").split()
            if isinstance(spec, (ast.List, ast.Tuple)) and all(
                    isinstance(e, ast.Constant) and isinstance(e.value, str) for e in spec.elts):
                return [e.value for e in spec.elts]
    return None


def _binding_key(f, node, name):
    """What a name read is followed by, once: a Name by its reaching definitions (`lr` of make_schedule(lr) is
    not `lr = args.lr * hvd.size()` of main that it is handed), an attribute by its spelling."""
    defs = f.s.reaching(node) if isinstance(node, ast.Name) else None
    return tuple(sorted(id(d) for d in defs)) if defs else name


def _default_run(f, events):
    """The events that run when every option has its declared default (an assignment behind `if
    args.scale_lr:` with the option off by default does not)."""
    known = f.memo("default_run", dict)  # {id(event): runs on the default run}
    for e in events:
        if id(e) not in known:
            known[id(e)] = not e.ctx.guards or values.runs(f.s, e, f.path_guards(e), defaults=True).kind != "never"
    return [e for e in events if known[id(e)]]


def _scaled(powers):
    return any(p > 0 for p in powers)


def _grows(f, expr):
    """hvd.size() (the number of ranks, not local_size) multiplies the value."""
    return _scaled(_size_powers(f, expr, f.is_global_size))


def _divided(powers):
    return any(p < 0 for p in powers)


def _lr_arguments(f, call):
    """The arguments of a call that carry the LR value: all but step counts and curve shapes."""
    last = f.s.qual(call.func).split(".")[-1]
    params = _SCHEDULE_PARAMS.get(last, ()) or _own_params(f, call)
    out = [a for i, a in enumerate(call.args)
           if not (i < len(params) and _NOT_LR_ARGS.search(params[i])) and not isinstance(a, ast.Starred)]
    return out + [k.value for k in call.keywords if k.arg and not _NOT_LR_ARGS.search(k.arg)]


def _own_params(f, call):
    """The positional parameter names of the project's function or class a call runs (`PolyLR(base_lr,
    total_iters, power)`: its __init__'s, after self); () when it is not the project's."""
    d = f.s.defined(call.func) if isinstance(call.func, (ast.Name, ast.Attribute)) else None
    if isinstance(d, ast.ClassDef):
        init = f.s.constructor(d)
        names_ = [a.arg for a in init.args.posonlyargs + init.args.args][1:] if init is not None else []
    elif isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef)):
        names_ = [a.arg for a in d.args.posonlyargs + d.args.args]
    else:
        return ()
    return tuple(names_)


def _schedule_scaled(f, node):
    """A local LR schedule whose code scales by hvd.size(): a class of the project whose code reads it, or a
    function whose returned value hvd.size() multiplies (not any function that reads it: `args =
    parse_args()` with `--global-batch` defaulting to `32 * hvd.size()` makes no LR grow)."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        return False
    body = f.s.defined(node.func)
    if isinstance(body, ast.ClassDef):
        # a schedule: called for the LR (`__call__`, torch's `get_lr`) or derived from a framework's schedule;
        # a config class whose `world_size` field defaults to hvd.size() is no LR
        schedule = any(f.s.method_of(body, m) is not None for m in ("__call__", "get_lr")) or any(
            "LearningRateSchedule" in f.s.qual(b) or "LRScheduler" in f.s.qual(b) for b in body.bases)
        return schedule and any(f.is_global_size(n) for n in ast.walk(body))
    return isinstance(body, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
        isinstance(r, ast.Return) and r.value is not None and _grows(f, r.value) for r in ast.walk(body))


# Schedulers whose function multiplies the optimizer's LR (torch) or returns the LR (Keras' LearningRateScheduler).
_MULTIPLIER_SCHEDULERS = {"LambdaLR": "lr_lambda", "MultiplicativeLR": "lr_lambda", "LearningRateScheduler": "schedule"}


def _with_multiplier_schedulers(f, verdicts):
    """LambdaLR(opt, lr_lambda=f) with f growing with hvd.size(): the scheduler scales the optimizer's LR."""
    for e in f.s.events:
        last = f.s.qual(e.node.func).split(".")[-1]
        if last not in _MULTIPLIER_SCHEDULERS or not e.ctx.reached:
            continue
        key = _MULTIPLIER_SCHEDULERS[last]
        fn = next((k.value for k in e.node.keywords if k.arg == key), None)
        if fn is None and e.node.args:
            fn = e.node.args[1] if last != "LearningRateScheduler" and len(e.node.args) > 1 else e.node.args[0]
        if fn is not None and _function_scales(f, fn):
            ok = Finding(OK, f"the LR factor of {last} grows with hvd.size(): {f.text(e.line)}", e.line)
            return [ok if v.verdict == MISSING else v for v in verdicts]
        u = f.unread_code(fn) if isinstance(fn, ast.Call) else None
        if u is not None and f.acts_itself(u, 4):
            # the factor function is made by code that could not be read (`warmup_lambda(iters, world)` of a
            # module that is not there): it may ramp the LR to hvd.size() times
            unknown = Finding(UNKNOWN, f"the LR factor of {last} (line {e.line}) is made by "
                              f"{f.describe(u)}: it may grow with hvd.size(): cannot tell", e.line,
                              "make that code readable (give --root the project's folder) or run `hvdkit check "
                              "--run`")
            return [unknown if v.verdict == MISSING else v for v in verdicts]
    return verdicts


def _function_scales(f, fn, depth=0):
    """A lambda, or a function of this file followed through its returns, whose value grows with hvd.size()."""
    if depth > 4:
        return False
    if isinstance(fn, ast.Lambda):
        return _value_scales(f, fn.body, depth)
    if isinstance(fn, ast.Name) and fn.id in f.s.funcs:
        func = f.s.funcs[fn.id]
        # the value the factor settles at (not a warmup's early return)
        returns = [n.value for n in ast.walk(func) if isinstance(n, ast.Return) and n.value is not None]
        return any(_value_scales(f, v, depth) for v in settled_values(returns)) if returns else False
    if isinstance(fn, ast.Name):
        return any(_function_scales(f, a.node.value, depth + 1) for a in f.s.assignments_to(fn.id)
                   if a.node.value is not None)
    if isinstance(fn, ast.Call) and isinstance(fn.func, (ast.Name, ast.Attribute)):
        # a factory of the project returning the function (`warmup_lambda(iters, world)` returning its nested
        # `fn`): that function's last return, its free names read as the factory's call bound them
        factory = f.s.defined(fn.func)
        if isinstance(factory, (ast.FunctionDef, ast.AsyncFunctionDef)):
            made = [f.s.defined(r.value) for r in ast.walk(factory) if isinstance(r, ast.Return)
                    and isinstance(r.value, ast.Name)]
            for inner in made:
                returns = [n.value for n in ast.walk(inner) if isinstance(n, ast.Return) and n.value is not None] \
                    if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)) else []
                if returns and any(_value_scales(f, v, depth) for v in settled_values(returns)):
                    return True
    return False


def settled_values(values):
    """Of a function's returned values, those it may settle at once the step is past every warm-up: not one an
    `if` on a parameter keeps to small steps (`if step < warmup: return ramp`), rather one an `if` keeps to
    large steps (`if step >= warmup: return peak` written before the ramp); returns under other conditions
    are each a path (`get_world_size()` returning `hvd.size()` under one backend, 1 under none)."""
    def rank(v):
        ret = getattr(v, "parent", None)
        func = enclosing_def(ret) if ret is not None else None
        # the step: a parameter without a default (`warmup=2` beside it is a setting, not the step)
        given = func.args.posonlyargs + func.args.args if func is not None else []
        params = {a.arg for a in given[:len(given) - len(func.args.defaults)]} if func is not None else set()
        if given and isinstance(getattr(func, "parent", None), ast.ClassDef):
            params.discard(given[0].arg)  # a method's instance
        says, child = set(), ret
        for p in parents(ret) if ret is not None else ():
            if p is func:
                break
            large = _large_steps(p.test, params) if isinstance(p, ast.If) else None
            if large is not None:
                says.add(large == (child in p.body))
            child = p
        return 0 if False in says else 2 if True in says else 1
    ranks = [rank(v) for v in values]
    return [v for v, r in zip(values, ranks) if r == max(ranks)]


def settled(values):
    """The one value of settled_values a schedule is read by: the last by line."""
    return max(settled_values(values), key=lambda v: v.lineno)


def _by_default(f, call, returned):
    """Of the values a walked call of the project's function may return, those whose `if`s a run with every
    option at its default does not decide against (all of them when that leaves none)."""
    if len(returned) < 2:
        return returned
    frame = next(iter(f.s.frames_of_call(call)), None)
    event = next(iter(f.s.events_at(call)), None)
    if frame is None or event is None:
        return returned
    ev = values.Evaluator(f.s, values.Where(0, defaults=True))
    kept = [v for v in returned if ev.reaches(v, frame.func, frame, event) is not False]
    return kept or returned


def _large_steps(test, params):
    """For `step >= warmup` (a comparison of a parameter with what is not one): True when the test holds for
    large values of the parameter, False when for small ones (`step < warmup`, `warmup > step`); else None."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    def reads(n):
        return any(isinstance(m, ast.Name) and m.id in params for m in ast.walk(n))
    left, right = reads(test.left), reads(test.comparators[0])
    if left == right or not isinstance(test.ops[0], (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
        return None
    return isinstance(test.ops[0], (ast.Gt, ast.GtE)) == left


def _value_scales(f, expr, depth):
    """hvd.size() multiplies the value, directly or in the return of a local function it calls."""
    if _grows(f, expr):
        return True
    return any(_function_scales(f, n.func, depth + 1) for n in ast.walk(expr) if isinstance(n, ast.Call))


# Horovod's Keras callbacks that set the optimizer's LR themselves from initial_lr (Horovod 0.28.1
# _keras/callbacks.py): the warmup ramps from initial_lr / size to initial_lr and leaves it there; the schedule
# sets initial_lr * multiplier(epoch) from start_epoch on.
_LR_CALLBACKS = ("LearningRateWarmupCallback", "LearningRateScheduleCallback")


def _lr_callbacks(f, same):
    """Verdicts for the LR callbacks given to fit (initial_lr is an absolute LR: _absolute_verdict), and whether
    one of them sets the LR from the first epoch."""
    out, from_start = [], False
    for e in f.s.events:
        if not f.api(e, *_LR_CALLBACKS) or not e.ctx.reached or not f.flows_to_callbacks(e):
            continue
        kw = {k.arg: k.value for k in e.node.keywords}
        initial = kw.get("initial_lr", e.node.args[0] if e.node.args else None)
        multiplier = kw.get("multiplier", e.node.args[1] if len(e.node.args) > 1 else None)
        start = kw.get("start_epoch", e.node.args[2] if len(e.node.args) > 2 else None)
        name = e.api[1].split(".")[-1]
        from_start |= start is None or isinstance(start, ast.Constant) and start.value == 0
        if initial is None:
            continue
        if multiplier is not None and (_function_scales(f, multiplier) or _value_scales(f, multiplier, 0)):
            out.append(Finding(OK, f"{name} sets the LR from initial_lr times a multiplier scaled by hvd.size(): "
                               f"{f.text(e.line)}", e.line))
            continue
        v = _absolute_verdict(f, initial, same, f"{name} at line {e.line} sets the LR from initial_lr="
                              f"{ast.unparse(initial)}", e.line, f"initial_lr={ast.unparse(initial)} * hvd.size()")
        out += [v] if v is not None else []
    return out, from_start


def _adasum(f):
    """The gradients are combined with op=hvd.Adasum (also through a name: `op=reduce_op`)."""
    adasum = lambda n: isinstance(n, ast.Attribute) and n.attr == "Adasum"  # noqa: E731 - a predicate for mentions()
    return any(k.arg == "op" and f.mentions(k.value, adasum) for e in f.s.events
               if f.api(e, *names.WRAPPERS) for k in e.node.keywords)


def _with_lr_setting_schedulers(f, opts, verdicts):
    """OneCycleLR(opt, max_lr=...) / CyclicLR(opt, base_lr, max_lr) set the LR themselves: the optimizer's own lr
    is overwritten, so their arguments decide step 4 for the optimizer they drive, scaled or not."""
    out = list(verdicts)
    for e in f.s.events:
        last = f.s.qual(e.node.func).split(".")[-1]
        if last not in names.LR_OVERWRITING_SCHEDULERS or not e.ctx.reached:
            continue
        verdict = _scheduler_verdict(f, e, last)
        driven = _driven_optimizers(f, e, opts)
        out = [verdict if o in driven else v for o, v in zip(opts, out)] + out[len(opts):]
    return out


def _scheduler_verdict(f, e, last):
    """Every LR argument scaled by hvd.size(): ok; one unscaled (or divided, or rank-dependent): wrong."""
    kw = {k.arg: k.value for k in e.node.keywords}
    for i, key in enumerate(names.LR_OVERWRITING_SCHEDULERS[last]):
        # positional order after the optimizer: OneCycleLR(opt, max_lr), CyclicLR(opt, base_lr, max_lr)
        value = kw.get(key, e.node.args[i + 1] if len(e.node.args) > i + 1 else None)
        if value is None:
            continue
        powers = _size_powers(f, value)
        rank = _size_powers(f, value, f.is_any_rank) != {0}
        same = None if _divided(powers) or rank or _grows(f, value) else _same_update(f)
        if same is not None:  # unscaled, and rightly: gradients summed, or a fixed global batch
            return Finding(OK, f"{last} at line {e.line} sets the LR from {key}={ast.unparse(value)}, unscaled, and "
                           f"rightly: {same[1]}", e.line)
        if _divided(powers) or rank or not _grows(f, value):
            return Finding(WRONG, f"{last} at line {e.line} sets the LR from {key}={ast.unparse(value)}, not "
                           "scaled by hvd.size(): it overwrites the optimizer's lr", e.line,
                           f"scale {key} by hvd.size()")
    return Finding(OK, f"{last} sets the LR from an argument scaled by hvd.size(): {f.text(e.line)}", e.line)


def _driven_optimizers(f, e, opts):
    """The optimizer constructions the scheduler's optimizer argument comes from (through names and wrappers);
    all of them when it cannot be traced."""
    arg = e.node.args[0] if e.node.args else next((k.value for k in e.node.keywords if k.arg == "optimizer"), None)
    driven = [] if arg is None else [o for o in opts if f.mentions(arg, lambda n, o=o: n is o.node)]
    return driven or list(opts)


def _hvdkit_scaling(f, call):
    """hk.scale_lr(...). hvdkit's warmup (either framework) ramps up to the optimizer's LR and scales nothing."""
    api = f.s.api(call.func)
    return bool(api) and api[0] == "hvdkit" and api[1] == "scale_lr"
