"""`args.x` read from an argparse namespace on which nothing declares or sets x: AttributeError.

The parsed namespace is followed as a value, across the script and the project's modules that run (a
parser built in one module, `args.x` read in another): out of `parse_args()` / `parse_known_args()`,
through names (by their definitions, `from opts import args` too), returns of the project's functions,
their parameters (every call site), `self.<attr>` of a class, `copy.copy`. An attribute is declared by
`add_argument` on the parser, its argument groups, sub-parsers and `parents=`, by `set_defaults(x=...)`, or
set anywhere on the namespace (`args.x = ...`, `setattr(args, "x", ...)`). Nothing is reported for a
namespace that leaves what can be read: given to a function of code that is not read (which may set
attributes: `init_distributed_mode(args)` of a library), merged into a config object, changed through
`vars(args)` / `args.__dict__`, `setattr` with a computed name, `parse_args(namespace=...)`; nor for a
parser built by code that is not read, given to such code (`Model.add_model_specific_args(parser)` of a
library), or declaring a computed option name.
"""
import ast

from hvdkit.check.crash_names import FUNCS, bound_arguments, enclosing_function, returns
from hvdkit.check.defs import assigned_value, bound_targets, owner_of_arg
from hvdkit.check.project import module_of

UNKNOWN = "unknown"
UNSURE = object()  # an option whose value without the flag the source does not make certain
# Calls that only read what they are given (the namespace passed to them gains no attribute).
READERS = {"print", "str", "repr", "format", "len", "bool", "id", "type", "isinstance", "hasattr", "getattr",
           "sorted", "dict", "list", "pprint.pprint", "pprint.pformat", "json.dumps", "json.dump", "vars"}
LOG_METHODS = ("info", "debug", "warning", "warn", "error", "critical", "exception", "log", "format", "write")
# What argparse's Namespace has besides the declared attributes.
NAMESPACE_OWN = ("_get_kwargs", "_get_args")


class Parser:
    """One ArgumentParser (its groups and sub-parsers included): what it declares, whether that is known."""

    def __init__(self, node):
        self.node, self.dests, self.open, self.merged, self.escapes = node, set(), False, [self], []
        self.defaults, self.set = {}, set()  # dest: its declared default (a literal) or UNSURE; attributes set after
        self.argv_written = False  # parse_args given a literal list of options


class Namespace:
    def __init__(self, parser):
        self.parser = parser


class Args:
    def __init__(self, names):
        self.n, self.qualname = names, names.qual
        self._memo, self._busy, self._cycles, self._attrs = {}, set(), 0, {}
        self.parsers = {}  # id(construction call) -> Parser
        self._declared = False

    # --- abstract values ------------------------------------------------------------------------
    def objs(self, node):
        """The parser / namespace objects an expression may hold: a frozenset, or UNKNOWN when it may hold
        anything else as well."""
        key = id(node)
        if key in self._memo:
            return self._memo[key]
        if key in self._busy:
            self._cycles += 1
            return frozenset()  # a value that flows back into itself adds nothing of its own
        self._busy.add(key)
        cycles = self._cycles
        try:
            out = self._objs(node)
        finally:
            self._busy.discard(key)
        if self._cycles == cycles or not self._busy:
            self._memo[key] = out  # complete: no cycle was cut below it, or it is the outermost query
        return out

    def _objs(self, node):
        if isinstance(node, ast.Call):
            q = self.qualname(node.func)
            if q == "argparse.ArgumentParser":
                return frozenset([self._parser(node)])
            if q in ("copy.copy", "copy.deepcopy") and len(node.args) == 1:
                return self.objs(node.args[0])
            if isinstance(node.func, ast.Attribute):
                method, owner = node.func.attr, self.objs(node.func.value)
                if owner is UNKNOWN or not owner:
                    return self._local_call(node)
                parsers = {o for o in owner if isinstance(o, Parser)}
                if method in ("add_argument_group", "add_mutually_exclusive_group", "add_subparsers", "add_parser"):
                    return frozenset(parsers) if parsers else UNKNOWN
                if method in ("parse_args", "parse_known_args", "parse_intermixed_args",
                              "parse_known_intermixed_args") and parsers:
                    if any(k.arg == "namespace" for k in node.keywords) or len(node.args) > 1:
                        for p in parsers:
                            p.open = True
                        return UNKNOWN
                    ns = frozenset(Namespace(p) for p in parsers)
                    return ("known", ns) if "known" in method else ns
                return UNKNOWN
            return self._local_call(node)
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value == 0:
            inner = self.objs(node.value)
            return inner[1] if isinstance(inner, tuple) else UNKNOWN
        if isinstance(node, ast.Name):
            return self._name(node)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            return self._self_attr(node)
        return UNKNOWN

    def _parser(self, call):
        key = id(call)
        if key not in self.parsers:
            p = self.parsers[key] = Parser(call)
            for k in call.keywords:
                if k.arg == "prefix_chars" or k.arg is None:
                    p.open = True
        return self.parsers[key]

    def _local_call(self, call):
        """A call of one of the script's functions: what its return statements give."""
        func = self._callee(call)
        if func is None:
            return UNKNOWN
        values = [r.value for r in returns(func)]
        if not values or any(v is None for v in values):
            return UNKNOWN
        return _union(self.objs(v) for v in values)

    def _callee(self, call):
        """The project's plain function a call runs (undecorated, not a method), else None."""
        func = self.n.sole(call.func)
        return func if isinstance(func, FUNCS) and not func.decorator_list and \
            not isinstance(getattr(func, "parent", None), ast.ClassDef) else None

    def _init(self, call):
        """The __init__ a call of a project class runs (the class undecorated, one undecorated __init__ of
        its own), else None."""
        cls = self.n.sole(call.func)
        if not isinstance(cls, ast.ClassDef) or cls.decorator_list or cls.keywords:
            return None
        inits = [f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"]
        return inits[0] if len(inits) == 1 and not inits[0].decorator_list else None

    def _name(self, node):
        defs = self.n.definitions(node)
        if not defs:
            return UNKNOWN
        return _union(self._binding(d) for d, _ in defs)

    def _binding(self, d):
        if isinstance(d, ast.arg):
            return self._param(d, owner_of_arg(d))
        if not isinstance(d, ast.Name):
            return UNKNOWN
        value = assigned_value(d)
        if value is not None:
            return self.objs(value)
        stmt = getattr(getattr(d, "parent", None), "parent", None)
        target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None
        if isinstance(target, (ast.Tuple, ast.List)) and target.elts and target.elts[0] is d:
            # `args, unknown = parser.parse_known_args()`: the first name holds the namespace
            v = self.objs(stmt.value)
            return v[1] if isinstance(v, tuple) else UNKNOWN
        return UNKNOWN

    def _param(self, arg, func):
        """A parameter: what every call of its function passes (a function used as a value, or called
        from nowhere in the code read, gives nothing to go on)."""
        if not isinstance(func, FUNCS) or func.decorator_list:
            return UNKNOWN
        cls = getattr(func, "parent", None)
        params = func.args.posonlyargs + func.args.args
        if isinstance(cls, ast.ClassDef):
            if func.name != "__init__" or cls.decorator_list or cls.keywords or \
                    [f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"] != [func]:
                return UNKNOWN
            params, calls = params[1:], self.n.calls_of(cls)
        else:
            calls = self.n.calls_of(func)
        if arg not in params and arg not in func.args.kwonlyargs:
            return UNKNOWN
        if not calls:
            return UNKNOWN
        values = []
        for call in calls:
            given = bound_arguments(call, [p.arg for p in params])
            if given is None:
                return UNKNOWN
            if arg.arg in given:
                values.append(self.objs(given[arg.arg]))
            else:
                return UNKNOWN  # its default: not a namespace
        return _union(values)

    def _self_attr(self, node):
        """`self.args` in a method of a class: what every assignment to self.args in the class holds."""
        if node.attr not in self.n.stored_attrs:
            return UNKNOWN
        cls = self.n.self_class(node)
        if cls is None or self.n.subclassed(cls):
            return UNKNOWN
        key = (id(cls), node.attr)
        if key not in self._attrs:
            self._attrs[key] = self._class_attr(cls, node.attr)
        return self._attrs[key]

    def _class_attr(self, cls, attr):
        values = self.n.self_assignments(cls, attr)
        return _union(self.objs(v) for v in values) if values else UNKNOWN

    # --- what the parsers declare, and where namespaces go ---------------------------------------
    def declare(self):
        """Collect declarations and writes; open what cannot be followed."""
        if self._declared:
            return
        self._declared = True
        for node in self.n.nodes:
            if isinstance(node, ast.Call) and self.qualname(node.func) == "argparse.ArgumentParser":
                p = self._parser(node)
                parents = next((k.value for k in node.keywords if k.arg == "parents"), None)
                if parents is not None:
                    elts = parents.elts if isinstance(parents, (ast.List, ast.Tuple)) else None
                    found = [self.objs(e) for e in elts] if elts is not None else [UNKNOWN]
                    if any(f is UNKNOWN or not f or isinstance(f, tuple) for f in found):
                        p.open = True
                    else:
                        for f in found:
                            for q in f:
                                if isinstance(q, Parser):
                                    _merge(p, q)
        if not self.parsers:
            return  # no parser built here: no namespace to follow
        for node in self.n.nodes:
            if isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)) and not isinstance(
                    getattr(node, "ctx", ast.Load()), (ast.Store, ast.Del)):
                held = self.objs(node) if isinstance(node, (ast.Name, ast.Call, ast.Subscript)) or \
                    isinstance(node.value, ast.Name) else UNKNOWN
                if held is UNKNOWN or not held:
                    continue
                if isinstance(held, tuple):
                    if not self._known_args_kept(node):
                        for o in held[1]:
                            self._escape(o, node)
                    continue
                for o in held:
                    self._use(node, o)

    def _use(self, node, o):
        parent = getattr(node, "parent", None)
        parser = o if isinstance(o, Parser) else o.parser
        if isinstance(parent, ast.Attribute) and parent.value is node:
            if isinstance(o, Parser):
                self._parser_method(parent, parser)
            elif not isinstance(parent.ctx, ast.Load) or isinstance(getattr(parent, "parent", None), ast.AugAssign):
                parser.dests.add(parent.attr)  # args.x = ... sets it
                parser.set.add(parent.attr)
            elif parent.attr == "__dict__":
                if not _read_only(parent, self.qualname):
                    self._escape(o, node)
            return
        if isinstance(parent, ast.Call) and node is not parent.func or isinstance(parent, ast.keyword):
            call = parent if isinstance(parent, ast.Call) else parent.parent
            q = self.qualname(call.func)
            if q == "setattr" and isinstance(o, Namespace) and call.args and call.args[0] is node:
                name = call.args[1] if len(call.args) > 1 else None
                if isinstance(name, ast.Constant) and isinstance(name.value, str):
                    parser.dests.add(name.value)
                    parser.set.add(name.value)
                else:
                    self._escape(o, node)
            elif q == "vars":
                if not _read_only(call, self.qualname):
                    self._escape(o, node)
            elif q in ("copy.copy", "copy.deepcopy"):
                pass  # the copy is followed as a value of its own
            elif self._callee(call) is not None or self._init(call) is not None:
                if self._arg_followed(call, node) is UNKNOWN:
                    self._escape(o, node)
            elif q in READERS or isinstance(call.func, ast.Attribute) and call.func.attr in LOG_METHODS:
                pass
            else:
                self._escape(o, node)  # given to code that is not read here: it may add or declare anything
            return
        paired = bound_targets(node)  # `self.model, self.args = model, args`
        if isinstance(parent, (ast.Assign, ast.AnnAssign)) and parent.value is node or paired:
            targets = paired or (parent.targets if isinstance(parent, ast.Assign) else [parent.target])
            for t in targets:  # a name is followed where it is read, by the definitions that reach the read
                held = None if isinstance(t, ast.Name) else \
                    self._self_attr(t) if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) else UNKNOWN
                if held is UNKNOWN:
                    self._escape(o, node)
            return
        if isinstance(parent, (ast.Return, ast.Compare, ast.BoolOp, ast.FormattedValue, ast.Expr, ast.If,
                               ast.While, ast.Assert)) or \
                isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not) or \
                isinstance(parent, ast.IfExp) and parent.test is node or \
                isinstance(parent, ast.Subscript) and parent.value is node and isinstance(node, ast.Call) or \
                isinstance(parent, (ast.Tuple, ast.List)) and isinstance(getattr(parent, "parent", None), ast.Assign) \
                and isinstance(node, ast.Call):
            if isinstance(parent, ast.Return):
                func = enclosing_function(parent)
                if not isinstance(func, FUNCS) or func.decorator_list or \
                        isinstance(getattr(func, "parent", None), ast.ClassDef) or self.n.calls_of(func) is None:
                    self._escape(o, node)
            return
        self._escape(o, node)

    def _escape(self, o, node):
        """The object leaves what is read at `node`: a parser may gain any option from then on; a
        namespace any attribute, from where `node` runs (reads that surely come first still count)."""
        if isinstance(o, Parser):
            o.open = True
        else:
            o.parser.escapes.append(node)

    def _known_args_kept(self, node):
        """`ns, rest = parser.parse_known_args()` or `parser.parse_known_args()[0]`: the namespace is kept
        in a name that is followed."""
        parent = getattr(node, "parent", None)
        if isinstance(parent, ast.Subscript) and parent.value is node:
            return True
        if isinstance(parent, ast.Assign) and parent.value is node and len(parent.targets) == 1:
            t = parent.targets[0]
            return isinstance(t, (ast.Tuple, ast.List)) and bool(t.elts) and isinstance(t.elts[0], ast.Name)
        return False

    def _arg_followed(self, call, node):
        """The parameter of the script's own function that `node` is passed to, as followed (UNKNOWN when
        that parameter may hold anything else)."""
        func = self._callee(call) or self._init(call)
        if func is None:
            return UNKNOWN
        params = func.args.posonlyargs + func.args.args
        if isinstance(getattr(func, "parent", None), ast.ClassDef):
            params = params[1:]
        by_kw = {a.arg: a for a in params + func.args.kwonlyargs}
        for a, p in zip(call.args, params):
            if a is node:
                return self._param(p, func)
        for k in call.keywords:
            if k.value is node and k.arg in by_kw:
                return self._param(by_kw[k.arg], func)
        return UNKNOWN

    def _parser_method(self, attr, parser):
        call = getattr(attr, "parent", None)
        if not (isinstance(call, ast.Call) and call.func is attr):
            if attr.attr not in ("prog", "description", "epilog", "usage"):
                parser.open = True
            return
        method = attr.attr
        if method == "add_argument":
            dest = _dest(call)
            if dest is None:
                parser.open = True
            else:
                parser.dests.add(dest)
                parser.defaults.setdefault(dest, _declared_default(call))
        elif method == "set_defaults":
            parser.dests |= {k.arg for k in call.keywords if k.arg}
            # argparse: a parser-level default wins over the option's own, whichever is written first
            parser.defaults.update({k.arg: k.value.value if isinstance(k.value, ast.Constant) else UNSURE
                                    for k in call.keywords if k.arg})
            if call.args or any(k.arg is None for k in call.keywords):
                parser.open = True
        elif method == "add_subparsers":
            dest = next((k.value for k in call.keywords if k.arg == "dest"), None)
            if isinstance(dest, ast.Constant) and isinstance(dest.value, str):
                parser.dests.add(dest.value)
            elif dest is not None:
                parser.open = True
        elif method.startswith("_") or method.startswith("add_") and method not in (
                "add_argument_group", "add_mutually_exclusive_group", "add_parser"):
            parser.open = True
        elif method in ("parse_args", "parse_known_args", "parse_intermixed_args", "parse_known_intermixed_args"):
            if any(k.arg == "namespace" for k in call.keywords) or len(call.args) > 1:
                parser.open = True
            if call.args and isinstance(call.args[0], (ast.List, ast.Tuple)):
                parser.argv_written = True  # options given in the source: a default may not be what runs

    def default(self, node):
        """The declared default of `args.x` (a literal given as `default=`) when the namespace is one the
        source follows, its parsers all declare x with that default and nothing sets x; else None."""
        self.declare()
        held = self.objs(node.value) if isinstance(node.value, (ast.Name, ast.Call)) else UNKNOWN
        if held is UNKNOWN or not held or isinstance(held, tuple) or not all(isinstance(o, Namespace) for o in held):
            return None
        parsers = {q for o in held for q in _group(o.parser)}
        if any(p.open or p.argv_written or node.attr in p.set for p in parsers):
            return None
        found = {repr(p.defaults[node.attr]): p.defaults[node.attr] for p in parsers if node.attr in p.defaults}
        value = next(iter(found.values())) if len(found) == 1 else UNSURE
        return None if value is UNSURE else value

    # --- the finding ----------------------------------------------------------------------------------
    def undeclared(self):
        """[(Attribute node, parser)] for namespace reads of attributes nothing declares or sets."""
        self.declare()
        out = []
        for node in self.n.nodes if self.parsers else ():
            if not (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load)):
                continue
            if isinstance(getattr(node, "parent", None), ast.AugAssign) and node.parent.target is node:
                continue
            if not isinstance(node.value, (ast.Name, ast.Call, ast.Attribute)):
                continue
            held = self.objs(node.value) if not isinstance(node.value, ast.Attribute) or \
                isinstance(node.value.value, ast.Name) else UNKNOWN
            if held is UNKNOWN or not held or isinstance(held, tuple) or \
                    not all(isinstance(o, Namespace) for o in held):
                continue
            parsers = {q for o in held for q in _group(o.parser)}
            if any(p.open for p in parsers) or node.attr.startswith("__") or node.attr in NAMESPACE_OWN:
                continue
            if any(_may_precede(e, node) for p in parsers for e in p.escapes):
                continue
            if any(node.attr in p.dests for p in parsers):
                continue
            out.append((node, sorted(parsers, key=lambda p: p.node.lineno)[0]))
        return out


def _may_precede(escape, read):
    """Code at `escape` may run before `read`: unless both are in one function (of one module), the escape
    after the read's statement, and no loop around both runs the read again after the escape."""
    from hvdkit.check.script import statement_of
    if module_of(escape) is not module_of(read) or enclosing_function(escape) is not enclosing_function(read):
        return True
    stmt = statement_of(read)
    head = stmt.iter if isinstance(stmt, (ast.For, ast.AsyncFor)) else stmt.test if isinstance(
        stmt, (ast.If, ast.While)) else stmt.items[-1].context_expr if isinstance(stmt, (ast.With, ast.AsyncWith)) \
        else stmt
    if escape.lineno <= (head.end_lineno or head.lineno):
        return True
    node = read
    while node is not None and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        parent = getattr(node, "parent", None)
        if isinstance(parent, (ast.For, ast.AsyncFor)) and node is not parent.iter or isinstance(parent, ast.While):
            if any(n is escape for n in ast.walk(parent)):
                return True
        node = parent
    return False


def _declared_default(call):
    """What an option holds when the command line does not give it: the literal `default=` of an optional
    `--x` stored as given; UNSURE for a positional or required option, another action, or a computed default
    (argparse converts a string default through `type=`, so only a default of the type's own kind is sure)."""
    kw = {k.arg: k.value for k in call.keywords}
    optional = bool(call.args) and isinstance(call.args[0], ast.Constant) and str(call.args[0].value).startswith("-")
    required = isinstance(kw.get("required"), ast.Constant) and kw["required"].value is not False
    stored = "action" not in kw or isinstance(kw["action"], ast.Constant) and kw["action"].value == "store"
    default = kw.get("default")
    if not (optional and stored and not required and "nargs" not in kw and isinstance(default, ast.Constant)):
        return UNSURE
    return default.value


def _dest(call):
    """The attribute add_argument declares, or None when the source does not say (a computed name, or an
    Action class of the script's, which may set any attribute)."""
    kw = {k.arg: k.value for k in call.keywords}
    if None in kw or "action" in kw and not isinstance(kw["action"], ast.Constant):
        return None
    if "dest" in kw:
        return kw["dest"].value if isinstance(kw["dest"], ast.Constant) and isinstance(kw["dest"].value, str) \
            else None
    opts = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    if len(opts) != len(call.args) or not opts:
        return None
    if not opts[0].startswith("-"):
        return opts[0]  # a positional argument: its name as written
    longs = [o for o in opts if o.startswith("--")]
    name = longs[0][2:] if longs else opts[0].lstrip("-")
    return name.replace("-", "_")


def _read_only(node, qualname):
    """`vars(args)` or `args.__dict__` only read: printed, iterated, copied, unpacked into a call."""
    parent = getattr(node, "parent", None)
    if isinstance(parent, ast.Attribute) and parent.attr in ("items", "keys", "values", "get", "copy") and \
            isinstance(getattr(parent, "parent", None), ast.Call):
        return True
    if isinstance(parent, ast.keyword) and parent.arg is None:
        return True  # f(**vars(args))
    if isinstance(parent, ast.Subscript) and isinstance(parent.ctx, ast.Load):
        return True
    if isinstance(parent, (ast.For, ast.comprehension)) and parent.iter is node:
        return True
    if isinstance(parent, ast.Call) and node is not parent.func:
        q = qualname(parent.func)
        return q in READERS or isinstance(parent.func, ast.Attribute) and parent.func.attr in LOG_METHODS
    if isinstance(parent, (ast.FormattedValue, ast.Compare)):
        return True
    return False


def _union(values):
    """The objects any of several values may hold; UNKNOWN when one of them may hold anything."""
    out, known = set(), set()
    for v in values:
        if v is UNKNOWN:
            return UNKNOWN
        if isinstance(v, tuple):
            known |= v[1]
        else:
            out |= v
    if known:
        return UNKNOWN if out else ("known", frozenset(known))
    return frozenset(out)


def _merge(p, q):
    group = p.merged + [x for x in q.merged if x not in p.merged]
    for x in group:
        x.merged = group


def _group(p):
    return p.merged
