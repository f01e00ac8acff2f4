"""What several rules share: the script, its frameworks, its optimizer steps and fit calls, data flow
through assignments, Horovod queries (rank, size, local rank), and where an event runs."""
import ast
import collections

from hvdkit.check import flags
from hvdkit.check.defs import assigned_value, binding_loop, chain_root, owner_of_arg
from hvdkit.check.findings import UNKNOWN, Finding
from hvdkit.check.names import (API_MODULES, LAUNCHERS, LOCAL_RANK_QUERIES, NEEDS_INIT, RANK_QUERIES, SIZE_QUERIES,
                                UNREAD_HINTS, WRAPPERS)
from hvdkit.check.sources import called_def, returns, unpacked
from hvdkit.check.script import (SCHEDULER_MAKERS, SCHEDULER_MODULES, SELF_RETURNING, dotted, same_walk,
                                 class_fit, spelled_scheduler, training_call)
from hvdkit.check.values import RANK, Evaluator, runs, truthy


class Facts:
    def __init__(self, script):
        self.s = script
        self.ev = Evaluator(script)
        self.notes = []
        self._memo, self._bindings, self._frames, self._callbacks_fed, self._additions = {}, None, None, None, None
        self._shared = {}  # memo(): facts several rules ask for, computed once
        mods = script.all_aliases()
        self.frameworks = {fw for fw, keys in (("torch", ("torch",)), ("tensorflow", ("tensorflow", "keras")))
                           if any(m.split(".")[0] in keys or f".{keys[0]}" in m for m in mods)}
        # Keras' fit: in code that uses no TensorFlow or Keras, a `fit` is some other object's (a trainer's)
        self.fits = script.calls(lambda e: isinstance(e.node.func, ast.Attribute)
                                 and e.node.func.attr in ("fit", "fit_generator") and e.ctx.reached
                                 and not class_fit(script, e.node)) \
            if self.frameworks != {"torch"} else []
        steps = script.calls(lambda e: e.ctx.reached and training_call(script, e, self.no_optimizer))
        # A step rank 0 takes alone beside steps every rank takes (a linear probe of a head of its own, an LR
        # range test on a copy of the model) is a side run, not the training: kept in side_steps.
        alone = [s for s in steps if self.on_rank0_alone(s)]
        self.side_steps = [s for s in alone if any(same_walk(t, s) and t not in alone for t in steps)]
        self.steps = [s for s in steps if s not in self.side_steps]

    def memo(self, key, make):
        """The value `make()` gives, computed once per script: the one cache of the facts rules share (a rule
        keeps nothing of its own on Facts). `f.memo("default_run", dict)`."""
        if key not in self._shared:
            self._shared[key] = make()
        return self._shared[key]

    @property
    def optimizers(self):
        """The optimizer constructions the training uses ([Event]; rules/optimizers.py), for steps 4 and 5."""
        from hvdkit.check.rules import optimizers
        return self.memo("optimizers", lambda: optimizers.find_optimizers(self))

    @property
    def unaveraged_optimizers(self):
        """{id(construction)} of the optimizers that step unwrapped beside a wrapped one (step 5's fault; step
        4 does not judge their LR: their updates are each rank's own)."""
        from hvdkit.check.rules import step5_optimizer
        return self.memo("unaveraged optimizers", lambda: step5_optimizer.unaveraged_optimizers(self))

    @property
    def gradient_allreduces(self):
        """Gradients averaged by hand ([Event]: an allreduce given gradients, map(hvd.allreduce, grads)), for
        step 5 and for step 8 (which leaves them out of the metrics)."""
        from hvdkit.check.rules import step5_optimizer
        return step5_optimizer.gradient_allreduces(self)

    def lr_scaled_once(self, expr):
        """The LR expression is multiplied by hvd.size() once, or scaled by hvdkit (rules/step4_lr.py), for step
        5 (a sum of gradients over ranks with an LR scaled as well)."""
        from hvdkit.check.rules import step4_lr
        return step4_lr.scaled_once(self, expr)

    @property
    def checkpoint_writes(self):
        """The checkpoint writes on the default run ([Event]; rules/step7_checkpoint.py), for steps 7 and 8 (a
        collective run while rank 0 alone computes what it writes is the checkpoint's, not a metric's)."""
        from hvdkit.check.rules import step7_checkpoint
        return self.memo("checkpoint writes", lambda: [e for e in self.s.events
                                                       if step7_checkpoint.is_checkpoint(self, e)])

    def inside(self, event, call):
        """The event runs while `call` is evaluated: in its arguments, or in a function called from them."""
        held = {id(n) for n in ast.walk(call)}
        return id(event.node) in held or any(fr.call is not None and id(fr.call) in held for fr in event.ctx.frames)

    @property
    def flows(self):
        """Which data the training reads and which the evaluation reads (rules/data_flow.py), for steps 3, 8."""
        from hvdkit.check.rules import data_flow
        return self.memo("flows", lambda: data_flow.Flows(self))

    @property
    def shares(self):
        """What the ranks read: partitions, shards, divided steps (rules/step3_shard.py), for steps 3 and 8."""
        from hvdkit.check.rules import step3_shard
        return self.memo("shares", lambda: step3_shard.find_shares(self))

    # --- data flow: does an expression depend on something, through assignments to names? ----------
    def mentions(self, node, pred, seen=None):
        """Does `node`, or what its names were assigned, contain a node for which `pred` holds?"""
        if seen is None and getattr(pred, "__self__", None) is self:  # the queries below: memoised
            key = (id(node), pred.__name__)
            if key not in self._memo:
                self._memo[key] = self._mentions(node, pred, set())
            return self._memo[key]
        return self._mentions(node, pred, set() if seen is None else seen)

    def _mentions(self, node, pred, seen):
        mentions = self._mentions
        # The size of this rank's shard is the same on every rank (up to one sample): a count made from
        # it (steps per epoch, a warmup length) neither differs between ranks nor scales the LR by the
        # number of ranks. (Step 3 still sees hvd.size() in a shard's size: is_size is not hidden.)
        sizes_hide_rank = pred in (self.is_rank, self.is_local_rank, self.is_global_size)
        # the queries (hvd.rank(), hvd.size(), ...) hold for what the project's own functions return at every
        # call; a node's identity does not (two calls of one function share its return's nodes)
        queried = getattr(pred, "__self__", None) is self
        todo = collections.deque([node])
        while todo:
            sub = todo.popleft()
            if pred(sub):
                return True
            todo.extend(c for c in ast.iter_child_nodes(sub) if not (sizes_hide_rank and self._sized(sub, c)))
            if queried and isinstance(sub, ast.Call) and id(sub) not in seen and self.local_function(sub):
                seen.add(id(sub))
                todo.extend(returns(self, sub))  # `get_world_size()` of the project: what it returns
            if isinstance(sub, ast.Name):  # by its reaching definitions: assignments, or a parameter's arguments
                if id(sub) not in seen:
                    seen.add(id(sub))
                    # (a name imported from a module of the project: that module's top-level assignments,
                    # `LOCAL_RANK = hvd.local_rank()` in env.py read as `from env import LOCAL_RANK`)
                    for a in self.s.assignments_to(sub) or self.s.module_assignments(sub):
                        if pred(a.node):
                            return True  # pred sees the assignment too (`x /= n` is a division of x)
                        # `rank, local_rank, world = init_distributed()`: for the queries, which follow what the
                        # project's functions return, local_rank is the returned tuple's second element, and what
                        # the call is handed (`x, y = load(my_years)`); pred is still asked about the call itself
                        values = unpacked(self, a, sub.id) if queried and isinstance(a.node, ast.Assign) and \
                            isinstance(a.node.targets[0], ast.Tuple) else [a.node.value]
                        if values != [a.node.value]:
                            if pred(a.node.value):
                                return True
                            values += a.node.value.args + [k.value for k in a.node.value.keywords]
                        if any(v is not None and mentions(v, pred, seen) for v in values):
                            return True
                    for f in self.frames_binding(sub):
                        if mentions(f, pred, seen):
                            return True
                continue
            name = dotted(sub) if isinstance(sub, ast.Attribute) else None
            key = (name, id(self.s.self_class(sub))) if name else None
            if name and key not in seen:  # an attribute (`args.lr`, `self.x`): by spelling, the fallback
                seen.add(key)  # (a project module's global, `dist.world_size`: its assignments in that module)
                # by spelling, a project module's global, or what the methods of the class of the instance it is
                # read off set on `self` (`rt.size` of `rt = Runtime()` whose __init__ sets `self.size`)
                for a in self.s.assignments_to(sub) or self.s.module_assignments(sub) or \
                        self.s.instance_attribute_assigns(sub):
                    if pred(a.node) or a.node.value is not None and mentions(a.node.value, pred, seen):
                        return True
                if any(mentions(v, pred, seen) for v in self.s.class_field_defaults(sub)):
                    return True  # `dist.rank` of `dist = DistConfig()` whose field is `rank: int = hvd.rank()`
                # an option of a parsed namespace: what it holds by default (`default=hvd.local_rank()`)
                flag = flags.namespace_attribute(self.s, sub, lambda r: flags.holds_namespace(self.s, r))
                if flag is not None and flag.default is not None and mentions(flag.default, pred, seen):
                    return True
        return False

    def origins(self, node, limit=200):
        """The expressions the value of `node` may come from: through names (their reaching assignments and,
        for a parameter, the arguments of the walked calls, per function), attributes (by spelling: `self.model
        = model`) and the subscripts and starred elements that hold them, down to what makes a value (a call,
        a constant, a comprehension...). Two expressions may be the same object when their origins meet:
        `self.model` of a Trainer and `model` of a factory that got the same Net(...)."""
        out, todo, seen = set(), [node], set()
        while todo and len(seen) < limit:
            n = todo.pop()
            if id(n) in seen:
                continue
            seen.add(id(n))
            if isinstance(n, ast.Name):
                nexts = [a.node.value for a in self.s.assignments_to(n) if getattr(a.node, "value", None) is not None]
                nexts += self.frames_binding(n)
            elif isinstance(n, ast.Attribute) and dotted(n):
                nexts = [a.node.value for a in self.s.assignments_to(n) or self.s.module_assignments(n)
                         if getattr(a.node, "value", None) is not None]
            elif isinstance(n, (ast.Starred, ast.NamedExpr)):
                nexts = [n.value]
            else:
                nexts = []
            if nexts:
                todo += nexts
            else:
                out.add(n)
        return out

    def is_scheduler(self, receiver):
        """The receiver of a `.step()` is an LR scheduler: every call its value comes from (origins) makes one
        (script.SCHEDULER_MAKERS: library names); when no making call is seen, the spelling fallback
        (`sched` in its name)."""
        if self._picked_from_scheduler_module(receiver):
            return True
        makers = [o for o in self.origins(receiver) if isinstance(o, ast.Call)]
        if not makers:
            return spelled_scheduler(self.s, receiver)
        return all(SCHEDULER_MAKERS.search(self.s.qual(o.func) or "") for o in makers)

    def _picked_from_scheduler_module(self, receiver):
        """`scheduler = init_obj(config["lr_scheduler"], torch.optim.lr_scheduler, optimizer)`: every value of
        the receiver is made by a call handed the module of LR schedulers itself (a config-driven factory picks
        the class from it by name, `getattr(module, cfg["type"])(...)`)."""
        values = [a.node.value for a in self.s.assignments_to(receiver) if getattr(a.node, "value", None) is not None] \
            if dotted(receiver) else []
        return bool(values) and all(isinstance(v, ast.Call) and any(
            self.s.qual(a) in SCHEDULER_MODULES for a in v.args + [k.value for k in v.keywords]) for v in values)

    def no_optimizer(self, receiver):
        """The receiver of a `.step()` is no optimizer: an LR scheduler (is_scheduler), or an object of a class
        of the project that derives from no library class (an early stopper, a meter, a trainer): the walk
        enters its `step`, where any optimizer step it makes is found. A project class over a library base
        (a custom `torch.optim.Optimizer`) may be one."""
        if self.is_scheduler(receiver):
            return True
        makers = [o for o in self.origins(receiver) if isinstance(o, ast.Call)]
        classes = [self.s.defined(o.func) if isinstance(o.func, (ast.Name, ast.Attribute)) else None for o in makers]
        return bool(classes) and all(isinstance(c, ast.ClassDef) and not self.s.library_bases(c) - {"object"}
                                     for c in classes)

    def _sized(self, node, child):
        """`child` is only measured by `node`: len(x), x.shape[...], x.cardinality(), cardinality(x)."""
        if isinstance(node, ast.Call):
            q = self.s.qual(node.func)
            if q == "len" or q.split(".")[-1] == "cardinality" and child is not node.func:
                return True
            return isinstance(node.func, ast.Attribute) and node.func.attr == "cardinality" and child is node.func
        return isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and \
            node.value.attr == "shape" and child is node.value

    def frames_binding(self, name):
        """Argument expressions bound to a parameter in the walked calls, or its default where a call leaves it
        out. Given a Name node (a read), those of the parameter its definition is, per (function, parameter):
        `lr` of train() is not `lr` of build(). Given a string, every walked function's parameter so named (the
        spelling fallback)."""
        if isinstance(name, ast.Name):
            store = isinstance(getattr(name, "ctx", None), ast.Store)  # a target binds no parameter
            defs = None if store else self.s.reaching(name)
            if defs is None or not defs:  # a node the rules made: by spelling
                return self.frames_binding(name.id) if defs is None and not store else []
            out = []
            for d in defs:
                if isinstance(d, ast.arg):
                    out += [b.expr for fr in self.frames_of().get(owner_of_arg(d), ())
                            for p, b in fr.bindings.items() if p == d.arg]
            return out
        if self._bindings is None:
            self._bindings = {}
            for fr in self.frames_of(flat=True):
                for param, b in fr.bindings.items():
                    if not b.default:  # an argument, also of a call at the module's level (main(CONFIG))
                        self._bindings.setdefault(param, []).append(b.expr)
        return self._bindings.get(name, [])

    def frames_of(self, flat=False):
        """The walked frames, by function ({func: [Frame]}), or all of them (flat)."""
        if self._frames is None:
            frames = {id(fr): fr for fr in self.s.frames}  # `def f(base): def g(e): ...; return g` has no event
            for e in self.s.events + self.s.assigns:
                for fr in e.ctx.frames:
                    frames[id(fr)] = fr
            self._frames = {}
            for fr in frames.values():
                self._frames.setdefault(fr.func, []).append(fr)
        return [fr for frs in self._frames.values() for fr in frs] if flat else self._frames

    def is_size(self, n):
        return self.s.is_hvd_query(n, *SIZE_QUERIES) or self._ctx_attr(n, "size")

    def is_global_size(self, n):
        return self.s.is_hvd_query(n, "size") or self._ctx_attr(n, "size")

    def is_rank(self, n):
        return self.s.is_hvd_query(n, *RANK_QUERIES) or self._ctx_attr(n, "rank", "is_root")

    def is_local_rank(self, n):
        return self.s.is_hvd_query(n, *LOCAL_RANK_QUERIES) or self._ctx_attr(n, "local_rank")

    def is_any_rank(self, n):
        """The global or the local rank (a bound method: mentions() memoises it)."""
        return self.is_rank(n) or self.is_local_rank(n)

    def _ctx_attr(self, n, *names):
        return isinstance(n, ast.Attribute) and n.attr in names and dotted(n.value) in self.s.ctx_names()

    # --- where an event runs -----------------------------------------------------------------------
    def guard_kind(self, event):
        """'always' | 'never' | 'rank' | 'unknown' for the event's enclosing conditions on the first step."""
        return runs(self.s, event, self.path_guards(event)).kind

    def runs(self, event, first_step=True):
        """values.Runs(rank0, rank1): does the event run on rank 0 / rank 1 (the script's path taken)?"""
        return runs(self.s, event, self.path_guards(event), first_step=first_step)

    def path_guards(self, event):
        """Guards the event shares with an optimizer step of the same walk (not a side step): the script's path,
        not its condition."""
        out = set()
        for s in self.steps:
            if same_walk(s, event):
                mine = {(id(g.test), g.branch) for g in s.ctx.guards}
                out |= {(g.test, g.branch) for g in event.ctx.guards if (id(g.test), g.branch) in mine}
        return out

    def rank_guards(self, event):
        """The rank-dependent conditions around an event: [Guard]."""
        return [g for g in event.ctx.guards if truthy(self.ev.value(g.test, g.frame, event)) == RANK]

    def rank0_only(self, event):
        """The event runs on rank 0 and not on rank 1."""
        r = runs(self.s, event, self.path_guards(event))
        return r.rank1 is False and r.rank0 is not False

    def on_rank0_alone(self, event):
        """The event runs on rank 0 and never on rank 1, by all its guards (an optimizer step's own included:
        `if cfg.find_lr and self.is_root: lr_range_test(...)`): not a step every replica takes."""
        r = runs(self.s, event, set())
        return r.rank1 is False and r.rank0 is not False

    def off_path(self, event):
        """The event is on the script's non-Horovod path: in the else branch of an `if` whose body uses
        Horovod (`if args.horovod: ...hvd... else: torch.save(...)`). Not when the test reads a loop's counter
        (`if stage == 0:` of `for stage, ... in enumerate(stages)`): both branches run in one job."""
        for g in event.ctx.guards:
            stmt = getattr(g.test, "parent", None)
            if isinstance(stmt, ast.If) and stmt.test is g.test and g.branch is False and stmt.orelse:
                body_api = any(self.s.api(n.func) for b in stmt.body for n in ast.walk(b) if isinstance(n, ast.Call))
                else_api = any(self.s.api(n.func) for b in stmt.orelse for n in ast.walk(b) if isinstance(n, ast.Call))
                if body_api and not else_api and not self.mentions(g.test, self._loop_target):
                    return True
        return False

    def _loop_target(self, n):
        """A name a `for` loop binds (by its reaching definitions): a value that changes within one run."""
        return isinstance(n, ast.Name) and any(
            isinstance(binding_loop(d)[0], (ast.For, ast.AsyncFor)) for d in self.s.reaching(n) or ())

    def local_function(self, call):
        """The call runs a function or method defined in the project (walked into, not a library call): as
        the walk resolved it, so `torch.save` is not a local method `save`; a name by its definition."""
        func = call.func
        if isinstance(func, ast.Name):
            return self.s.defined(func) is not None
        return call in self.s.local_calls

    def flows_to_callbacks(self, event):
        """A callback object created by `event` ends up in some fit(callbacks=...)."""
        return bool(self.fits_given(event))

    def fits_given(self, event):
        """The fit calls whose callbacks receive the object `event` makes: its expression, or one that holds
        it (a list, a `cbs.append(...)`, a helper's return), feeds the callbacks given to that fit (feeding())."""
        if self._callbacks_fed is None:
            self._callbacks_fed = [(fit, self.feeding([k.value for k in fit.node.keywords if k.arg == "callbacks"]
                                                      + fit.node.args[5:6])) for fit in self.fits]
        out = []
        for fit, fed in self._callbacks_fed:
            node = event.node
            while node is not None and not isinstance(node, ast.stmt):
                if id(node) in fed:
                    out.append(fit)
                    break
                node = getattr(node, "parent", None)
        return out

    def feeding(self, exprs, limit=5000, opaque=None):
        """ids of the expression nodes whose values may end up in `exprs`: their parts; for a name, the
        values of the assignments that reach it (`a, b = f()`: the same element of what f returns) and what
        is added into the same variable (`cbs.append(x)`, `extend`, `insert`, `cbs += [...]`, `cbs[k] = x`),
        and for a parameter the arguments of its function's walked calls; for an attribute the same by its
        spelling (`self.callbacks`); for a call of the project's function (or of those a registry dict holds:
        Script.in_dict), what it returns. A call for which
        `opaque(call)` holds is itself fed, not its arguments (what it returns is not known to hold them)."""
        out, todo = set(), [(e, None) for e in exprs]
        while todo and len(out) < limit:
            n, element = todo.pop()
            if element is None and id(n) in out:
                continue
            if isinstance(n, ast.Call) and isinstance(n.func, (ast.Name, ast.Attribute)):
                func = self.s.defined(n.func)
                cls = self.s.self_class(n.func) if func is None and isinstance(n.func, ast.Attribute) else None
                if isinstance(cls, ast.ClassDef):  # `callbacks=self.callbacks(phase)`: the method of its class
                    func = self.s.method_of(cls, n.func.attr)
                if func is None:  # `cluster.callbacks() + [...]`: the method the walk entered at this call
                    func = called_def(self, n)
                funcs = [func]
            else:  # `FACTORIES[name](cfg)`: each function the registry holds
                funcs = self.s.in_dict(n.func) if isinstance(n, ast.Call) and isinstance(n.func, ast.Subscript) else []
            defs = [func for func in funcs if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef))]
            for func in defs:
                todo += [(_element(r.value, element), None) for r in ast.walk(func)
                         if isinstance(r, ast.Return) and r.value is not None]
            # an element of what a call of code not read returns (`cbs, lr = make_callbacks(cfg)` of a module
            # that is not there) is made by that call: the call itself is fed
            if element is not None and (defs or not isinstance(n, ast.Call)):
                continue
            out.add(id(n))
            if opaque is not None and isinstance(n, ast.Call) and opaque(n):
                continue
            todo += [(c, None) for c in ast.iter_child_nodes(n) if isinstance(c, ast.expr)]
            if isinstance(n, ast.Name):
                todo += [v for d in self.s.reaching(n) or () for v in _bound_value(d)]
                # `cbs += extra(cfg)` binds the old list extended: what reached the target before, too.
                todo += [(d, None) for d in self.s.reaching(n) or () if d is not n and
                         isinstance(getattr(d, "parent", None), ast.AugAssign) and d.parent.target is d]
                if self.s.reaching(n) is None:
                    todo += [(a.node.value, None) for a in self.s.assignments_to(n.id) if a.node.value is not None]
                todo += [(x, None) for x in self.frames_binding(n) + self._added_into(n)]
            elif isinstance(n, ast.Attribute) and dotted(n):
                todo += [(a.node.value, None) for a in self.s.assignments_to(n)
                         if getattr(a.node, "value", None) is not None]
                todo += [(x, None) for x in self._added_into(n)]
        return out

    def _added_into(self, holder):
        """The values added into the container `holder` names (a Name: the same variable, by the definitions
        reaching both; an Attribute: the same spelling)."""
        if self._additions is None:
            self._additions = []
            for e in self.s.events:
                func = e.node.func
                if isinstance(func, ast.Attribute) and func.attr in ("append", "extend", "insert", "add") \
                        and e.node.args and isinstance(func.value, (ast.Name, ast.Attribute)):
                    self._additions.append((func.value, e.node.args[-1]))
            for a in self.s.assigns:
                t = a.node.targets[0] if isinstance(a.node, ast.Assign) else a.node.target
                if isinstance(a.node, ast.AugAssign) and isinstance(t, (ast.Name, ast.Attribute)):
                    self._additions.append((t, a.node.value))
                elif isinstance(t, ast.Subscript) and isinstance(t.value, (ast.Name, ast.Attribute)) and \
                        getattr(a.node, "value", None) is not None:
                    self._additions.append((t.value, a.node.value))
        if isinstance(holder, ast.Name):
            mine = set(map(id, self.s.reaching(holder) or ()))
            return [v for h, v in self._additions if isinstance(h, ast.Name) and h.id == holder.id
                    and (not mine or mine & set(map(id, self.s.reaching(h) or ())))]
        return [v for h, v in self._additions if isinstance(h, ast.Attribute) and dotted(h) == dotted(holder)]

    # --- code that could not be read -----------------------------------------------------------
    def unread_for(self, step, values=(), follow_call=None, skip=(), knows=None):
        """The calls on the training's path (reached, not on the non-Horovod branch) into code that could not be
        read which could do step `step`: [script.Unread], in walk order. The one query every rule asks before
        "missing" (and before a verdict its step's unread code could change): judged by what each call is
        handed and what its result becomes, never by its name. A call could do the step when both hold:

        - it touches the step's work: it makes one of `values` (the step's own objects, given by the rule: the
          LR's factors, the training data, the optimizer, the model, the metric values, the checkpoint path...;
          its result is what one of them is made of, through `sources(values, follow_call)`), or it is handed
          one (an argument holding one of those objects). Steps 1 and 2 work on the process itself
          (hvd.init(), set_device, set_visible_devices): for them a call handed nothing at all also touches it
          (for step 2 before the training starts), and for step 2 one handed the local rank;
        - it could know what the step needs of Horovod (knows_horovod): it is handed Horovod's module or a
          keyword asking for distributed work (hands_horovod), is into the module the script takes Horovod
          from, is handed the value the step needs (`knows(argument)`: the local rank for step 2, the rank for
          step 3, the size as a factor for step 4, which the rule passes), or a value an unread call that
          knows it made; or Horovod itself is set up in code not read (horovod_unread: no init reached, and a
          call that could do it runs first), and then every unread call could.

        Step 1 takes no `values`: a call handed Horovod's module or nothing at all (or into the absent module
        the script imports Horovod from), before the first Horovod call that needs init, while no init is
        reached (init_candidates). `progress_bar(rank)` is handed a
        rank but touches no optimizer: it cannot scale an LR; `tfds.load(...)` makes the training data but,
        told neither the rank nor the size, cannot shard it. `skip`: call nodes the rule judges by what they
        are visibly given (an optimizer class of a library given its LR). Rules of steps 5-8 pass their own
        objects:
        step 5 the optimizer, tape or gradients; step 6 the model, optimizer or variables; step 7 the model or
        optimizer state and the path written; step 8 the metric values (and `fit`'s callbacks where those do
        the work)."""
        if step == 1:
            return list(self.init_candidates)
        made, skip = self._made_ids(values, follow_call), {id(n) for n in skip}
        return [u for u in self.unread_on_path if id(u.event.node) not in skip and self.knows_horovod(u, step, knows)
                and self._touches(u, made, step)]

    @property
    def unread_on_path(self):
        """[Unread] on the training's path: reached, not on the non-Horovod branch."""
        return self.memo("unread_on_path", lambda: [u for u in self.s.unread if u.event.ctx.reached
                                                     and not self.off_path(u.event)])

    @property
    def training_not_read(self):
        """[Unread] that runs the whole training: the script trains in code it does not hold. Every step's work
        may be there: a step not seen is "cannot tell", not missing (static.analyze). Two shapes, both with no
        training of the code read reached (an optimizer step or a fit whose receiver was not made by the
        project's own code that cannot be read: `engine.fit()` of `engine = Engine(cfg, model)`, a stopper's
        `step()`):

        - a function of the project's own code that cannot be read (a module that is not there or does not
          parse) is handed to a call on the training's path to run (`horovod.run(train_fn, np=4)`,
          `mp.spawn(worker)`): the script launches a training it does not hold;
        - no optimizer is made (but those handed to such code whose objects run the steps) and no gradient is
          taken in the code read,
          and such code is handed the model or an object such code made (`Engine(cfg, model, loader)` with
          `model = ContactNet()` of a module that is not there, `train_one_epoch(model, optimizer, batches)`):
          those calls train it;
        - nothing of the training is in the code read (no optimizer, step, fit or gradient): every such call on
          the path may hold it (`best = run(cfg, device)` of `from vitproj.train import run`).

        A call of such code beside a loop of the script's own is not enough: a tape loop whose optimizer an
        absent factory made (`opt = model_lib.opt()`) is still judged on the script."""
        def find():
            own = lambda u: u is not None and u.kind in ("absent", "unparsed")  # noqa: E731
            if any(not own(self.unread_maker(e.node.func.value) if isinstance(e.node.func, ast.Attribute) else None)
                   for e in self.steps):
                return []
            on_path = [u for u in self.unread_on_path if own(u)]
            launched = [u for u in on_path if u.handed and self.s.qual(u.event.node.func) in LAUNCHERS]
            # where the only steps are methods of objects such code made (`trainer.fit(...)` of `trainer =
            # VAETrainer(model, optimizer, cfg)`), an optimizer the script builds and hands to such code (not to
            # a method of an object it made, such as `model.compile(optimizer=opt)`) is trained there too
            direct = [u.event.node for u in on_path if not (isinstance(u.event.node.func, ast.Attribute) and
                                                            self.unread_maker(u.event.node.func.value) is not None)]
            kept = [o for o in self.optimizers if not any(
                self.mentions(a, lambda n, o=o: n is o.node) for c in direct for a in handed(c))]
            if launched or kept or any(
                    getattr(e.node.func, "attr", "") in ("backward", "gradient") and e.ctx.reached
                    for e in self.s.events):
                return launched
            made = {id(u.event.node) for u in on_path}
            shaped = [u for u in on_path if not u.handed and (self.handed_model(u) or any(
                id(n) in made for a in handed(u.event.node) for n in self.objects(a)))]
            if shaped or self.optimizers or self.steps or self.fits:
                return shaped
            return [u for u in on_path if not u.handed]  # no optimizer, step or gradient read: all of it is there
        return self.memo("training not read", find)

    @property
    def init_candidates(self):
        """[Unread] that could run hvd.init() when no init is reached: every call into code not read that runs
        before the first Horovod call that needs init (after it, init would come too late anyway). With no
        init in the code read, the code that sets Horovod up is not read; what such a call is handed (nothing,
        literals, the options, a config loaded by another unread call: `setup(cfg)`) does not tell it apart."""
        def find():
            if self._inits():
                return []
            needs = [e.order for e in self.s.api_calls(*NEEDS_INIT) if e.ctx.reached
                     and e.api[1].split(".")[-1] in NEEDS_INIT]
            first = min(needs) if needs else None
            return [u for u in self.unread_on_path if first is None or u.event.order < first]
        return self.memo("init_candidates", find)

    @property
    def horovod_unread(self):
        """Horovod is set up in code that could not be read: no init is reached, and a call that could init runs
        (init_candidates) or Horovod itself comes from a module that is not there (horovod_from: importing it
        may init). Then any unread call could do Horovod's work, as the code that set it up did."""
        return bool(self.init_candidates) or bool(self.horovod_from) and not self._inits()

    @property
    def horovod_from(self):
        """The names the script takes as Horovod's module from a module of its own that is not there (`from
        sspred.dist import hvd`: static.horovod_by_use), sorted."""
        return sorted(self.s.project.assumed) if self.s.project is not None else []

    def _inits(self):
        return [e for e in self.s.api_calls("init") if e.api[1] == "init" and e.ctx.reached]

    def knows_horovod(self, u, step=None, knows=None):
        """The unread call could do Horovod work for `step`: Horovod is set up in unread code (horovod_unread), for
        step 2 the call is a set-up of the process in the project's own code not read (_process_setup), the
        call is handed Horovod (hands_horovod), is into the module the script takes Horovod from, or is handed
        what the step needs (`knows(argument)`: by default, for step 2 a value made from the local rank, for
        step 3 one made from the rank (or the local rank), for the others from the rank, the size or the local
        rank), or a value made by an earlier unread call that knows it (`rank, world = dist.setup(hvd)`, then
        `make_data(rank, world)`)."""
        if self.horovod_unread or step == 2 and self._process_setup(u):
            return True
        if knows is not None:  # the rule's own test: not kept
            return self._knowing(knows)[id(u)]
        return self.memo(("knowing", step), lambda: self._knowing(_KNOWS.get(step, _KNOWS[None])(self)))[id(u)]

    def _process_setup(self, u):
        """The call is into the project's own code that is not there (or does not parse), is handed nothing and
        makes no model, optimizer or training data (`pin_gpu()`, `n = setup_devices()`): a set-up of the
        process, which may import Horovod itself and pin the GPU by the local rank as Horovod's own examples do.
        A factory handed nothing (`model = build_model()`) makes what trains: it is no such set-up."""
        from hvdkit.check.rules.models import is_model
        call = u.event.node
        if u.kind == "library" or handed(call):
            return False
        made = self.memo("training objects", lambda: self._made_ids(
            [o.node for o in self.optimizers] + list(self.flows.inputs), None))
        if id(call) in made:
            return False
        return not any(getattr(a.node, "value", None) is call and any(
            is_model(self, t, u.event) for t in getattr(a.node, "targets", [getattr(a.node, "target", None)]))
            for a in self.s.assigns)

    def _knowing(self, knows):
        out, aware = {}, []
        for u in self.unread_on_path:  # in walk order: a value an earlier call made is known when it is handed
            given = handed(u.event.node)
            out[id(u)] = self.hands_horovod(u) or self._horovod_source(u) or any(knows(a) for a in given) or \
                bool(aware) and any(self.mentions(a, lambda n: any(n is w for w in aware)) for a in given)
            if out[id(u)]:
                aware.append(u.event.node)
        return out

    def _horovod_source(self, u):
        """The call is into the absent module the script takes Horovod itself from (`from sspred.dist import
        hvd`: static.horovod_by_use): that module knows Horovod."""
        return any(name == u.module or name.startswith(u.module + ".") for name in self.horovod_from)

    def _made_ids(self, values, follow_call):
        from hvdkit.check.sources import sources
        return {id(n) for n in sources(self, [v for v in values if v is not None], follow_call)}

    def _touches(self, u, made, step):
        """The call makes one of the step's objects (its node is among the ids of what they are made of) or is
        handed one: an argument holding one of those objects itself (`cfg`, `optimizer`, `dataset`), not a
        number read from one (`cfg["classes"]`, `world` of `rank, world = setup()`): code handed a number cannot
        change the step's objects through it."""
        call = u.event.node
        if id(call) in made:
            return True
        given = handed(call)
        if step == 2 and (u in self.init_candidates or any(self.mentions(a, self.is_local_rank) for a in given)):
            return True  # the call that may set Horovod up may pin too, as may one told the local rank
        if step == 2 and not given and all(u.event.order < s.order for s in self.steps):
            return True  # a setup that works on the process, before the training starts
        return any(id(n) in made for a in given for n in self.objects(a))

    def objects(self, expr, limit=200):
        """The expressions that make the object `expr` holds: through names (the whole value each definition
        binds: not an element unpacked from a call's result, whose object is not known), parameters (the
        arguments of the walked calls), attributes (by spelling), conditional branches; ending at what makes
        it (a call, a literal, an entry read from a mapping, arithmetic)."""
        out, todo, seen = [], [expr], set()
        while todo and len(seen) < limit:
            n = todo.pop()
            if n is None or id(n) in seen:
                continue
            seen.add(id(n))
            out.append(n)
            if isinstance(n, ast.Name):
                defs = self.s.reaching(n)
                if defs is None:
                    todo += [a.node.value for a in self.s.assignments_to(n.id) if getattr(a.node, "value", None)]
                else:
                    todo += [v for d in defs for v, index in _bound_value(d) if index is None]
                todo += self.frames_binding(n)
            elif isinstance(n, ast.Attribute) and dotted(n):
                todo += [a.node.value for a in self.s.assignments_to(n) if getattr(a.node, "value", None)]
            elif isinstance(n, ast.IfExp):
                todo += [n.body, n.orelse]
            elif isinstance(n, (ast.Starred, ast.NamedExpr)):
                todo.append(n.value)
        return out

    def could_do_a_step(self, u):
        """Handed Horovod (hands_horovod), or a value made from the rank, size or local rank (the test steps 5
        and 6 ask; unread_for(step) is the query by step)."""
        return self.hands_horovod(u) or any(self.mentions(a, self._rank_or_size) for a in handed(u.event.node))

    def unread_calls(self, could=None):
        """[Unread] on the training's path for which `could(u)` holds (by default could_do_a_step)."""
        could = could or self.could_do_a_step
        return [u for u in self.unread_on_path if could(u)]

    def feeds_callbacks(self, u):
        """The unread call's value ends up in a fit's callbacks (`callbacks=make_callbacks(cfg)`, `cbs +=
        extra(cfg)`): a callback it makes could broadcast, write the checkpoint or average the metrics. Its
        value, not a value it is handed: `cfg = yaml.safe_load(f)` handed to make_callbacks(cfg) makes no
        callback (a call of imported code is followed to itself, not into its arguments)."""
        fed = self.memo("unread_callbacks", lambda: self.feeding(
            [x for fit in self.fits for x in [k.value for k in fit.node.keywords if k.arg == "callbacks"]
             + fit.node.args[5:6]], opaque=self._imported_call))
        return id(u.event.node) in fed

    def _imported_call(self, call):
        """The call runs imported code (a library's, a framework's, a module's that is not read): the name it
        calls is rooted at an import."""
        root = chain_root(call.func)
        return isinstance(root, ast.Name) and any(isinstance(d, ast.alias) for d in self.s.reaching(root) or ())

    def unread_code(self, call):
        """The Unread whose code `call` runs when that code could not be read: the call itself is into it, or it
        is a method of an object such a call made (`saver.save(...)` with `saver = CheckpointSaver(out)` of a
        module that is not there: unread_maker); else None."""
        by_node = self._unread_by_node()
        if id(call) in by_node:
            return by_node[id(call)]
        return self.unread_maker(call.func.value) if isinstance(call.func, ast.Attribute) else None

    def unread_maker(self, expr):
        """The Unread call (on the training's path) that made the object `expr` holds, through names,
        parameters, attributes, conditional branches (objects()) and `.to(device)`; None when no such call
        made it."""
        by_node, todo, seen = self._unread_by_node(), [expr], set()
        while todo:
            for o in self.objects(todo.pop()):
                if isinstance(o, ast.Name):  # `opt_g, opt_d = build_optimizers(...)`: an element of what the
                    # project's absent code made (a library's call, `amp.initialize(model, opt)`, gives back what
                    # it was handed)
                    made = next((by_node[id(v)] for d in self.s.reaching(o) or () for v, index in _bound_value(d)
                                 if index is not None and id(v) in by_node and by_node[id(v)].kind != "library"),
                                None)
                    if made is not None:
                        return made
                if id(o) in seen or not isinstance(o, ast.Call):
                    continue
                seen.add(id(o))
                if id(o) in by_node:
                    return by_node[id(o)]
                if isinstance(o.func, ast.Attribute) and o.func.attr in SELF_RETURNING:
                    todo.append(o.func.value)  # `Net().to(device)` is the Net
        return None

    def _unread_by_node(self):
        return self.memo("unread_by_node", lambda: {id(u.event.node): u for u in reversed(self.unread_on_path)})

    def handed_training(self, u):
        """The unread call is handed what trains: a model or its state (rules/models.holds_model_state) or an
        optimizer the training uses (an argument holding one of its constructions, Facts.optimizers); what it
        could average or broadcast (`setup(hvd)` or `make_loader(rank=...)` is handed neither)."""
        return self.handed_model(u) or self.handed_optimizer(u)

    def handed_model(self, u):
        """The unread call is handed a model or its state (rules/models.holds_model_state)."""
        from hvdkit.check.rules.models import holds_model_state
        return any(holds_model_state(self, a, u.event) for a in handed(u.event.node))

    def handed_optimizer(self, u):
        """The unread call is handed an optimizer the training uses (an argument holding one of its
        constructions, Facts.optimizers, or Horovod's wrapper of one)."""
        made = self.memo("optimizer objects", lambda: {id(o.node) for o in self.optimizers} | {
            id(e.node) for e in self.s.events if e.ctx.reached and self.api(e, *WRAPPERS)})
        return any(id(n) in made for a in handed(u.event.node) for n in self.objects(a))

    def acts_itself(self, u, step):
        """Unread code that could do `step` without being handed anything for it: the project's own code that is
        not there or does not parse (it may import Horovod itself: `utils.save_checkpoint` returning on ranks
        other than 0), or a library's that knows Horovod (knows_horovod: a library does a Horovod step only
        with what it is handed)."""
        return u.kind != "library" or self.knows_horovod(u, step)

    def cannot_tell(self, what, calls):
        """Finding(cannot tell) naming the first of `calls` ([(call node, Unread)]): `what` is not seen in the
        code read, and those calls into code that could not be read could do it; None when there are none."""
        found = list({id(c): (c, u) for c, u in reversed(calls)}.values())[::-1]  # a call walked twice: once
        if not found:
            return None
        named = "; ".join(self.describe(u, c) for c, u in found[:3]) + ("; ..." if len(found) > 3 else "")
        return Finding(UNKNOWN, f"{what} not seen in the code read; code that could not be read could do it: "
                       f"{named}: cannot tell", found[0][0].lineno,
                       "make that code readable (give --root the project's folder) or run `hvdkit check --run`")

    def hands_horovod(self, u):
        """The call is told to work distributed (a keyword of names.UNREAD_HINTS not set false/None/0), or is
        handed Horovod's module itself (`setup(hvd)`): what could init, average or broadcast."""
        call = u.event.node
        if any(k.arg and UNREAD_HINTS.search(k.arg) and not (isinstance(k.value, ast.Constant) and
                                                              k.value.value in (False, None, 0))
               for k in call.keywords):
            return True
        return any(self.mentions(a, self._horovod_module) for a in handed(call))

    def _horovod_module(self, n):
        """Horovod's (or hvdkit's) module itself, not a name read from it (`hvd`, not `hvd.rank`)."""
        parent = getattr(n, "parent", None)
        used = isinstance(parent, ast.Attribute) and parent.value is n or isinstance(parent, ast.Call) and \
            parent.func is n
        return isinstance(n, (ast.Name, ast.Attribute)) and not used and self.s.qual(n) in _API_MODULES

    def _rank_or_size(self, n):
        return self.is_rank(n) or self.is_size(n) or self.is_local_rank(n)

    def unread_finding(self, what, could=None, values=(), follow_call=None, skip=(), knows=None):
        """Finding(cannot tell) naming the first calls that could do the step: `what` (the step's work) is not
        seen in the code read, and code that could not be read could do it; None when no such call runs.
        `could` is the step's number (unread_for(could, values, follow_call): a rule's "missing" becomes
        `return f.unread_finding("hvd.init()", 1) or Finding(MISSING, ...)`), or a predicate on an Unread
        (unread_calls(could): the older form)."""
        found = self.unread_for(could, values, follow_call, skip, knows) if isinstance(could, int) else \
            self.unread_calls(could)
        return self.cannot_tell(what, [(u.event.node, u) for u in found])

    @staticmethod
    def describe(u, call=None):
        """`get_optimizer(...)` at line 12 (what could not be read); for `call`, a method of the object the
        unread call `u` made: `saver.save(...)` at line 30, a method of `CheckpointSaver(...)` (line 12; ...)."""
        what = {"absent": f"module `{u.module}` is not in the project", "unparsed": f"module `{u.module}` does not "
                "parse", "library": f"a function of `{u.module}`, not read"}[u.kind]
        if call is None or call is u.event.node:
            return f"`{ast.unparse(u.event.node.func)}(...)` at line {u.line} ({what})"
        return f"`{ast.unparse(call.func)}(...)` at line {call.lineno}, a method of the object made by " \
               f"`{ast.unparse(u.event.node.func)}(...)` at line {u.line} ({what})"

    def api(self, e, *names):
        a = e.api
        return bool(a) and (a[1] in names or a[1].split(".")[-1] in names)

    def text(self, line):
        return self.s.line_text(line)


_API_MODULES = {m for m, _ in API_MODULES} | {"hvdkit.torch", "hvdkit.tensorflow"}
# torch.nn.Module methods that return the module itself: `Net().to(device)` is the Net.
# What an unread call must be handed to do a step's Horovod work (Facts.knows_horovod), by step: a predicate on
# an argument expression, made for a Facts.
_KNOWS = {
    2: lambda f: lambda a: f.mentions(a, f.is_local_rank),
    3: lambda f: lambda a: f.mentions(a, f.is_rank) or f.mentions(a, f.is_local_rank),
    None: lambda f: lambda a: f.mentions(a, f._rank_or_size),
}


def _bound_value(d):
    """[(expression, element)] a definition binds: an assignment's value (its own element of a tuple value),
    or for `a, b = f()` the call with the target's position (None: the whole value)."""
    if not isinstance(d, ast.Name):
        return []
    value = assigned_value(d)
    if value is not None:
        return [(value, None)]
    node, index = d, None
    while isinstance(getattr(node, "parent", None), (ast.Tuple, ast.List)):
        index = node.parent.elts.index(node) if index is None else None  # nested unpacking: the whole value
        node = node.parent
    stmt = getattr(node, "parent", None)
    value = getattr(stmt, "value", None) if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)) else None
    return [(value, index)] if value is not None else []


def _element(value, index):
    """Element `index` of a returned tuple (`return common, rank0`), or the whole value."""
    if index is not None and isinstance(value, (ast.Tuple, ast.List)) and index < len(value.elts) and \
            not any(isinstance(e, ast.Starred) for e in value.elts):
        return value.elts[index]
    return value


def handed(call):
    """The argument expressions of a call (starred ones unwrapped)."""
    return [a.value if isinstance(a, ast.Starred) else a for a in call.args] + [k.value for k in call.keywords]
