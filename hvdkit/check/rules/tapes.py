"""Step 5 for TensorFlow's own loops: are the gradients an optimizer applies averaged over the ranks?

`opt.apply_gradients(zip(grads, variables))` with a plain optimizer averages nothing itself; the gradients
must come from a tape Horovod wrapped (`hvd.DistributedGradientTape(tape).gradient(...)`) or be allreduced
by hand. A GAN whose discriminator's gradients come from the plain `d_tape`, or a step that applies
`averaged + tape.gradient(loss, other_vars)`, steps part of the model with this rank's own gradients.
Judged by the values that reach the call (tapes bound by `with ... as` included), never by names; a value
the pass cannot follow (a helper's clipping, a library call) gives no verdict.
"""
import ast

from hvdkit.check.rules.held import reaching
from hvdkit.check.rules.models import wrapper
from hvdkit.check.script import dotted

_MAX_DEPTH = 6


def unaveraged_apply(f, plain_optimizer):
    """(apply event, the plain `.gradient()` call whose result it applies) for the first apply_gradients of
    an optimizer no wrapper took (`plain_optimizer(f, node, at)` is not None) that applies gradients of an
    unwrapped tape; else None."""
    return next(((s, culprit) for s, culprit, _ in unaveraged_applies(f, plain_optimizer)), None)


def unaveraged_applies(f, plain_optimizer):
    """(apply event, plain `.gradient()` call, what plain_optimizer found) for every such apply_gradients."""
    for s in f.s.events:
        func = s.node.func
        if getattr(func, "attr", "") != "apply_gradients" or not s.ctx.reached or f.off_path(s):
            continue
        grads = s.node.args[0] if s.node.args else next(
            (k.value for k in s.node.keywords if k.arg == "grads_and_vars"), None)
        plain = plain_optimizer(f, func.value, s) if grads is not None else None
        if plain is None:
            continue
        averaged, culprit = _averaged(f, grads, s, 0)
        if averaged is False:
            yield s, culprit, plain


def _averaged(f, node, at, depth):
    """(True / False / None, the plain gradient call when False): the value holds gradients averaged over the
    ranks, this rank's own (part of it is enough), or cannot be told."""
    if depth > _MAX_DEPTH or node is None:
        return None, None
    down = lambda n, a=at: _averaged(f, n, a, depth + 1)  # noqa: E731 - a local shorthand
    if isinstance(node, ast.Call):
        api = f.s.api(node.func)
        if wrapper(f, node) or api and "allreduce" in api[1]:
            return True, None
        attr = getattr(node.func, "attr", "")
        if attr == "gradient" and isinstance(node.func, ast.Attribute):
            tape = _tape_wrapped(f, node.func.value, at)
            return tape, (node if tape is False else None)
        if (f.s.qual(node.func) in ("zip", "list", "tuple") or _keeps_gradients(f, node)) and node.args:
            return down(node.args[0])
        return None, None
    if isinstance(node, ast.Subscript):  # `tf.clip_by_global_norm(grads, 1.0)[0]`
        return down(node.value)
    if isinstance(node, (ast.ListComp, ast.GeneratorExp)) and len(node.generators) == 1:
        # `[hvd.allreduce(g) for g in grads]` averages; `[tf.clip_by_norm(g, 1.0) for g in grads]` keeps what
        # grads holds; anything else is a computation the pass does not follow
        elt, var = node.elt, node.generators[0].target
        api = f.s.api(elt.func) if isinstance(elt, ast.Call) else None
        if api and "allreduce" in api[1]:
            return True, None
        kept = elt.args[0] if isinstance(elt, ast.Call) and _keeps_gradients(f, elt) and elt.args else elt
        if isinstance(kept, ast.Call) and isinstance(kept.func, ast.Attribute) and kept.func.attr in _READS \
                and not kept.args:
            kept = kept.func.value  # `[a.read_value() for a in self.accum]`: the accumulators' contents
        if isinstance(kept, ast.Name) and isinstance(var, ast.Name) and kept.id == var.id:
            accumulated = _accumulated(f, node.generators[0].iter, depth)
            return accumulated if accumulated[0] is not None else down(node.generators[0].iter)
        return None, None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):  # `depth_grads + pose_grads`
        parts = [down(node.left), down(node.right)]
        plain = next((p for p in parts if p[0] is False), None)
        if plain is not None:
            return plain
        return (True, None) if all(p[0] for p in parts) else (None, None)
    if isinstance(node, (ast.Name, ast.Attribute)):
        values = [down(v, a) for v, a in reaching(f, node, at) if not f.off_path(a)]
        if values and all(v[0] is False for v in values):
            return values[0]
        return (True, None) if values and all(v[0] for v in values) else (None, None)
    return None, None


_READS = ("read_value", "value")


def _accumulated(f, accumulators, depth):
    """What gradient accumulators hold: the gradients added into them, `for a, g in zip(self.accum, grads):
    a.assign_add(g)` (the adds found by the accumulators' spelling in the zip); (None, None) when no add is
    seen."""
    key, found = dotted(accumulators), []
    for e in f.s.events if key else ():
        func = e.node.func
        if not (isinstance(func, ast.Attribute) and func.attr == "assign_add" and isinstance(func.value, ast.Name)
                and e.node.args and e.ctx.reached):
            continue
        for lp in e.ctx.loops:
            if isinstance(lp, ast.For) and isinstance(lp.target, ast.Tuple) and isinstance(lp.iter, ast.Call) and \
                    dotted(lp.iter.func) == "zip" and len(lp.iter.args) == len(lp.target.elts):
                slots = [getattr(t, "id", None) for t in lp.target.elts]
                if func.value.id in slots and dotted(lp.iter.args[slots.index(func.value.id)]) == key:
                    added = e.node.args[0]
                    if isinstance(added, ast.Name) and added.id in slots:  # the gradient the zip pairs with it
                        found.append(_averaged(f, lp.iter.args[slots.index(added.id)], e, depth + 1))
    if found and all(v[0] is False for v in found):
        return found[0]
    return (True, None) if found and all(v[0] for v in found) else (None, None)


# TensorFlow's clipping: the gradients it returns are those it is given, rescaled alike on every rank when
# they were averaged (the global norm of averaged gradients is the same everywhere).
_CLIPS = ("clip_by_global_norm", "clip_by_norm", "clip_by_value")


def _keeps_gradients(f, call):
    q = f.s.qual(call.func)
    return q.startswith("tensorflow.") and q.split(".")[-1] in _CLIPS


def _tape_wrapped(f, tape, at):
    """True: the tape is Horovod's wrapper; False: a plain tf.GradientTape (assigned, or bound by `with
    tf.GradientTape() as tape`); None: cannot tell."""
    # A name's definitions first: `with tf.GradientTape() as tape:` binds a new plain tape even after an
    # earlier `tape = hvd.DistributedGradientTape(tape)` in the same function (a second network's update).
    defs = (f.s.reaching(tape) or ()) if isinstance(tape, ast.Name) else ()
    bound = [getattr(d, "parent", None) for d in defs]
    if bound and all(isinstance(w, ast.withitem) and w.optional_vars is d and _plain_tape(f, w.context_expr)
                     for w, d in zip(bound, defs)):
        return False
    values = reaching(f, tape, at)
    if values:
        if any(isinstance(v, ast.Call) and wrapper(f, v) for v, _ in values):
            return True
        return False if all(_plain_tape(f, v) for v, _ in values) else None
    return None


def _plain_tape(f, value):
    return isinstance(value, ast.Call) and f.s.qual(value.func).split(".")[-1] == "GradientTape" and \
        not wrapper(f, value)
