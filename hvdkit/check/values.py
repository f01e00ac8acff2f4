"""What an expression is worth on a rank, on the first training step or a later one, as far as the source says.

The one evaluator the rules share, for guards and counts: `batch == 0` with `batch` from `enumerate` is
true on the first step; `nstep == 0` with `nstep = len(x) // bs` is never true; `step == 0` after
`step += 1` is not true either; `hvd.rank() == 0` is true on rank 0 and false on rank 1; a flag set in
`try: import horovod ...` keeps the try body's value (the script imports Horovod, so that path ran).
Values are numbers/bools/strings, NONE (the script's None), POS (a count known to be >= 1: len(), hvd.size(), a
shape), RANK (differs between ranks, when no rank is given), or None (cannot tell).
"""
import ast
import operator
from typing import NamedTuple, Optional

from hvdkit.check import flags, mappings
from hvdkit.check.defs import declares_global
from hvdkit.check.names import (LOCAL_RANK_QUERIES, NEEDS_INIT, RANK_QUERIES, SIZE_QUERIES, TORCHRUN_ONLY_ENV,
                               WRAPPERS)
from hvdkit.check.script import dotted, enclosing_def, in_handler, instance_names, parents, same_walk

POS, RANK = "POS", "RANK"
NONE = ("None",)  # Python's None as a known value (None itself means: cannot tell)
INSTANCE = ("instance",)  # an instance of a class of the project: not None, its truth unknown
_BIN = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
        ast.Div: operator.truediv, ast.Mod: operator.mod}
_CMP = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
        ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not}
# POS compared with 0: what each comparison gives for any count >= 1.
_POS_VS_ZERO = {ast.Eq: False, ast.NotEq: True, ast.Gt: True, ast.GtE: True, ast.Lt: False, ast.LtE: False}
_FLIP = {ast.Gt: ast.Lt, ast.Lt: ast.Gt, ast.GtE: ast.LtE, ast.LtE: ast.GtE}


def is_num(v):
    return isinstance(v, (int, float, bool)) and not isinstance(v, str)


class Where(NamedTuple):
    """The point of view of an evaluation: which rank (None: symbolic RANK), whether on the first step, and
    whether an option the user may pass takes its declared default (False: unknown, as the source does not fix it;
    a rule that judges the default run asks for True and names the options it leaves out: off_by_default())."""
    rank: Optional[int] = None
    first_step: bool = True
    defaults: bool = False


class Evaluator:
    def __init__(self, script, where=Where()):
        self.s, self.where = script, where

    def value(self, node, frame, event, depth=0):
        if depth > 20 or node is None:
            return None
        ev = lambda n, f=frame: self.value(n, f, event, depth + 1)  # noqa: E731 - a local shorthand
        switch = horovod_switches(self.s)
        if switch and isinstance(node, _SWITCH_NODES):
            on = switch.get(ast.dump(node))
            if on is not None:
                return on
        if isinstance(node, ast.Constant):
            if node.value is None and not hasattr(node, "handler"):  # an except clause's guard stays unknown
                return NONE
            return node.value if is_num(node.value) or isinstance(node.value, str) else None
        if isinstance(node, ast.Name):
            if any(isinstance(d, ast.alias) for d in self.s.reaching(node) or ()):
                return None  # `hvd = None`, then `import horovod.tensorflow.keras as hvd` under a backend's test
            return self._name(node.id, frame, event, depth)
        if self.s.is_hvd_query(node, *RANK_QUERIES, *LOCAL_RANK_QUERIES):
            return RANK if self.where.rank is None else self.where.rank
        if self.s.is_hvd_query(node, *SIZE_QUERIES):
            return POS
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and \
                isinstance(node.slice.value, str):
            return self._entry(node.value, node.slice.value, None, frame, event, depth)
        if isinstance(node, ast.Call) and self.where.defaults and self.s.qual(node.func) in ("os.environ.get",
                                                                                             "os.getenv"):
            unset = self._unset_env(node)
            if unset is not None:
                return unset
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" and \
                node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            default = node.args[1] if len(node.args) > 1 else ast.Constant(value=None)
            return self._entry(node.func.value, node.args[0].value, default, frame, event, depth)
        if isinstance(node, ast.Call):
            q = self.s.qual(node.func)
            if q in _TORCH_DIST_STATE and not node.args:
                return self._torch_distributed(q)
            if q == "len" and node.args and self.s.qual(node.args[0]) == "sys.argv" and self.where.defaults:
                return 1  # the default run: the script started with no arguments
            if q in ("len", "math.ceil", "int", "max") and node.args:
                inner = ev(node.args[0])
                if q == "int" and isinstance(inner, str) and inner.strip().lstrip("-").isdigit():
                    return int(inner)
                return POS if q == "len" or inner == POS else inner if q == "int" and is_num(inner) else None
            if q == "bool" and len(node.args) == 1:  # `resume=bool(args.resume)` with --resume default None
                return truthy(ev(node.args[0]))
            if q in _TENSOR_OF_VALUE and len(node.args) == 1:  # `train_step(x, y, tf.constant(first))`
                return ev(node.args[0])
            return self._returned(node, event, depth)
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
            return POS
        if isinstance(node, ast.Attribute):
            return self._attribute(node, frame, event, depth)
        if isinstance(node, ast.BinOp):
            return self._binop(node.op, ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp):
            v = ev(node.operand)
            if isinstance(node.op, ast.Not):
                t = truthy(v)
                return t if t in (None, RANK) else not t
            return -v if isinstance(node.op, ast.USub) and is_num(v) else None
        if isinstance(node, ast.BoolOp):
            return self._boolop(node, [ev(v) for v in node.values])
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            if isinstance(node.ops[0], (ast.Eq, ast.NotEq)) and self._starts_at(node.left, node.comparators[0], event):
                return isinstance(node.ops[0], ast.Eq)
            return self._compare(node.ops[0], ev(node.left), ev(node.comparators[0]))
        if isinstance(node, ast.IfExp):
            t = truthy(ev(node.test))
            return ev(node.body) if t is True else ev(node.orelse) if t is False else None
        return None

    def _unset_env(self, call):
        """`os.environ.get("WORLD_SIZE", "1")` on the default run: torchrun's variables, which Horovod's
        launchers (horovodrun, mpirun) never set, take the default given; None for any other variable."""
        if not call.args or not isinstance(call.args[0], ast.Constant) or \
                call.args[0].value not in TORCHRUN_ONLY_ENV:
            return None
        default = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords
                                                                 if k.arg == "default"), None)
        return NONE if default is None or isinstance(default, ast.Constant) and default.value is None else \
            self.value(default, None, None, 1)

    def _starts_at(self, a, b, event):
        """On the first step, a loop's variable equals the name its range starts from, whatever that name holds
        (`for epoch in range(start_epoch, n)`: `epoch == start_epoch`, start_epoch restored from a checkpoint),
        while the loop does not assign that name."""
        if not self.where.first_step or event is None or not isinstance(a, ast.Name) or not isinstance(b, ast.Name):
            return False
        for loop in event.ctx.loops:
            it = getattr(loop, "iter", None)
            if not (isinstance(it, ast.Call) and self.s.qual(it.func) == "range" and len(it.args) > 1 and
                    isinstance(it.args[0], ast.Name) and isinstance(loop.target, ast.Name)):
                continue
            pair = {loop.target.id, it.args[0].id}
            if pair == {a.id, b.id} and len(pair) == 2 and not any(
                    isinstance(n, ast.Name) and n.id == it.args[0].id and isinstance(n.ctx, ast.Store)
                    for n in ast.walk(loop)):
                return True
        return False

    def _returned(self, call, event, depth):
        """A call of the project's own function that takes no arguments and returns one expression (`def
        is_master(): return hvd.rank() == 0`, `dist_utils.world_size()`): that expression's value; also a
        chain of early returns (`if not dist.is_initialized(): return 0` then `return dist.get_rank()`),
        taken in order while each test's value is known."""
        if call.args or call.keywords or not isinstance(call.func, (ast.Name, ast.Attribute)):
            return None
        func = self.s.defined(call.func)
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) or func.args.args or func.args.posonlyargs:
            return None
        for stmt in func.body:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                continue  # the docstring
            if isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) == 1 and \
                    isinstance(stmt.body[0], ast.Return) and stmt.body[0].value is not None:
                t = truthy(self.value(stmt.test, None, event, depth + 1))
                if t is True:
                    return self.value(stmt.body[0].value, None, event, depth + 1)
                if t is not False:
                    return None
                continue
            if isinstance(stmt, ast.Return) and stmt.value is not None:
                return self.value(stmt.value, None, event, depth + 1)
            return None
        return None

    def _torch_distributed(self, q):
        """torch.distributed's state in a Horovod script: available (the Linux builds), and initialised only
        when the code calls init_process_group (none read, and no call into code that cannot be read: the
        DDP helpers a ported script keeps, `get_rank()` returning 0 when it is not, then answer 0 on every
        rank); None when that cannot be told."""
        if q.endswith("is_available"):
            return True
        if any(e.qual.endswith("init_process_group") for e in self.s.events) or \
                any(u.kind in ("absent", "unparsed") for u in self.s.unread):
            return None
        return False

    def _attribute(self, node, frame, event, depth):
        """`self.x` / `args.x` / `config.x`: the value of its last assignment in the script, if plain; an option
        never assigned in the script: its declared default."""
        name = dotted(node)
        if not name:
            return None
        root = node.value
        if isinstance(root, ast.Name) and frame is not None and root.id in frame.bindings and \
                root.id not in ("self", "cls") and depth < 8:
            b = frame.bindings[root.id]  # `trainer.is_chief` in a hook handed the trainer as `hook(self)`
            if not b.default and isinstance(b.expr, (ast.Name, ast.Attribute)) and dotted(b.expr):
                alias = ast.Attribute(value=b.expr, attr=node.attr, ctx=ast.Load())
                alias.parent = getattr(b.expr, "parent", None)
                got = self._attribute(alias, b.frame, event, depth + 1)
                if got is not None:
                    return got
        every = self.s.assignments_to(name)
        if not every and "." in name and not name.startswith("self."):
            # `trainer.is_master` read outside: what the instance's methods set as `self.is_master` (the
            # walk's call of `Trainer(...)` or `trainer.setup()` names the instance)
            inner = "self." + name.split(".", 1)[1]
            every = [a for a in self.s.assignments_to(inner) if name in instance_names(inner, a)[1:]]
        elif name.startswith("self.") and hasattr(event, "ctx"):
            # and the other way: `learner.step = hvd.broadcast_object(learner.step)` before `learner.train()`
            # sets the `self.step` that train() reads
            every = every + [a for n in instance_names(name, event)[1:] for a in self.s.assignments_to(n)]
        plain = [a for a in every if a.order < event.order and not in_handler(a)
                 and isinstance(a.node, (ast.Assign, ast.AnnAssign))]
        # another walk's assignment (main run as `horovod.run(train_fn)` or as `train_fn(cfg)`) is another run's
        plain = [a for a in plain if same_walk(a, event)] or plain
        if len(plain) == 1:
            a = plain[0]
            return self.value(a.node.value, a.ctx.env, a, depth + 1)
        if len(plain) > 1:
            return self._last_assigned(plain, event, depth)
        if not every:  # a global of a project module (`dist.world_size`): its last value set before the read
            ran = [a for a in self.s.module_assignments(node) if a.order < event.order and not in_handler(a)
                   and isinstance(a.node, (ast.Assign, ast.AnnAssign))]
            if ran:
                a = max(ran, key=lambda a: a.order)
                return self.value(a.node.value, a.ctx.env, a, depth + 1)
        flag = None if every or not self.where.defaults else self.flag(node, frame, depth)
        if flag is not None:
            return self.value(flag.default, None, event, depth + 1)
        return self._field(node, frame, event, depth) if not every and self.where.defaults else None

    def _field(self, node, frame, event, depth):
        """`cfg.use_hvd` of an instance of the project's dataclass, a field nothing assigns after it is made:
        what the call that makes it gives the field (by keyword, position, or an entry of a `**` mapping), or
        the field's declared default where no call gives it. Every call that may make it (directly, or as
        the return of a factory or classmethod, `TrainConfig.from_yaml(path)` returning `cls(**raw)`) must
        agree; a field __post_init__ sets, a required field, or a mapping that cannot be read: None."""
        made, made_frame = node.value, frame
        for _ in range(6):
            if isinstance(made, ast.Attribute) and dotted(made):
                # `self.cfg.distributed`: the one object the instance was given (`self.cfg = cfg` in __init__)
                plain = [a for a in self.s.assignments_to(made) if isinstance(a.node, ast.Assign)
                         and a.order < event.order]
                if len(plain) != 1:
                    return None
                made, made_frame = plain[0].node.value, plain[0].ctx.env
                continue
            if not isinstance(made, ast.Name):
                break
            outer = made_frame if made_frame is not None and made.id in made_frame.bindings else \
                self._closure_frame(made_frame, made.id)
            if outer is not None:
                b = outer.bindings[made.id]
                made, made_frame = b.expr, b.frame
                continue
            plain = [a for a in self.s.assignments_to(made) if isinstance(a.node, ast.Assign)]
            if len(plain) != 1:
                return None
            made, made_frame = plain[0].node.value, plain[0].ctx.env
        if not isinstance(made, ast.Call):
            return None
        found = set()
        for call, call_frame in self._made_by(made, made_frame, event):
            v = self._given(call, call_frame, node.attr, event, depth)
            if v is None or isinstance(v, ast.AST):
                return None
            found.add(v)
        return found.pop() if len(found) == 1 else None

    def _made_by(self, call, frame, event=None):
        """[(call of a dataclass, its frame)] that `call` makes its object with."""
        if _dataclass(self.s, self.s.class_called(call.func)) is not None:
            return [(call, frame)]
        func = self.s.defined(call.func) if isinstance(call.func, (ast.Name, ast.Attribute)) else None
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return []
        returns = [r.value for r in ast.walk(func) if isinstance(r, ast.Return)]
        if not returns or not all(isinstance(r, ast.Call) and _dataclass(self.s, self.s.class_called(r.func))
                                  is not None for r in returns):
            return []
        # `setup(kind)` returning `DistContext("horovod", ...)` under `if kind == "horovod":`, another context
        # under another kind: the returns the call's arguments can reach (the first one certain ends the list)
        made = next(iter(self.s.frames_of_call(call)), None)
        taken = []
        for r in sorted(returns, key=lambda r: (r.lineno, r.col_offset)):
            reach = self.reaches(r, func, made, event) if made is not None else None
            if reach is not False:
                taken.append((r, made))
            if reach is True:
                break
        return taken

    def reaches(self, node, func, frame, event):
        """Within one call of `func` (its frame): True when every `if` around `node` is decided its way, False
        when one is decided against it, None when some is unknown."""
        out, child = True, node
        for p in parents(node):
            if p is func:
                break
            if isinstance(p, ast.If) and child is not p.test:
                v = truthy(self.value(p.test, frame, event, 1))
                if v is None or v == RANK:
                    out = None
                elif v != (child in p.body):
                    return False
            child = p
        return out

    def _given(self, call, frame, attr, event, depth):
        """The value `call` gives the dataclass field `attr` (its default where not given); None: unknown."""
        cls = _dataclass(self.s, self.s.class_called(call.func))
        fields = [st for st in cls.body if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name)]
        names = [st.target.id for st in fields]
        post = self.s.method_of(cls, "__post_init__")
        if attr not in names or cls.bases or from_post_init(post, attr) or \
                any(isinstance(a, ast.Starred) for a in call.args):
            return None
        if names.index(attr) < len(call.args):
            return self.value(call.args[names.index(attr)], frame, event, depth + 1)
        for k in call.keywords:
            if k.arg == attr:
                return self.value(k.value, frame, event, depth + 1)
            if k.arg is None:
                got = mappings.lookup(View(self.s), k.value, attr)
                if got is mappings.UNRESOLVED:
                    return None
                if got is not None:
                    return self.value(got, None, event, depth + 1)
        default = fields[names.index(attr)].value
        if isinstance(default, ast.Call) and self.s.qual(default.func).split(".")[-1] == "field":
            default = next((k.value for k in default.keywords if k.arg == "default"), None)
        return self.value(default, None, event, depth + 1) if default is not None else None

    def _last_assigned(self, plain, event, depth):
        """The value of the last of several assignments that runs on this rank: each is kept or passed by the
        conditions around it that `event` is not under (`self.manager = None`, then `if hvd.rank() == 0:
        self.manager = Manager(...)`: None on rank 1). RANK when which one runs depends on the rank (the
        symbolic rank), None when a condition cannot be told."""
        mine = {(id(g.test), g.branch) for g in event.ctx.guards}
        last, by_rank = None, False
        for a in sorted(plain, key=lambda a: a.order):
            held, on_some = True, False
            for g in a.ctx.guards:
                if (id(g.test), g.branch) in mine:
                    continue
                t = truthy(self.value(g.test, g.frame, a, depth + 1))
                if t is None:
                    return None
                on_some = on_some or t == RANK
                held = held and (t == RANK or t is g.branch)
            if held and on_some:
                by_rank = True  # runs on some ranks: the value read depends on the rank
            elif held:
                last, by_rank = a, False  # runs on every rank: it is the value, whatever came before
        if by_rank:
            return RANK
        return self.value(last.node.value, last.ctx.env, last, depth + 1) if last is not None else None

    def flag(self, node, frame, depth=0):
        """The option `node` reads (`args.amp` of a parsed namespace, absl's `FLAGS.amp`), else None."""
        return flags.namespace_attribute(self.s, node, lambda r: self._namespace(r, frame, depth + 1, set()) is True)

    def _namespace(self, node, frame, depth, seen):
        """`node` holds a parsed argparse namespace: parse_args()'s result, through names, parameters and the
        script's functions that return it (True / False; None: a name already being followed)."""
        if depth > 12 or node is None:
            return False
        if flags.parses(self.s, node) or self.s.qual(node) == "absl.flags.FLAGS":
            return True
        if isinstance(node, ast.Name) and frame is not None and node.id in frame.bindings:
            b = frame.bindings[node.id]
            return self._namespace(b.expr, b.frame, depth + 1, seen)
        func = self.s.defined(node.func) if isinstance(node, ast.Call) and isinstance(
            node.func, (ast.Name, ast.Attribute)) else None
        if func is None and isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            func = self.s.funcs.get(node.func.id)
        if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            # `args = get_args()`, `args = options.parse()` of a project module, or `args = update(args)`
            # returning the namespace it was given
            given = flags.returned_argument(func, node)
            return flags.returns_namespace(self.s, func) or self._namespace(given, frame, depth + 1, seen)
        name = dotted(node)
        if not name:
            return False
        if name in seen:
            return None
        seen.add(name)
        # A name by its reaching definitions (another module's `args = tmp()` is not this one); an attribute
        # (`self.opt`, `cfg.args`) by spelling, the documented fallback.
        bound = self.s.assignments_to(node if isinstance(node, ast.Name) else name)
        found = [self._namespace(a.node.value, a.ctx.env, depth + 1, seen) for a in bound
                 if isinstance(a.node, (ast.Assign, ast.AnnAssign))]
        found = [x for x in found if x is not None]
        return bool(found) and all(found)

    def _entry(self, container, key, default, frame, event, depth):
        """cfg["k"] / cfg.get("k", default) of a mapping the source writes out (a dict literal, dict(...), with
        the writes into it): that entry's value; the default when the mapping is read and has no such key. A
        configuration's entries are options the user edits: read only when defaults are asked for."""
        if not self.where.defaults:
            return None
        while isinstance(container, ast.Name) and frame is not None and container.id in frame.bindings:
            b = frame.bindings[container.id]
            container, frame = b.expr, b.frame
        got = mappings.lookup(View(self.s), container, key)
        if got is mappings.UNRESOLVED:
            return None
        if got is None:
            return self.value(default, frame, event, depth + 1) if default is not None else None
        return self.value(got, None, event, depth + 1)

    def _binop(self, op, a, b):
        if RANK in (a, b):
            return RANK
        if is_num(a) and is_num(b) and type(op) in _BIN:
            try:
                return _BIN[type(op)](a, b)
            except ZeroDivisionError:
                return None
        if POS in (a, b) and isinstance(op, (ast.Mult, ast.Add, ast.FloorDiv, ast.Div)):
            other = b if a == POS else a
            return POS if other == POS or (is_num(other) and other >= 1) else None
        return None

    def _compare(self, op, a, b):
        if NONE in (a, b) and INSTANCE in (a, b) and isinstance(op, (ast.Is, ast.IsNot)):
            return isinstance(op, ast.IsNot)  # `saver is not None` where saver holds a Saver(...)
        if INSTANCE in (a, b):
            return None
        if NONE in (a, b) and isinstance(op, (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)) and None not in (a, b):
            return (a == b) == isinstance(op, (ast.Is, ast.Eq))  # a rank, a count or a string is never None
        if RANK in (a, b):
            return RANK
        if isinstance(op, (ast.Eq, ast.NotEq)) and isinstance(a, str) and isinstance(b, str) and POS not in (a, b):
            return (a == b) == isinstance(op, ast.Eq)
        if is_num(a) and is_num(b) and type(op) in _CMP:
            return _CMP[type(op)](a, b)
        if a == POS and b == 0 and type(op) in _POS_VS_ZERO:
            return _POS_VS_ZERO[type(op)]
        if b == POS and a == 0 and type(op) in _POS_VS_ZERO:
            return _POS_VS_ZERO[_FLIP.get(type(op), type(op))]
        return None

    def _boolop(self, node, vals):
        t = [truthy(v) for v in vals]
        if isinstance(node.op, ast.And):
            if False in t:
                return False
            if RANK in t:
                return RANK
            return True if all(x is True for x in t) else None
        if True in t:
            return True
        if RANK in t:
            return RANK
        return False if all(x is False for x in t) else None

    def _name(self, name, frame, event, depth):
        f = frame
        if f is not None and name in f.bindings:
            b = f.bindings[name]
            return self.value(b.expr, b.frame, event, depth + 1)
        outer = self._closure_frame(f, name)
        if outer is not None:  # a closure's free name: a parameter of the factory call that made it
            b = outer.bindings[name]
            return self.value(b.expr, b.frame, event, depth + 1)
        click = flags.click_default(self.s, f.func, name) if f is not None and self.where.defaults else None
        if click is not None:
            return self.value(click.default, None, event, depth + 1)
        if name in self.s.ctx_names():
            return None
        for loop in reversed(event.ctx.loops):
            v = self._loop_value(loop, name, frame, event, depth)
            if v != "absent":
                return v
        return self._counter(name, frame, event, depth)

    def _unpacked_return(self, a, name, depth):
        """`rank, world = init_hvd()` with the project's `init_hvd()` returning `hvd.rank(), hvd.size()`: the
        value of the returned tuple's element that `name` takes; None otherwise."""
        target = a.node.targets[0] if isinstance(a.node, ast.Assign) and len(a.node.targets) == 1 else None
        call = a.node.value
        if not isinstance(target, (ast.Tuple, ast.List)) or not isinstance(call, ast.Call) or \
                not isinstance(call.func, (ast.Name, ast.Attribute)):
            return None
        index = next((i for i, t in enumerate(target.elts) if isinstance(t, ast.Name) and t.id == name), None)
        if index is None or depth > 6:
            return None
        func = self.s.defined(call.func)
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        rets = [r.value for r in ast.walk(func) if isinstance(r, ast.Return) and r.value is not None]
        if len(rets) != 1 or not isinstance(rets[0], ast.Tuple) or len(rets[0].elts) != len(target.elts):
            return None  # one `return a, b` only: the element is that expression's
        return self.value(rets[0].elts[index], None, a, depth + 1)

    def _closure_frame(self, frame, name):
        """The walked frame of the function that encloses `frame`'s (`make_train_step(model, opt,
        distributed=False)` around its `train_step`) when `name` is that function's parameter and the closure
        neither takes nor assigns it: the last call of it the walk made; else None."""
        func = frame.func if frame is not None else None
        outer = enclosing_def(func) if func is not None else None
        if outer is None or any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
                                for n in ast.walk(func)):
            return None
        calls = [fr for fr in self.s.frames if fr.func is outer and name in fr.bindings]
        return calls[-1] if calls else None

    def _loop_value(self, loop, name, frame, event, depth):
        """The value `name` takes on a loop's first iteration (None on later ones); 'absent' when the loop
        does not bind it."""
        if not isinstance(loop, (ast.For, ast.AsyncFor)):
            return "absent"
        target, it = loop.target, loop.iter
        binds = any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target))
        if not binds:
            return "absent"
        if not self.where.first_step:
            return None
        if isinstance(it, ast.Call) and self.s.qual(it.func) == "enumerate" and isinstance(target, ast.Tuple):
            if isinstance(target.elts[0], ast.Name) and target.elts[0].id == name:
                start = it.args[1] if len(it.args) > 1 else \
                    next((k.value for k in it.keywords if k.arg == "start"), None)
                return self.value(start, frame, event, depth + 1) if start is not None else 0
            return None
        if isinstance(target, ast.Name) and isinstance(it, ast.Call) and self.s.qual(it.func) == "range" and it.args:
            return 0 if len(it.args) == 1 else self.value(it.args[0], frame, event, depth + 1)
        return None

    def _counter(self, name, frame, event, depth):
        """A variable set before the event, plus any `+=` that runs before it on the first pass."""
        func = frame.func if frame is not None else None
        mine = sorted((a for a in self.s.assignments_to(name) if a.order < event.order and not in_handler(a) and (
            _func_of(a) is func or func is None and declares_global(_func_of(a), name))), key=lambda a: a.order)
        plain = [a for a in mine if isinstance(a.node, (ast.Assign, ast.AnnAssign))]
        if not plain and not any(_func_of(a) is func for a in self.s.assignments_to(name)
                                 if func is not None and not declares_global(_func_of(a), name)):
            # a global read in a function: its module-level value, or the last value a function set under
            # `global name` before the read (`_INITIALIZED = True` in init_distributed_mode())
            mine = sorted((a for a in self.s.assignments_to(name) if not in_handler(a) and (
                _func_of(a) is None or a.order < event.order and declares_global(_func_of(a), name))),
                key=lambda a: a.order)
            plain = [a for a in mine if isinstance(a.node, (ast.Assign, ast.AnnAssign))]
        # the last assignment that runs here: one under a condition of its own function that is false on this
        # rank is passed over (`saver = None`, then `if hvd.rank() == 0: saver = Saver(...)`)
        skipped = None
        while plain:
            skipped = self._skipped_here(plain[-1], depth)
            if skipped is not True:
                break
            plain = plain[:-1]
        if not plain or skipped is None:
            return None
        first = plain[-1]
        value = self._unpacked_return(first, name, depth)
        if value is None:
            value = self.value(first.node.value, first.ctx.env, first, depth + 1)
        if value is None and isinstance(first.node.value, ast.Call) and self.s.class_called(first.node.value.func):
            value = INSTANCE
        augs = [a for a in mine if a.order > first.order and isinstance(a.node, ast.AugAssign)]
        if augs and not self.where.first_step:
            return None  # a counter changes from step to step
        for a in augs:
            value = self._binop(a.node.op, value, self.value(a.node.value, a.ctx.env, a, depth + 1))
        return value

    def _skipped_here(self, a, depth):
        """The assignment does not run where this evaluator is (True), runs (False), or cannot tell (None): by
        the conditions around it in its own function (a caller's conditions hold for the read as well)."""
        own = [g for g in a.ctx.guards if g.frame is a.ctx.env]
        if not own:
            return False
        if any(self.s.is_hvd_query(n, *LOCAL_RANK_QUERIES) for g in own for n in ast.walk(g.test)):
            return None  # the first rank of each node: which ranks that is, the value does not carry
        values = [truthy(self.value(g.test, g.frame, a, depth + 1)) for g in own]
        if any(v is not None and v != RANK and v is not g.branch for v, g in zip(values, own)):
            return True
        return False if all(v is g.branch for v, g in zip(values, own)) else None


_SWITCH_NODES = (ast.Attribute, ast.Name, ast.Subscript, ast.Call, ast.Compare, ast.UnaryOp, ast.BoolOp)


def horovod_switches(script):
    """{ast.dump(test): value} for the conditions that switch Horovod on: the tests of the guards around
    `hvd.init()` (`if args.horovod:`, `if "OMPI_COMM_WORLD_SIZE" in os.environ:`), with the value they have
    where init runs (a `not` read both ways). A script that trains with or without Horovod is judged as the
    Horovod run it is checked for: there the switch is on, whatever its default, so a broadcast or an LR
    scaled under the same switch is not "off by default". Rank tests and `__name__` are no switch."""
    got = getattr(script, "_hk_switches", None)
    if got is not None:
        return got
    if getattr(script, "walking", False):
        return {}  # asked during the walk (a default factory's mapping): no events to judge by yet
    script._hk_switches = found = {}  # set first: the evaluation below reads it (empty) while it is built
    plain = Evaluator(script, Where(0))
    horovod = [e for e in script.events if e.api and e.api[0].startswith(("horovod", "hvdkit"))]
    for e in horovod:
        if e.api[1] != "init":
            continue
        for g in e.ctx.guards:
            if "__name__" in ast.unparse(g.test) or plain.value(g.test, g.frame, e) is not None:
                continue  # decided by the code itself (a rank, a constant), not a switch
            found[ast.dump(g.test)] = g.branch
            if isinstance(g.test, ast.UnaryOp) and isinstance(g.test.op, ast.Not):
                found[ast.dump(g.test.operand)] = not g.branch
    # A switch keeps every Horovod call that needs init from running when it is off (under the same test, or
    # a value derived from it: `fit(..., average=args.horovod)` then `if average:`). One that runs anyway
    # (`hvd.rank()` after an init that runs only with --cuda) makes it no switch: init behind it is step 1's.
    needs = [e for e in horovod if e.api[1] in NEEDS_INIT + WRAPPERS and e.ctx.reached]
    out = {}
    for key, on in found.items():
        script._hk_switches = {key: not on}
        if all(runs(script, e).kind == "never" for e in needs):
            out[key] = on
    script._hk_switches = out
    return out


def _dataclass(script, cls):
    """`cls` when it is a class of the project decorated @dataclass (generated __init__), else None."""
    return cls if script.generated_init(cls) else None


def from_post_init(post, attr):
    """__post_init__ assigns `self.<attr>`."""
    return post is not None and any(
        isinstance(t, ast.Attribute) and t.attr == attr and isinstance(t.value, ast.Name) and t.value.id == "self"
        for n in ast.walk(post) if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign))
        for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))


class View:
    """What mappings.py reads of a Facts, from the script alone: parameters are followed by the evaluator."""

    def __init__(self, script):
        self.s = script

    def frames_binding(self, name):
        return []


def _func_of(event):
    return event.ctx.frames[-1].func if event.ctx.frames else None


class Runs(NamedTuple):
    """Does an event run (True / False / None: cannot tell) on rank 0 and on rank 1 at the first step?"""
    rank0: Optional[bool]
    rank1: Optional[bool]

    @property
    def kind(self):
        """'always' | 'never' | 'rank' (some ranks only) | 'unknown'."""
        if self.rank0 is True and self.rank1 is True:
            return "always"
        if self.rank0 is False and self.rank1 is False:
            return "never"
        if False in (self.rank0, self.rank1):
            return "rank"  # not on every rank, whatever the other one does
        return "unknown"


def runs(script, event, skip=(), first_step=True, guards=None, defaults=False):
    """Runs(rank0, rank1) for `event` under its guards (or `guards`), leaving out those in `skip`; with
    `defaults`, every option the user may pass at its declared default."""
    out = []
    for rank in (0, 1):
        ev = Evaluator(script, Where(rank, first_step, defaults))
        status = True
        for g in (event.ctx.guards if guards is None else guards):
            if any(g.test is t and g.branch == b for t, b in skip):
                continue
            v = truthy(ev.value(g.test, g.frame, event))
            if v is None or v == RANK:
                status = None if status is True else status
            elif v != g.branch:
                status = False
                break
        out.append(status)
    return Runs(*out)


def off_by_default(script, event, skip=()):
    """The options whose declared defaults keep the event from running (`if args.amp:` with --amp off by
    default): ["--amp"], or [] when the event runs by default or its guards do not turn on options. A guard
    counts when its default value goes against the event and nothing else in the source decides it."""
    with_defaults, without = Evaluator(script, Where(0, defaults=True)), Evaluator(script, Where(0))
    out = []
    for g in event.ctx.guards:
        if any(g.test is t and g.branch == b for t, b in skip):
            continue
        if truthy(without.value(g.test, g.frame, event)) is None and \
                truthy(with_defaults.value(g.test, g.frame, event)) is (not g.branch):
            out += [o for o in _options(script, with_defaults, g) if o not in out]
    return out


def rank_test_off_by_default(script, event, guard):
    """The options that, at their declared defaults, keep a rank test from telling ranks apart: the guard joins
    an option and a rank test (`if opt.rank0_only and hvd.rank() != 0: return`), and with every option at its
    default it lets the event run on rank 0 and rank 1 alike. [] when the rank test decides by default."""
    test = guard.test.operand if isinstance(guard.test, ast.UnaryOp) and isinstance(guard.test.op, ast.Not) \
        else guard.test
    if not isinstance(test, ast.BoolOp):
        return []
    for rank in (0, 1):
        if truthy(Evaluator(script, Where(rank, False, True)).value(guard.test, guard.frame, event)) is not \
                guard.branch:
            return []
    return _options(script, Evaluator(script, Where(0, defaults=True)), guard)


def _options(script, ev, guard):
    """The options a guard's test reads, as the user writes them: `--amp`, `config["amp"]`."""
    out = []
    for n in ast.walk(guard.test):
        flag = ev.flag(n, guard.frame) if isinstance(n, ast.Attribute) else None
        if flag is None and isinstance(n, ast.Name) and guard.frame is not None:
            flag = flags.click_default(script, guard.frame.func, n.id)
        if flag is not None:
            out.append(flag.option)
        elif isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant) and isinstance(n.slice.value, str):
            out.append(ast.unparse(n))
    return out or [ast.unparse(guard.test)]


def guard_status(script, event, skip=()):
    """'always' / 'never' / 'rank' / 'unknown': does the event run on the first step, on every rank?

    `skip`: guards to leave out (those that also enclose the training steps: they decide whether the
    script trains at all, not whether this event runs when it does).
    """
    return runs(script, event, skip).kind


def truthy(v):
    """True/False for a known value, RANK or None otherwise."""
    if v in (RANK, None):
        return v
    return True if v == POS else False if v == NONE else bool(v)


# torch.distributed's own state queries (Evaluator._torch_distributed).
# A framework's tensor of one Python value: its truth and its number are the value's.
_TENSOR_OF_VALUE = ("tensorflow.constant", "tensorflow.convert_to_tensor", "torch.tensor", "torch.as_tensor")
_TORCH_DIST_STATE = ("torch.distributed.is_initialized", "torch.distributed.is_available")
