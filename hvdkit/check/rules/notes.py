"""Observations that are not a step's verdict."""
import ast

from hvdkit.check.rules.evaluation import data_per_rank, validation_inputs


def judge(f):
    """Observations that are not a step's verdict."""
    prints = [e for e in f.s.events if f.s.qual(e.node.func) == "print" and e.ctx.loops and e.ctx.reached
              and not f.rank_guards(e)]
    if prints:
        f.notes.append(f"line {prints[0].line}: printed from every rank inside a loop (hvd.size() copies): "
                       "guard with hvd.rank() == 0")
    calls = [e for e in f.s.events if isinstance(e.node.func, ast.Attribute) and e.node.func.attr == "variables"
             and not e.node.args and "tensorflow" in f.frameworks]
    if calls:
        f.notes.append(f"line {calls[0].line}: `.variables()` fails on stock Keras 3, where variables is a list "
                       "(hvdkit's patched Horovod makes it callable): write `.variables`")
    for e in f.fits:
        kw = {k.arg for k in e.node.keywords}
        given = validation_inputs(e.node)
        if given and all(data_per_rank(f, v, e) is False for v in given) and "validation_steps" not in kw:
            # validation_steps // size on an unshuffled finite set has every rank read the same first batches
            f.notes.append(f"line {e.line}: every rank validates on the whole validation set (hvd.size() times the "
                           "work): shard it (.shard(hvd.size(), hvd.rank())) and average the metrics with "
                           "hvd.callbacks.MetricAverageCallback()")
    return f.notes
