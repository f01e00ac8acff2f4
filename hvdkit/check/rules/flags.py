"""The condition a fault hides behind, named as the user would turn it on: `--amp` for `if args.amp:`.

A fault behind a flag that is off by default is still a fault of the script (the user who passes the flag
gets it), so the rules report it as wrong with the condition in the evidence ("with --amp: ..."), instead
of passing the script as ok because the default run never reaches the faulty line."""
import ast

from hvdkit.check.facts import same_walk
from hvdkit.check.rules.held import reaching
from hvdkit.check.script import dotted
from hvdkit.check.values import RANK, Evaluator, Where, truthy


def condition(f, event):
    """'with --amp: ' (or 'when `cfg["fp16"]`: ') for the conditions around `event` that do not hold for
    sure on the first step and that not every optimizer step of its walk shares (the script's path: a
    condition around the whole training decides whether the script trains, not whether this part runs);
    '' when it runs whenever the training does."""
    steps = [s for s in f.steps if same_walk(s, event)]
    shared = set.intersection(*[{(id(g.test), g.branch) for g in s.ctx.guards} for s in steps]) if steps else set()
    words = []
    for g in event.ctx.guards:
        if (id(g.test), g.branch) in shared:
            continue
        value = truthy(f.ev.value(g.test, g.frame, event))
        if value is g.branch or value == RANK or _varies(f, g.test, event):
            continue  # holds on the first step, or is a rank test, or changes as training goes: no setting
        words.append(_describe(f, g.test, g.branch))
    return f"{' and '.join(words)}: " if words else ""


def _varies(f, test, event):
    """The condition reads a value that changes as training goes: a loop variable of a loop around the
    event, a counter, or a value assigned inside such a loop (`epoch % 5 == 4`, `acc > best`)."""
    loops = [lp for lp in event.ctx.loops if isinstance(lp, (ast.For, ast.AsyncFor, ast.While))]
    bound = {n.id for lp in loops if not isinstance(lp, ast.While) for n in ast.walk(lp.target)
             if isinstance(n, ast.Name)}
    for n in ast.walk(test):
        if not isinstance(n, (ast.Name, ast.Attribute)) or dotted(n) is None:
            continue
        if dotted(n) in bound:
            return True
        for _, a in reaching(f, n, event):
            if isinstance(a.node, ast.AugAssign) or any(lp is m for lp in a.ctx.loops for m in loops):
                return True
        if any(isinstance(a.node, ast.AugAssign) for a in f.s.assignments_to(dotted(n))):
            return True
    return False


def _describe(f, test, branch):
    negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
    inner = test.operand if negated else test
    branch = branch != negated
    option = _option(f, inner)
    if option:
        return f"with {option}" if branch else f"without {option}"
    text = ast.unparse(inner)
    return f"when `{text}`" if branch else f"unless `{text}`"


def _option(f, node):
    """The command-line option behind `args.amp` (any object's `.amp`): the declared `--amp` whose
    destination is `amp`; None when no add_argument declares it."""
    name = dotted(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
    if not name or "." not in name:
        return None
    dest = name.rsplit(".", 1)[1]
    for e in f.s.events:
        if getattr(e.node.func, "attr", "") != "add_argument":
            continue
        flags = [a.value for a in e.node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        given = next((k.value.value for k in e.node.keywords if k.arg == "dest" and isinstance(k.value, ast.Constant)),
                     None)
        longs = [s for s in flags if s.startswith("--")] or flags
        if not longs:
            continue
        declared = given or longs[0].lstrip("-").replace("-", "_")
        if declared == dest:
            return longs[0]
    return None


def enabled_by(f, call, at):
    """'with --amp: ' when a library object made by `call` is turned on by an `enabled=` keyword that is
    false with the options' declared defaults (`GradScaler(enabled=args.amp and use_cuda)` with `--amp` off
    by default: a pass-through unless the user asks for AMP); '' otherwise."""
    enabled = next((k.value for k in call.keywords if k.arg == "enabled"), None)
    if enabled is None:
        return ""
    ev = Evaluator(f.s, Where(0, True, defaults=True))
    if truthy(ev.value(enabled, None, at)) is not False:
        return ""
    options = [o for n in ast.walk(enabled) for o in [_option(f, n)] if o]
    return f"with {' and '.join(dict.fromkeys(options))}: " if options else f"when `{ast.unparse(enabled)}`: "

