"""A Python number handed to a Horovod collective that takes only tensors: AttributeError when it runs.

horovod.torch's collectives read tensor attributes of what they are given before anything else (tried on
this machine, Horovod 0.28.1, one rank): `hvd.allreduce(1.5)` raises AttributeError: 'float' object has no
attribute 'new' (allreduce_async, broadcast, broadcast_async, allgather_async, alltoall, reducescatter
alike), `hvd.allreduce_(1.5)` and the other in-place ones 'float' object has no attribute 'type',
`hvd.allgather(1.5)` 'float' object has no attribute 'shape'; an int gives the same with 'int'.
horovod.tensorflow's `allreduce(1.5)` raises AttributeError: 'float' object has no attribute 'dtype'
(eagerly and in a tf.function: it casts the size to `tensor.dtype`), while horovod.tensorflow's broadcast
and horovod.tensorflow.keras's allreduce convert a number to a tensor and work: those are not counted.

A value counts only when every way it can be made is a Python number (Numbers.kind): a numeric literal,
`x.item()` (unless the project defines a method so named), `float(...)`, `int(...)`, `len(...)`,
`t.numel()`, `t.size(0)`, arithmetic over numbers, a name every definition of which is one (a running sum started at
0.0 and incremented by `.item()` values, a loop index of `range()` or `enumerate()`, an element of a tuple
every return of the project's function gives), a parameter of a function every call site of which passes
one, the return of a function every return of which is one.
"""
import ast

from hvdkit.check.crash_batches import callee
from hvdkit.check.crash_names import FUNCS, bound_arguments, returns
from hvdkit.check.defs import assigned_value, owner_of_arg

TORCH = ("horovod.torch.", "horovod.torch.mpi_ops.", "hvdkit.torch.hvd.")
TENSORFLOW = ("horovod.tensorflow.", "hvdkit.tensorflow.hvd.")
# The attribute each collective reads first, by module (tried: the AttributeError names it).
TORCH_READS = {**dict.fromkeys(("allreduce", "allreduce_async", "broadcast", "broadcast_async", "allgather_async",
                                "alltoall", "reducescatter"), "new"),
               **dict.fromkeys(("allreduce_", "allreduce_async_", "broadcast_", "broadcast_async_"), "type"),
               "allgather": "shape"}
TENSORFLOW_READS = {"allreduce": "dtype"}
# Builtins and methods whose result is a Python number whatever they are given (the kind they give).
NUMBER_BUILTINS = {"float": "float", "int": "int", "len": "int"}
NUMBER_METHODS = {"item": "number", "numel": "int"}
ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)


def find(names):
    """(call, error, why, kind) for each Horovod collective handed a Python number."""
    numbers, out = Numbers(names), []
    for node in names.nodes:
        if not isinstance(node, ast.Call) or not isinstance(node.func, (ast.Name, ast.Attribute)):
            continue
        attr = _reads(names.qual(node.func))
        value = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "tensor"), None)
        if attr is None or value is None or isinstance(value, ast.Starred):
            continue
        kind = numbers.kind(value)
        if kind in (None, CYCLE):
            out += _passed_in(names, numbers, node, value, attr)
            continue
        out.append((node, _error(kind, attr),
                    f"{ast.unparse(value)} is a Python number, and {ast.unparse(node.func)} takes a tensor",
                    "AttributeError"))
    return out


def _error(kind, attr):
    shown = f"'{kind}' object" if kind != "number" else "'float' (or 'int') object"
    return f"AttributeError: {shown} has no attribute {attr!r}"


def _passed_in(names, numbers, node, value, attr):
    """`def metric_average(val, name): return hvd.allreduce(val, ...)` called once with `loss.item()` and once
    with a tensor: the call that passes a number raises, when the function runs the collective whenever it is
    called (in its body, under no condition or loop). The candidate is that call."""
    defs = names.definitions(value) if isinstance(value, ast.Name) else []
    if len(defs) != 1 or not isinstance(defs[0][0], ast.arg):
        return []
    arg, func = defs[0][0], owner_of_arg(defs[0][0])
    if not isinstance(func, FUNCS) or func.decorator_list or isinstance(getattr(func, "parent", None), ast.ClassDef):
        return []
    up = node
    while getattr(up, "parent", None) is not func:
        up = getattr(up, "parent", None)
        if up is None or isinstance(up, (ast.If, ast.For, ast.While, ast.Try, ast.With, ast.IfExp, ast.BoolOp) + FUNCS):
            return []
    out = []
    for call, given in _given_per_call(names, func, arg) or ():  # (None: a function also used otherwise)
        kind = numbers.kind(given) if given is not None and given is not _UNBOUND else None
        if kind not in (None, CYCLE):
            out.append((call, _error(kind, attr), f"{ast.unparse(given)} is a Python number, and {func.name} hands "
                        f"it to {ast.unparse(node.func)} (line {node.lineno}), which takes a tensor", "AttributeError"))
    return out


_UNBOUND = object()  # a call whose arguments cannot be bound to the parameters (a *args or **kwargs given)


def _given_per_call(names, func, arg):
    """[(call, the expression the call gives for parameter `arg`)] over every call of the project's function:
    the parameter's default where the call leaves it out, None where there is none, _UNBOUND where the call's
    arguments cannot be bound. None when the function is also used otherwise than called."""
    calls = names.calls_of(func)
    params = func.args.posonlyargs + func.args.args
    if not calls or arg not in params + func.args.kwonlyargs:
        return None
    defaults = dict(zip([p.arg for p in params][len(params) - len(func.args.defaults):], func.args.defaults))
    defaults.update({p.arg: v for p, v in zip(func.args.kwonlyargs, func.args.kw_defaults) if v is not None})
    out = []
    for call in calls:
        given = bound_arguments(call, [p.arg for p in params])
        out.append((call, _UNBOUND if given is None else given.get(arg.arg, defaults.get(arg.arg))))
    return out


def _reads(q):
    """The attribute a Horovod collective reads first from its tensor, or None for any other call."""
    for prefixes, reads in ((TORCH, TORCH_READS), (TENSORFLOW, TENSORFLOW_READS)):
        for prefix in prefixes:
            if q.startswith(prefix) and q[len(prefix):] in reads:
                return reads[q[len(prefix):]]
    return None


class Numbers:
    """`kind(expr)`: 'int', 'float' or 'number' (a Python int or float) when every way the expression can be
    made is a Python number, else None."""

    def __init__(self, names):
        self.n = names
        self.own_methods = {f.name for f in names.nodes if isinstance(f, FUNCS)}  # a project's item() is its own
        self._memo, self._busy = {}, set()

    def kind(self, node, depth=0):
        key = id(node)
        if key in self._memo:
            return self._memo[key]
        if key in self._busy:
            return CYCLE  # a value that flows back into itself: what else reaches it decides
        if depth > 12:
            return None
        self._busy.add(key)
        try:
            out = self._kind(node, depth + 1)
        finally:
            self._busy.discard(key)
        if not self._busy:
            self._memo[key] = out  # the outermost query: no cycle was cut below it
        return out

    def _kind(self, node, depth):
        if isinstance(node, ast.Constant):
            v = node.value
            return None if isinstance(v, bool) else "int" if isinstance(v, int) else \
                "float" if isinstance(v, float) else None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return self.kind(node.operand, depth)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ARITHMETIC):
            return _arithmetic(node.op, self.kind(node.left, depth), self.kind(node.right, depth))
        if isinstance(node, ast.IfExp):
            return _join([self.kind(node.body, depth), self.kind(node.orelse, depth)])
        if isinstance(node, ast.Call):
            return self._call(node, depth)
        if isinstance(node, ast.Name):
            defs = self.n.definitions(node)
            return _join([self._definition(d, depth) for d, _ in defs]) if defs else None
        return None

    def _call(self, call, depth):
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr in NUMBER_METHODS and not call.args and \
                not call.keywords and func.attr not in self.own_methods:
            return NUMBER_METHODS[func.attr]
        if isinstance(func, ast.Attribute) and func.attr == "size" and "size" not in self.own_methods and \
                len(call.args) + len(call.keywords) == 1 and isinstance(
                    (call.args or [k.value for k in call.keywords if k.arg == "dim"] or [None])[0], ast.Constant):
            return "int"  # a tensor's `y.size(0)`: one dimension's length, a Python int
        if isinstance(func, ast.Name) and self.n.qual(func) in NUMBER_BUILTINS and len(call.args) == 1 and \
                not call.keywords:
            return NUMBER_BUILTINS[func.id]
        target = callee(func, self.n) if isinstance(func, (ast.Name, ast.Attribute)) else None
        if target is None or _may_fall_through(target):
            return None
        values = [r.value for r in returns(target)]
        return _join([self.kind(v, depth) if v is not None else None for v in values]) if values else None

    def _definition(self, d, depth):
        if isinstance(d, ast.arg):
            return self._parameter(d, depth)
        if not isinstance(d, ast.Name):
            return None
        value = assigned_value(d)
        if value is not None:
            return self.kind(value, depth)
        parent = getattr(d, "parent", None)
        if isinstance(parent, ast.AugAssign) and parent.target is d and isinstance(parent.op, ARITHMETIC):
            inside = {id(n) for n in ast.walk(parent.value)}  # beniget lists the value among the target's uses
            before = [p for p in self.n.s.reaching(d) or () if id(p) not in inside]
            if not any(p is not d for p in before):
                return None  # the value it adds to is not known
            earlier = _join([self._definition(p, depth) if p is not d else CYCLE for p in before])
            return _arithmetic(parent.op, earlier, self.kind(parent.value, depth))
        return self._loop_index(d) or self._unpacked(d, depth)

    def _loop_index(self, d):
        """'int' for `i` of `for i in range(...)` or of `for i, x in enumerate(...)`."""
        parent = getattr(d, "parent", None)
        loop = parent if isinstance(parent, (ast.For, ast.AsyncFor)) else getattr(parent, "parent", None)
        if not isinstance(loop, (ast.For, ast.AsyncFor)) or not isinstance(loop.iter, ast.Call):
            return None
        made = self.n.qual(loop.iter.func) if isinstance(loop.iter.func, ast.Name) else ""
        if made == "range" and loop.target is d or made == "enumerate" and parent is loop.target and \
                isinstance(parent, ast.Tuple) and len(parent.elts) == 2 and parent.elts[0] is d:
            return "int"
        return None

    def _unpacked(self, d, depth):
        """`a, b = f(...)`: the kind of the element every return of the project's function f gives there."""
        target = getattr(d, "parent", None)
        stmt = getattr(target, "parent", None)
        if not (isinstance(target, ast.Tuple) and isinstance(stmt, ast.Assign) and stmt.targets == [target] and
                isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, (ast.Name, ast.Attribute))):
            return None
        i, func = target.elts.index(d), callee(stmt.value.func, self.n)
        if func is None or _may_fall_through(func) or any(isinstance(e, ast.Starred) for e in target.elts):
            return None
        values = [r.value for r in returns(func)]
        if not values or not all(isinstance(v, ast.Tuple) and len(v.elts) == len(target.elts) for v in values):
            return None
        return _join([self.kind(v.elts[i], depth) for v in values])

    def _parameter(self, arg, depth):
        """What every call of a plain function of the project passes for the parameter (its default when a
        call leaves it out); None when the function is also used otherwise, or is a method."""
        func = owner_of_arg(arg)
        if not isinstance(func, FUNCS) or func.decorator_list or \
                isinstance(getattr(func, "parent", None), ast.ClassDef):
            return None
        given = _given_per_call(self.n, func, arg)
        if not given or any(value is _UNBOUND for _, value in given):
            return None
        return _join([self.kind(value, depth) if value is not None else None for _, value in given])


CYCLE = "cycle"


def _join(kinds):
    """The kind every one of several values has: None when one may not be a number."""
    kinds = [k for k in kinds if k != CYCLE] if kinds and any(k != CYCLE for k in kinds) else kinds
    if not kinds or any(k is None for k in kinds):
        return None
    if all(k == CYCLE for k in kinds):
        return CYCLE
    return kinds[0] if len(set(kinds)) == 1 else "number"


def _arithmetic(op, left, right):
    if left is None or right is None:
        return None
    if CYCLE in (left, right):
        return right if left == CYCLE else left
    if isinstance(op, ast.Div):
        return "float"
    if isinstance(op, ast.Pow):
        return "number"  # 2 ** -1 is a float
    if "float" in (left, right):
        return "float"
    return "int" if left == right == "int" else "number"


def _may_fall_through(func):
    """The function's body may end without a return (and give None)."""
    last = func.body[-1] if func.body else None
    return not isinstance(last, (ast.Return, ast.Raise))
