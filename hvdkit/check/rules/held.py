"""What a name holds where it is used, for the rules of steps 5 to 8: the values that reach a use (the
last assignment before it in the same call, and those a condition may skip back to), the values a name was
ever given, and names read in the caller's terms. Built on the walk's order of events (Script/Facts)."""
import ast

from hvdkit.check import mappings
from hvdkit.check.facts import SELF_RETURNING, same_walk
from hvdkit.check.defs import element_of
from hvdkit.check.script import Ctx, Frame, dotted, instance_names, loop_bindings, parents
from hvdkit.check.values import Evaluator, Where, truthy


def reaching(f, node, at, depth=0):
    """[(value, assignment event)] that a name or dotted attribute may hold at the event `at`, latest first:
    the last assignment before it (in the same function for a plain name, in the same walk for an
    attribute), and earlier ones while those after them are under a condition `at` is not or add to the
    value (`x += v`: both x's value and v reach). A parameter of a walked function is read at its call
    site; a global at the module's level."""
    name = dotted(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
    if name is None or depth > 6:
        return []
    cache, key = memo(f, "reaching"), (name, id(at))
    if key not in cache:
        cache[key] = []  # a cycle through parameters reaches nothing more
        cache[key] = _reaching(f, name, at, depth)
    return cache[key]


def _reaching(f, name, at, depth):
    every = [a for n in instance_names(name, at) for a in f.s.assignments_to(n) if a.order < at.order
             and a.ctx.reached and a.node.value is not None]
    if "." in name and not name.startswith("self."):
        # `trainer.best_auc` read outside: what its methods set as `self.best_auc` on that instance
        inner = "self." + name.split(".", 1)[1]
        every += [a for a in f.s.assignments_to(inner) if a.order < at.order and a.ctx.reached and
                  a.node.value is not None and name in instance_names(inner, a)[1:]]
    every.sort(key=lambda a: a.order)
    if "." in name:
        mine = [a for a in every if same_walk(a, at)]
    else:
        frame = at.ctx.frames[-1] if at.ctx.frames else None
        func = frame.func if frame is not None else None
        # the same call of the function (another call's locals are other variables)
        mine = [a for a in every if (a.ctx.frames[-1] if a.ctx.frames else None) is frame]
        if not mine and func is not None:
            bound = _bound(f, frame, name, at, depth)
            if bound is not None:
                return bound
            mine = []
            for outer in _enclosing_functions(func):  # a closure's free name: its defining function's
                calls = [fr for fr in at.ctx.frames if fr.func is outer] or [None]
                mine = [a for a in every if a.ctx.frames and a.ctx.frames[-1].func is outer
                        and (calls[-1] is None or a.ctx.frames[-1] is calls[-1])]
                if mine:
                    break
                # its defining function's parameter (`def make_step(model, opt): def step(x): ...
                # opt.apply_gradients(...)`), as the call that made the closure bound it: the call on the stack,
                # else the function's only walked call (two calls make two closures the walk cannot tell apart)
                made = [fr for fr in f.s.frames if fr.func is outer]
                made = [calls[-1]] if calls[-1] is not None else made if len(made) == 1 else []
                bound = _bound(f, made[0], name, at, depth) if made else None
                if bound is not None:
                    return bound
            mine = mine or [a for a in every if not a.ctx.frames]
    out = []
    for a in reversed(mine):
        if never(f, a):
            continue  # `if split == "train": files = files[rank::size]` in the call made with "validation"
        out += _unpacked_returns(f, a, name) or [(a.node.value, a)]
        if not conditional(a, at) and not isinstance(a.node, ast.AugAssign):  # `x += v` keeps what x held
            break
    if not out and "." not in name:
        out = _loop_elements(f, name, at, depth)
    return out


def _bound(f, frame, name, at, depth):
    """What a walked call bound the parameter `name` of its function to, read at that call: [(value, call
    event)]; None when the parameter kept its default or the call is not before `at`."""
    b = frame.bindings.get(name)
    call = next((e for e in reversed(f.s.events_at(frame.call)) if e.order < at.order), None)
    if b is None or b.default or call is None:
        return None
    if isinstance(b.expr, (ast.Name, ast.Attribute)):
        return reaching(f, b.expr, call, depth + 1)
    return [(b.expr, call)]


def _loop_elements(f, name, at, depth):
    """`for opt in optimizers: opt.step()`: a loop variable holds, in turn, each element of the list or tuple
    the loop iterates, or each value of the dict (`for opt in optimizers.values():`), written there or reaching
    the name it iterates (a parameter given `[head, backbone]`, a project function's returned
    `{"backbone": a, "decoder": b}`)."""
    for p in parents(at.node):
        if isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            break
        for g in loop_bindings(p):
            found = _iterated_elements(f, g, name, at, depth)
            if found is not None:
                return found
    return []


def comprehended(f, node, at, depth=0):
    """For a name bound by a comprehension around it, inside the expression `at` reads (`v` of `" ".join(f"{k}
    {v}" for k, v in metrics.items())` in a report): [(element, event)] of what the comprehension iterates;
    None for any other name."""
    for p in parents(node):
        if p is at.node or isinstance(p, (ast.stmt, ast.Lambda)):
            break
        for g in getattr(p, "generators", ()):
            found = _iterated_elements(f, g, node.id, at, depth)
            if found is not None:
                return found
    return None


def _iterated_elements(f, g, name, at, depth):
    """The elements the loop binding `g` (a for loop or a comprehension's generator) gives `name`: each element
    of the list, tuple or dict values it iterates (`for opt in optimizers.values()`, `for k, v in
    metrics.items()`); None when `g` does not bind `name` so."""
    it = g.iter
    listed = isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and not it.args
    if isinstance(g.target, ast.Name) and g.target.id == name:
        return _container_elements(f, it.func.value if listed and it.func.attr == "values" else it, at, depth + 1)
    if listed and it.func.attr == "items" and isinstance(g.target, ast.Tuple) and len(g.target.elts) == 2 and \
            isinstance(g.target.elts[1], ast.Name) and g.target.elts[1].id == name:
        return _container_elements(f, it.func.value, at, depth + 1)
    return None


def _container_elements(f, node, at, depth):
    """[(element, event)] of the list, tuple or dict (its values) that `node` is, or that reaches it through
    names and the project's returns."""
    if depth > 8:
        return []
    if isinstance(node, (ast.List, ast.Tuple)):
        return [(el, at) for el in node.elts if not isinstance(el, ast.Starred)]
    if isinstance(node, ast.Dict):
        return [(v, at) for v in node.values if v is not None]
    if isinstance(node, ast.DictComp):  # `{f"R@{k}": (pos < k).float().mean() for k in ks}`: its values
        return [(node.value, at)]
    found = returned(f, node, at) if isinstance(node, ast.Call) else \
        reaching(f, node, at, depth + 1) if isinstance(node, (ast.Name, ast.Attribute)) else []
    return [x for v, a in found for x in _container_elements(f, v, a, depth + 1)]


def holds(f, node, at, value, depth=0):
    """`node` holds the object the expression `value` makes, where the event `at` reads it: `value` itself,
    or a name one of whose reaching values (through further names) is it."""
    if node is value:
        return True
    if depth > 6:
        return False
    if isinstance(node, ast.Call):
        return any(holds(f, v, a, value, depth + 1) for v, a in returned(f, node, at))
    if not isinstance(node, (ast.Name, ast.Attribute)):
        return False
    return any(holds(f, v, a, value, depth + 1) for v, a in reaching(f, node, at))


def returned(f, call, at=None):
    """[(value, event)] that the script's own functions the walk entered at `call` return, each with a point
    just after that call's last event (where a returned name is read). `at`: an event of the caller, so that
    a call node walked several times (a helper's line reached from several callers) is taken in this
    caller's walk."""
    frames = at.ctx.frames if at is not None else None
    key = (id(call), tuple(id(x) for x in frames) if frames is not None else None)
    cache = memo(f, "returned")
    if key not in cache:
        cache[key] = _returned(f, call, frames)
    return cache[key]


def _returned(f, call, frames):
    inside, frame = [], None
    for k, e in _entered(f).get(id(call), ()):
        fs = e.ctx.frames
        if frames is not None and not (k == len(frames) and all(x is y for x, y in zip(fs, frames))):
            continue
        frame = frame or fs[k]
        if fs[k] is frame:
            inside.append(e)
    if not inside:
        return (returned(f, call) if frames else []) or _returned_unobserved(f, call, frames)
    last = max((e for e in inside if e.ctx.frames[-1] is frame), key=lambda e: e.order, default=None) or inside[-1]
    end = _After(last)  # after the call's last event: its own last assignment reaches the return
    return [(node.value, end) for node in _own_nodes(frame.func) if isinstance(node, ast.Return)
            and node.value is not None]


def _returned_unobserved(f, call, frames):
    """The returns of a function of the project the walk entered at `call` but in which nothing was recorded (no
    call, no assignment: `def value(self): return self.rate`), read in a frame made for that call."""
    if frames is None or call not in f.s.local_calls:
        return []
    at = next((e for e in f.s.events_at(call) if e.ctx.frames == frames), None)
    func = callee(f, call, at) if at is not None else None
    if func is None:
        return []
    frame = Frame(func, call, frames[-1] if frames else None)
    end = _After(at, Ctx(at.ctx.guards, at.ctx.loops, frames + (frame,), at.ctx.reached))
    return [(node.value, end) for node in _own_nodes(func) if isinstance(node, ast.Return) and node.value is not None]


def callee(f, call, at):
    """The function or method of the project a call runs: by the definition of its name, or a method of the
    class of its receiver (`self` in a method, an object made by a class of the project)."""
    func = call.func
    found = f.s.defined(func) if isinstance(func, (ast.Name, ast.Attribute)) else None
    if found is None and isinstance(func, ast.Attribute):
        cls = f.s.self_class(func) if isinstance(func.value, ast.Name) else None
        made = origin(f, func.value, at) if cls is None else None
        cls = cls or (f.s.defined(made.func) if made is not None and isinstance(made.func, (ast.Name, ast.Attribute))
                      else None)
        found = f.s.method_of(cls, func.attr) if isinstance(cls, ast.ClassDef) else None
    return found if isinstance(found, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def _entered(f):
    """{id(call): [(depth of its frame, event)]}: the events run inside the calls the walk entered."""
    cache = memo(f, "entered")
    if not cache:
        for e in f.s.events + f.s.assigns:
            for k, fr in enumerate(e.ctx.frames):
                if fr.call is not None:
                    cache.setdefault(id(fr.call), []).append((k, e))
        cache[None] = []
    return cache


def memo(f, name):
    """A per-script cache of the helpers below (the rules ask the same questions many times)."""
    return f.memo("held." + name, dict)


class _After:
    """A point just after an event, in its context (where a function returns)."""

    def __init__(self, event, ctx=None):
        self.node, self.order, self.qual, self.api = event.node, event.order + 0.5, "", None
        self.ctx = event.ctx if ctx is None else ctx

    @property
    def line(self):
        return self.node.lineno


def _own_nodes(func):
    """The nodes of a function's body, not those of functions or classes defined inside it."""
    todo = list(func.body)
    while todo:
        node = todo.pop()
        yield node
        todo += [c for c in ast.iter_child_nodes(node)
                 if not isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda))]


def sources(f, expr, at, depth=0, seen=None, skip_arg=None):
    """[(node, event)]: `expr` where the event `at` reads it, then, through each name in it, the values that
    reach that name (each where its assignment runs), and so on; not through the arguments of a call for
    which `skip_arg(call, argument)` holds (one the called function never reads in that call)."""
    seen = set() if seen is None else seen
    out = [(expr, at)]
    if depth > 6:
        return out
    handed = set() if skip_arg is None else {
        id(x) for c in ast.walk(expr) if isinstance(c, ast.Call)
        for arg in c.args + [k.value for k in c.keywords] if skip_arg(c, arg) for x in ast.walk(arg)}
    for n in ast.walk(expr):
        parent = getattr(n, "parent", None)
        if not isinstance(n, (ast.Name, ast.Attribute)) or isinstance(parent, ast.Attribute) and parent.value is n \
                or id(n) in handed:
            continue  # the whole chain `self.state` is followed, not its `self`
        while isinstance(n, (ast.Name, ast.Attribute)):
            key = (dotted(n), id(at))
            if key[0] is None or key in seen:
                break
            seen.add(key)
            values = reaching(f, n, at)
            for v, a in values:
                out += sources(f, v, a, depth + 1, seen, skip_arg)
            if values or not isinstance(n, ast.Attribute):
                break
            n = n.value  # `ds.prefetch` has no value of its own: ds's
    return out


def _enclosing_functions(func):
    node = getattr(func, "parent", None)
    while node is not None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node
        node = getattr(node, "parent", None)


def _unpacked_returns(f, a, name):
    """`train, val = datasets(args)` with datasets returning (train, val): val is the returned tuple's second
    element (the walk binds each name to the whole call)."""
    target = a.node.targets[0] if isinstance(a.node, ast.Assign) and len(a.node.targets) == 1 else None
    if not isinstance(target, (ast.Tuple, ast.List)) or not isinstance(a.node.value, ast.Call):
        return []
    short = name.split(".")[-1]
    key = name if name in {dotted(n) for n in ast.walk(target)} else short
    rets = returned(f, a.node.value, a)
    def one(n, end):
        values = reaching(f, n, end)
        return values[0][0] if len(values) == 1 and isinstance(values[0][1].node, ast.Assign) else None
    parts = [(element_of(target, key, r, lambda n, e=end: one(n, e)), end) for r, end in rets]
    return parts if parts and all(p is not None for p, _ in parts) else []


def never(f, a):
    """A condition around the assignment is false whatever the step and the rank: a constant, or a
    parameter of the walked call (`split == "train"` in input_fn(cfg, "validation"))."""
    ev = Evaluator(f.s, Where(None, False))
    return any((_none_test(g) if _none_test(g) is not None else truthy(ev.value(g.test, g.frame, a))) is (not g.branch)
               for g in a.ctx.guards)


def _none_test(g):
    """`x is None` / `x != None` / `if x:` on a parameter the walked call left at its default None: its value
    (the evaluator reads numbers, strings and booleans only); None when the test is not of that form."""
    test, negate = g.test, False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, negate = test.operand, True
    name, op = test, None
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.comparators[0], ast.Constant) \
            and test.comparators[0].value is None:
        name, op = test.left, test.ops[0]
    b = g.frame.bindings.get(name.id) if isinstance(name, ast.Name) and g.frame is not None else None
    if b is None or not (isinstance(b.expr, ast.Constant) and b.expr.value is None):
        return None
    value = False if op is None else isinstance(op, (ast.Is, ast.Eq))
    return value != negate


# Methods that put a value into the object they are called on.
PUTS = ("append", "extend", "insert", "add", "update", "update_state", "add_", "put", "setdefault")


def mutations(f, node, at):
    """[(value, event)]: values put into the object a name holds before `at` (`losses.append(loss.item())`,
    `meter.update(loss)`, `acc.update_state(y, p)`, `matches[n - 1] += hits`), in the same walk (a plain name:
    in the same call)."""
    name = dotted(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
    if not name:
        return []
    frame = at.ctx.frames[-1] if at.ctx.frames else None

    def mine(e):
        return e.order < at.order and e.ctx.reached and same_walk(e, at) and (
            "." in name or (e.ctx.frames[-1] if e.ctx.frames else None) is frame)  # a local: this call's
    puts = [e for e in f.s.events if isinstance(e.node.func, ast.Attribute) and e.node.func.attr in PUTS
            and dotted(e.node.func.value) == name and mine(e)]
    stores = [e for e in f.s.assigns if isinstance(e.node, (ast.Assign, ast.AugAssign)) and mine(e) and any(
        isinstance(t, ast.Subscript) and dotted(t.value) == name
        for t in (e.node.targets if isinstance(e.node, ast.Assign) else [e.node.target]))]
    return [(v, e) for e in puts for v in e.node.args + [k.value for k in e.node.keywords]] + \
        [(e.node.value, e) for e in stores]


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




def factory_call(f, node, at, depth=0):
    """The outermost call of a function of the project through which the object `node` holds (where `at`
    reads it) was made: `build_model(...)` for `teacher = build_model(arch, n).to(device)`, read through
    names, parameters and `.to(device)`; None when the object was not made by such a call."""
    if depth > 8 or node is None:
        return None
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Attribute) and node.func.attr in SELF_RETURNING:
            return factory_call(f, node.func.value, at, depth + 1)
        return node if returned(f, node, at) else None
    if isinstance(node, (ast.Name, ast.Attribute)):
        found = [factory_call(f, v, a, depth + 1) for v, a in reaching(f, node, at)]
        return found[0] if len(found) == 1 else None
    return None


def origin(f, node, at, depth=0):
    """The call that made the object `node` holds where the event `at` reads it (through names, attributes
    of one instance, parameters, `.to(device)`, and the returns of walked helpers); None when no reaching
    value is a call."""
    if depth > 8 or node is None:
        return None
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Attribute) and node.func.attr in SELF_RETURNING:
            inner = origin(f, node.func.value, at, depth + 1)
            if inner is not None:
                return inner
        for v, a in returned(f, node, at):
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
        inner = [m for v, a in returned(f, node, at) for m in makers(f, v, a, depth + 1)]
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
        # two calls of one factory of the project make two objects, though its code makes both at one line
        # (of the longest prefix of the name that has one, as `made` below: `self.D_a, self.D_b = net(), net()`
        # are two objects, each made by its own call)
        parts = (name or "").split(".")
        prefixes = [".".join(parts[:i]) for i in range(len(parts), 0, -1)] if parts[0].isidentifier() else []
        self.factory = next((c for c in (factory_call(f, ast.parse(p, mode="eval").body, at) for p in prefixes)
                             if c is not None), None)
        self.outer = []  # (made, rest) of the shorter prefixes: `model.fc` is `fc` of what made `model`
        for i in range(len(parts), 0, -1):
            made = origin(f, ast.parse(".".join(parts[:i]), mode="eval").body, at) if parts[0] else None
            if made is not None:
                rest = ".".join(p for p in parts[i:] if p not in ("module", "_orig_mod"))
                if self.made is None:
                    self.made, self.rest = made, rest
                else:
                    self.outer.append((made, rest))

    @classmethod
    def each(cls, f, node, at):
        """A Ref per object a plain name may hold where it is read (`model` made before a loop over rounds and
        made again in it, `if rnd > 0: model = get_net()`): a Ref follows the first value that reaches and has
        an origin; here each other value that does makes one more, one per object."""
        first = cls(f, dotted(node), at)
        if not isinstance(node, ast.Name):
            return [first]
        out, seen = [first], {id(first.made)}
        for value, a in reaching(f, node, at):
            made = origin(f, value, a)
            if made is not None and id(made) not in seen:
                seen.add(id(made))
                ref = cls.__new__(cls)
                ref.f, ref.name, ref.made, ref.rest, ref.outer, ref.factory = f, first.name, made, "", [], None
                out.append(ref)
        return out

    def within(self, other):
        """This object is `other` or one of its sub-modules."""
        if self.made is not None and other.made is not None:
            if self.made is other.made and self.factory is not None and other.factory is not None and \
                    self.factory is not other.factory and self.rest == other.rest == "" and \
                    self.f.s.defined(self.factory.func) is self.f.s.defined(other.factory.func):
                return False  # `teacher = build_model(a)` and `student = build_model(b)`: two models
            if self.made is not other.made:
                # a sub-module set on the object after it was made (`model.fc = nn.Linear(...)`), or
                # nn.Sequential(encoder, decoder) holding decoder: a module built from modules
                return any(m is other.made and _under(r, other.rest) for m, r in self.outer) or \
                    not other.rest and not self.rest and any(
                        self._holds_made(a) for a in other.made.args + [k.value for k in other.made.keywords])
            return _under(self.rest, other.rest)
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


def _under(rest, outer):
    """The attribute path `rest` is `outer` or below it (`fc.weight` under `fc`; everything under "")."""
    return not outer or rest == outer or rest.startswith(outer + ".")


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
    cache, key = memo(f, "rank"), (id(node), id(at), local)
    if key not in cache:
        cache[key] = False  # cycle-safe
        cache[key] = _depends_on_rank(f, node, at, local, depth)
    return cache[key]


def _depends_on_rank(f, node, at, local, depth):
    deeper = lambda n, a=at: depends_on_rank(f, n, a, local, depth + 1)  # noqa: E731 - a local shorthand
    if f.is_local_rank(node) if local else f.is_rank(node) or isinstance(node, ast.Call) and \
            f.s.qual(node.func) in _OTHER_RANK_QUERIES:
        return True
    if isinstance(node, ast.Call):
        if f.s.api(node.func):
            return False  # a collective (equal on every rank), or another Horovod call
        if f.s.qual(node.func) in _CONVERSIONS:
            return any(deeper(a) for a in node.args)
        if returned(f, node, at):
            return any(deeper(v, a) for v, a in returned(f, node, at))
        if isinstance(node.func, ast.Attribute) and imported(f, node.func) is None:
            return deeper(node.func.value)  # a method of a value: `rank_str.strip()`, `t.item()`
        return False
    if isinstance(node, (ast.Name, ast.Attribute)):
        if any(deeper(v, a) for v, a in reaching(f, node, at)):
            return True
        if isinstance(node, ast.Attribute) and isinstance(node.value, (ast.Name, ast.Attribute)):
            for call, b in makers(f, node.value, at):
                if any(deeper(v, b) for v in field_values(f, call, node.attr)):
                    return True
                # a property of the project's class (`strategy.is_chief` returning `hvd.rank() == 0`)
                cls = f.s.defined(call.func) if isinstance(call.func, (ast.Name, ast.Attribute)) else None
                if any(deeper(v, b) for v in property_returns(f, cls, node.attr)):
                    return True
        return False
    return any(deeper(c) for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr))


def field_values(f, call, attr, depth=0):
    """What the object `call` makes holds in `attr`: the argument of that name (by keyword, or by position
    for a class of the project whose fields (a dataclass) or __init__ parameters have that name); for a
    property of its class, what the attributes its returns read hold (`is_root` returning `self.rank == 0`)."""
    kw = next((k.value for k in call.keywords if k.arg == attr), None)
    if kw is not None:
        return [kw]
    cls = f.s.class_called(call.func)
    if cls is None or depth > 2:
        return []
    init = f.s.method_of(cls, "__init__")
    params = [a.arg for a in init.args.args[1:]] if init is not None else [
        s.target.id for s in cls.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
    given = [a for a in call.args if not isinstance(a, ast.Starred)]
    if attr in params and params.index(attr) < len(given):
        return [given[params.index(attr)]]
    built = set_on_self(f.s.constructor(cls), attr)
    if built:  # `self.batch_per_gpu = global_batch // hvd.size()` in __init__ / a dataclass's __post_init__
        return built
    if init is None:
        # a field the call does not give: its declared default (`batch_size: int = GLOBAL_BATCH // hvd.size()`,
        # or `field(default=...)`). A `**mapping` may give it: what the mapping holds for it when the source
        # shows that, else the default is still what holds when the mapping leaves it out (and what
        # `TrainConfig(**vars(parser.parse_args()))` holds when the parser's defaults are the fields')
        for k in (k for k in call.keywords if k.arg is None):
            got = mappings.lookup(f, k.value, attr)
            if got is not None and got is not mappings.UNRESOLVED:
                return [got]
        default = next((st.value for st in cls.body if isinstance(st, ast.AnnAssign) and
                        isinstance(st.target, ast.Name) and st.target.id == attr and st.value is not None), None)
        if isinstance(default, ast.Call) and f.s.qual(default.func).split(".")[-1] == "field":
            kw = {k.arg: k.value for k in default.keywords}
            # `field(default_factory=lambda: 5e-4 * hvd.size())`: what the factory returns, run when the
            # object is made
            factory = kw.get("default_factory")
            # (`field(default_factory=hvd.size)`: the call of the function named)
            default = kw.get("default") if factory is None else factory.body if isinstance(factory, ast.Lambda) \
                else _called(factory) if isinstance(factory, (ast.Name, ast.Attribute)) else None
        if default is not None:
            return [default]
    read = {n.attr for r in property_returns(f, cls, attr) for n in ast.walk(r)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self"}
    return [v for a in sorted(read) for v in field_values(f, call, a, depth + 1)]


def _called(func):
    """A call of `func` with no arguments, made for reading what a factory returns (kept, so that a query asked
    twice gets the same node)."""
    call = getattr(func, "hk_called", None)
    if call is None:
        call = ast.copy_location(ast.Call(func=func, args=[], keywords=[]), func)
        call.parent = getattr(func, "parent", None)
        func.hk_called = call
    return call


def property_returns(f, cls, attr):
    """The expressions the property `attr` of the project's class `cls` returns ([] when it has no such
    property): `return self.sum / self.count` of `Meter.avg`."""
    prop = f.s.method_of(cls, attr) if isinstance(cls, ast.ClassDef) else None
    if prop is None or not any(f.s.qual(d) == "property" for d in prop.decorator_list):
        return []
    return [n.value for n in ast.walk(prop) if isinstance(n, ast.Return) and n.value is not None]


def property_values(f, node, at):
    """The expressions a property of the project's class returns for `obj.prop` (`meter.avg` returning
    `self.sum / self.count`): read where the class's methods assign what they name."""
    made = origin(f, node.value, at)
    cls = f.s.self_class(node) if isinstance(node.value, ast.Name) else None  # `self.rate` in a method
    if cls is None and made is not None and isinstance(made.func, (ast.Name, ast.Attribute)):
        cls = f.s.defined(made.func)
    return property_returns(f, cls, node.attr)


def set_on_self(method, attr):
    """The values `method` assigns to `self.<attr>` in its own body, last one last ([] when none)."""
    out = []
    for node in ast.walk(method) if method is not None else ():
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None and any(
                isinstance(t, ast.Attribute) and t.attr == attr and isinstance(t.value, ast.Name) and
                t.value.id == "self" for t in (node.targets if isinstance(node, ast.Assign) else [node.target])):
            out.append(node.value)
    return sorted(out, key=lambda v: v.lineno)


def imported(f, func):
    """The module a called dotted name starts from, when its first name is an import; else None."""
    node = func
    while isinstance(node, ast.Attribute):
        node = node.value
    return f.s.aliases.get(node.id) if isinstance(node, ast.Name) else None


# What only places values on a device: the device's constructors, and the tensor's (and module's) methods
# that move it there. What they are given picks no data (`x.to(f"cuda:{hvd.local_rank()}")` is the same
# values on every rank).
DEVICES = ("torch.device", "tensorflow.device")
MOVES = ("to", "cuda")


def placement(f, call):
    """`call` only places what it is given or called on: `torch.device(...)`, `tf.device(...)`, `x.to(...)`,
    `x.cuda(...)` (the last two not the project's own functions)."""
    if not isinstance(call, ast.Call):
        return False
    return f.s.qual(call.func) in DEVICES or isinstance(call.func, ast.Attribute) and call.func.attr in MOVES and \
        not f.local_function(call)


def placed(f, node):
    """`node` is part of what a placement call is given (its device), not of the values it moves."""
    child = node
    for p in parents(node):
        if isinstance(p, ast.Call) and child is not p.func and placement(f, p):
            return True
        child = p
    return False
