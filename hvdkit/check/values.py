"""What an expression is worth on the first training step, as far as the source says.

Used to judge conditions around a broadcast: `batch == 0` with `batch` from `enumerate` is true on the
first step; `nstep == 0` with `nstep = len(x) // bs` is never true; `step == 0` after `step += 1` is
not true either. Values are numbers/bools, POS (a count known to be >= 1: len(), hvd.size(), a shape),
RANK (differs between ranks), or None (cannot tell).
"""
import ast
import operator

POS, RANK = "POS", "RANK"
_BIN = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
        ast.Div: operator.truediv, ast.Mod: operator.mod}
_CMP = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
        ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not}
# POS compared with 0: what each comparison gives for any count >= 1.
_POS_VS_ZERO = {ast.Eq: False, ast.NotEq: True, ast.Gt: True, ast.GtE: True, ast.Lt: False, ast.LtE: False}


def is_num(v):
    return isinstance(v, (int, float, bool)) and not isinstance(v, str)


class Evaluator:
    def __init__(self, script):
        self.s = script

    def value(self, node, frame, event, depth=0):
        if depth > 20 or node is None:
            return None
        ev = lambda n, f=frame: self.value(n, f, event, depth + 1)  # noqa: E731
        if isinstance(node, ast.Constant):
            return node.value if is_num(node.value) else None
        if isinstance(node, ast.Name):
            return self._name(node.id, frame, event, depth)
        if self.s.is_hvd_query(node, "rank", "local_rank", "cross_rank"):
            return RANK
        if self.s.is_hvd_query(node, "size", "local_size", "cross_size"):
            return POS
        if isinstance(node, ast.Call):
            q = self.s.qual(node.func)
            if q in ("len", "math.ceil", "int", "max") and node.args:
                inner = ev(node.args[0])
                return POS if q == "len" or inner == POS else inner if q == "int" and is_num(inner) else None
            return None
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
            return POS
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
            return self._compare(node.ops[0], ev(node.left), ev(node.comparators[0]))
        if isinstance(node, ast.IfExp):
            t = ev(node.test)
            return ev(node.body) if t is True else ev(node.orelse) if t is False else None
        return None

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
        if RANK in (a, b):
            return RANK
        if is_num(a) and is_num(b) and type(op) in _CMP:
            return _CMP[type(op)](a, b)
        if a == POS and b == 0 and type(op) in _POS_VS_ZERO:
            return _POS_VS_ZERO[type(op)]
        if b == POS and a == 0 and type(op) in _POS_VS_ZERO:
            flipped = {ast.Gt: ast.Lt, ast.Lt: ast.Gt, ast.GtE: ast.LtE, ast.LtE: ast.GtE}.get(type(op), type(op))
            return _POS_VS_ZERO[flipped]
        return None

    def _boolop(self, node, vals):
        if isinstance(node.op, ast.And):
            if any(v is False or v == 0 and is_num(v) for v in vals):
                return False
            if RANK in vals:
                return RANK
            return True if all(v is True or v == POS or (is_num(v) and v) for v in vals) else None
        if any(v is True or v == POS or (is_num(v) and v) for v in vals):
            return True
        if RANK in vals:
            return RANK
        return False if all(v is False or (is_num(v) and not v) for v in vals) else None

    def _name(self, name, frame, event, depth):
        f = frame
        if f is not None and name in f.bindings:
            expr, caller = f.bindings[name]
            return self.value(expr, caller, event, depth + 1)
        if name in self.s.ctx_names():
            return None
        for loop in reversed(event.ctx.loops):
            v = self._loop_first(loop, name, frame, event, depth)
            if v != "absent":
                return v
        return self._counter(name, frame, event, depth)

    def _loop_first(self, loop, name, frame, event, depth):
        """The value `name` takes on a loop's first iteration; 'absent' when the loop does not bind it."""
        if not isinstance(loop, (ast.For, ast.AsyncFor)):
            return "absent"
        target, it = loop.target, loop.iter
        if isinstance(it, ast.Call) and self.s.qual(it.func) == "enumerate" and isinstance(target, ast.Tuple):
            if isinstance(target.elts[0], ast.Name) and target.elts[0].id == name:
                start = it.args[1] if len(it.args) > 1 else next((k.value for k in it.keywords if k.arg == "start"), None)
                return self.value(start, frame, event, depth + 1) if start is not None else 0
            return None if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target)) else "absent"
        if isinstance(target, ast.Name) and target.id == name:
            if isinstance(it, ast.Call) and self.s.qual(it.func) == "range" and it.args:
                return 0 if len(it.args) == 1 else self.value(it.args[0], frame, event, depth + 1)
            return None
        return None if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target)) else "absent"

    def _counter(self, name, frame, event, depth):
        """A variable set before the event, plus any `+=` that runs before it on the first pass."""
        func = frame.func if frame is not None else None
        mine = [a for a in self.s.assignments_to(name) if a.order < event.order and _func_of(a) is func]
        plain = [a for a in mine if isinstance(a.node, (ast.Assign, ast.AnnAssign))]
        if not plain:
            return None
        first = plain[-1]
        value = self.value(first.node.value, first.ctx.env, first, depth + 1)
        for a in mine:
            if a.order > first.order and isinstance(a.node, ast.AugAssign):
                value = self._binop(a.node.op, value, self.value(a.node.value, a.ctx.env, a, depth + 1))
        return value


def _func_of(event):
    return event.ctx.frames[-1].func if event.ctx.frames else None


def guard_status(script, event, skip=()):
    """'always' / 'never' / 'rank' / 'unknown': does the event run on the first step, on every rank?

    `skip`: guards to leave out (those that also enclose the training steps: they decide whether the
    script trains at all, not whether this event runs when it does).
    """
    ev = Evaluator(script)
    status = "always"
    for (test, truth), frame, _ in event.ctx.guards:
        if any(test is t and truth == b for t, b in skip):
            continue
        v = truthy(ev.value(test, frame, event))
        if v == RANK:
            status = "rank"
        elif v is None:
            status = "unknown" if status == "always" else status
        elif v != truth:
            return "never"
    return status


def truthy(v):
    """True/False for a known value, RANK or None otherwise."""
    if v in (RANK, None):
        return v
    return True if v == POS else bool(v)
