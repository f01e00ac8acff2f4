"""Where a value comes from: every expression the value of an expression may be made of, followed through
the script's data flow rather than its names' spelling. A query of the rules (steps 3 and 4); a small
addition beside facts.py, whose `mentions` answers "does it depend on X" where this answers "what is it".

    made = sources(f, [sink])                  # the sink and every expression its value may come from
    used = any(n is sampler_call for n in made)
"""
import ast

from hvdkit.check.defs import binding_loop, dotted, element_of, owner_of_arg

MAX_DEPTH = 30
MAX_CALLS = 4  # the calls a node is followed through (`sources`)


def sources(f, exprs, follow_call=None):
    """[node]: `exprs` and, transitively, what their values come from: a name's assigned values, a parameter's
    arguments in the walked calls, the returns of the script's own functions, the elements of a list, tuple or
    dict, the element and the iterables of a comprehension, the container of a subscript, the operands of
    arithmetic, both branches of a conditional. For a library's call, `follow_call(call)` says which of its
    parts its value comes from (none by default)."""
    # Each node is followed with the calls it was reached through (a stack of the script's own calls): a
    # parameter read in a function entered through `pipeline(second)` is that call's argument, not the
    # arguments of every other call of `pipeline` (which another data set may flow through).
    out, emitted, seen, todo = [], set(), set(), [(e, 0, ()) for e in exprs if e is not None]
    while todo:
        node, depth, calls = todo.pop()
        if (id(node), calls) in seen or depth > MAX_DEPTH:
            continue
        if id(node) not in emitted:
            emitted.add(id(node))
            out.append(node)
        seen.add((id(node), calls))
        bound = _bound_in(f, node, calls[-1]) if calls and isinstance(node, ast.Name) else None
        if bound is not None:
            todo += [(n, depth + 1, calls[:-1]) for n in bound]
            continue
        inner = calls + (node,) if isinstance(node, ast.Call) and len(calls) < MAX_CALLS and \
            f.local_function(node) else calls
        todo += [(n, depth + 1, inner) for n in _made_of(f, node, follow_call) if n is not None]
    return out


def _bound_in(f, name, call):
    """The argument expressions a parameter read as `name` takes in the frames the walk entered at `call`;
    None when `name` is no parameter of the function that call runs, or the walk entered none there."""
    defs = f.s.reaching(name)
    args = [d for d in defs or () if isinstance(d, ast.arg)]
    if not args or len(args) != len(defs):
        return None
    frames = [fr for d in args for fr in f.frames_of().get(owner_of_arg(d), ()) if fr.call is call]
    if not frames:
        return None
    return [b.expr for fr in frames for p, b in fr.bindings.items() if any(p == d.arg for d in args)]


def _made_of(f, node, follow_call):
    if isinstance(node, ast.Name):
        return _assigned(f, node) + list(f.frames_binding(node)) + _entered(f, node) + _appended(f, node) + \
            iterated(f, node)
    if isinstance(node, ast.Attribute):
        return (_assigned(f, node) if dotted(node) else []) + _namespace_entry(f, node)
    if isinstance(node, ast.Call):
        made = returns(f, node) if f.local_function(node) else []
        # a library call, or an instance of the script's own class: what follow_call says it is made of
        return made or (list(follow_call(node)) if follow_call else [])
    if isinstance(node, ast.Subscript):
        return [node.value]
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return list(node.elts)
    if isinstance(node, ast.Dict):
        return list(node.values)
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
        return [node.elt] + [g.iter for g in node.generators]  # made of the elements it iterates, too
    if isinstance(node, ast.DictComp):
        return [node.value] + [g.iter for g in node.generators]
    if isinstance(node, ast.IfExp):
        return [node.body, node.orelse]
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    if isinstance(node, ast.UnaryOp):
        return [node.operand]
    if isinstance(node, ast.BoolOp):
        return list(node.values)
    if isinstance(node, (ast.Starred, ast.Await, ast.NamedExpr, ast.FormattedValue)):
        return [node.value]
    if isinstance(node, ast.JoinedStr):  # an f-string is made of the values it formats
        return list(node.values)
    return []


# Objects that hold a mapping's entries as attributes: `SimpleNamespace(**cfg).lr` is cfg["lr"].
NAMESPACES = ("types.SimpleNamespace", "argparse.Namespace", "easydict.EasyDict", "addict.Dict", "addict.Addict",
              "munch.Munch", "munch.munchify")


def _namespace_entry(f, node):
    """`cfg.lr` where cfg holds `SimpleNamespace(**d)` (or argparse.Namespace, EasyDict(d), Munch(d)), made
    there or returned by the project's function that makes it: the entry "lr" of d (namespace_entries())."""
    out, todo, seen = [], [node.value], 0
    while todo and seen < 12:
        v, seen = todo.pop(), seen + 1
        if isinstance(v, ast.Name):
            todo += _assigned(f, v) + list(f.frames_binding(v))
        elif isinstance(v, ast.Call) and f.s.qual(v.func) in NAMESPACES:
            out += namespace_entries(f, v, node.attr)
        elif isinstance(v, ast.Call) and f.local_function(v):
            todo += returns(f, v)
    return out


def namespace_entries(f, call, attr):
    """What `attr` of the namespace `call` makes holds: its keyword of that name, or the entry of the mapping
    it is given (`**d`, or d itself), as mappings.py reads it, with the writes into d before it is wrapped
    (`cfg["lr"] = cfg["lr"] * hvd.size()`); [] when unknown."""
    from hvdkit.check import mappings
    named = [k.value for k in call.keywords if k.arg == attr]
    given = [k.value for k in call.keywords if k.arg is None] + call.args[:1]
    return named or [e for m in given for e in [mappings.lookup(f, m, attr)]
                     if e is not None and e is not mappings.UNRESOLVED]


def _assigned(f, node):
    """The values assigned to a Name (by the definitions that reach it) or an attribute (by spelling)."""
    name = dotted(node)
    return [v for a in f.s.assignments_to(node) if a.node.value is not None for v in unpacked(f, a, name)]


def _appended(f, name):
    """`out.append((DataLoader(ds, sampler=sampler), sampler))`: what a list `name` holds is made of what the
    code puts into it, where the name is the same variable (by its definitions)."""
    defs = set(map(id, f.s.reaching(name) or ()))
    if not defs:
        return []
    puts = f.memo("list_puts", lambda: [  # per script: asked for every name a flow passes
        e.node for e in f.s.events if isinstance(e.node.func, ast.Attribute) and isinstance(
            e.node.func.value, ast.Name) and e.node.func.attr in ("append", "extend", "insert")])
    return [v for call in puts if defs & set(map(id, f.s.reaching(call.func.value) or ()))
            for v in call.args[-1:]]


def iterated(f, name):
    """What a loop's (or a comprehension's) target is an element of: the iterable, or for `for d, s in zip(sets,
    samplers)` the zipped sequence at the target's position (`enumerate(xs)`: xs for the second; `x` of
    `for i, (x, y) in enumerate(xs)`: xs)."""
    out = []
    for d in f.s.reaching(name) or ():
        loop, path = binding_loop(d)
        if loop is None:
            continue
        it = loop.iter
        if path == [0] and isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and \
                it.func.attr == "items" and not it.args:
            continue  # `k` of `for k, v in metrics.items()`: a key names an entry, it holds none of its value
        if path and isinstance(it, ast.Call) and f.s.qual(it.func) in ("zip", "enumerate") and \
                not any(isinstance(a, ast.Starred) for a in it.args):
            args = it.args if f.s.qual(it.func) == "zip" else [None] + it.args[:1]
            out += [args[path[-1]]] if path[-1] < len(args) and args[path[-1]] is not None else []
        else:
            out.append(it)
    return out


def _entered(f, name):
    """`with h5py.File(path) as fh`: what `fh` is made of, the context manager it entered."""
    out = []
    for d in f.s.reaching(name) or ():
        item = getattr(d, "parent", None)
        if isinstance(item, ast.withitem) and item.optional_vars is d:
            out.append(item.context_expr)
    return out


def unpacked(f, a, name):
    """The values `name` takes from the assignment `a`: the element of a tuple that the script's own function
    returns (`train, test, steps = load_data(bs)`), else the whole value."""
    target, value = a.node.targets[0] if isinstance(a.node, ast.Assign) else None, a.node.value
    if isinstance(target, ast.Tuple) and isinstance(value, ast.Call) and f.local_function(value):
        def one(n):
            values = [a.node.value for a in f.s.assignments_to(n) if isinstance(a.node, ast.Assign)]
            return values[0] if len(values) == 1 else None
        parts = [element_of(target, name, r, one) for r in returns(f, value)]
        if parts and None not in parts:
            return parts
    return [value]


def returns(f, call):
    """The values the script's own function that `call` runs returns (a method: the one method of that name)."""
    body = called_def(f, call)
    if isinstance(body, ast.ClassDef):
        return []  # an instance: what it holds is its attributes, not a returned value
    return [r.value for r in ast.walk(body) if isinstance(r, ast.Return) and r.value is not None] if body else []


def called_def(f, call):
    """The project's def (or class) that `call` runs: by its definition, the method the walk entered there, or
    the one method of that name; None when none is read."""
    func = call.func
    body = f.s.defined(func) if isinstance(func, (ast.Name, ast.Attribute)) else None  # by its definition
    if body is None and isinstance(func, ast.Attribute):  # the method the walk entered there (`self.get_lr()`)
        frames = f.s.frames_of_call(call)
        body = frames[-1].func if frames else None
    if body is None and isinstance(func, ast.Attribute):
        found = f.s.methods.get(func.attr, [])
        body = found[0] if len(found) == 1 else None
    return body


def derived(call):
    """For a library call: everything it is given (its receiver, arguments and keywords), as for data built
    step by step (`DataLoader(ds, sampler=s)`, `ds.shard(n, i).batch(32)`, `enumerate(loader)`). A count read
    off data (`len(x)`, `x.size(1)`, `x.numel()`, `ds.cardinality()`) is not made of it."""
    if isinstance(call.func, ast.Name) and call.func.id == "len" or isinstance(call.func, ast.Attribute) and \
            call.func.attr in ("size", "dim", "numel", "nelement", "cardinality", "__len__"):
        return []
    parts = [call.func.value] if isinstance(call.func, ast.Attribute) else []
    return parts + list(call.args) + [k.value for k in call.keywords]
