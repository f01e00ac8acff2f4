"""Reading a mapping's entries statically: `cfg["lr"]`, `**kwargs`, `dict(...)`, through the names, function returns
and parameters they come from, and the writes into them (`kw["lr"] = x`, `kw.update(...)`). Shared by the rules
that follow a value out of a configuration dict (step 4's learning rate, step 7's checkpoint path)."""
import ast
import weakref

from hvdkit.check import config_files, flags
from hvdkit.check.script import dotted, enclosing_def

UNRESOLVED = object()  # a mapping whose content cannot be read statically


def entry_of(f, node, depth=0, stores=True):
    """cfg["base_lr"] (or cfg["optim"]["lr"]) with cfg a dict literal / dict(...), through names and the returns of
    local functions: that entry's value (without `stores`: as the mapping was made, before writes into it)."""
    if not isinstance(node.slice, ast.Constant) or not isinstance(node.slice.value, str):
        return None
    got = lookup(f, node.value, node.slice.value, depth + 1, stores)
    return None if got is UNRESOLVED else got


def lookup(f, node, key, depth=0, stores=True):
    """The value of `key` in the mapping `node` evaluates to: an expression, None (the mapping is read and has no
    such key), or UNRESOLVED. Follows dict literals, dict(...), names, subscripts, local functions' returns and
    stores into the mapping (`kw["lr"] = ...`, kw.update(...))."""
    if node is None or depth > 8:
        return UNRESOLVED
    if isinstance(node, ast.DictComp):
        return _comprehension(f, node, key, depth)
    into = [_entry(f, src, key, depth) for src in (_stores(f, node) if stores else [])]
    written = [got for got in into if got is not None and got is not UNRESOLVED]
    if written:  # `ocfg["lr"] = ocfg["lr"] * hvd.size()` before ocfg is handed on: read where it is handed too
        return written[-1]
    if any(got is UNRESOLVED for got in into):  # `cfg.update(json.load(fh))` of a file that is not read
        return UNRESOLVED
    sources = _mapping_sources(f, node, depth)
    if sources is None:
        return UNRESOLVED
    found, unknown = None, False
    for src in sources:
        got = _entry(f, src, key, depth)
        found = got if got is not None and got is not UNRESOLVED else found
        unknown |= got is UNRESOLVED
    return found if found is not None else UNRESOLVED if unknown else None


def _mapping_sources(f, node, depth, seen=None):
    """The dict literals / dict(...) calls `node` may be, or None when one of its origins is unreadable."""
    seen = set() if seen is None else seen
    if depth > 12:
        return None
    if isinstance(node, ast.Dict) or isinstance(node, ast.Call) and dotted(node.func) == "dict":
        return [node]
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):  # `yaml.safe_load(fh) or {}`: either one
        return _all_sources(f, node.values, depth, seen)
    if isinstance(node, ast.Call) and config_files.LOADERS.get(f.s.qual(node.func)):
        loaded = config_files.loaded(f, node)
        return None if loaded is None else [loaded]
    if isinstance(node, ast.Call) and dotted(node.func) == "vars":  # the parsed options, at their defaults
        options = flags.namespace_dict(f.s, node)
        return None if options is None else [options]
    if isinstance(node, ast.Subscript):
        inner = entry_of(f, node, depth + 1)
        return None if inner is None else _mapping_sources(f, inner, depth + 1, seen)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in f.s.funcs:
        func = f.s.funcs[node.func.id]
        returns = [n.value for n in ast.walk(func) if isinstance(n, ast.Return) and n.value is not None]
        return _all_sources(f, returns, depth, seen)
    name = dotted(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
    if name is None:
        return None
    scope = (name, id(enclosing_def(node)))  # `cfg` of main is not `cfg` of the load_config() it calls
    if scope in seen:  # `cfg` passed on as `cfg`: its other origins tell
        return []
    seen.add(scope)
    if isinstance(node, ast.Name) and kwargs_calls(f, node) is not None:
        return kwargs_calls(f, node)
    values = [a.node.value for a in f.s.assignments_to(node) if isinstance(a.node, (ast.Assign, ast.AnnAssign))]
    values += f.frames_binding(node) if isinstance(node, ast.Name) else []
    return _all_sources(f, values, depth, seen)


def _comprehension(f, node, key, depth):
    """`{k: v for k, v in raw.items()}` holds what `raw` holds; under a filter (`if v is not None`, `if k in
    known`) an entry `raw` has may be left out, so only its absence is known."""
    gen = node.generators[0] if len(node.generators) == 1 else None
    it = gen.iter if gen is not None else None
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr == "items" and
            not it.args and isinstance(gen.target, ast.Tuple) and len(gen.target.elts) == 2 and
            all(isinstance(a, ast.Name) and isinstance(b, ast.Name) and a.id == b.id
                for a, b in zip((node.key, node.value), gen.target.elts))):
        return UNRESOLVED
    got = lookup(f, it.func.value, key, depth + 1)
    return UNRESOLVED if gen.ifs and got is not None else got


def kwargs_calls(f, node):
    """`def make(params, **kw): return SGD(params, **kw)`: kw is the extra keywords of each walked call of make,
    as dict(...) calls (None: `node` is not such a parameter)."""
    func = node
    while func is not None and not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        func = getattr(func, "parent", None)
    if func is None or func.args.kwarg is None or func.args.kwarg.arg != node.id:
        return None
    named = {a.arg for a in func.args.posonlyargs + func.args.args + func.args.kwonlyargs}
    calls = {id(fr.call): fr.call for e in f.s.events for fr in e.ctx.frames if fr.func is func and fr.call}
    return [ast.Call(func=ast.Name("dict"), args=[], keywords=[k for k in c.keywords if k.arg not in named])
            for c in calls.values()] or None


def _all_sources(f, values, depth, seen):
    out = []
    for v in values:
        got = _mapping_sources(f, v, depth + 1, seen) if v is not None else None
        if got is None:
            return None
        out += got
    return out or None


def _entry(f, src, key, depth):
    """`key` in one dict literal / dict(...) / update(...) call; later entries win, `**inner` is looked into."""
    if isinstance(src, ast.Dict):
        pairs = list(zip(src.keys, src.values))
    else:
        pairs = [(None, a) for a in src.args[:1]] + [(k.arg and ast.Constant(k.arg), k.value) for k in src.keywords]
    found = None
    for k, v in pairs:
        if k is None:
            inner = lookup(f, v, key, depth + 1)
            found = inner if inner is not None else found
        elif not isinstance(k, ast.Constant):
            found = UNRESOLVED
        elif k.value == key:
            found = v
    return found


_STORES = weakref.WeakKeyDictionary()  # per script tree: {container text: [stores into it]}


def _stores(f, node):
    """Writes into the mapping after it is made: `kw["lr"] = x` (as a one-entry dict) and kw.update(...), into
    `node` or into a name it holds the same mapping as (a parameter's arguments, a name assigned it: _aliases),
    in the order the source writes them. The mapping keeps its object wherever it is handed (one dict)."""
    if f.s.tree not in _STORES:
        index = {}
        for n in f.s.nodes():
            if isinstance(n, ast.Assign):
                for t in n.targets:
                    if isinstance(t, ast.Subscript):
                        one = ast.Dict(keys=[t.slice], values=[n.value])
                        one.hk_stmt = n
                        index.setdefault(ast.unparse(t.value), []).append(one)
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "update":
                index.setdefault(ast.unparse(n.func.value), []).append(n)
        _STORES[f.s.tree] = index
    return [w for a in _aliases(f, node) for w in _STORES[f.s.tree].get(ast.unparse(a), []) if _may_run(f, w)]


def _may_run(f, store):
    """The store may run on the default run: not in code that the walk shows never runs there (`if path:
    cfg.update(json.load(open(path)))` with path None when no argument is given)."""
    from hvdkit.check.values import runs
    events = f.s.events_at(getattr(store, "hk_stmt", store))
    if not events or _JUDGING:  # a guard that reads the mapping itself (`if cfg["a"]: cfg["b"] = ...`)
        return True
    _JUDGING.append(store)
    try:
        return any(runs(f.s, e, defaults=True).kind != "never" for e in events)
    finally:
        _JUDGING.pop()


_JUDGING = []  # the store whose guards are being evaluated (they may read mappings in turn)


def _aliases(f, node, limit=20):
    """`node` and the names and attributes that hold the same mapping before it: what a name is assigned when
    that is another name (`ocfg = cfg["optim"]` is a new name for an entry), a parameter's arguments in the
    walked calls, each once."""
    out, todo = [], [node]
    while todo and len(out) < limit:
        n = todo.pop(0)
        if any(n is o for o in out) or not isinstance(n, (ast.Name, ast.Attribute, ast.Subscript)):
            continue
        out.append(n)
        if isinstance(n, (ast.Name, ast.Attribute)) and dotted(n):
            todo += [a.node.value for a in f.s.assignments_to(n) if isinstance(a.node, (ast.Assign, ast.AnnAssign))]
            todo += f.frames_binding(n) if isinstance(n, ast.Name) else []
    return out
