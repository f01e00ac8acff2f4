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


def makers(f, node, at, depth=0):
    """[(call, event)]: every call that may have made the object `node` holds where `at` reads it, through
    names, parameters and the returns of the script's own functions (each return path)."""
    if depth > 8:
        return []
    if isinstance(node, ast.Call):
        inner = [m for v, a in returned(f, node) for m in makers(f, v, a, depth + 1)]
        return inner or [(node, at)]
    if isinstance(node, (ast.Name, ast.Attribute)):
        return [m for v, a in reaching(f, node, at) for m in makers(f, v, a, depth + 1)]
    return []


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
                    self._holds_made(a) for a in other.made.args + [k.value for k in other.made.keywords])
            return not other.rest or self.rest == other.rest or self.rest.startswith(other.rest + ".")
        return bool(self.name) and (self.name == other.name or self.name.startswith(f"{other.name}."))

    def _holds_made(self, arg):
        """An argument (or an element of a list or tuple argument) is this object: the call itself, or a
        name assigned it."""
        for a in [arg] + list(getattr(arg, "elts", [])):
            if a is self.made or dotted(a) and any(x.node.value is self.made for x in self.f.s.assignments_to(dotted(a))
                                                   if getattr(x.node, "value", None) is not None):
                return True
        return False

    def __repr__(self):
        return f"Ref({self.name!r})"


# torch.distributed's own rank queries: a Horovod script that also uses them reads a rank (or crashes when
# the process group was never initialised: a crash, another finding).
_OTHER_RANK_QUERIES = ("torch.distributed.get_rank",)
# Calls whose value is their argument's, converted.
_CONVERSIONS = ("int", "str", "bool", "float", "abs", "min", "max", "round", "len")


def depends_on_rank(f, node, at, local=False, depth=0):
    """The value of `node` where `at` reads it is computed from the rank (or, local=True, the local rank):
    through arithmetic and comparisons, names and parameters (their reaching values), the returns of the
    script's own functions, and attributes of objects made with the rank as a keyword (`dist.rank` with
    dist = init() returning SimpleNamespace(rank=hvd.rank())). Data read per rank is not: a value computed
    from this rank's batches, or a collective's result (equal on every rank), does not say who runs."""
    if depth > 12 or node is None:
        return False
    deeper = lambda n, a=at: depends_on_rank(f, n, a, local, depth + 1)  # noqa: E731 - a local shorthand
    if f.is_local_rank(node) if local else f.is_rank(node) or isinstance(node, ast.Call) and \
            f.s.qual(node.func) in _OTHER_RANK_QUERIES:
        return True
    if isinstance(node, ast.Call):
        if f.s.api(node.func):
            return False  # a collective (equal on every rank), or another Horovod call
        if f.s.qual(node.func) in _CONVERSIONS:
            return any(deeper(a) for a in node.args)
        if returned(f, node):
            return any(deeper(v, a) for v, a in returned(f, node))
        if isinstance(node.func, ast.Attribute) and imported(f, node.func) is None:
            return deeper(node.func.value)  # a method of a value: `rank_str.strip()`, `t.item()`
        return False
    if isinstance(node, (ast.Name, ast.Attribute)):
        if any(deeper(v, a) for v, a in reaching(f, node, at)):
            return True
        if isinstance(node, ast.Attribute) and isinstance(node.value, (ast.Name, ast.Attribute)):
            for call, b in makers(f, node.value, at):
                kw = next((k.value for k in call.keywords if k.arg == node.attr), None)
                if kw is not None and deeper(kw, b):
                    return True
        return False
    return any(deeper(c) for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr))


def imported(f, func):
    """The module a called dotted name starts from, when its first name is an import; else None."""
    node = func
    while isinstance(node, ast.Attribute):
        node = node.value
    return f.s.aliases.get(node.id) if isinstance(node, ast.Name) else None
