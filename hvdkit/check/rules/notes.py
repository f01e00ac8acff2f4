"""Observations that are not a step's verdict."""
import ast



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
        if any(k.arg in ("validation_data", "validation_split") for k in e.node.keywords) and not any(
                k.arg == "validation_steps" for k in e.node.keywords):
            f.notes.append(f"line {e.line}: every rank validates on the whole validation set (hvd.size() times the "
                           "work); shard it or pass validation_steps // hvd.size()")
    return f.notes
