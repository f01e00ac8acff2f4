"""Step 8: the metrics reported are averaged over the ranks (or every rank saw the same data)."""
import ast
import re

from hvdkit.check import names
from hvdkit.check.findings import MISSING, OK, UNKNOWN, WRONG, Finding
from hvdkit.check.rules.evaluation import (data_per_rank, evaluations, metric_value, per_batch, running, training_data,
                                           training_events, training_loops, unread_calls)
from hvdkit.check.rules.held import (comprehended, depends_on_rank, imported, makers, mutations, never,
                                    property_values, reaching, returned, sources)
from hvdkit.check.script import assigned_name, dotted, parents, remainders, result_discarded, sums
from hvdkit.check.sources import called_def, derived, iterated, sources as flow_sources


def judge(f):
    # (a collective run while a checkpoint's contents are computed is the checkpoint's: step 7)
    avgs = [e for e in f.s.events if f.api(e, *names.METRIC_AVERAGERS) and e.ctx.reached and not _of_gradients(f, e)
            and not any(f.inside(e, w.node) for w in f.checkpoint_writes)]
    hang = next((e for e in avgs if any(not _asserted(g) for g in f.rank_guards(e))), None)
    if hang is not None:
        return Finding(WRONG, f"metrics averaged at line {hang.line} on some ranks only: the collective hangs or "
                       "mixes with others", hang.line, "average on every rank, then print on rank 0")
    for e in avgs:
        if f.api(e, "MetricAverageCallback") and not f.flows_to_callbacks(e):
            return Finding(WRONG, f"MetricAverageCallback made at line {e.line} is never passed to fit", e.line,
                           "add it to fit(callbacks=[...]), before other metric-based callbacks")
    evals = [ev for ev in evaluations(f) if _reported(f, ev)]
    parts = [ev for ev in evals if ev.per_rank]
    if evals and all(ev.per_rank is False for ev in evals) and (
            all(not _rank0_only(f, ev.event) for ev in evals) or not _shard_logs(f, evals)):
        # Every rank evaluates the same, whole evaluation data with the same weights: the evaluation's metrics
        # are the job's; training logs beside them are progress (the labels' convention). When rank 0 alone
        # evaluates, its evaluation is the job's too, but a log of its own shard beside it is not.
        summed = _summed(f, avgs)
        if summed is not None:
            return summed
        ev = evals[0]
        who = "rank 0 evaluates" if _rank0_only(f, ev.event) else "every rank evaluates"
        return Finding(OK, f"{who} the whole evaluation data (line {ev.line}): its metrics are the job's without "
                       "averaging", ev.line)
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
            not _averaged(f, v, e) for v in _evaluation_values(f, e, parts))]
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
        unread = f.unread_finding("a metric average", f.feeds_callbacks)
        if unread is not None:
            return unread
        return Finding(MISSING, "fit's metrics are each rank's own (rank 0's shard in the log)", f.fits[0].line,
                       "callbacks=[hvd.callbacks.MetricAverageCallback(), ...]")
    later = None if evals else _unread_after_training(f)
    if later is not None:
        return f.cannot_tell("an evaluation of the trained model", [(later.event.node, later)])
    if reports:
        # the evidence is the evaluation's report where one prints it, not a training log printed before it
        report = next((r for r in reports if parts and any(_from_evaluations(f, v, r, parts)
                                                           for v in _report_values(r.node))), reports[0])
        who = "rank 0's alone" if f.rank_guards(report) else "each rank's own"
        return Finding(MISSING, f"the metrics reported (line {report.line}) are {who}: never averaged over ranks",
                       report.line, "allreduce (sum, count) pairs, then divide: hvd.allreduce(t, op=hvd.Sum)")
    if parts:
        ev = parts[0]
        return Finding(MISSING, f"evaluation runs on this rank's part (line {ev.line}) and its result is never "
                       "averaged over ranks", ev.line, "allreduce (sum, count) pairs, then divide")
    return Finding(UNKNOWN, "no metric is reported", None, None)


def _rank0_only(f, event):
    """The event runs on rank 0 and not on rank 1, on the first step or on later ones (`if hvd.rank() == 0 and
    step % 1000 == 0:` runs on no rank at step 1, on rank 0 alone at step 1000)."""
    later = f.runs(event, first_step=False)
    return f.rank0_only(event) or later.rank1 is False and later.rank0 is not False


def _asserted(guard):
    """The guard is a check that raises (`if hvd.local_rank() != LOCAL_RANK: raise RuntimeError(...)`): a rank
    that fails it crashes; every rank that goes on runs what follows, so it does not keep a collective from some
    of the ranks of a run that works."""
    stmt = getattr(guard.test, "parent", None)
    return isinstance(stmt, ast.If) and stmt.test is guard.test and guard.branch is False and not stmt.orelse and \
        bool(stmt.body) and isinstance(stmt.body[-1], ast.Raise)


def _shard_logs(f, whole):
    """What reports a rank's own training as the job's beside evaluations of the whole data (`whole`), which
    rank 0 alone runs: the log of a fit that validates on no whole data on every rank, or a report not made
    from those evaluations, other than per-batch progress that every rank prints of its own."""
    every = {id(ev.event) for ev in whole if not _rank0_only(f, ev.event)}
    logs = [fit for fit in f.fits if id(fit) not in every]
    logs += [r for r in _reports(f) if r.ctx.reached and not never(f, r) and not per_batch(f, r) and not any(
        _from_evaluations(f, v, r, whole) for v in _report_values(r.node)) and not _last_step_only(f, r)]
    return logs


def _last_step_only(f, report):
    """The report runs in the training's loop (once an epoch), and every value of the model it prints is the
    last training step's (`loss.item()` with `loss` assigned anew at each step): progress, not a measure of
    rank 0's shard over the epoch (a running accuracy, a meter's average, fit's log), nor the result printed
    once the training is done."""
    stepping = training_loops(f)
    values = [v for v in _report_values(report.node) if metric_value(f, v, report)]
    if not values or not stepping & {id(lp) for lp in report.ctx.loops}:
        return False
    for v in values:
        while isinstance(v, ast.Call) and _kept_operand(f, v) is not None:
            v = _kept_operand(f, v)  # loss.item(), float(loss)
        assigned = reaching(f, v, report) if isinstance(v, ast.Name) else []
        if not assigned or not all(isinstance(a.node, ast.Assign) and stepping & {id(lp) for lp in a.ctx.loops}
                                   for _, a in assigned):
            return False
    return True


def _reported(f, ev):
    """The evaluation's results are reported: a report prints a value it computed, fit logs its validation
    metrics, evaluate() prints them (unless verbose=0) or its result is printed."""
    if getattr(ev.event.node.func, "attr", "") in ("fit", "fit_generator"):
        return True
    verbose = next((k.value for k in ev.event.node.keywords if k.arg == "verbose"), None)
    evaluates = getattr(ev.event.node.func, "attr", "") in ("evaluate", "predict", "evaluate_generator",
                                                             "predict_generator")
    if ev.loop is None and evaluates and not (isinstance(verbose, ast.Constant) and verbose.value == 0):
        return True
    return any(_from_evaluations(f, v, r, [ev]) for r in _reports(f) for v in _report_values(r.node))


def _updated_in(f, expr, at, loops):
    """A name in the expression is an object the evaluation's loop updates (`val_loss.update_state(...)`,
    `meter.update(...)`, `preds.append(...)`), the same object where `at` reads it."""
    chains = [n for n in ast.walk(expr) if isinstance(n, (ast.Name, ast.Attribute)) and dotted(n)
              and dotted(n).split(".")[0] not in f.s.aliases]
    return any(_in_loops(e, e.ctx.loops, loops) for n in chains for _, e in mutations(f, n, at))


def _in_loops(event, nodes, loops):
    """One of `nodes` is a loop of `loops` ({id(loop): [frame of a call that ran it]}), run by that call: the
    same evaluation function run on a rank's shard and, later, on the whole set is two evaluations."""
    for lp in nodes:
        for frame in loops.get(id(lp), ()):
            if frame is None or any(fr is frame for fr in event.ctx.frames):
                return True
    return False


def _summed(f, avgs):
    """A sum over ranks that a report prints as it is (not divided by a count or the size, not turned into
    another metric by a computation): evidence is the report's line. A sum of a value made by code the pass
    does not read (`timer.rate()` of an absent module's Timer) may be a rate or a count, rightly summed: cannot
    tell, when no other sum is wrong."""
    unknown = None
    for e in avgs:
        kw = {k.arg: ast.unparse(k.value) for k in e.node.keywords}
        if not (sums(e.node) or kw.get("average") == "False"):
            continue
        # a sum of per-rank means printed as it is, whatever it measures (an RL return); else a metric's report
        printed = _reports(f) + [r for r in _reporting(f) if r not in _reports(f) and _called_a_mean(r.node)] \
            if _sums_a_mean(f, e) else _reports(f)
        # a rate made with a clock (samples per second) summed over the ranks is the job's rate: right, unless
        # the report calls it a mean ("Average img/sec per GPU": hvd.size() times too large)
        clocked = bool(e.node.args) and _clocked(f, e.node.args[0], e)
        if clocked:
            printed = [r for r in printed if _called_a_mean(r.node)]
        report = next((r for r in printed if r.ctx.reached and any(
            _undivided(f, v, r, e.node, walk=e.ctx.frames) for v in _report_values(r.node))), None)
        unread = unread_calls(f, e.node.args[0], e) if report is not None and e.node.args and not clocked else []
        if unread:
            unknown = unknown or Finding(
                UNKNOWN, f"line {e.line} sums over ranks a value made by code the pass does not read "
                f"({ast.unparse(unread[0])[:60]}) and line {report.line} reports the sum: right for a rate or a "
                "count, wrong for a mean: cannot tell", e.line)
            continue
        if report is not None:
            return Finding(WRONG, f"line {e.line} sums a metric over ranks and line {report.line} reports the sum as "
                           "its value", e.line, "divide the summed total by the summed count")
        local = _first_report(f, lambda v, r: _over_local_count(f, v, r, e.node))
        if local is not None:
            report, div = local
            return Finding(WRONG, f"line {e.line} sums a metric over ranks, but line {report.line} reports it divided "
                           f"by this rank's own count ({ast.unparse(div.right)[:40]}): hvd.size() times the mean",
                           e.line, "allreduce the count with op=hvd.Sum too, then divide the sums")
        own = _first_report(f, lambda v, r: _own_over_summed(f, v, r, e.node))
        if own is not None:
            report, div = own
            return Finding(WRONG, f"line {e.line} sums a count over ranks, but line {report.line} reports this "
                           f"rank's own total ({ast.unparse(div.left)[:40]}) divided by it: 1/hvd.size() of the mean",
                           e.line, "allreduce the total with op=hvd.Sum too, then divide the sums")
    for e in avgs:  # an average over ranks of this rank's count, divided by the whole data's size: 1/size of it
        if sums(e.node) or not f.api(e, "allreduce") or any(k.arg in ("average", "op") for k in e.node.keywords):
            continue
        whole = _first_report(f, lambda v, r: _division(f, v, r, e.node, _whole_data_size(f)))
        if whole is not None:
            report, (div, _) = whole
            return Finding(WRONG, f"line {e.line} averages this rank's count over the ranks (hvd.allreduce's default "
                           f"op), and line {report.line} reports it divided by the whole data set's size "
                           f"({ast.unparse(div.right)[:40]}): 1/hvd.size() of the job's value", e.line,
                           "allreduce the count with op=hvd.Sum, then divide by the whole data set's size")
        first = next(iter(e.node.args), None)
        cut = _over_whole(f, first, e, _whole_data_size(f)) if first is not None else None
        if cut is not None:
            return Finding(WRONG, f"line {cut.line} divides this rank's part's total by the whole data set's size, "
                           f"and line {e.line} averages that over the ranks (hvd.allreduce's default op): "
                           "1/hvd.size() of the job's value", cut.line,
                           "divide by this rank's own count (len(sampler)) before averaging, or allreduce the sum "
                           "and the count with op=hvd.Sum")
    return unknown


def _first_report(f, query):
    """(report event, what `query(value, report)` found) for the first reached report one of whose values
    the query finds something in; else None."""
    return next(((r, d) for r in _reports(f) if r.ctx.reached for v in _report_values(r.node)
                 for d in [query(v, r)] if d is not None), None)


def _over_whole(f, node, at, test, depth=0):
    """The assignment event by which the value of `node` (where `at` reads it) was divided by a denominator for
    which `test(div, event)` holds (`loss /= len(loader.dataset)`, `total / len(loader.dataset)`), through
    names, parameters, the returns of the project's functions and conversions (`torch.tensor(val)`); else
    None."""
    if depth > 12 or node is None:
        return None
    deeper = lambda n, a: _over_whole(f, n, a, test, depth + 1)  # noqa: E731 - a local shorthand
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        return at if at is not None and test(node, at) else None
    if isinstance(node, ast.Call):
        rets = returned(f, node, at)
        if rets:
            return next((d for v, a in rets for d in [deeper(v, a)] if d is not None), None)
        return deeper(_kept_operand(f, node), at)
    if isinstance(node, (ast.Name, ast.Attribute)) and at is not None:
        for v, a in reaching(f, node, at):
            stmt = a.node
            if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Div):
                if test(ast.BinOp(left=stmt.target, op=ast.Div(), right=stmt.value), a):
                    return a
                continue
            found = deeper(v, a)
            if found is not None:
                return found
    return None


def _over_local_count(f, node, at, total):
    """The Div node by which the value of `node` (where `at` reads it) is the sum `total` divided by a count no
    collective reduced (`self.sum / max(self.count, 1)` with only the sum allreduced); else None."""
    whole = _whole_data_size(f)
    found = _division(f, node, at, total, lambda div, a: not f.mentions(div.right, _reduced(f)) and not whole(div, a))
    return found[0] if found is not None else None


def _own_over_summed(f, node, at, total):
    """The Div node by which the value of `node` (where `at` reads it) is a total no collective reduced divided
    by the count `total` summed over ranks (`math.exp(nll / n_tokens)` with only n_tokens allreduced); else
    None."""
    own = lambda div, a: not isinstance(div.left, ast.Constant) and not f.mentions(div.left, _reduced(f))  # noqa
    found = _division(f, node, at, total, own, denominator=True)
    return found[0] if found is not None else None


# Functions of one value whose report is still that value's (a perplexity is exp of a mean loss).
_OF_ONE_VALUE = ("exp", "log", "sqrt")


def _division(f, node, at, total, test, depth=0, denominator=False):
    """(Div node, event where it is read) by which the value of `node` (where `at` reads it) is `total` divided
    by a denominator for which `test(div, event)` holds (with `denominator`: a numerator divided by `total`),
    through names, the returns of the project's functions, the properties of its classes and library
    functions of the one value (exp, log, sqrt); else None."""
    if depth > 12 or node is None:
        return None
    deeper = lambda n, a=at: _division(f, n, a, total, test, depth + 1, denominator)  # noqa: E731 - a shorthand
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        if _undivided(f, node.right if denominator else node.left, at, total) and test(node, at):
            return node, at
        return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):  # `100 * acc`: a percentage of it
        return deeper(node.left) or deeper(node.right)
    if isinstance(node, ast.Call):
        rets = returned(f, node, at)
        if rets:
            return next((d for v, a in rets for d in [deeper(v, a)] if d is not None), None)
        q = f.s.qual(node.func)
        if len(node.args) == 1 and "." in q and q.split(".")[-1] in _OF_ONE_VALUE and imported(f, node.func):
            return deeper(node.args[0])
        return deeper(_kept_operand(f, node))
    if isinstance(node, (ast.Name, ast.Attribute)):
        values = reaching(f, node, at) if at is not None else \
            [(a.node.value, a) for a in f.s.assignments_to(node) if a.node.value is not None]
        found = next((d for v, a in values for d in [deeper(v, a)] if d is not None), None)
        if found is None and isinstance(node, ast.Attribute) and at is not None:
            found = next((d for v in property_values(f, node, at) for d in [deeper(v, None)] if d is not None), None)
        return found
    return None


def _whole_data_size(f):
    """A test for a division: its denominator is the size of a whole data set behind a loader that reads this
    rank's part (`len(loader.dataset)`, the loader made of one of step 3's partitions, a DistributedSampler):
    not this rank's count."""
    def test(div, at):
        sizes = [n for n in ast.walk(div.right) if isinstance(n, ast.Call) and f.s.qual(n.func) == "len" and n.args
                 and isinstance(n.args[0], ast.Attribute) and n.args[0].attr == "dataset"]
        sh = f.shares
        parts = {id(p.node) for p in sh.parts + sh.eval_parts}
        if any(id(m) in parts for n in sizes for m in flow_sources(f, [n.args[0].value], derived)):
            return True
        # `len(data)` of the very data set a partition is made of (`DistributedSampler(data, ...)`,
        # `data.shard(...)`): the whole set's size, by the name's definitions
        whole = [n.args[0] for n in ast.walk(div.right) if isinstance(n, ast.Call) and f.s.qual(n.func) == "len"
                 and len(n.args) == 1 and isinstance(n.args[0], ast.Name)]
        split = [x for p in sh.parts + sh.eval_parts for x in _partitioned(p.node) if isinstance(x, ast.Name)]
        defs = lambda name: {id(d) for d in f.s.reaching(name) or ()}  # noqa: E731 - a local shorthand
        return any(defs(w) and defs(w) == defs(x) for w in whole for x in split)
    return test


def _partitioned(node):
    """What a partition is cut from: the data a sampler or `shard` call is given (`DistributedSampler(data)`,
    `data.shard(...)`) or the sequence a slice takes every size-th element of (`files[hvd.rank()::hvd.size()]`)."""
    if isinstance(node, ast.Call):
        return node.args[:1] + ([node.func.value] if isinstance(node.func, ast.Attribute) else [])
    if isinstance(node, ast.Subscript):
        return [node.value]
    return []


def _reduced(f):
    """A predicate: a node is a collective (an allreduce or allgather of any op, also inside a function of the
    project it calls: `reduce_sum(packed)`) or the number of ranks."""
    def collective(n):
        api = f.s.api(n.func) if isinstance(n, ast.Call) else None
        return bool(api) and ("allreduce" in api[1] or "allgather" in api[1])

    def pred(n):
        if collective(n) or f.is_size(n):
            return True
        # the project's function, or the method the walk entered there (`env.sum(t)` of a parameter `env`)
        func = called_def(f, n) if isinstance(n, ast.Call) else None
        return isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(collective(c) for c in ast.walk(func))
    return pred


# Calls whose value is their receiver's or first argument's, converted (a sum stays a sum).
_KEEPS_VALUE = ("item", "cpu", "numpy", "tolist", "detach", "clone", "to", "float", "double", "squeeze", "flatten",
                "int", "round", "str", "tensor", "array", "asarray", "constant", "convert_to_tensor")
# One-to-one functions of a value: a sum over ranks put through them is still the sum's figure, not the mean's
# (`math.exp(summed_loss)` reported as a perplexity is exp of hvd.size() times the mean loss).
_TRANSFORMS_VALUE = ("exp", "log", "sqrt", "exp2", "log2", "log10")


def _kept_operand(f, call):
    """What a call that only converts its value is given (`total.item()`: total; `torch.tensor(val)`: val), when
    it is one of _KEEPS_VALUE or _TRANSFORMS_VALUE (`math.exp(loss)`: loss); else None."""
    last = call.func.attr if isinstance(call.func, ast.Attribute) else f.s.qual(call.func).split(".")[-1]
    if last in _TRANSFORMS_VALUE:  # `math.exp(x)`, `np.log(x)` take the value; `x.exp()` is its own method
        return call.args[0] if call.args else call.func.value if isinstance(call.func, ast.Attribute) else None
    if last not in _KEEPS_VALUE:
        return None
    return call.func.value if isinstance(call.func, ast.Attribute) and imported(f, call.func) is None else (
        call.args[0] if call.args else None)


def _another_call(f, call, walk):
    """`call` runs a function of the project that the walk `walk` (an event's frames) entered at another call:
    what it returns there is another walk's value (`reduce_sum` called for the throughput and for the loss)."""
    funcs = {id(fr.func) for fr in walk}
    return not any(fr.call is call for fr in walk) and any(id(fr.func) in funcs for fr in f.s.frames_of_call(call))


def _undivided(f, node, at, total, depth=0, walk=None):
    """The value of `node` where `at` reads it is the sum `total` (a call node) itself, or an element of it,
    converted or added to, through names, attributes, the returns of the project's functions and the
    properties of its classes; not once it is divided, or given to a computation (`miou(conf)` with conf
    summed: a metric computed from summed counts). With `walk` (the frames of the sum's event), not through
    another call of a function that walk entered."""
    if node is total:
        return True
    if depth > 12 or node is None:
        return False
    deeper = lambda n, a=at: _undivided(f, n, a, total, depth + 1, walk)  # noqa: E731 - a local shorthand
    if isinstance(node, ast.Call):
        rets = returned(f, node, at)
        if rets and walk is not None and _another_call(f, node, walk):
            return False  # `wps = reduce_sum([rate])` beside this walk's `reduce_sum([tot, ntok])`: not its sum
        if rets:
            return any(deeper(v, a) for v, a in rets)
        joined = isinstance(node.func, ast.Attribute) and node.func.attr == "join" and len(node.args) == 1
        if joined and isinstance(node.func.value, ast.Constant):
            return deeper(node.args[0])  # `" ".join(parts)`: the text shows each part
        return deeper(_kept_operand(f, node))
    if isinstance(node, ast.JoinedStr):
        return any(deeper(v.value) for v in node.values if isinstance(v, ast.FormattedValue))
    if isinstance(node, (ast.GeneratorExp, ast.ListComp)):
        return deeper(node.elt)
    if isinstance(node, ast.Name) and at is not None and (inner := comprehended(f, node, at)) is not None:
        return any(deeper(v, a) for v, a in inner)  # `v` of `for k, v in metrics.items()` in the report
    if isinstance(node, (ast.Name, ast.Attribute)):
        if at is None:  # in a property's body (not walked): what the class's methods assign the attribute
            values = [(a.node.value, a) for a in f.s.assignments_to(node) if a.node.value is not None]
        else:
            values = reaching(f, node, at)
        if values:
            return any(deeper(v, a) for v, a in values)
        return isinstance(node, ast.Attribute) and at is not None and any(
            deeper(v, None) for v in property_values(f, node, at))
    if isinstance(node, ast.BinOp):
        return not isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mod)) and (deeper(node.left) or deeper(node.right))
    if isinstance(node, ast.Subscript):
        if not _element_a_metric(f, node, at, total):
            return False
        # `results.append({"acc": float(acc)})` then `print(results[-1])`: what was put into the list
        # (a dict appended is printed whole; a dict returned is not followed: `m["n"]` of a summed count)
        return deeper(node.value) or isinstance(node.value, ast.Name) and at is not None and any(
            deeper(x, a) for v, a in mutations(f, node.value, at)
            if isinstance(a.node, ast.Call) and a.node.func.attr in ("append", "insert")
            for x in (v.values if isinstance(v, ast.Dict) else [v]) if x is not None)
    if isinstance(node, (ast.Tuple, ast.List)):
        return any(deeper(x) for x in node.elts)
    if isinstance(node, ast.IfExp):
        return deeper(node.body) or deeper(node.orelse)
    if isinstance(node, (ast.UnaryOp, ast.Starred)):
        return deeper(node.operand if isinstance(node, ast.UnaryOp) else node.value)
    return False


_CLOCKS = ("time.time", "time.perf_counter", "time.monotonic", "time.process_time", "timeit.default_timer")


def _clocked(f, node, at, depth=0):
    """The value is made with a clock's reading (`seen / (time.perf_counter() - t0)`, a meter's `rate()` over
    the seconds its timer measured): through names, attributes, returns and what is handed to the objects it
    is read from."""
    if depth > 6 or node is None:
        return False
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and f.s.qual(n.func) in _CLOCKS:
            return True
        if at is None:
            continue  # a value read off the class's own code (_set_in_class): its clock calls alone
        if isinstance(n, ast.Call) and any(_clocked(f, v, a, depth + 1) for v, a in returned(f, n, at)):
            return True
        if isinstance(n, (ast.Name, ast.Attribute)) and any(
                _clocked(f, v, a, depth + 1) for v, a in reaching(f, n, at) + mutations(f, n, at)):
            return True
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self" and any(
                _clocked(f, v, None, depth + 1) for v in _set_in_class(n)):
            return True  # `self.times` a timer's tock() appends `(time.perf_counter() - self._t, batch)` to
    return False


def _set_in_class(attr):
    """What the methods of the class `self.attr` is read in assign to it or append to it."""
    cls = next((p for p in parents(attr) if isinstance(p, ast.ClassDef)), None)
    if cls is None:
        return []
    out = []
    for n in ast.walk(cls):
        if isinstance(n, (ast.Assign, ast.AugAssign)) and any(
                isinstance(t, ast.Attribute) and dotted(t) == "self." + attr.attr
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target])):
            out.append(n.value)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("append", "extend") \
                and dotted(n.func.value) == "self." + attr.attr:
            out += n.args
    return out


def _element_a_metric(f, node, at, total):
    """`totals[2]` of `totals = hvd.allreduce(torch.tensor([loss_sum, n_tok, steps]), op=hvd.Sum)`: the element
    summed is the list's third, a count of steps, not a metric; False only when that element is known and is
    no value of the model's (a count printed as a sum over ranks is right)."""
    index, base = node.slice, node.value
    if not (isinstance(index, ast.Constant) and type(index.value) is int and isinstance(base, ast.Name) and at):
        return True
    if any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Div) and isinstance(n.right, ast.Subscript)
           and isinstance(n.right.value, ast.Name) and n.right.value.id == base.id
           and isinstance(n.right.slice, ast.Constant) and n.right.slice.value == index.value
           for n in ast.walk(at.node)):
        return False  # `tot[0] / tot[2], ..., int(tot[2])`: the report divides by it, a count it also prints
    values = reaching(f, base, at)
    if len(values) != 1 or values[0][0] is not total or not total.args:
        return True
    made = total.args[0]
    listed = made.args[0] if isinstance(made, ast.Call) and made.args else None
    if not isinstance(listed, (ast.List, ast.Tuple)) or not -len(listed.elts) <= index.value < len(listed.elts):
        return True
    return metric_value(f, listed.elts[index.value], values[0][1]) is not False


def _train_per_rank(f):
    """Each rank trains on its own part: step 3's partitions of the training data, or the data the stepping
    loops (or fit) read, by data flow; None when that data comes from code the pass cannot read."""
    if f.shares.train_partitioned:
        return True
    verdicts = [data_per_rank(f, data, at) for data, at in training_data(f)]
    return True if True in verdicts else None if None in verdicts else False


def _unread_training_data(f):
    return next((data for data, at in training_data(f) if data_per_rank(f, data, at) is None), None)


def _unread_after_training(f):
    """No evaluation is seen, and after the last training step a call into a module not in the project runs,
    handed nothing, its result thrown away (`train()` then `evaluate()`): it can only work on what the
    training left (the model it saved) and may evaluate it on every rank's whole data and report that."""
    steps = [e.order for e in training_events(f)]
    if not steps:
        return None
    return next((u for u in f.unread_on_path if u.kind == "absent" and not u.handed and u.event.order > max(steps)
                 and not u.event.node.args and not u.event.node.keywords and result_discarded(u.event.node)), None)


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
    if _periodic(e, last):
        return None  # `if step % log_every == 0:` logs the latest step's value, not an epoch's summary
    # (`mu = x if mu is None else mu + x` adds to what the name held: a sum over the loop, not its last value)
    if inner and isinstance(last.node, ast.Assign) and not isinstance(last.node.value, (ast.BinOp, ast.Name)) and \
            not any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(last.node.value)):
        return Finding(WRONG, f"line {e.line} averages `{name}`, set at line {last.line} inside a loop that ended: "
                       "the last batch's value, reported as the whole epoch's", e.line,
                       f"accumulate `{name}` over the loop (sum and count), then average the totals")
    return None


def _periodic(e, last):
    """The average runs under a condition the value's assignment does not share that tests a remainder
    (`if step % args.log_every == 0:`): a log every N steps, inside the training loop, of the step just
    taken."""
    shared = {id(g.test) for g in last.ctx.guards}
    return any(remainders(g.test) for g in e.ctx.guards if id(g.test) not in shared)


def _reports(f):
    """Calls that report a metric (print, a logger, TensorBoard, ...): a value they print comes from the model
    (evaluation.metric_value); where a printed name cannot be followed (a parameter Keras fills), the words
    printed with it say it is a loss, an accuracy, a score. A report that prints the rank beside its values,
    or one of the branches of a test on the rank that each report (`if hvd.rank() == 0: log("loss/0", x)
    else: log("loss/1", x)`), is each rank's own log by design, not the job's metric."""
    if getattr(f, "_rules_b_reports", None) is None:
        out = []
        reporting = _reporting(f)
        branches = {(id(g.test), g.branch) for e in reporting for g in f.rank_guards(e)}
        for e in reporting:
            values = _report_values(e.node)
            if not _rank0_only(f, e) and any(depends_on_rank(f, v, e) or depends_on_rank(f, v, e, local=True)
                                           for v in values):
                continue  # every rank prints its own, labelled with its rank
            if any((id(g.test), not g.branch) in branches for g in f.rank_guards(e)):
                continue  # rank 0 and the others each report their own, in the two branches of a rank test
            found = [metric_value(f, v, e) for v in values]
            if True in found or None in found and names.REPORTED.search(ast.unparse(e.node)):
                out.append(e)
        f._rules_b_reports = out
    return f._rules_b_reports


def _reporting(f):
    """Every call that prints or logs what it is given (REPORTERS, and the project's logging helpers), metric
    or not."""
    reporting = [e for e in f.s.events if f.s.qual(e.node.func).split(".")[-1] in names.REPORTERS
                 and not _arithmetic(f.s.qual(e.node.func))]
    return reporting + _reporting_helpers(f, reporting)


def _arithmetic(qual):
    """A numeric library's function spelled like a logger's method: `np.log(p)`, `torch.add(a, b)`,
    `tf.math.log(x)` compute; they report nothing."""
    return qual.split(".")[-1] in ("log", "add") and qual.split(".")[0] in (
        "numpy", "math", "torch", "tensorflow", "jax", "scipy")


def _sums_a_mean(f, e):
    """The allreduce sums a mean (`hvd.allreduce(torch.tensor(np.mean(rets)), op=hvd.Sum)`, a value divided
    by a count): a sum of per-rank means is hvd.size() times the mean, whatever the value measures."""
    call = e.node
    value = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "tensor"), None)
    return value is not None and any(
        isinstance(n, ast.Call) and (f.s.qual(n.func).split(".")[-1] or getattr(n.func, "attr", "")) in (
            "mean", "reduce_mean", "nanmean", "average")
        or isinstance(n, ast.BinOp) and isinstance(n.op, ast.Div) for x, _ in sources(f, value, e)
        for n in ast.walk(x))


_A_MEAN = re.compile(r"\b(avg|average|mean)\b", re.I)
_A_TOTAL = re.compile(r"\b(total|sum|summed|aggregate)\b", re.I)


def _called_a_mean(call):
    """The report's own words call its value a mean ("eval return (avg over workers)"), and none a total: a
    sum of per-rank rates printed as "Total img/sec" is the job's throughput, rightly summed."""
    text = ast.unparse(call)
    return bool(_A_MEAN.search(text)) and not _A_TOTAL.search(text)


def _reporting_helpers(f, reporting):
    """Calls of the project's own functions that report what they are given (`emit("epoch_end",
    val_loss=val_loss)` with `def emit(event, **fields): log.info(json.dumps({..., **fields}))`): a report
    inside prints the function's `**fields` (or `*args`), so the call is the report, its arguments the values.
    A helper that prints one named parameter (a path it saved to) is not taken for a metric's report."""
    calls = set()
    for e in reporting:
        fr = e.ctx.frames[-1] if e.ctx.frames else None
        if fr is None or fr.call is None:
            continue
        a = fr.func.args
        params = {x.arg for x in (a.vararg, a.kwarg) if x}  # a helper that logs whatever fields it is given
        if any(isinstance(n, ast.Name) and n.id in params for v in _report_values(e.node) for n in ast.walk(v)):
            calls.add(id(fr.call))
    return [e for e in f.s.events if id(e.node) in calls]


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
    loops = {}  # one evaluation function run twice (under --test-only, then each epoch): both calls' frames
    for ev in parts:
        if ev.loop is not None:
            loops.setdefault(id(ev.loop), []).append(running(ev.event, ev.loop))
    calls = {id(ev.event.node) for ev in parts if ev.loop is None}
    for expr, a in sources(f, node, at):
        if _in_loops(a, a.ctx.loops, loops) or _updated_in(f, expr, a, loops):
            return True
        if depth < 4 and any(_from_evaluations(f, v, e, parts, depth + 1) for n in ast.walk(expr)
                             if isinstance(n, (ast.Name, ast.Attribute)) for v, e in mutations(f, n, a)):
            return True  # `history[-1]` after `history.append(float(val.result()))`
        for n in ast.walk(expr):
            if _in_loops(a, [n], loops):
                return True  # sum(loss(model(a), b) for a, b in loader): the evaluation is the expression
            if depth < 4 and isinstance(n, ast.Name) and any(
                    _from_evaluations(f, it, a, parts, depth + 1) for it in iterated(f, n)):
                return True  # `for h, r in zip(hyps, refs): matches += ...` over what the evaluation decoded
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
    func = f.s.defined(node.func) if isinstance(node.func, (ast.Name, ast.Attribute)) else None
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    return _averages_inside(f, func) if deep else _allreduces_itself(f, func)


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


def _averaged(f, node, at):
    """The value, where the event `at` reads it, depends on an average over ranks: through assignments,
    through values put into the object it holds (`losses.append(avg(x))`), or through an object a method of
    which averages before `at` (`meter.sync()` allreducing inside, then `meter.value()` reported): the same
    object by the call that made it, not by its name."""
    if f.mentions(node, lambda n: _averaging(f, n)) or _fit_averaged(f, node):
        return True
    # what is put into the objects its value is made of, as _from_evaluations follows them (`best =
    # min(scores, key=scores.get)` after `scores[trial] = run_trial(...)` returning an average)
    found = sources(f, node, at)[1:]
    if any(_fit_averaged(f, it) for expr, _ in [(node, at)] + found for n in ast.walk(expr)
           if isinstance(n, ast.Name) for it in _iterated(f, n)):
        return True  # `for e, v in enumerate(hist.history["val_loss"]): print(...)`: v of the fit's history
    if any(f.mentions(v, lambda n: _averaging(f, n)) for expr, a in found for sub in ast.walk(expr)
           if isinstance(sub, (ast.Name, ast.Attribute)) and dotted(sub) for v, _ in mutations(f, sub, a)):
        return True
    # the values that reach it (`v` of `for k, v in metrics.items()` with `metrics = {"val": float(avg)}`)
    if any(f.mentions(expr, lambda n: _averaging(f, n)) for expr, _ in found):
        return True
    for sub in ast.walk(node):
        if not isinstance(sub, (ast.Name, ast.Attribute)) or not dotted(sub):
            continue
        if any(f.mentions(v, lambda n: _averaging(f, n)) for v, _ in mutations(f, sub, at)):
            return True
        made = {id(c) for c, _ in makers(f, sub, at)}
        if made and any(e.order < at.order and isinstance(e.node.func, ast.Attribute) and _averaging(f, e.node)
                        and made & {id(c) for c, _ in makers(f, e.node.func.value, e)} for e in f.s.events):
            return True
    return False


def _iterated(f, name):
    """What a loop's variable takes its items from: the loop's iterable where a `for` binds the name (its
    target, or an element of it)."""
    out = []
    for d in f.s.reaching(name) or ():
        loop = next((p for p in parents(d) if isinstance(p, (ast.For, ast.AsyncFor))), None)
        if loop is not None and any(n is d for n in ast.walk(loop.target)):
            out.append(loop.iter)
    return out


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
    return barrier or agree or any(e is g for g in f.gradient_allreduces)
