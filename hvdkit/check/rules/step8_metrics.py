"""Step 8: the metrics reported are averaged over the ranks (or every rank saw the same data)."""
import ast
import re

from hvdkit.check import names
from hvdkit.check.rules import step3_shard
from hvdkit.check.rules.step5_optimizer import gradient_allreduces
from hvdkit.check.findings import MISSING, OK, UNKNOWN, WRONG, Finding
from hvdkit.check.script import assigned_name, dotted, sums


def judge(f):
    avgs = [e for e in f.s.events if f.api(e, *names.METRIC_AVERAGERS) and e.ctx.reached and not _of_gradients(f, e)]
    for e in avgs:
        if f.api(e, "MetricAverageCallback") and not f.flows_to_callbacks(e):
            return Finding(WRONG, f"MetricAverageCallback made at line {e.line} is never passed to fit", e.line,
                           "add it to fit(callbacks=[...]), before other metric-based callbacks")
        if f.rank_guards(e):
            return Finding(WRONG, f"metrics averaged at line {e.line} on some ranks only: the collective hangs or "
                           "mixes with others", e.line, "average on every rank, then print on rank 0")
        kw = {k.arg: ast.unparse(k.value) for k in e.node.keywords}
        if sums(e.node) or kw.get("average") == "False":
            if not _divided_later(f, e) and not _computed_on(f, e):
                return Finding(WRONG, f"line {e.line} sums a metric over ranks and reports the sum as its value",
                               e.line, "divide the summed total by the summed count")
        # A mean of per-rank means is exact when the shards are equal (DistributedSampler pads them): not flagged.
        last = _last_batch_only(f, e)
        if last is not None:
            return last
    if avgs:
        lost = _average_not_used(f)
        if lost is not None:
            return lost
        # Only step 3's own evaluation partitions here: a script that averages some metrics may log others
        # per rank by design (each rank its own summary), which a wider per-rank test would flag.
        eval_parts = step3_shard.shares(f).eval_parts
        raw = [e for e in _reports(f) if e.ctx.reached and any(not _averaged(f, v) for v in _eval_values(e.node))]
        if raw and eval_parts:
            return Finding(MISSING, f"the evaluation metric reported at line {raw[0].line} is this rank's part's "
                           f"(evaluated on a shard, line {eval_parts[0].line}) and is never averaged", raw[0].line,
                           "average it over ranks before reporting (allreduce sum and count, then divide)")
        return Finding(OK, f.text(avgs[0].line), avgs[0].line)
    sh = step3_shard.shares(f)
    eval_parts = _eval_parts(f)
    unused = [e for e in f.s.events if f.api(e, *names.METRIC_AVERAGERS) and not e.ctx.reached
              and not _of_gradients(f, e)]
    if unused and (sh.train_partitioned or eval_parts):
        func = unused[0].ctx.frames[0].func.name if unused[0].ctx.frames else "?"
        return Finding(MISSING, f"the averaging at line {unused[0].line} is in `{func}()`, which nothing calls: the "
                       "metrics reported are each rank's own", unused[0].line,
                       f"call {func}() on every metric reported")
    if not sh.train_partitioned and not eval_parts and not f.fits and not any(e.ctx.reached for e in _reports(f)):
        return Finding(UNKNOWN, "no metric is reported", None, None)
    if not sh.train_partitioned and not eval_parts:
        return Finding(OK, "no rank has a part of its own: every rank computes its metrics on the same, whole data, "
                       "so rank 0's are the job's")
    reports = [e for e in _reports(f) if e.ctx.reached]
    # Rank 0 alone reports its training metrics as the job's (each rank labelling its own is a per-rank log).
    train_reports = [e for e in reports if sh.train_partitioned and _in_training_loop(f, e)
                     and not names.EVAL_NAMES.search(ast.unparse(e.node))]
    rank0_train = [e for e in train_reports if f.rank0_only(e)]
    if any(f.runs(e).rank0 is False and f.runs(e).rank1 is not False for e in train_reports):
        rank0_train = []  # other ranks log theirs in branches of their own: a per-rank log by design
    evals = _eval_data(f)
    if evals and not eval_parts and not f.fits and not rank0_train:
        return Finding(OK, f"the evaluation (line {evals[0].line}) reads the whole evaluation set on every rank: its "
                       "metrics are the job's without averaging", evals[0].line)
    if f.fits:
        return Finding(MISSING, "fit's metrics are each rank's own (rank 0's shard in the log)", f.fits[0].line,
                       "callbacks=[hvd.callbacks.MetricAverageCallback(), ...]")
    if reports:
        who = "rank 0's alone" if f.rank_guards(reports[0]) else "each rank's own"
        return Finding(MISSING, f"the metrics reported (line {reports[0].line}) are {who}: never averaged over ranks",
                       reports[0].line, "allreduce (sum, count) pairs, then divide: hvd.allreduce(t, op=hvd.Sum)")
    if eval_parts:
        e = eval_parts[0]
        return Finding(MISSING, f"evaluation runs on this rank's part (line {e.line}) and its result is never "
                       "averaged over ranks", e.line, "allreduce (sum, count) pairs, then divide")
    return Finding(UNKNOWN, "no metric is reported", None, None)


def _last_batch_only(f, e):
    """`for batch in data: loss = ...` and after the loop `hvd.allreduce(loss)`: the last batch's value is
    averaged and reported as the epoch's."""
    if not e.node.args or not isinstance(e.node.args[0], ast.Name):
        return None
    name = e.node.args[0].id
    mine = [a for a in f.s.assignments_to(name) if a.order < e.order and a.ctx.frames[-1:] == e.ctx.frames[-1:]]
    if not mine or any(isinstance(a.node, ast.AugAssign) for a in mine):
        return None
    last = mine[-1]
    inner = [loop for loop in last.ctx.loops if not any(loop is mine_ for mine_ in e.ctx.loops)]
    if inner and isinstance(last.node, ast.Assign) and not isinstance(last.node.value, (ast.BinOp, ast.Name)):
        return Finding(WRONG, f"line {e.line} averages `{name}`, set at line {last.line} inside a loop that ended: "
                       "the last batch's value, reported as the whole epoch's", e.line,
                       f"accumulate `{name}` over the loop (sum and count), then average the totals")
    return None


def _reports(f):
    return [e for e in f.s.events if f.s.qual(e.node.func).split(".")[-1] in names.REPORTERS
            and names.REPORTED.search(ast.unparse(e.node))]


def _eval_values(call):
    """The values a report labels as evaluation metrics: in `print(f"loss={loss} test_acc={acc}")` only acc
    (its label, the text before it, or its own name says val/test/eval). A report that names an evaluation
    but whose values cannot be told apart (`log("%s %s", a, b)`) is one value, the whole call."""
    parts = []
    for a in call.args:
        parts += a.values if isinstance(a, ast.JoinedStr) else [a]
    label, values, found = "", [], False
    for part in parts:
        if isinstance(part, ast.Constant):
            label = str(part.value)
            continue
        value = part.value if isinstance(part, ast.FormattedValue) else part
        found = found or isinstance(part, ast.FormattedValue)
        if names.EVAL_NAMES.search(label.rsplit(",", 1)[-1].rsplit(" ", 1)[-1] + " " + ast.unparse(value)):
            values.append(value)
        label = ""
    if found:
        return values
    return [call] if names.EVAL_NAMES.search(ast.unparse(call)) else []


def _averaging(f, node, deep=True):
    """A call that averages over ranks: Horovod's, or a local function or method that does, at any depth
    (`return avg(correct / total)` with avg allreducing; `self.test()` allreducing inside). Not deep: only a
    helper that allreduces itself (metric_average(x, name)), which averages its argument."""
    if not isinstance(node, ast.Call):
        return False
    if f.s.is_api(node, *names.METRIC_AVERAGERS):
        return True
    inside = _walked(f)[0].get(id(node)) if deep else None
    if inside is not None:  # the functions the walk entered at this call, and all they call
        return any(_is_averager(f, e) for e in inside)
    func = f.s.funcs.get(node.func.id) if isinstance(node.func, ast.Name) else None
    return func is not None and (_averages_inside(f, func) if deep else _allreduces_itself(f, func))


def _walked(f):
    """({id(call): events run inside the local functions entered there}, {id(func): events run inside it}):
    the script's own resolution of calls, methods through `self` and instances included (computed once)."""
    if getattr(f, "_step8_walked", None) is None:
        at_call, in_func = {}, {}
        for e in f.s.events:
            for fr in e.ctx.frames:
                if fr.call is not None:
                    at_call.setdefault(id(fr.call), []).append(e)
                in_func.setdefault(id(fr.func), []).append(e)
        f._step8_walked = (at_call, in_func)
    return f._step8_walked


def _is_averager(f, e):
    return f.api(e, *names.METRIC_AVERAGERS) and not re.search(r"grad", ast.unparse(e.node), re.I)


def _averaged(f, node):
    """The value depends on an average over ranks: through assignments, through a list it was appended to,
    or through an object whose method averages (meter.update(x) allreducing inside)."""
    if f.mentions(node, lambda n: _averaging(f, n)):
        return True
    for sub in ast.walk(node):
        name = dotted(sub) if isinstance(sub, (ast.Name, ast.Attribute)) else None
        if not name:
            continue
        root = name.split(".")[0]
        for e in f.s.events:
            func = e.node.func
            if not (isinstance(func, ast.Attribute) and dotted(func.value) in (name, root)):
                continue
            if func.attr in ("append", "extend", "insert", "add") and any(
                    f.mentions(a, lambda n: _averaging(f, n)) for a in e.node.args):
                return True
            if any(_averages_inside(f, m) for m in f.s.methods.get(func.attr, ())):
                return True
    return False


def _averages_inside(f, func):
    """The function averages over ranks, itself or through the local functions it calls (the walk is bounded
    and cycle-safe)."""
    return _allreduces_itself(f, func) or any(_is_averager(f, e) for e in _walked(f)[1].get(id(func), ()))


def _allreduces_itself(f, func):
    return any(isinstance(n, ast.Call) and f.s.is_api(n, *names.METRIC_AVERAGERS) for n in ast.walk(func))


def _outermost_chain(call):
    """hvd.allreduce(x).item() / .numpy(): the expression whose value is assigned."""
    node = call
    while isinstance(getattr(node, "parent", None), (ast.Attribute, ast.Call)) and \
            (isinstance(node.parent, ast.Attribute) or node.parent.func is node):
        node = node.parent
    return node


def _average_not_used(f):
    """`avg = average(x)` and then x, not avg, is what the code reads: the average is thrown away."""
    for e in f.s.events:
        # a deeper function (train_epoch(model) allreducing inside) does not average its argument
        if not e.ctx.reached or not _averaging(f, e.node, deep=False) or not e.node.args:
            continue
        target = assigned_name(_outermost_chain(e.node))
        inside = {n.id for n in ast.walk(e.node.args[0]) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        inside -= set(f.s.aliases)  # torch in torch.tensor(x) is a module, not the value
        source = dotted(e.node.args[0]) or (inside.pop() if len(inside) == 1 else None)
        if not target or not source or target == source:
            continue
        scope = e.ctx.frames[-1].func if e.ctx.frames else f.s.tree
        later = [n for n in ast.walk(scope) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
                 and n.lineno > e.line]
        if not any(n.id == target for n in later):
            # a read of the value itself (`if loss < best`), not a method call on it (`meter.reset_states()`)
            uses = [n for n in later if n.id == source and not isinstance(getattr(n, "parent", None), ast.Attribute)]
            if uses:
                return Finding(WRONG, f"line {e.line} averages `{source}` into `{target}`, which is never read; line "
                               f"{uses[0].lineno} uses the unaveraged `{source}` (this rank's own value)",
                               uses[0].lineno, f"use `{target}` there, or assign the average back to `{source}`")
    return None


def _in_training_loop(f, e):
    return any(any(loop is mine for loop in s.ctx.loops for mine in e.ctx.loops) for s in f.steps)


_DATA_WORDS = re.compile(r"data|set|loader|iter|ds$|batches|gen", re.I)


def _eval_data(f):
    """Evaluation data sources: a loader or data set named (or built from something named) val/test/eval,
    or fit's validation data."""
    out = []
    for e in f.s.events:
        last = f.s.qual(e.node.func).split(".")[-1]
        if not (names.DATA_SOURCES.match(last) or last in ("DataLoader", "batch")) or not e.ctx.reached:
            continue
        text = (assigned_name(e.node) or "") + " " + " ".join(ast.unparse(a) for a in e.node.args[:1])
        if names.EVAL_NAMES.search(text):
            out.append(e)
    for a in f.s.assigns:  # test_data = batchify(corpus.test, ...): a helper building evaluation data
        name = assigned_name(a.node.value) if isinstance(a.node, ast.Assign) and isinstance(a.node.value, ast.Call) \
            else None
        if name and a.ctx.reached and names.EVAL_NAMES.search(name) and _DATA_WORDS.search(name.split(".")[-1]):
            out.append(a)
    out += [e for e in f.fits if any(k.arg in ("validation_data", "validation_split") for k in e.node.keywords)]
    return out


def _is_division(n):
    return isinstance(n, (ast.BinOp, ast.AugAssign)) and isinstance(n.op, (ast.Div, ast.FloorDiv))


def _of_gradients(f, e):
    """An allreduce of gradients (step 5's, whatever their names), or one that takes a minimum or maximum
    (`hvd.allreduce(n_batches, op=hvd.Min)`: the ranks agree on a count): not the averaging of a metric."""
    op = next((ast.unparse(k.value).split(".")[-1] for k in e.node.keywords if k.arg == "op"), "")
    return bool(re.search(r"grad", ast.unparse(e.node), re.I)) or op.strip("'\"").lower() in ("min", "max", "product") \
        or any(e is g for g in gradient_allreduces(f))


def _computed_on(f, e):
    """The sum goes into one of the script's own functions (`miou(conf.cpu().numpy())` of a summed confusion
    matrix): a metric computed from summed counts, not the sum reported as the value."""
    name = assigned_name(e.node)
    held = _stored_from(f, e, name) if name else set()
    return bool(name) and any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in f.s.funcs
        and any(_names_in(a) & held for a in n.args + [k.value for k in n.keywords]) for n in ast.walk(f.s.tree))


def _divided_later(f, e):
    """The summed value is divided: the sum itself, or the parts of a summed (sum, count) pair stored in names or
    attributes (`self.sum, self.count = t[0], t[1]`) and divided one by the other anywhere."""
    name = assigned_name(e.node)
    parent = getattr(e.node, "parent", None)
    if isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Div):
        return True
    if not name:
        return False
    held = _stored_from(f, e, name)
    for n in ast.walk(f.s.tree):
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Div):
            if name in _names_in(n) or _names_in(n.left) & held and _names_in(n.right) & held:
                return True
    return False


def _names_in(node):
    return {dotted(x) for x in ast.walk(node) if isinstance(x, (ast.Name, ast.Attribute))} - {None}


def _stored_from(f, e, name):
    """Names and attributes assigned (after the sum, in its function) from the sum or from names already so."""
    held = {name}
    later = [a for a in f.s.assigns if a.order > e.order and a.ctx.frames[-1:] == e.ctx.frames[-1:]
             and isinstance(a.node, ast.Assign)]
    for a in later:
        for t in a.node.targets:
            pairs = zip(t.elts, a.node.value.elts) if isinstance(t, ast.Tuple) and isinstance(a.node.value, ast.Tuple) \
                and len(t.elts) == len(a.node.value.elts) else [(t, a.node.value)]
            held |= {dotted(x) for x, v in pairs if dotted(x) and _names_in(v) & held}
    return held


def _eval_parts(f):
    """Evaluation data read per rank: step 3's evaluation partitions, and evaluation data built from any
    partition step 3 recognises (`tfds.load(split=even_splits("test", n=size)[rank])`, a local `shard(x)`)."""
    sh = step3_shard.shares(f)
    return sh.eval_parts + [e for e in _eval_data(f) if not any(e is p for p in sh.eval_parts)
                            and any(per_rank(f, x) for x in _eval_inputs(e))]


def _eval_inputs(e):
    """What an evaluation source is built from (fit's: its validation data, not its training data)."""
    if isinstance(e.node, ast.Call) and getattr(e.node.func, "attr", "") in ("fit", "fit_generator"):
        return validation_inputs(e.node)
    return [e.node.value if isinstance(e.node, ast.Assign) else e.node]


def validation_inputs(fit):
    """fit's validation data: validation_data, or the training data validation_split takes its tail from."""
    kw = {k.arg: k.value for k in fit.keywords}
    if "validation_data" in kw:
        return [kw["validation_data"]]
    if "validation_split" in kw:
        return fit.args[:1] + [v for k, v in kw.items() if k == "x"]
    return []


def per_rank(f, node):
    """The data `node` evaluates to depends on the rank in a way step 3 recognises as a partition: through
    its names, or through what a local function returns (`x_va, y_va = shard(x_va, y_va)`)."""
    return f.mentions(node, lambda n: _partitions(f, n))


def _partitions(f, n):
    """Memoised per node (a node being judged counts as no partition: cycle-safe, and each node costs once)."""
    if getattr(f, "_step8_parts", None) is None:
        sh = step3_shard.shares(f)
        f._step8_parts = {id(p.node): True for p in sh.parts + sh.eval_parts}
    memo = f._step8_parts
    if id(n) not in memo:
        memo[id(n)] = False
        memo[id(n)] = _partitions_through(f, n)
    return memo[id(n)]


def _partitions_through(f, n):
    deeper = lambda m: _partitions(f, m)  # noqa: E731 - a predicate for mentions()
    if isinstance(n, ast.Call) and not _unpacked(n):
        return any(f.mentions(r, deeper) for r in _returns(f, n))
    name = dotted(n) if isinstance(n, (ast.Name, ast.Attribute)) else None
    for a in f.s.assignments_to(name) if name else ():
        # `train, test = load()`: `test` is per rank when load's returned `test` (same position) is
        t = a.node.targets[0] if isinstance(a.node, ast.Assign) else None
        if isinstance(t, ast.Tuple) and isinstance(a.node.value, ast.Call):
            i = next(i for i, x in enumerate(t.elts) if dotted(x) == name)
            if any(f.mentions(r.elts[i] if isinstance(r, ast.Tuple) and len(r.elts) == len(t.elts) else r, deeper)
                   for r in _returns(f, a.node.value)):
                return True
    return False


def _unpacked(call):
    parent = getattr(call, "parent", None)
    return isinstance(parent, ast.Assign) and isinstance(parent.targets[0], ast.Tuple)


def _returns(f, call):
    """The values returned by the local functions the walk entered at `call`."""
    funcs = {fr.func for e in _walked(f)[0].get(id(call), ()) for fr in e.ctx.frames if fr.call is call}
    return [n.value for func in funcs for n in ast.walk(func) if isinstance(n, ast.Return) and n.value is not None]
