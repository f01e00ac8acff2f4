"""Step 6: every rank starts from rank 0's weights (and optimizer state)."""
import ast

from hvdkit.check import names, values
from hvdkit.check.facts import handed, same_walk
from hvdkit.check.findings import MISSING, OK, UNKNOWN, WRONG, Finding
from hvdkit.check.rules.flags import condition
from hvdkit.check.rules.held import Ref, origin, reaching, resolve, sources, with_values
from hvdkit.check.rules.models import STATE, elements, trained, wrapper
from hvdkit.check.project import module_of
from hvdkit.check.script import dotted, enclosing_def, result_discarded, unmoved
from hvdkit.check.values import off_by_default, runs


def judge(f):
    casts = [e for e in f.s.events if f.api(e, *names.BROADCASTS) and not f.api(e, "broadcast_optimizer_state")]
    opt_only = [e for e in f.s.events if f.api(e, "broadcast_optimizer_state")]
    elastic = [e for e in f.s.events if f.api(e, *names.ELASTIC_STATES)]
    if elastic and any(e.api[1] == "elastic.run" for e in f.s.api_calls("run")) or elastic and any(
            (f.s.api(d.func if isinstance(d, ast.Call) else d) or (None, ""))[1] == "elastic.run"
            for node in f.s.nodes() for d in getattr(node, "decorator_list", [])):
        return Finding(OK, f"elastic state synchronised by hvd.elastic.run: {f.text(elastic[0].line)}", elastic[0].line)
    casts = [e for e in casts if not _not_weights(f, e)]
    opt_only += [e for e in casts if _optimizer_only(f, e)]
    casts = [e for e in casts if not _optimizer_only(f, e)]
    if not casts:
        e = opt_only[0] if opt_only else None
        unread = _unread_broadcast(f)  # (beside an optimizer state's broadcast: `sync_models(G, D)` not read)
        if unread is not None:
            return unread
        why = "only the optimizer state is broadcast: replicas keep their own initial weights" if e else \
            "no broadcast from rank 0: replicas start from different weights and never agree"
        return Finding(MISSING if not e else WRONG, why, e.line if e else None,
                       "hvd.broadcast_parameters(model.state_dict(), root_rank=0) / hvd.broadcast_variables(model."
                       "variables, 0) / callbacks=[hvd.callbacks.BroadcastGlobalVariablesCallback(0)]")
    whole = _root_is_own_rank(f, casts) or _callback_reused(f, casts) or _trained_not_broadcast(f, casts) or \
        _dict_entry_not_broadcast(f, casts) or \
        _loaded_after_broadcast(f, casts) or _rebuilt_after_broadcast(f, casts) or \
        _reinitialised_after_broadcast(f, casts) or _once_per_object(f, casts) or \
        _optimizer_state_on_rank0(f, opt_only + [e for e in casts if f.api(e, "broadcast_state")])
    if whole is not None:
        return whole
    problems = []
    for e in casts:
        p = _broadcast_problem(f, e)
        if p is None:
            return Finding(OK, f.text(e.line), e.line)
        problems.append(p)
    order = {WRONG: 0, UNKNOWN: 1}
    return min(problems, key=lambda p: order[p.verdict])


def _unread_broadcast(f):
    """Finding(cannot tell) when no broadcast is seen but code that could not be read could broadcast: a call
    into it handed Horovod (Facts.hands_horovod), or one whose value ends up in fit's callbacks
    (`callbacks=make_callbacks(cfg)` of a module that is not there: a BroadcastGlobalVariablesCallback among
    them) and that could do Horovod's work itself (Facts.acts_itself: the project's own code, or a library's
    that knows Horovod)."""
    calls = [(u.event.node, u) for u in f.unread_on_path
             if f.hands_horovod(u) and f.handed_training(u) or f.feeds_callbacks(u) and f.acts_itself(u, 6)
             # the project's own absent code handed both the model and the optimizer (`sync_initial_state(model,
             # optimizer)`): all a broadcast of the starting state needs; or handed the model in a statement of
             # its own (`sync_model(model)`: it can only change the model in place); the model in a value
             # (`l2_loss(model)`) is not
             or u.kind != "library" and _handed_a_model(f, u) and (
                 f.handed_optimizer(u) or result_discarded(u.event.node) and (
                     _before_training(f, u) or _first_step_only(f, u)))]
    # a method, in a statement of its own before the training, of an object the project's absent code made
    # and that steps in the training's loop (`trainer.sync()` of `trainer = AdversarialTrainer(cfg)`, then
    # `trainer.step(batch)` per batch: the pass takes it for what steps): the object holds its models, and
    # the method may broadcast them. (A tokenizer of such code, used in the loop, steps nothing.)
    stepping = {id(o.node) for o in f.optimizers}
    methods = [(e, u) for e in f.s.events if e.ctx.reached and isinstance(e.node.func, ast.Attribute)
               for u in [f.unread_code(e.node)] if u is not None and u.kind != "library" and u.event.node is not e.node
               and id(u.event.node) in stepping]
    looped = {}
    for e, u in methods:
        if e.ctx.loops:
            looped[id(u.event.node)] = min(looped.get(id(u.event.node), e.order), e.order)
    calls += [(e.node, u) for e, u in methods if not e.ctx.loops and result_discarded(e.node)
              and e.order < looped.get(id(u.event.node), -1)]
    return f.cannot_tell("a broadcast from rank 0", calls)


def _first_step_only(f, u):
    """The unread call runs on the first step of the training and not after it (`if epoch == 0 and step == 0:
    sync_variables(models, optimizer)`: Horovod's TF idiom, a broadcast after the first update)."""
    return bool(f.steps) and f.runs(u.event, first_step=True).rank0 is True and \
        f.runs(u.event, first_step=False).rank0 is not True


def _before_training(f, u):
    """The unread call runs before the training's first step: before every optimizer step or fit read, and
    before every unread call handed an optimizer (`train(model, it, optimizer)` of a module not there)."""
    trains = [e.order for e in f.steps] + [v.event.order for v in f.unread_on_path if f.handed_optimizer(v)]
    return all(u.event.order < order for order in trains)


def _handed_a_model(f, u):
    """The unread call is handed a model, or an object that the project's own unread code made and the pass
    cannot tell from one (`model = SmallResNetish(n)` of a module that is not there, handed with the optimizer
    to `make_train_step(model, optimizer, loss_fn)`)."""
    def own(a):
        maker = f.unread_maker(a)
        return maker is not None and maker.kind in ("absent", "unparsed")
    return f.handed_model(u) or any(own(a) for a in handed(u.event.node) if isinstance(a, (ast.Name, ast.Attribute)))


def _optimizer_only(f, e):
    """What the broadcast sends is the state of optimizers only (their state_dict or variables, through
    names), no model's: judged by the objects the state comes from, not by their names."""
    owners = _sent_owners(f, e)
    return bool(owners) and all(_is_optimizer(f, o, at) for o, at in owners)


_VALUE_BROADCASTS = ("broadcast", "broadcast_", "broadcast_object")
_SENT = ("params", "variables", "tensor", "obj", "value", "optimizer")


def _sent_owners(f, e):
    """[(node, event)]: the objects whose state a broadcast sends (`model` in hvd.broadcast_parameters(state)
    with state = model.state_dict(); each element of `for m in (gen, disc)`), each with where it is read."""
    out = []
    if f.api(e, "broadcast_state"):  # hvdkit's: given the model and optimizer objects themselves
        return [(x, e) for a in e.node.args + [k.value for k in e.node.keywords] for x in elements(f, a, e)]
    for arg in e.node.args[:1] + [k.value for k in e.node.keywords if k.arg in _SENT]:
        for expr, at in sources(f, arg, e) + [(it, e) for it in _loop_sources(e, arg)]:
            for n in ast.walk(expr):
                if isinstance(n, ast.Attribute) and n.attr in STATE:
                    out += [(x, at) for x in elements(f, n.value, at)]
    return out


def _is_optimizer(f, node, at):
    """The object is an optimizer: made by a framework's optimizer class or Horovod's wrapper (followed
    through names), or a Keras model's `.optimizer`."""
    if isinstance(node, ast.Attribute) and node.attr == "optimizer":
        return True
    made = origin(f, node, at)
    return made is not None and (bool(names.OPTIMIZER_CLASS.match(f.s.qual(made.func))) or wrapper(f, made))


def _not_weights(f, e):
    """hvd.broadcast(start_epoch, 0) sends a counter, not the weights: it is not step 6. A value broadcast
    counts when what it sends comes from a model's state (through names and the loops that bind them), or
    when what it returns is loaded into a model."""
    if not f.api(e, *_VALUE_BROADCASTS):
        return False
    if _sent_owners(f, e):
        return False
    loads = [x for x in f.s.events if getattr(x.node.func, "attr", "") in _WEIGHT_LOADS + ("set_weights",)]
    return not any(f.mentions(a, lambda n: n is e.node) for x in loads for a in x.node.args)


def _loop_sources(e, arg):
    """The iterables of the loops around `e` that bind a name of `arg` (`for v in model.variables`)."""
    mine = {n.id for n in ast.walk(arg) if isinstance(n, ast.Name)}
    out = []
    for lp in e.ctx.loops:
        gens = [(lp.target, lp.iter)] if isinstance(lp, (ast.For, ast.AsyncFor)) else \
            [(g.target, g.iter) for g in getattr(lp, "generators", [])]
        out += [it for target, it in gens if mine & {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}]
    return out


def _broadcast_problem(f, e):
    if not e.ctx.reached:
        return Finding(WRONG, f"the broadcast at line {e.line} is in a function that nothing calls", e.line,
                       "call it before the first step")
    if f.api(e, *names.BROADCAST_CALLBACKS) and not f.flows_to_callbacks(e):
        return Finding(WRONG, f"the broadcast callback made at line {e.line} is never passed to fit(callbacks=...)",
                       e.line, "add it to the callbacks list given to model.fit")
    kind = f.guard_kind(e)
    if kind == "rank":
        return Finding(WRONG, f"the broadcast at line {e.line} runs on some ranks only: a collective every rank must "
                       "call (the others hang or never receive)", e.line, "call it on every rank")
    if kind == "never":
        test = next((ast.unparse(g.test) for g in e.ctx.guards), "")
        return Finding(WRONG, f"the broadcast at line {e.line} is behind `{test}`, which is never true on the first "
                       "step: replicas keep different weights", e.line,
                       "make the condition true on the first step (e.g. pass batch == 0), or broadcast before the loop")
    after = _after_training(f, e)
    if after is not None:
        return Finding(WRONG, f"the broadcast at line {e.line} comes after the training loop (step at line "
                       f"{after.line}): replicas trained from different weights", e.line,
                       "broadcast right after building the model and optimizer, before the first step")
    empty = _before_variables(f, e)
    if empty is not None:
        return empty
    resumed = _on_resume_only(f, e) if kind == "unknown" else None
    if resumed is not None:
        return Finding(WRONG, f"the broadcast at line {e.line} runs only when `{resumed}` exists, a checkpoint this "
                       "script writes: a fresh run has none, and starts the replicas from different weights",
                       e.line, "broadcast on every run, after the checkpoint is loaded (or not)")
    off = off_by_default(f.s, e, f.path_guards(e)) if kind == "unknown" else []
    if off:
        return Finding(WRONG, f"the broadcast at line {e.line} runs only when {', '.join(off)} is set, which is off "
                       "by default: a run with the defaults starts the replicas from different weights", e.line,
                       "broadcast on every run, not only when that option is set")
    if kind == "unknown" and runs(f.s, e, f.path_guards(e), defaults=True).kind == "always":
        return None  # `if _BACKEND == "horovod":` with the backend option's default "horovod": runs by default
    if kind == "unknown":
        test = " and ".join(ast.unparse(g.test) for g in e.ctx.guards)
        return Finding(UNKNOWN, f"the broadcast at line {e.line} is behind `{test}`: cannot tell if it is true on the "
                       "first step", e.line, "run `hvdkit check --run` to see")
    return None


_VARIABLES = ("variables", "trainable_variables", "weights", "trainable_weights")
# Calls that create a Keras model's variables (a summary or load_weights needs them made too).
_BUILDS = ("build", "fit", "fit_generator", "predict", "evaluate", "train_on_batch", "test_on_batch",
           "predict_on_batch", "summary", "load_weights", "__call__")
_INPUT_SHAPE = ("input_shape", "input_dim", "batch_input_shape", "batch_shape")


def _before_variables(f, e):
    """broadcast_variables(model.variables) before the model has any: a subclassed Keras Model/Layer, or a
    Sequential without an input shape, makes its variables at its first call; before that the list is empty."""
    if not f.api(e, "broadcast_variables"):
        return None
    arg = e.node.args[0] if e.node.args else next((k.value for k in e.node.keywords if k.arg == "variables"), None)
    owners = {resolve(e, dotted(n.value)) for x in ([] if arg is None else with_values(f, arg))
              for n in ast.walk(x) if isinstance(n, ast.Attribute) and n.attr in _VARIABLES and dotted(n.value)}
    for model in sorted(owners - {None}):
        made = [a for a in f.s.assignments_to(model) if a.order < e.order and isinstance(a.node, ast.Assign)]
        first = _first_build(f, model, e)
        if not made or not _unbuilt(f, made[-1].node.value, e) or first is None or first.order < e.order:
            continue
        return Finding(WRONG, f"the broadcast at line {e.line} sends {model}'s variables before it has any: a "
                       "subclassed Keras model (or a Sequential without an input shape) creates them at its first "
                       "call, so nothing is broadcast", e.line,
                       f"broadcast after the first step (when batch == 0, after apply_gradients), as Horovod's TF2 "
                       f"example does, or call {model}.build(input_shape) first")
    return None


def _unbuilt(f, value, e, depth=0):
    """A construction whose variables do not exist yet at the broadcast `e`: a local keras Model/Layer subclass
    that builds nothing in its __init__, or a Sequential given no input shape; a local factory followed through
    its last return; a name (or a parameter) holding one that nothing built before `e` (`net.build(...)`)."""
    if isinstance(value, ast.Name) and depth <= 3:  # self.model = model, a parameter given ECGNet()
        built = _first_build(f, value.id, e)
        if built is not None and built.order < e.order:
            return False
        bound = [a.node.value for a in f.s.assignments_to(value.id) if isinstance(a.node, ast.Assign)]
        bound += [b for b in f.frames_binding(value.id) if not (isinstance(b, ast.Name) and b.id == value.id)]
        return bool(bound) and all(_unbuilt(f, b, e, depth + 1) for b in bound)
    if not isinstance(value, ast.Call) or depth > 3:
        return False
    q = f.s.qual(value.func)
    if isinstance(value.func, ast.Name) and value.func.id in f.s.classes:
        return _keras_subclass(f, f.s.classes[value.func.id]) and not _builds_itself(f.s.classes[value.func.id])
    if q.split(".")[-1] == "Sequential" and "keras" in q:
        return not _has_input_shape(f, value)
    if isinstance(value.func, ast.Name) and value.func.id in f.s.funcs:
        func = f.s.funcs[value.func.id]
        returns = [n.value for n in ast.walk(func) if isinstance(n, ast.Return) and n.value is not None]
        last = max(returns, key=lambda r: r.lineno) if returns else None
        if isinstance(last, ast.Name):
            inside = [a.node.value for a in f.s.assignments_to(last.id) if isinstance(a.node, ast.Assign)
                      and func.lineno <= a.node.lineno <= func.end_lineno]
            last = inside[-1] if inside else None
        return _unbuilt(f, last, e, depth + 1)
    return False


def _keras_subclass(f, cls, depth=0):
    for base in cls.bases:
        q = f.s.qual(base)
        if "keras" in q and q.split(".")[-1] in ("Model", "Layer", "Sequential"):
            return True
        if isinstance(base, ast.Name) and base.id in f.s.classes and depth < 5 and \
                _keras_subclass(f, f.s.classes[base.id], depth + 1):
            return True
    return False


def _builds_itself(cls):
    """A subclass that makes its variables in __init__: self.build(...), or a functional super().__init__(inputs,
    outputs), or calls itself on an input."""
    for n in ast.walk(cls):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("build", "__init__") \
                and ("self" in ast.unparse(n.func.value) or "super" in ast.unparse(n.func.value)):
            if n.func.attr == "build" or n.args or any(k.arg in ("inputs", "outputs") for k in n.keywords):
                return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "self":
            return True
    return False


def _has_input_shape(f, call):
    return any(isinstance(n, ast.Call) and f.s.qual(n.func).split(".")[-1] in ("Input", "InputLayer")
               or isinstance(n, ast.keyword) and n.arg in _INPUT_SHAPE for n in ast.walk(call))


def _first_build(f, model, e):
    """The first event of the broadcast's walk that makes the model's variables: a call of it,
    build/fit/predict/summary, or a layer with an input shape added to it (None: nothing seen builds it)."""
    for ev in f.s.events:
        if not (same_walk(ev, e) or _one_run(ev, e)) or not ev.ctx.reached:
            continue
        func = ev.node.func
        if resolve(ev, dotted(func)) == model:
            return ev
        if isinstance(func, ast.Attribute) and resolve(ev, dotted(func.value)) == model and \
                (func.attr in _BUILDS or func.attr == "add" and _has_input_shape(f, ev.node)):
            return ev
    return None


def _one_run(a, b):
    """Two events of functions the script's own top level calls one after the other (`loss = step_fn(x, y)`
    then `sync_state(model, opt)` in the module's loop): one run of the script, though not one walk of a
    function."""
    return all(ev.ctx.frames and ev.ctx.frames[0].call is not None and enclosing_def(ev.ctx.frames[0].call) is None
               and getattr(module_of(ev.ctx.frames[0].call), "main", False) for ev in (a, b))


def _after_training(f, e):
    """A step that ran earlier in a loop the broadcast is not part of, in the same walk of the script; not one rank 0
    alone takes (an LR range test: what it trains, if anything, is what rank 0 then sends)."""
    if any(s.order > e.order and same_walk(s, e) and not f.on_rank0_alone(s) for s in f.steps):
        return None  # training follows: the broadcast starts a phase (a pre-training stage before it is its own)
    for s in f.steps:
        if s.order > e.order or not same_walk(s, e) or f.on_rank0_alone(s):
            continue
        outer = [lp for lp in s.ctx.loops if not any(lp is m for m in e.ctx.loops)]
        shared = [lp for lp in s.ctx.loops if any(lp is m for m in e.ctx.loops) and isinstance(
            lp, (ast.For, ast.While, ast.AsyncFor))]
        # in the training loop itself (after a GAN's critic steps of the first pass): judged as a first-step sync
        if any(isinstance(lp, (ast.For, ast.While, ast.AsyncFor)) for lp in outer) and not shared:
            return s
    return None




def _root_is_own_rank(f, casts):
    for e in casts:
        root = next((k.value for k in e.node.keywords if k.arg == "root_rank"), None)
        if root is None and len(e.node.args) > (0 if f.api(e, *names.BROADCAST_CALLBACKS) else 1):
            root = e.node.args[0 if f.api(e, *names.BROADCAST_CALLBACKS) else 1]
        if root is not None and (f.mentions(root, f.is_rank) or f.mentions(root, f.is_local_rank)):
            return Finding(WRONG, f"line {e.line} broadcasts from root_rank={ast.unparse(root)}: each rank names "
                           "itself the root, so nobody receives rank 0's state", e.line, "use root_rank=0")
    return None


def _callback_reused(f, casts):
    """One BroadcastGlobalVariablesCallback given to the fit of a second model: it broadcast once, in the
    first fit, and never fires again, so the second model's replicas start apart. The fits it reaches are
    followed by data flow (whatever names carry the callback)."""
    for e in casts:
        if not f.api(e, *names.BROADCAST_CALLBACKS) or not e.ctx.reached:
            continue
        models, fits = [], f.fits_given(e)
        # a helper called once per fit makes a fresh callback at each call (`fit(callbacks=make_callbacks())`
        # twice): this event is the one its own call's fit gets
        calls = {id(fr.call) for fr in e.ctx.frames if fr.call is not None}
        mine = [fit for fit in fits if any(id(n) in calls for k in fit.node.keywords if k.arg == "callbacks"
                                           for n in ast.walk(k.value))]
        for fit in sorted(mine or fits, key=lambda x: x.order):
            # the receiver's name tells the models apart: two calls of one factory make two models, which
            # the calls that made them (one line of code) would not
            who = dotted(fit.node.func.value)
            if who and who not in models:
                models.append(who)
                if len(models) > 1:
                    return Finding(WRONG, f"the broadcast callback made at line {e.line} is given again to "
                                   f"{who}.fit at line {fit.line}: it broadcast once, in {models[0]}'s fit, and "
                                   f"never fires for {who}", fit.line,
                                   "give each fit its own hvd.callbacks.BroadcastGlobalVariablesCallback(0)")
    return None


def _trained_not_broadcast(f, casts):
    """Models whose parameters an optimizer trains, and that no broadcast covers (a GAN's second network, a
    sub-module added in a second param group, or another model's state broadcast instead). Models are told
    apart by the call that made them, wherever a name holds them (`self.model` in a Trainer is main's
    `model`), and a broadcast of a module covers its sub-modules."""
    if not casts or any(f.api(e, *names.BROADCAST_CALLBACKS, "broadcast_global_variables") for e in casts):
        return None
    sent = [(o, at) for e in casts for o, at in _sent_owners(f, e) if dotted(o)]
    covered = [r for o, at in sent for r in Ref.each(f, o, at)]
    fitted = any(_fitted_model(f, o) for o, _ in sent)
    for model, e in trained(f):
        ref = Ref(f, model, e)
        if fitted and _in_keras_model(f, e.node, model):
            continue  # a sub-model the Keras model trains in its own train_step: the fitted model's weights
        if ref.name and ref.name != "self" and not any(ref.within(c) for c in covered) and \
                not _member_of_covered(f, model, e, covered) and not _starts_alike(f, model, e) and \
                not _copied_from_covered(f, ref, e, covered) and not _loaded_alike(f, ref, e):
            shown = f"`{model}`" if ref.name == model else f"`{model}` (`{ref.name}`)"
            return Finding(WRONG, f"{shown} is trained (line {e.line}) but no broadcast covers it: its replicas "
                           "start from different weights", e.line,
                           f"broadcast it too: hvd.broadcast_parameters({ref.name}.state_dict(), root_rank=0) / "
                           f"hvd.broadcast_variables({ref.name}.variables, 0)")
    return None


def _dict_entry_not_broadcast(f, casts):
    """Models kept in a dict (`models["encoder"] = Encoder()`, `models["depth"] = Decoder(...)`), all trained by a
    loop over it (`for k in models: params += list(models[k].parameters())`), while the broadcasts send some
    entries by their keys: the entries left out start from different weights."""
    sent = {}
    for e in casts:
        for n in ast.walk(e.node.args[0]) if e.node.args else ():
            if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name):
                key = n.slice.value if isinstance(n.slice, ast.Constant) else None
                sent.setdefault(n.value.id, set()).add(key)
    for name, keys in sent.items():
        if None in keys or not _trained_by_loop(f, name):
            continue  # a key computed (a loop over the dict broadcasts every entry) or entries trained apart
        for a in f.s.assigns:
            t = a.node.targets[0] if isinstance(a.node, ast.Assign) and len(a.node.targets) == 1 else None
            if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == name and \
                    isinstance(t.slice, ast.Constant) and t.slice.value not in keys and a.ctx.reached:
                shown = f"{name}[{t.slice.value!r}]"
                return Finding(WRONG, f"`{shown}` (line {a.line}) is trained with the other entries of `{name}`, "
                               "but no broadcast covers it: its replicas start from different weights", a.line,
                               f"broadcast every entry: for m in {name}.values(): "
                               "hvd.broadcast_parameters(m.state_dict(), root_rank=0)")
    return None


def _trained_by_loop(f, name):
    """The parameters of every entry of the dict `name` are gathered in a loop over it (`for k in models:
    ... models[k].parameters()`, `for m in models.values(): ... m.parameters()`)."""
    for lp in (n for n in f.s.nodes() if isinstance(n, ast.For)):
        it = lp.iter.func.value if isinstance(lp.iter, ast.Call) and isinstance(lp.iter.func, ast.Attribute) and \
            lp.iter.func.attr in ("keys", "values", "items") else lp.iter
        if isinstance(it, ast.Name) and it.id == name and any(
                isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and
                c.func.attr in ("parameters", "named_parameters", "trainable_variables")
                for st in lp.body for c in ast.walk(st)):
            return True
    return False


def _fitted_model(f, node):
    """`self.model` read in a method of a Keras callback: the model that fit trains (every model fit is given
    the callback with)."""
    cls = f.s.self_class(node) if dotted(node) == "self.model" else None
    return cls is not None and f.s.keras_callback(cls)


def _in_keras_model(f, at, model):
    """`self.net` trained in a method of the project's keras.Model subclass (its train_step): a part of the
    model that fit trains."""
    if not model.startswith("self."):
        return False
    func = enclosing_def(at)
    cls = getattr(func, "parent", None)
    return isinstance(cls, ast.ClassDef) and _keras_subclass(f, cls)


# Whole-state copies (`fast.set_weights(meta.get_weights())`, `student.load_state_dict(teacher.state_dict())`),
# per-variable copies (`fv.assign(mv)`, `p.data.copy_(q.data)`), and what lists a model's variables.
_STATE_COPIES = {"set_weights": "get_weights", "load_state_dict": "state_dict"}
_VARIABLE_COPIES = ("assign", "copy_")
_VARIABLE_LISTS = ("variables", "weights", "trainable_variables", "trainable_weights", "parameters")


def _copied_from_covered(f, ref, e, covered):
    """Before it is trained, the model's weights are set from a model a broadcast covers, on every rank: its
    whole state (`fast.set_weights(meta.get_weights())`), or each variable in a loop over `zip(fast.variables,
    meta.variables)` (`fv.assign(mv)`: MAML's copy of the meta-model before each adaptation)."""
    def owner(expr, at):
        expr = expr.func if isinstance(expr, ast.Call) else expr
        return Ref(f, dotted(expr.value), at) if isinstance(expr, ast.Attribute) and dotted(expr.value) else None

    def from_covered(expr, at):
        o = owner(expr, at)
        return o is not None and any(o.within(c) for c in covered)
    for c in f.s.events:
        func = c.node.func
        if not (c.ctx.reached and c.order < e.order and isinstance(func, ast.Attribute) and c.node.args):
            continue
        source = c.node.args[0]
        if func.attr in _STATE_COPIES and isinstance(source, ast.Call) and \
                getattr(source.func, "attr", "") == _STATE_COPIES[func.attr]:
            into = owner(func, c)
            if into is not None and ref.within(into) and from_covered(source, c):
                return True
        elif func.attr in _VARIABLE_COPIES:
            pair = _zipped_pair(c, func.value, source)
            into = owner(pair[0], c) if pair is not None else None
            if into is not None and ref.within(into) and from_covered(pair[1], c):
                return True
    return False


def _loaded_alike(f, ref, e):
    """Before it is trained, every rank loads the model's whole state from one file (`model.load_state_dict(
    torch.load("stage1.pt"))`, `model.load_weights(path)`): a path no rank reads differently, no partial load
    (`strict=False`, `by_name=True`, `skip_mismatch=True`), on every rank: the replicas start from the same
    weights, as a broadcast would give them."""
    for c in f.s.events:
        func = c.node.func
        if not (c.ctx.reached and c.order < e.order and isinstance(func, ast.Attribute) and
                func.attr in ("load_state_dict", "load_weights") and c.node.args and dotted(func.value)):
            continue
        partial = any(k.arg in ("strict", "by_name", "skip_mismatch") and not (
            isinstance(k.value, ast.Constant) and k.value.value is (k.arg == "strict")) for k in c.node.keywords)
        runs = f.runs(c, first_step=False)
        if not partial and runs.rank0 is True and runs.rank1 is True and \
                ref.within(Ref(f, dotted(func.value), c)) and not f.mentions(c.node.args[0], f.is_any_rank):
            return True
    return False


def _zipped_pair(event, target, source):
    """(what `target` iterates, what `source` iterates) for names a loop around the event binds from one zip
    (`for fv, mv in zip(fast.variables, meta.variables): fv.assign(mv)`), each a model's variable list; None
    otherwise."""
    def strip(x):
        return x.value if isinstance(x, ast.Attribute) and x.attr == "data" else x
    target, source = strip(target), strip(source)
    if not (isinstance(target, ast.Name) and isinstance(source, ast.Name)):
        return None
    for lp in event.ctx.loops:
        if not (isinstance(lp, (ast.For, ast.AsyncFor)) and isinstance(lp.target, ast.Tuple) and
                isinstance(lp.iter, ast.Call) and dotted(lp.iter.func) == "zip"):
            continue
        slots = [t.id if isinstance(t, ast.Name) else None for t in lp.target.elts]
        if target.id in slots and source.id in slots and len(lp.iter.args) == len(slots):
            a, b = lp.iter.args[slots.index(target.id)], lp.iter.args[slots.index(source.id)]
            listed = [x for x in (a, b) if getattr(x.func if isinstance(x, ast.Call) else x, "attr", "")
                      in _VARIABLE_LISTS]
            if len(listed) == 2:
                return a, b
    return None


def _member_of_covered(f, model, e, covered):
    """`m` bound by a loop over a module's members (`for i, m in enumerate(ensemble.members)`, `zip(model.heads,
    opts)`, `model.children()`): a sub-module of that module, covered when the module is broadcast."""
    if "." in model:
        return False
    for lp in e.ctx.loops:
        if not isinstance(lp, (ast.For, ast.AsyncFor)) or not any(
                isinstance(n, ast.Name) and n.id == model for n in ast.walk(lp.target)):
            continue
        it = lp.iter
        while isinstance(it, ast.Call) and f.s.qual(it.func) in ("enumerate", "zip", "list", "reversed") and it.args:
            it = it.args[0]  # the members are what is iterated (zip's first: the modules beside their optimizers)
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr in (
                "children", "modules", "values"):
            it = it.func.value
        owner = dotted(it.value) if isinstance(it, ast.Attribute) else dotted(it)
        if owner and any(Ref(f, owner, e).within(c) for c in covered):
            return True
    return False


def _starts_alike(f, model, e):
    """The model is made equal on every rank without a broadcast: an instance of a torch module (or tf.Module) of
    the project whose __init__ makes nothing but parameters of constant values (`self.log_vars =
    nn.Parameter(torch.zeros(n))`, `tf.Variable(tf.zeros(n))`: a task-weighting module); random initialisation
    anywhere (a layer, a randn) and the ranks differ."""
    made = [v for v, _ in reaching(f, ast.parse(model, mode="eval").body, e)]
    made = [unmoved(v) for v in made]
    classes = [f.s.defined(v.func) for v in made if isinstance(v, ast.Call)]
    return bool(classes) and all(isinstance(c, ast.ClassDef) and _constant_parameters(f, c) for c in classes)


def _constant_parameters(f, cls):
    init = next((m for m in cls.body if isinstance(m, ast.FunctionDef) and m.name == "__init__"), None)
    if init is None:
        return False
    for stmt in init.body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and \
                getattr(stmt.value.func, "attr", "") == "__init__":
            continue  # super().__init__()
        if not (isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call) and
                f.s.qual(stmt.value.func) in _PARAMETERS and stmt.value.args):
            return False
        made = stmt.value.args[0]
        if not (isinstance(made, ast.Call) and f.s.qual(made.func) in _CONSTANT_TENSORS):
            return False
    return True


# torch's and TensorFlow's trainable holders, and their makers of tensors of given values: the same on every rank.
_PARAMETERS = ("torch.nn.Parameter", "tensorflow.Variable")
_CONSTANT_TENSORS = ("torch.zeros", "torch.ones", "torch.full", "torch.tensor", "torch.eye", "torch.arange",
                     "tensorflow.zeros", "tensorflow.ones", "tensorflow.fill", "tensorflow.constant", "tensorflow.eye")
# Calls that write a checkpoint's weights into a model (torch, Keras, tf.train.Checkpoint).
_WEIGHT_LOADS = ("load_state_dict", "load_weights", "restore")
# Broadcasts that run when training starts (at fit's first batch, at session creation), after any earlier load.
_AT_TRAINING_START = names.BROADCAST_CALLBACKS + ("BroadcastGlobalVariablesHook",)


def _loaded_after_broadcast(f, casts):
    """Rank 0 alone loads a checkpoint into a model after the last broadcast that covers it, and training
    follows (in the code read, or in code not read that trains: Facts.training_not_read): only rank 0 resumes
    from the checkpoint, the others keep the weights broadcast before."""
    if any(f.api(e, *_AT_TRAINING_START) for e in casts):
        return None
    for load in f.s.events:
        if getattr(load.node.func, "attr", "") not in _WEIGHT_LOADS or not load.ctx.reached or \
                not f.rank0_only(load):
            continue
        models = _load_targets(f, load)
        covering = [b for b in casts if same_walk(b, load) and any(
            m.within(c) or c.within(m) for m in models for c in _broadcast_models(f, b))]
        before = [b for b in covering if b.order < load.order]
        # a broadcast after the load that never runs there (`if name == "head" and epoch == 0:` in the call
        # of run_phase("finetune", ...)) covers nothing
        covering = before + [b for b in covering if b.order > load.order and values.runs(
            f.s, b, f.path_guards(b), defaults=True).kind != "never"]
        # the training follows: a step of the code read, or code not read that trains (a Trainer of a module
        # that is not there, made with the model after the load)
        trains = any(same_walk(s, load) and s.order > load.order for s in
                     f.steps + f.fits + [u.event for u in f.training_not_read])
        if before and trains and not any(b.order > load.order for b in covering):
            b = before[-1]
            return Finding(WRONG, f"{condition(f, load)}rank 0 loads the checkpoint after the broadcast (line "
                           f"{b.line}): at line {load.line} only rank 0 resumes from it, the other ranks keep the "
                           "weights broadcast before", load.line,
                           "broadcast after loading (load on rank 0, then broadcast to all)")
    return None


def _reinitialised_after_broadcast(f, casts):
    """A model broadcast, then its weights drawn again before the first step (`model.apply(init_fn)` whose
    function resets parameters or calls torch.nn.init, `model.reset_parameters()`, `nn.init.xavier_uniform_(
    model.fc.weight)`), on every rank, where the ranks' random streams differ (a seed read from the rank, or
    none set): each rank trains its own draw."""
    if any(f.api(e, *_AT_TRAINING_START) for e in casts) or not _streams_differ(f):
        return None
    for r in f.s.events:
        target = _reinitialised(f, r)
        if target is None or not r.ctx.reached or f.runs(r).rank1 is False:
            continue
        for b in casts:
            first = min((s.order for s in f.steps if s.order > b.order and same_walk(s, b)), default=None)
            if first is None or not (b.order < r.order < first) or not same_walk(r, b):
                continue
            ref = Ref(f, target, r)
            if any(ref.within(c) for c in _broadcast_models(f, b)) and not any(
                    r.order < c.order < first and any(ref.within(m) for m in _broadcast_models(f, c)) for c in casts):
                return Finding(WRONG, f"{condition(f, r)}line {r.line} draws `{target}`'s weights again after the "
                               f"broadcast at line {b.line} and before the first step, with each rank's own random "
                               "stream: the replicas start from different weights", r.line,
                               "initialise before the broadcast (or broadcast again after it)")
    return None


_INIT_CALLS = ("reset_parameters", "init_weights", "_init_weights")


def _reinitialised(f, e):
    """The dotted name of the model whose weights the call draws again, else None."""
    func = e.node.func
    if isinstance(func, ast.Attribute) and func.attr in _INIT_CALLS and dotted(func.value):
        return dotted(func.value)
    if e.qual.startswith("torch.nn.init.") and e.node.args and isinstance(e.node.args[0], ast.Attribute):
        return dotted(e.node.args[0].value)
    if isinstance(func, ast.Attribute) and func.attr == "apply" and dotted(func.value) and e.node.args and \
            isinstance(e.node.args[0], ast.Name):
        fn = f.s.defined(e.node.args[0])
        if isinstance(fn, (ast.FunctionDef, ast.Lambda)) and any(
                isinstance(n, ast.Call) and (getattr(n.func, "attr", "") in _INIT_CALLS or
                                            f.s.qual(n.func).startswith("torch.nn.init.")) for n in ast.walk(fn)):
            return dotted(func.value)
    return None


def _streams_differ(f):
    """The ranks draw different random numbers: a seed read from the rank, or no torch seed set at all."""
    seeds = [e for e in f.s.events if e.qual in ("torch.manual_seed", "torch.random.manual_seed") and e.ctx.reached]
    return not seeds or any(f.mentions(a, f.is_any_rank) for e in seeds for a in e.node.args)


def _rebuilt_after_broadcast(f, casts):
    """A model broadcast, then made anew under the same name (`self.model = SASRec(...)` in a second `_build()`)
    before the first step, with no broadcast of it after: every rank trains its own fresh initialisation. A
    method that returns the module itself (`self.model = self.model.to(device)`) makes nothing new."""
    if any(f.api(e, *_AT_TRAINING_START) for e in casts):
        return None
    for b in casts:
        for o, at in _sent_owners(f, b):
            name = dotted(o)
            first = min((s.order for s in f.steps if s.order > b.order and same_walk(s, b)), default=None)
            if not name or first is None:
                continue
            for a in f.s.assignments_to(resolve(at, name)):
                value = getattr(a.node, "value", None)
                if not (b.order < a.order < first) or not a.ctx.reached or not same_walk(a, b) or \
                        not isinstance(value, ast.Call) or _same_object(value, name) or _another_run(a, b):
                    continue
                if any(fr.call is value for fr in b.ctx.frames):
                    continue  # `model, opt = build(...)` where build() broadcast what it returns: no new model
                again = [c for c in casts if a.order < c.order < first and any(
                    r.name == Ref(f, name, a).name or Ref(f, name, a).within(r) for r in _broadcast_models(f, c))]
                if not again:
                    return Finding(WRONG, f"{condition(f, a)}`{name}` is made anew at line {a.line}, after the "
                                   f"broadcast at line {b.line} and before the first step: the model trained is "
                                   "not the one broadcast, each rank starts from its own weights", a.line,
                                   "broadcast after the last time the model (and its optimizer) is built")
            part = _part_replaced(f, name, b, first)
            if part is not None:
                a, sub = part
                return Finding(WRONG, f"{condition(f, a)}`{sub}` is replaced by a new module at line {a.line}, after "
                               f"the broadcast of `{name}` at line {b.line} and before the first step: its weights "
                               "start different on each rank", a.line,
                               "broadcast after loading the pretrained weights and replacing the head")
    return None


def _once_per_object(f, casts):
    """A broadcast behind a flag it sets (`if not self._synced: ...broadcast...; self._synced = True`), in a
    loop whose every pass makes the broadcast model anew (a walk-forward trainer's `reset(LSTM(...))` per
    period): the broadcast runs on the first pass only, and from the second on each rank trains its own fresh
    initialisation. Not when the flag is set back within the loop."""
    for b in casts:
        flag = _latch(b)
        if flag is None:
            continue
        for o, at in _sent_owners(f, b):
            name = dotted(o)
            for a in f.s.assignments_to(resolve(at, name)) if name else ():
                loops = [lp for lp in a.ctx.loops if any(lp is m for m in b.ctx.loops)]
                if not loops or not a.ctx.reached or not _made_anew(f, a) or any(
                        _resets(x, flag) and any(lp is m for m in x.ctx.loops for lp in loops)
                        for x in f.s.assignments_to(flag)):
                    continue
                return Finding(WRONG, f"{condition(f, b)}the broadcast at line {b.line} runs once, behind `not "
                               f"{flag}` (which it sets), while `{name}` is made anew at line {a.line} on every pass "
                               f"of the loop at line {loops[0].lineno}: from the second pass on each rank trains "
                               "its own initialisation", b.line,
                               "broadcast every time the model (and its optimizer) is built")
    return None


def _latch(b):
    """The flag of an `if not flag:` around the broadcast whose body sets the flag to True; None when none."""
    for g in b.ctx.guards:
        stmt = getattr(g.test, "parent", None)
        test = g.test
        if not (isinstance(stmt, ast.If) and stmt.test is test and g.branch is True and isinstance(test, ast.UnaryOp)
                and isinstance(test.op, ast.Not)):
            continue
        flag = dotted(test.operand)
        if flag and any(isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant) and n.value.value is True
                        and any(dotted(t) == flag for t in n.targets) for n in ast.walk(stmt)):
            return flag
    return None


def _resets(a, flag):
    """The assignment sets `flag` back to a false constant."""
    return isinstance(a.node, ast.Assign) and isinstance(a.node.value, ast.Constant) and not a.node.value.value \
        and any(dotted(t) == flag for t in a.node.targets)


def _made_anew(f, a):
    """The assignment gives its target a module freshly built: a layer or model class called there, or handed
    in by the caller (`self.model = model.to(device)` in `reset(self, model)` called `reset(LSTM(n))`)."""
    value = unmoved(getattr(a.node, "value", None))
    if isinstance(value, ast.Call):
        return _builds_layer(f, value)
    if isinstance(value, ast.Name):
        return any(_builds_layer(f, x) for x in f.frames_binding(value))
    return False


def _another_run(a, b):
    """The assignment runs in another call of a function the broadcast ran in (`train_model("student", ...)`
    after `train_model("teacher", ...)`): another run of that training, with its own broadcast."""
    mine = a.ctx.frames[-1] if a.ctx.frames else None
    return mine is not None and any(fr.func is mine.func and fr is not mine for fr in b.ctx.frames)


def _part_replaced(f, name, b, first):
    """(assignment, name): a sub-module of the broadcast model replaced by a freshly built layer after the
    broadcast and before the first step (`self.head = nn.Conv2d(...)` in the model's `load_pretrained()`,
    called as `self.model.load_pretrained(...)`), with no broadcast after it and no seed common to every rank
    set before it (the fresh layer's weights then differ per rank)."""
    for a in f.s.assigns:
        target = a.node.targets[0] if isinstance(a.node, ast.Assign) and len(a.node.targets) == 1 else None
        value = getattr(a.node, "value", None)
        # `model.classifier[1] = nn.Linear(...)`: an element of a sub-module replaced is the sub-module's part
        holder = target.value if isinstance(target, ast.Subscript) else target
        if not (b.order < a.order < first) or not a.ctx.reached or not same_walk(a, b) or \
                not isinstance(holder, ast.Attribute) or not isinstance(value, ast.Call) or _same_object(value, name):
            continue
        sub = _through_receiver(a, dotted(holder))
        if not sub or not sub.startswith(name + ".") or not _builds_layer(f, value):
            continue
        if _seeded_before(f, a) or any(a.order < c.order < first for c in f.s.events
                                      if f.api(c, "broadcast_parameters", "broadcast_variables")):
            continue
        return a, sub
    return None


def _through_receiver(a, target):
    """`self.head` in a method the walk entered as `self.model.load_pretrained(...)`: `self.model.head`."""
    for fr in reversed(a.ctx.frames):
        if not target or not target.startswith("self.") or fr.call is None:
            break
        receiver = dotted(fr.call.func.value) if isinstance(fr.call.func, ast.Attribute) else None
        if receiver is None or receiver == "self":
            break
        target = receiver + target[len("self"):]
    return target


def _builds_layer(f, call):
    """A call that builds a new layer or module: a class of the project, or a torch.nn / Keras layer class."""
    call = unmoved(call)
    if not isinstance(call, ast.Call):
        return False
    made = f.s.defined(call.func) if isinstance(call.func, (ast.Name, ast.Attribute)) else None
    q = f.s.qual(call.func)
    return isinstance(made, ast.ClassDef) or q.startswith(("torch.nn.", "keras.layers.", "tensorflow.keras.layers."))


def _seeded_before(f, a):
    """A global seed that does not depend on the rank is set before `a`: fresh weights agree on every rank."""
    return any(e.order < a.order and e.ctx.reached and f.s.qual(e.node.func).split(".")[-1] in names.SEEDERS and
        e.node.args and
        f.s.qual(e.node.func).split(".")[0] in ("torch", "tensorflow", "keras") and
        not f.mentions(e.node.args[0], f.is_rank) for e in f.s.events)


def _same_object(value, name):
    """`self.model.to(device)` / `.cuda()` of the same name: the module itself, moved; or a call handed the
    model, which may give it back (`epoch, model, opt = resume(cfg, model, opt)`)."""
    node = unmoved(value)
    handed = [x for n in ast.walk(value) if isinstance(n, ast.Call) for x in n.args + [k.value for k in n.keywords]]
    return dotted(node) == name or any(dotted(x) == name for x in handed)


def _optimizer_state_on_rank0(f, opt_casts):
    """Rank 0 alone restores an optimizer's state (a resume), training follows, and no broadcast of optimizer
    state comes after it: rank 0 steps with the checkpoint's moments and step counts, the other ranks with
    their own, so the replicas drift apart even with the weights broadcast."""
    for load in f.s.events:
        func = load.node.func
        if getattr(func, "attr", "") != "load_state_dict" or not load.ctx.reached or not f.rank0_only(load) or \
                not _is_optimizer(f, func.value, load):
            continue
        trains = any(same_walk(s, load) and s.order > load.order for s in f.steps)
        if trains and not any(same_walk(b, load) and b.order > load.order for b in opt_casts):
            return Finding(WRONG, f"{condition(f, load)}rank 0 alone restores the optimizer state at line {load.line} "
                           "and no broadcast of the optimizer state follows: the other ranks step with their own "
                           "(fresh) optimizer state, and the replicas drift apart", load.line,
                           "hvd.broadcast_optimizer_state(optimizer, root_rank=0) after loading")
    return None


# Keras's and torch's methods that give a part of a model (its weights are the model's).
_SUB_MODULES = ("get_layer", "get_submodule")


def _load_targets(f, load):
    """The models a load writes into: the receiver of load_state_dict / load_weights (a layer taken from a model
    is that model's), or what the tf.train.Checkpoint being restored tracks (Checkpoint(model=model,
    optimizer=opt))."""
    func = load.node.func
    if func.attr != "restore":
        receiver = func.value
        # `model.get_layer("encoder").load_weights(path)` / `model.get_submodule("enc")`: a part of the model
        while isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Attribute) and \
                receiver.func.attr in _SUB_MODULES:
            receiver = receiver.func.value
        return [Ref(f, dotted(receiver), load)] if dotted(receiver) else []
    out = []
    for v in with_values(f, func.value):
        for c in ast.walk(v):
            if isinstance(c, ast.Call) and f.s.qual(c.func).endswith("Checkpoint"):
                out += [Ref(f, dotted(a), load) for a in c.args + [k.value for k in c.keywords] if dotted(a)]
    return out


def _broadcast_models(f, b):
    """The models whose weights a broadcast sends (owners of .state_dict() / .variables / .parameters() ... in
    its argument, through names and a helper's arguments)."""
    return [Ref(f, dotted(o), at) for o, at in _sent_owners(f, b) if dotted(o)]


_EXISTS = ("os.path.exists", "os.path.isfile", "os.path.isdir")


def _on_resume_only(f, e):
    """The path (as written) of a checkpoint this script writes, where the event runs only if that file exists
    (`if not os.path.exists(path): return 0` before it, or `if os.path.isfile(ckpt):` around it): a run
    started fresh has no such file. The file is the script's own when a name of it written as a literal
    (`"last.pth.tar"`) is also in the path of one of its checkpoint writes."""
    skip = f.path_guards(e)
    written = {c for w in f.checkpoint_writes for c in _path_literals(f, w.node)}
    for g in e.ctx.guards:
        if any(g.test is t and g.branch == b for t, b in skip):
            continue
        test, needs = g.test, g.branch
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test, needs = test.operand, not needs
        if needs and isinstance(test, ast.Call) and f.s.qual(test.func) in _EXISTS and test.args and \
                _path_literals(f, test.args[0]) & written:
            return ast.unparse(test.args[0])
    return None


def _path_literals(f, node, depth=0):
    """The file-name literals (`"last.pth.tar"`, `"ckpt.pt"`) a path is written with, through the plain
    assignments of the names it is made of."""
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and "." in n.value.strip("."):
            out.add(n.value.rsplit("/", 1)[-1])
        elif isinstance(n, ast.Name) and depth < 3:
            for a in f.s.assignments_to(n):
                if isinstance(a.node, ast.Assign) and a.node.value is not None:
                    out |= _path_literals(f, a.node.value, depth + 1)
    return out
