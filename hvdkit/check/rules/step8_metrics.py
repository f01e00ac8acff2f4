"""Step 8: the metrics reported are averaged over the ranks (or every rank saw the same data)."""
import ast

from hvdkit.check import names
from hvdkit.check.rules import step3_shard
from hvdkit.check.rules.step5_optimizer import gradient_allreduces
from hvdkit.check.findings import MISSING, OK, UNKNOWN, WRONG, Finding
from hvdkit.check.rules.evaluation import (data_per_rank, evaluations, metric_value, per_batch, training_data,
                                           unread_calls)
from hvdkit.check.rules.held import depends_on_rank, mutations, returned, sources
from hvdkit.check.script import assigned_name, dotted, result_discarded, sums


def judge(f):
    avgs = [e for e in f.s.events if f.api(e, *names.METRIC_AVERAGERS) and e.ctx.reached and not _of_gradients(f, e)]
    hang = next((e for e in avgs if f.rank_guards(e)), None)
    if hang is not None:
        return Finding(WRONG, f"metrics averaged at line {hang.line} on some ranks only: the collective hangs or "
                       "mixes with others", hang.line, "average on every rank, then print on rank 0")
    for e in avgs:
        if f.api(e, "MetricAverageCallback") and not f.flows_to_callbacks(e):
            return Finding(WRONG, f"MetricAverageCallback made at line {e.line} is never passed to fit", e.line,
                           "add it to fit(callbacks=[...]), before other metric-based callbacks")
    evals = [ev for ev in evaluations(f) if _reported(f, ev)]
    parts = [ev for ev in evals if ev.per_rank]
    if evals and all(ev.per_rank is False and not f.rank0_only(ev.event) for ev in evals):
        # Every rank evaluates the same, whole evaluation data with the same weights: the evaluation's
        # metrics are the job's; training logs beside them are progress (the labels' convention).
        summed = _summed(f, avgs)
        if summed is not None:
            return summed
        ev = evals[0]
        return Finding(OK, f"every rank evaluates the whole evaluation data (line {ev.line}): its metrics are the "
                       "job's without averaging", ev.line)
    summed = _summed(f, avgs)
    if summed is not None:
        return summed
    for e in avgs:
        # A mean of per-rank means is exact when the shards are equal (DistributedSampler pads them): not flagged.
        last = _last_batch_only(f, e)
        if last is not None:
            return last
    reports = [e for e in _reports(f) if e.ctx.reached]
    if avgs:
        lost = _average_not_used(f)
        if lost is not None:
            return lost
        # Only the evaluations on each rank's part: a script that averages some metrics may log others per rank
        # by design (each rank its own summary, per-batch progress).
        raw = [e for e in reports if not per_batch(f, e) and any(
            not _averaged(f, v) for v in _evaluation_values(f, e, parts))]
        if raw and parts:
            unread = _unread(f, raw[0])
            if unread is not None:
                return unread
            return Finding(MISSING, f"the evaluation metric reported at line {raw[0].line} is this rank's part's "
                           f"(evaluated on a shard, line {parts[0].line}) and is never averaged", raw[0].line,
                           "average it over ranks before reporting (allreduce sum and count, then divide)")
        return Finding(OK, f.text(avgs[0].line), avgs[0].line)
    unused = [e for e in f.s.events if f.api(e, *names.METRIC_AVERAGERS) and not e.ctx.reached
              and not _of_gradients(f, e)]
    train = _train_per_rank(f)
    if unused and (train or parts):
        func = unused[0].ctx.frames[0].func.name if unused[0].ctx.frames else "?"
        return Finding(MISSING, f"the averaging at line {unused[0].line} is in `{func}()`, which nothing calls: the "
                       "metrics reported are each rank's own", unused[0].line,
                       f"call {func}() on every metric reported")
    if not train and not parts and not f.fits and not reports:
        return Finding(UNKNOWN, "no metric is reported", None, None)
    if not parts and train is None or any(ev.per_rank is None for ev in evals) and not parts:
        where = next((ev.data for ev in evals if ev.per_rank is None), None) or _unread_training_data(f)
        return Finding(UNKNOWN, f"the data comes from code the pass does not read ({ast.unparse(where)[:60]}): "
                       "cannot tell whether each rank computes its metrics on its own part", where.lineno)
    if not train and not parts:
        return Finding(OK, "no rank has a part of its own: every rank computes its metrics on the same, whole data, "
                       "so rank 0's are the job's")
    for e in reports:  # the metric comes from code the pass does not read: it may be averaged there
        unread = _unread(f, e)
        if unread is not None:
            return unread
    if f.fits:
        return Finding(MISSING, "fit's metrics are each rank's own (rank 0's shard in the log)", f.fits[0].line,
                       "callbacks=[hvd.callbacks.MetricAverageCallback(), ...]")
    if reports:
        who = "rank 0's alone" if f.rank_guards(reports[0]) else "each rank's own"
        return Finding(MISSING, f"the metrics reported (line {reports[0].line}) are {who}: never averaged over ranks",
                       reports[0].line, "allreduce (sum, count) pairs, then divide: hvd.allreduce(t, op=hvd.Sum)")
    if parts:
        ev = parts[0]
        return Finding(MISSING, f"evaluation runs on this rank's part (line {ev.line}) and its result is never "
                       "averaged over ranks", ev.line, "allreduce (sum, count) pairs, then divide")
    return Finding(UNKNOWN, "no metric is reported", None, None)


def _reported(f, ev):
    """The evaluation's results are reported: a report prints a value it computed, fit logs its validation
    metrics, evaluate() prints them (unless verbose=0) or its result is printed."""
    if getattr(ev.event.node.func, "attr", "") in ("fit", "fit_generator"):
        return True
    verbose = next((k.value for k in ev.event.node.keywords if k.arg == "verbose"), None)
    if ev.loop is None and not (isinstance(verbose, ast.Constant) and verbose.value == 0):
        return True
    return any(_from_evaluations(f, v, r, [ev]) for r in _reports(f) for v in _report_values(r.node))


def _updated_in(f, expr, at, loops):
    """A name in the expression is an object the evaluation's loop updates (`val_loss.update_state(...)`,
    `meter.update(...)`, `preds.append(...)`), the same object where `at` reads it."""
    chains = [n for n in ast.walk(expr) if isinstance(n, (ast.Name, ast.Attribute)) and dotted(n)
              and dotted(n).split(".")[0] not in f.s.aliases]
    return any(any(id(lp) in loops for lp in e.ctx.loops) for n in chains for _, e in mutations(f, n, at))


def _summed(f, avgs):
    for e in avgs:
        kw = {k.arg: ast.unparse(k.value) for k in e.node.keywords}
        if (sums(e.node) or kw.get("average") == "False") and not _divided_later(f, e) and not _computed_on(f, e):
            return Finding(WRONG, f"line {e.line} sums a metric over ranks and reports the sum as its value",
                           e.line, "divide the summed total by the summed count")
    return None


def _train_per_rank(f):
    """Each rank trains on its own part: step 3's partitions of the training data, or the data the stepping
    loops (or fit) read, by data flow; None when that data comes from code the pass cannot read."""
    if step3_shard.shares(f).train_partitioned:
        return True
    verdicts = [data_per_rank(f, data, at) for data, at in training_data(f)]
    return True if True in verdicts else None if None in verdicts else False


def _unread_training_data(f):
    return next((data for data, at in training_data(f) if data_per_rank(f, data, at) is None), None)


def _unread(f, report):
    """A report whose value comes through code the pass does not read (a project module's `evaluate` or
    `metric_average`): it may be averaged there; cannot tell."""
    for v in report.node.args + [k.value for k in report.node.keywords]:
        calls = unread_calls(f, v, report)
        if calls:
            what = ast.unparse(calls[0])[:60]
            return Finding(UNKNOWN, f"the metric reported at line {report.line} comes from {what}, whose code the "
                           "pass does not read: cannot tell whether it is averaged over ranks", report.line)
    return None


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
    """Calls that report a metric (print, a logger, TensorBoard, ...): a value they print comes from the model
    (evaluation.metric_value); where a printed name cannot be followed (a parameter Keras fills), the words
    printed with it say it is a loss, an accuracy, a score. A report that prints the rank beside its values
    is each rank's own log by design, not the job's metric."""
    if getattr(f, "_rules_b_reports", None) is None:
        out = []
        for e in f.s.events:
            if f.s.qual(e.node.func).split(".")[-1] not in names.REPORTERS:
                continue
            values = _report_values(e.node)
            if not f.rank0_only(e) and any(depends_on_rank(f, v, e) or depends_on_rank(f, v, e, local=True)
                                           for v in values):
                continue  # every rank prints its own, labelled with its rank
            found = [metric_value(f, v, e) for v in values]
            if True in found or None in found and names.REPORTED.search(ast.unparse(e.node)):
                out.append(e)
        f._rules_b_reports = out
    return f._rules_b_reports


def _report_values(call):
    """The values a report prints: its arguments and the fields of its f-strings (not the text around them)."""
    out = []
    for a in call.args + [k.value for k in call.keywords]:
        if isinstance(a, ast.JoinedStr):
            out += [v.value for v in a.values if isinstance(v, ast.FormattedValue)]
        elif isinstance(a, ast.Call) and isinstance(a.func, ast.Attribute) and a.func.attr == "format" and \
                isinstance(a.func.value, ast.Constant):
            out += a.args + [k.value for k in a.keywords]
        elif isinstance(a, ast.BinOp) and isinstance(a.op, ast.Mod) and isinstance(a.left, ast.Constant):
            out += a.right.elts if isinstance(a.right, ast.Tuple) else [a.right]
        elif not isinstance(a, ast.Constant):
            out.append(a)
    return out


def _evaluation_values(f, report, parts):
    """The values of a report computed by an evaluation on each rank's part (inside its loop, or returned by
    the function that runs it, or evaluate()'s result), whatever they are called."""
    return [v for v in _report_values(report.node) if _from_evaluations(f, v, report, parts)]


def _from_evaluations(f, node, at, parts, depth=0):
    loops = {id(ev.loop) for ev in parts if ev.loop is not None}
    calls = {id(ev.event.node) for ev in parts if ev.loop is None}
    for expr, a in sources(f, node, at):
        if any(id(lp) in loops for lp in a.ctx.loops) or _updated_in(f, expr, a, loops):
            return True
        for n in ast.walk(expr):
            if id(n) in loops:
                return True  # sum(loss(model(a), b) for a, b in loader): the evaluation is the expression
            if isinstance(n, ast.Call) and (id(n) in calls or depth < 4 and any(
                    _from_evaluations(f, v, b, parts, depth + 1) for v, b in returned(f, n, a))):
                return True
    return False


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
    return f.api(e, *names.METRIC_AVERAGERS) and not _of_gradients(f, e)


def _averaged(f, node):
    """The value depends on an average over ranks: through assignments, through a list it was appended to,
    or through an object whose method averages (meter.update(x) allreducing inside)."""
    if f.mentions(node, lambda n: _averaging(f, n)) or _fit_averaged(f, node):
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


def _fit_averaged(f, node):
    """A value from the history of a fit given Horovod's MetricAverageCallback: averaged at each epoch's end."""
    fits = [x for x in f.fits if any(f.api(c, "MetricAverageCallback") and x in f.fits_given(c) for c in f.s.events)]
    return bool(fits) and f.mentions(node, lambda n: any(n is x.node for x in fits))


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


def _of_gradients(f, e):
    """Not the averaging of a metric: an allreduce of gradients (step 5's, found by what it is given, not by
    its name), one that takes a minimum or maximum (`hvd.allreduce(n_batches, op=hvd.Min)`: the ranks agree on
    a count), or a collective whose result is thrown away (`hvd.allreduce(torch.tensor(0))` as a barrier:
    it averages nothing that is read; the in-place `allreduce_` is read through its argument)."""
    op = next((ast.unparse(k.value).split(".")[-1] for k in e.node.keywords if k.arg == "op"), "")
    barrier = result_discarded(e.node) and not (e.api and e.api[1].endswith("_"))
    agree = op.strip("'\"").lower() in ("min", "max", "product")
    return barrier or agree or any(e is g for g in gradient_allreduces(f))


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
