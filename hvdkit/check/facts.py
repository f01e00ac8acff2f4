"""What several rules share: the script, its frameworks, its optimizer steps and fit calls, data flow
through assignments, Horovod queries (rank, size, local rank), and where an event runs."""
import ast
import collections

from hvdkit.check.names import LOCAL_RANK_QUERIES, OPTIMIZER_STEPS, RANK_QUERIES, SIZE_QUERIES
from hvdkit.check.script import dotted
from hvdkit.check.values import RANK, Evaluator, runs, truthy


class Facts:
    def __init__(self, script):
        self.s = script
        self.ev = Evaluator(script)
        self.notes = []
        self._memo, self._bindings = {}, None
        mods = set(script.aliases.values())
        self.frameworks = {fw for fw, keys in (("torch", ("torch",)), ("tensorflow", ("tensorflow", "keras")))
                           if any(m.split(".")[0] in keys or f".{keys[0]}" in m for m in mods)}
        self.fits = script.calls(lambda e: isinstance(e.node.func, ast.Attribute)
                                 and e.node.func.attr in ("fit", "fit_generator") and e.ctx.reached)
        self.steps = script.calls(lambda e: isinstance(e.node.func, ast.Attribute)
                                  and e.node.func.attr in OPTIMIZER_STEPS
                                  and "sched" not in self.s.qual(e.node.func.value).lower() and e.ctx.reached)

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
        todo = collections.deque([node])
        while todo:
            sub = todo.popleft()
            if pred(sub):
                return True
            todo.extend(c for c in ast.iter_child_nodes(sub) if not (sizes_hide_rank and self._sized(sub, c)))
            name = dotted(sub) if isinstance(sub, (ast.Name, ast.Attribute)) else None
            if name and name not in seen:
                seen.add(name)
                for a in self.s.assignments_to(name):
                    if pred(a.node) or a.node.value is not None and mentions(a.node.value, pred, seen):
                        return True  # pred sees the assignment too (`x /= n` is a division of x)
                if isinstance(sub, ast.Name):
                    for f in self.frames_binding(sub.id):
                        if mentions(f, pred, seen):
                            return True
        return False

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
        """Argument expressions bound to a parameter `name` in the walked calls."""
        if self._bindings is None:
            self._bindings, frames = {}, {}
            for e in self.s.events + self.s.assigns:
                for fr in e.ctx.frames:
                    frames[id(fr)] = fr
            for fr in frames.values():
                for param, b in fr.bindings.items():
                    if not b.default:  # an argument, also of a call at the module's level (main(CONFIG))
                        self._bindings.setdefault(param, []).append(b.expr)
        return self._bindings.get(name, [])

    def is_size(self, n):
        return self.s.is_hvd_query(n, *SIZE_QUERIES) or self._ctx_attr(n, "size")

    def is_global_size(self, n):
        return self.s.is_hvd_query(n, "size") or self._ctx_attr(n, "size")

    def is_rank(self, n):
        return self.s.is_hvd_query(n, *RANK_QUERIES) or self._ctx_attr(n, "rank", "is_root")

    def is_local_rank(self, n):
        return self.s.is_hvd_query(n, *LOCAL_RANK_QUERIES) or self._ctx_attr(n, "local_rank")

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
        """Guards the event shares with an optimizer step of the same walk: the script's path, not its condition."""
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

    def off_path(self, event):
        """The event is on the script's non-Horovod path: in the else branch of an `if` whose body uses
        Horovod (`if args.horovod: ...hvd... else: torch.save(...)`)."""
        for g in event.ctx.guards:
            stmt = getattr(g.test, "parent", None)
            if isinstance(stmt, ast.If) and stmt.test is g.test and g.branch is False and stmt.orelse:
                body_api = any(self.s.api(n.func) for b in stmt.body for n in ast.walk(b) if isinstance(n, ast.Call))
                else_api = any(self.s.api(n.func) for b in stmt.orelse for n in ast.walk(b) if isinstance(n, ast.Call))
                if body_api and not else_api:
                    return True
        return False

    def local_function(self, call):
        """The call runs a function or method defined in the script (walked into, not a library call):
        as the walk resolved it, so `torch.save` is not a local method `save`."""
        func = call.func
        if isinstance(func, ast.Name):
            return func.id in self.s.funcs or func.id in self.s.classes
        return call in self.s.local_calls

    def flows_to_callbacks(self, event):
        """A callback object created by `event` ends up in some fit(callbacks=...)."""
        return bool(self.fits_given(event))

    def fits_given(self, event):
        """The fit calls whose callbacks receive the object `event` makes: inline, or through the names
        that hold it (`cb = X()`, `cbs = [cb]`, `cbs.append(cb)`, `all_cbs = cbs + extra`, a helper's
        return), whatever those names are."""
        out = []
        for fit in self.fits:
            sinks = [k.value for k in fit.node.keywords if k.arg == "callbacks"] + fit.node.args[5:6]
            sinks += self._returned_by_calls(sinks)  # callbacks=make_callbacks(args): what it returns
            if any(n is event.node for s in sinks for n in ast.walk(s)) or \
                    self._holder_names(event.node) & self._names_into(sinks):
                out.append(fit)
        return out

    def _names_into(self, sinks):
        """Names whose values end up in the expressions `sinks`: the names in them, and (repeatedly) the
        names in what was assigned, appended, extended or inserted into those."""
        names, todo = set(), [n for s in sinks for n in ast.walk(s) if isinstance(n, (ast.Name, ast.Attribute))]
        while todo and len(names) < 500:
            name = dotted(todo.pop())
            if not name or name in names:
                continue
            names.add(name)
            values = [a.node.value for a in self.s.assignments_to(name) if a.node.value is not None]
            values += [a for e in self.s.events if isinstance(e.node.func, ast.Attribute)
                       and e.node.func.attr in ("append", "extend", "insert") and dotted(e.node.func.value) == name
                       for a in e.node.args]
            todo += [n for v in values for n in ast.walk(v) if isinstance(n, (ast.Name, ast.Attribute))]
        return names

    def _holder_names(self, node):
        """Names the object made by `node` is put into by its own statement: `cb = X()`, `cbs.append(X())`."""
        stmt = node
        while stmt is not None and not isinstance(stmt, ast.stmt):
            stmt = getattr(stmt, "parent", None)
        if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            return {dotted(t) for t in targets} - {None}
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and \
                isinstance(stmt.value.func, ast.Attribute) and stmt.value.func.attr in ("append", "extend", "insert"):
            return {dotted(stmt.value.func.value)} - {None}
        return set()

    def _returned_by_calls(self, nodes, depth=0):
        """The values that the script's own functions called inside `nodes` return (and so on, 3 levels)."""
        out = []
        for call in (n for node in nodes for n in ast.walk(node) if isinstance(n, ast.Call)):
            func = self.s.funcs.get(call.func.id) if isinstance(call.func, ast.Name) else None
            if func is not None:
                out += [r.value for r in ast.walk(func) if isinstance(r, ast.Return) and r.value is not None]
        return out + (self._returned_by_calls(out, depth + 1) if out and depth < 2 else [])

    def api(self, e, *names):
        a = e.api
        return bool(a) and (a[1] in names or a[1].split(".")[-1] in names)

    def text(self, line):
        return self.s.line_text(line)


def same_walk(a, b):
    """Both events come from the same walk of their outermost function (not two separate calls of main)."""
    fa, fb = a.ctx.frames, b.ctx.frames
    return (not fa and not fb) or (bool(fa) and bool(fb) and fa[0] is fb[0]) or not fa or not fb
