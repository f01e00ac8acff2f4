"""What a name holds where it is used, for the rules of steps 5 to 8: the values that reach a use (the
last assignment before it in the same call, and those a condition may skip back to), the values a name was
ever given, and names read in the caller's terms. Built on the walk's order of events (Script/Facts)."""
import ast

from hvdkit.check.facts import same_walk
from hvdkit.check.script import dotted


def reaching(f, node, at, depth=0):
    """[(value, assignment event)] that a name or dotted attribute may hold at the event `at`, latest first:
    the last assignment before it (in the same function for a plain name, in the same walk for an
    attribute), and earlier ones while those after them are under a condition `at` is not. A parameter of a
    walked function is read at its call site; a global at the module's level."""
    name = dotted(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
    if name is None or depth > 6:
        return []
    every = [a for n in instance_names(name, at) for a in f.s.assignments_to(n) if a.order < at.order
             and a.ctx.reached and isinstance(a.node, (ast.Assign, ast.AnnAssign)) and a.node.value is not None]
    every.sort(key=lambda a: a.order)
    if "." in name:
        mine = [a for a in every if same_walk(a, at)]
    else:
        func = at.ctx.frames[-1].func if at.ctx.frames else None
        mine = [a for a in every if (a.ctx.frames[-1].func if a.ctx.frames else None) is func]
        if not mine and func is not None:
            frame = at.ctx.frames[-1]
            b = frame.bindings.get(name)
            call = next((e for e in reversed(f.s.events) if e.node is frame.call and e.order < at.order), None)
            if b is not None and not b.default and call is not None:
                if isinstance(b.expr, (ast.Name, ast.Attribute)):
                    return reaching(f, b.expr, call, depth + 1)
                return [(b.expr, call)]
            mine = []
            for outer in _enclosing_functions(func):  # a closure's free name: its defining function's
                mine = [a for a in every if a.ctx.frames and a.ctx.frames[-1].func is outer]
                if mine:
                    break
            mine = mine or [a for a in every if not a.ctx.frames]
    out = []
    for a in reversed(mine):
        out.append((a.node.value, a))
        if not conditional(a, at):
            break
    return out


def instance_names(name, at):
    """`self.opt` inside a method is also `trainer.opt` where the walk called `trainer.fit()` (or made
    `trainer = Trainer(...)`): the names of one attribute of one instance, in every frame of the walk."""
    out = [name]
    for frame in reversed(at.ctx.frames):
        if not name.startswith("self.") or frame.call is None:
            break
        func = frame.call.func
        if isinstance(func, ast.Attribute):
            owner = dotted(func.value)
        else:  # Trainer(...): the instance is what the call is assigned to
            parent = getattr(frame.call, "parent", None)
            targets = parent.targets if isinstance(parent, ast.Assign) else []
            owner = dotted(targets[0]) if len(targets) == 1 else None
        if not owner:
            break
        name = owner + name[len("self"):]
        out.append(name)
    return out


def holds(f, node, at, value, depth=0):
    """`node` holds the object the expression `value` makes, where the event `at` reads it: `value` itself,
    or a name one of whose reaching values (through further names) is it."""
    if node is value:
        return True
    if depth > 6:
        return False
    if isinstance(node, ast.Call):
        return any(holds(f, v, a, value, depth + 1) for v, a in returned(f, node))
    if not isinstance(node, (ast.Name, ast.Attribute)):
        return False
    return any(holds(f, v, a, value, depth + 1) for v, a in reaching(f, node, at))


def returned(f, call):
    """[(value, event)] that the script's own functions the walk entered at `call` return, each with the
    last event of that call (where a returned name is read)."""
    inside = [e for e in f.s.events + f.s.assigns if any(fr.call is call for fr in e.ctx.frames)]
    if not inside:
        return []
    frame = next(fr for fr in inside[0].ctx.frames if fr.call is call)
    last = max((e for e in inside if e.ctx.frames[-1] is frame), key=lambda e: e.order, default=None)
    out = []
    for node in _own_nodes(frame.func):
        if isinstance(node, ast.Return) and node.value is not None:
            out.append((node.value, last or inside[-1]))
    return out


def _own_nodes(func):
    """The nodes of a function's body, not those of functions or classes defined inside it."""
    todo = list(func.body)
    while todo:
        node = todo.pop()
        yield node
        todo += [c for c in ast.iter_child_nodes(node)
                 if not isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda))]


def sources(f, expr, at, depth=0, seen=None):
    """[(node, event)]: `expr` where the event `at` reads it, then, through each name in it, the values that
    reach that name (each where its assignment runs), and so on."""
    seen = set() if seen is None else seen
    out = [(expr, at)]
    if depth > 6:
        return out
    for n in ast.walk(expr):
        parent = getattr(n, "parent", None)
        if not isinstance(n, (ast.Name, ast.Attribute)) or isinstance(parent, ast.Attribute) and parent.value is n:
            continue  # the whole chain `self.state` is followed, not its `self`
        key = (dotted(n), id(at))
        if key[0] is None or key in seen:
            continue
        seen.add(key)
        for v, a in reaching(f, n, at):
            out += sources(f, v, a, depth + 1, seen)
    return out


def _enclosing_functions(func):
    node = getattr(func, "parent", None)
    while node is not None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node
        node = getattr(node, "parent", None)


def conditional(a, at):
    """The event `a` is under a condition that `at` is not under."""
    return any(not any(g.test is h.test for h in at.ctx.guards) for g in a.ctx.guards)


def with_values(f, expr, limit=200):
    """The expression and, through names, the values ever assigned to them (`state = model.state_dict()`)
    and the arguments a walked function was called with; each name followed once."""
    out, todo, seen = [], [expr], set()
    while todo and len(out) < limit:
        node = todo.pop()
        out.append(node)
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and n.id not in seen:
                seen.add(n.id)
                todo += [a.node.value for a in f.s.assignments_to(n.id) if a.node.value is not None]
                todo += f.frames_binding(n.id)
    return out


def resolve(event, name):
    """A dotted name in the caller's terms: a parameter of a walked function replaced by its argument."""
    for frame in reversed(event.ctx.frames):
        head, _, rest = (name or "").partition(".")
        b = frame.bindings.get(head)
        if b is None or not dotted(b.expr):
            break
        name = dotted(b.expr) + ("." + rest if rest else "")
    return name


def model_key(name):
    """A model's name without wrappers' attribute (`model.module` is `model`)."""
    while name and name.endswith((".module", "._orig_mod")):
        name = name.rsplit(".", 1)[0]
    return name


# torch.nn.Module methods that return the module itself: `Net().to(device)` is the Net.
_SELF_RETURNING = ("to", "cuda", "cpu", "train", "eval", "float", "half", "double", "bfloat16", "requires_grad_")


def origin(f, node, at, depth=0):
    """The call that made the object `node` holds where the event `at` reads it (through names, attributes
    of one instance, parameters, `.to(device)`, and the returns of walked helpers); None when no reaching
    value is a call."""
    if depth > 8 or node is None:
        return None
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Attribute) and node.func.attr in _SELF_RETURNING:
            inner = origin(f, node.func.value, at, depth + 1)
            if inner is not None:
                return inner
        for v, a in returned(f, node):
            got = origin(f, v, a, depth + 1)
            if got is not None:
                return got
        return node
    if isinstance(node, (ast.Name, ast.Attribute)):
        for v, a in reaching(f, node, at):
            got = origin(f, v, a, depth + 1)
            if got is not None:
                return got
    return None


class Ref:
    """An object named by a dotted name where an event reads it: the call that made the longest prefix of the
    name that has one (`Net()` for `self.model.head` when self.model holds that Net) and the rest of the name
    ("head"); with no such call, the name in the caller's terms."""

    def __init__(self, f, name, at):
        self.f, self.name = f, model_key(resolve(at, name))
        self.made, self.rest = None, ""
        parts = (name or "").split(".")
        for i in range(len(parts), 0, -1):
            made = origin(f, ast.parse(".".join(parts[:i]), mode="eval").body, at) if parts[0] else None
            if made is not None:
                self.made, self.rest = made, ".".join(p for p in parts[i:] if p not in ("module", "_orig_mod"))
                break

    def within(self, other):
        """This object is `other` or one of its sub-modules."""
        if self.made is not None and other.made is not None:
            if self.made is not other.made:
                # nn.Sequential(encoder, decoder) holds decoder: a module built from modules
                return not other.rest and not self.rest and any(
                    n is self.made for a in other.made.args + [k.value for k in other.made.keywords]
                    for x in with_values(self.f, a) for n in ast.walk(x))
            return not other.rest or self.rest == other.rest or self.rest.startswith(other.rest + ".")
        return bool(self.name) and (self.name == other.name or self.name.startswith(f"{other.name}."))

    def __repr__(self):
        return f"Ref({self.name!r})"
