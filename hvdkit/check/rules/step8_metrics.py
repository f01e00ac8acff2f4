"""Step 8: the metrics reported are averaged over the ranks (or every rank saw the same data)."""
import ast
import re

from hvdkit.check import names
from hvdkit.check.findings import MISSING, OK, UNKNOWN, WRONG, Finding
from hvdkit.check.script import assigned_name, dotted


def judge(f):
    avgs = [e for e in f.s.events if f.api(e, *names.METRIC_AVERAGERS) and not re.search(r"grad", ast.unparse(e.node), re.I)]
    for e in avgs:
        if f.api(e, "MetricAverageCallback") and not f.flows_to_callbacks(e):
            return Finding(WRONG, f"MetricAverageCallback made at line {e.line} is never passed to fit", e.line,
                           "add it to fit(callbacks=[...]), before other metric-based callbacks")
        if f.rank_guards(e):
            return Finding(WRONG, f"metrics averaged at line {e.line} on some ranks only: the collective hangs or "
                           "mixes with others", e.line, "average on every rank, then print on rank 0")
        kw = {k.arg: ast.unparse(k.value) for k in e.node.keywords}
        if names.SUM_OPS.match(kw.get("op", "x").split(".")[-1]) or kw.get("average") == "False":
            if not _divided_later(f, e):
                return Finding(WRONG, f"line {e.line} sums a metric over ranks and reports the sum as its value",
                               e.line, "divide the summed total by the summed count")
        elif f.api(e, "allreduce", "allreduce_") and e.node.args and f.mentions(e.node.args[0], _is_division):
            return Finding(WRONG, f"line {e.line} averages per-rank means: exact only if every rank saw the same "
                           "number of samples (uneven shards, a short last batch, padded samplers)", e.line,
                           "allreduce the (sum, count) pair with op=hvd.Sum, then divide")
    if avgs:
        return Finding(OK, f.text(avgs[0].line), avgs[0].line)
    reports = [e for e in f.s.events if f.s.qual(e.node.func).split(".")[-1] in ("print", "info", "print0", "log", "add")
               and names.REPORTED.search(ast.unparse(e.node)) and e.ctx.reached]
    if f.fits:
        return Finding(MISSING, "fit's metrics are each rank's own (rank 0's shard in the log)", f.fits[0].line,
                       "callbacks=[hvd.callbacks.MetricAverageCallback(), ...]")
    if reports:
        who = "rank 0's alone" if f.rank_guards(reports[0]) else "each rank's own"
        return Finding(MISSING, f"the metrics reported (line {reports[0].line}) are {who}: never averaged over ranks",
                       reports[0].line, "allreduce (sum, count) pairs, then divide: hvd.allreduce(t, op=hvd.Sum)")
    return Finding(UNKNOWN, "no metric is reported", None, None)


def _is_division(n):
    return isinstance(n, (ast.BinOp, ast.AugAssign)) and isinstance(n.op, (ast.Div, ast.FloorDiv))


def _divided_later(f, e):
    name = assigned_name(e.node)
    parent = getattr(e.node, "parent", None)
    if isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Div):
        return True
    return bool(name) and any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Div) and name in
                              {dotted(x) for x in ast.walk(n)} for n in ast.walk(f.s.tree))


