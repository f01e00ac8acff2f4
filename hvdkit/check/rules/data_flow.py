"""Which data the training reads and which the evaluation reads, from the script's data flow: what the loops
around the optimizer steps iterate (and what next() draws in a while loop around one) and what `fit` gets;
what evaluate/predict, `validation_data` and loops run with gradients off read. Step 3 asks (and step 8,
through step 3's shares)."""
import ast

from hvdkit.check import names
from hvdkit.check.script import parents, result_discarded
from hvdkit.check.sources import derived, sources


def random_maker(f, call):
    q = f.s.qual(call.func)
    return bool(names.RANDOM_MAKERS.match(q.split(".")[-1]) and "random" in q or
                q in ("torch.randn", "torch.rand", "torch.randint"))


def over_data(f, loop):
    """A for loop over batches of data: not over a count (range, itertools.count) and not over random
    tensors (a synthetic data set is still synthetic)."""
    return isinstance(loop, (ast.For, ast.AsyncFor)) and data_iterable(f, loop.iter)


COUNTERS = ("range", "itertools.count", "itertools.repeat")


WRAPPING_ITERABLES = ("enumerate", "zip", "iter", "tqdm", "tqdm.tqdm", "tqdm.auto.tqdm", "itertools.cycle",
                      "itertools.islice")


def data_iterable(f, it):
    q = f.s.qual(it.func) if isinstance(it, ast.Call) else ""
    if q in WRAPPING_ITERABLES:  # enumerate(tqdm(loader)) walks the loader; zip(range(n), loader) too
        return any(data_iterable(f, a) for a in it.args)
    if isinstance(it, (ast.Constant, ast.List, ast.Tuple)) or q in COUNTERS:
        return False
    if f.mentions(it, lambda n: isinstance(n, ast.Call) and random_maker(f, n)):
        return False
    source = lambda n: isinstance(n, ast.Call) and names.DATA_SOURCES.match(  # noqa: E731
        f.s.qual(n.func).split(".")[-1] or "") is not None
    return f.mentions(it, source) or not f.mentions(it, lambda n: isinstance(n, ast.Call)
                                                     and f.s.qual(n.func) in COUNTERS)


class Flows:
    """Ids of the nodes the training data (what the optimizer steps consume) and the evaluation data are made
    of, through the script's data flow; `inputs`, the expressions the training reads its data from."""

    def __init__(self, f):
        train, evaluation = _training_inputs(f)
        self.inputs = train
        self.train = {id(n) for n in sources(f, train, derived)}
        # where the walk sees no training, a loop over data is no evidence of evaluation either
        self.evaluation = {id(n) for n in sources(f, evaluation, derived)} if train else set()


def flows(f):
    """Facts.flows: computed once per script."""
    return f.flows


_EVALUATING = ("evaluate", "predict", "test_on_batch", "predict_on_batch", "evaluate_generator", "predict_generator")


def _training_inputs(f):
    """([what the optimizer steps consume], [what is evaluated]): the iterables of the loops around each
    optimizer step (and what next() draws inside a while loop around one), fit's data; evaluate/predict's
    data, fit's validation_data, the data iterated by loops that run with gradients off and build nothing."""
    train, evaluation, loops, drawing = [], [], set(), set()
    for s in f.steps:
        attr = getattr(s.node.func, "attr", "")
        if attr in ("fit", "fit_generator", "train_on_batch"):
            kw = {k.arg: k.value for k in s.node.keywords}
            train += s.node.args[:2] + [kw[k] for k in ("x", "y", "generator") if k in kw]
            evaluation += [kw[k] for k in ("validation_data",) if k in kw]
        for loop in s.ctx.loops:
            loops.add(id(loop))
            drawing.add(id(loop))  # `x, y = next(it)` in a `while` / `for _ in range(steps)`: batches drawn
            if isinstance(loop, (ast.For, ast.AsyncFor)):
                train.append(loop.iter)
            elif isinstance(loop, (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)):
                train += [g.iter for g in loop.generators]
    if not f.steps:
        train += [a for _, handed in unread_training(f) for a in handed]
    for e in f.s.events:
        q = f.s.qual(e.node.func)
        if q == "next" and e.node.args and any(id(loop) in drawing for loop in e.ctx.loops):
            train.append(e.node.args[0])
        elif e.ctx.loops and id(e.ctx.loops[-1]) in drawing and _draws_from_object(f, e):
            train.append(e.node.func)  # in the loop of the steps itself, not in an evaluation it calls
        elif getattr(e.node.func, "attr", "") in _EVALUATING:
            evaluation += e.node.args[:1] + [k.value for k in e.node.keywords if k.arg == "x"]
    for node in f.s.nodes():  # the project modules read too: an `evaluate()` of an engine module
        if not isinstance(node, (ast.For, ast.AsyncFor, ast.ListComp, ast.GeneratorExp, ast.SetComp)) or \
                id(node) in loops or isinstance(node, (ast.For, ast.AsyncFor)) and _builds(f, node) or \
                not _gradients_off(f, node):
            continue
        if isinstance(node, (ast.For, ast.AsyncFor)):
            iters = [node.iter]
        else:  # a comprehension builds a value, unless a reduction takes it: sum(... for x, y in loader)
            iters = [g.iter for g in getattr(node, "generators", ()) if _reduced(f, node)]
        evaluation += [it for it in iters if data_iterable(f, it)]
    return train, evaluation


def _draws_from_object(f, e):
    """`xs, xq = train_gen()`: an object called with nothing, its result kept, where the name holds what a call
    made (an episode generator, a batch sampler) and no function of the script: a draw of data, as next(it)."""
    func = e.node.func
    if not isinstance(func, ast.Name) or e.node.args or e.node.keywords or result_discarded(e.node) or \
            f.s.defined(func) is not None:
        return False
    made = [a.node.value for a in f.s.assignments_to(func) if a.node.value is not None]
    return bool(made) and all(isinstance(v, ast.Call) for v in made)


def unread_training(f):
    """[(Unread, [what it is handed beside the model and optimizers])]: calls into code that could not be read
    which run the training: where no optimizer step is read, a call handed the model or an optimizer
    (`train_epoch(net, train_loader, sgd, device)`); else the object a step is a method of, made by such a call
    (`Trainer(model, optimizer, cfg)` whose `trainer.fit(ds)` trains). The data they train on may be
    partitioned in there."""
    def memo():
        from hvdkit.check.rules.models import is_model
        made = {id(e.node) for e in f.optimizers}
        out = {}
        for u in f.unread_on_path:
            handed = u.event.node.args + [k.value for k in u.event.node.keywords]
            trains = [a for a in handed if is_model(f, a, u.event) or f.mentions(a, lambda n: id(n) in made)]
            if trains:
                out[id(u.event.node)] = (u, [a for a in handed if not any(a is t for t in trains)])
        if not f.steps:
            return list(out.values())
        receivers = [s.node.func.value for s in f.steps if isinstance(s.node.func, ast.Attribute)]
        makers = {id(n) for n in sources(f, receivers)}
        return [v for k, v in out.items() if k in makers]
    return f.memo("unread_training", memo)


def _gradients_off(f, loop):
    """The loop runs with gradients off, as an evaluation does: inside `with torch.no_grad()` (or
    inference_mode, set_grad_enabled(False)), after `model.eval()` in the same function, or calling a Keras
    model in inference mode (`model(x, training=False)`) or updating a Keras metric (`update_state`), in the
    loop or a function of the script it calls.
    (A loop over a model's layers, or one that only prepares data, is no evaluation.)"""
    if _inference_calls(f, loop.body if isinstance(loop, (ast.For, ast.AsyncFor)) else [loop], set()):
        return True
    for p in parents(loop):
        if isinstance(p, (ast.With, ast.AsyncWith)) and any(
                isinstance(i.context_expr, ast.Call) and f.s.qual(i.context_expr.func).split(".")[-1] in
                ("no_grad", "inference_mode", "set_grad_enabled") for i in p.items):
            return True
        if isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return any(isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "eval" and not n.args
                       and n.lineno <= loop.lineno for n in ast.walk(p))
    return False


def _inference_calls(f, body, seen):
    """A call with `training=False`, or a Keras metric's update_state() (outside the loops around optimizer
    steps, which are no evaluation), in `body` or in a function of the script that `body` calls by name."""
    for n in (n for b in body for n in ast.walk(b) if isinstance(n, ast.Call)):
        if any(k.arg == "training" and isinstance(k.value, ast.Constant) and k.value.value is False
               for k in n.keywords) or getattr(n.func, "attr", "") == "update_state":
            return True
        d = f.s.defined(n.func) if isinstance(n.func, ast.Name) else None
        if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef)) and id(d) not in seen:
            seen.add(id(d))
            if _inference_calls(f, d.body, seen):
                return True
    return False


def _reduced(f, comprehension):
    """The comprehension's values are reduced to a number: sum(...), min, max, any, all, x.mean()."""
    parent = getattr(comprehension, "parent", None)
    return isinstance(parent, ast.Call) and (f.s.qual(parent.func) in ("sum", "min", "max", "any", "all") or
                                             getattr(parent.func, "attr", "") == "mean")


def _builds(f, loop):
    """A loop that fills containers (`parts.append(...)`, `x[i] = ...`) or yields: it builds data rather than
    evaluates. (`meter.update(loss)` of an object some class made, not a dict, accumulates a metric.)"""
    for n in ast.walk(loop):
        if isinstance(n, (ast.Yield, ast.YieldFrom)):
            return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                n.func.attr in ("append", "extend", "add", "update", "insert", "put") and not _meter_update(f, n):
            return True
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Subscript) for t in n.targets):
            return True
    return False


def _meter_update(f, call):
    """`te.update(...)` where every value of `te` is made by a call of a class other than dict / set (a meter, a
    Keras metric, an accumulator of a module that is not read)."""
    recv = call.func.value
    if call.func.attr != "update" or not isinstance(recv, ast.Name):
        return False
    made = [a.node.value for a in f.s.assignments_to(recv) if getattr(a.node, "value", None) is not None]
    return bool(made) and all(isinstance(v, ast.Call) and f.s.qual(v.func).split(".")[-1] not in (
        "dict", "set", "defaultdict", "OrderedDict", "Counter") for v in made)
