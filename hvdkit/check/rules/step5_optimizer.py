"""Step 5: gradients averaged over the ranks before every optimizer step."""
import ast
from typing import NamedTuple

from hvdkit.check import mappings, names, values
from hvdkit.check.facts import handed, same_walk
from hvdkit.check.findings import MISSING, OK, WRONG, Finding
from hvdkit.check.rules.flags import condition, enabled_by
from hvdkit.check.rules.held import Ref, holds, origin, reaching, resolve, returned, sources
from hvdkit.check.rules.models import is_model, wrapper
from hvdkit.check.rules.optimizers import lr_expr
from hvdkit.check.rules.tapes import unaveraged_apply, unaveraged_applies
from hvdkit.check.sources import derived, sources as flow_sources, unpacked
from hvdkit.check.project import module_of
from hvdkit.check.script import (assigned_name, dotted, enclosing_def, loop_bindings, parents, remainders,
                                 result_discarded, sums)
from hvdkit.check.values import Evaluator, Where, off_by_default


def judge(f):
    wraps = [e for e in f.s.events if f.api(e, *names.WRAPPERS) and e.ctx.reached]
    by_hand = gradient_allreduces(f)
    if not wraps and not by_hand:
        return _unread_averaging(f) or Finding(
            MISSING, "gradients are never averaged over ranks: each rank steps with its own", None,
            "opt = hvd.DistributedOptimizer(opt) (Keras/torch) or tape = hvd.DistributedGradientTape(tape)")
    # (never on any step: `if rnd > 0:` of a loop over rounds is false on the first only)
    never = [e for e in wraps if f.guard_kind(e) == "never" and f.runs(e, first_step=False).kind == "never"]
    if never and len(never) == len(wraps) and not by_hand:
        e = never[0]
        test = " and ".join(ast.unparse(g.test) for g in e.ctx.guards)
        return Finding(WRONG, f"the wrapper at line {e.line} is behind `{test}`, which is false here (the "
                       "values the walked calls give it): gradients are never averaged", e.line,
                       "wrap unconditionally, or pass the flag that turns it on")
    off = _off_by_default(f, wraps) if not by_hand else None
    if off is not None:
        return off
    periodic = _wrapped_periodically(f, wraps) if not by_hand else None
    if periodic is not None:
        return periodic
    summed = []
    for e in wraps:
        kw = {k.arg: k.value for k in e.node.keywords}
        if result_discarded(e.node):
            return Finding(WRONG, f"the wrapper made at line {e.line} is thrown away", e.line,
                           "assign it: opt = hvd.DistributedOptimizer(opt) / tape = hvd.DistributedGradientTape(tape)")
        if sums(e.node) or (isinstance(kw.get("average"), ast.Constant) and kw["average"].value is False):
            summed.append(e)
        typo = _unknown_keyword(f, e)
        if typo:
            return Finding(WRONG, f"line {e.line} passes `{typo}=`, which {e.api[1]} does not take: Horovod raises "
                           "TypeError there, so gradients are never averaged", e.line,
                           f"spell it as in Horovod's signature ({', '.join(names.signature(_horovod_qual(e))[1:])})")
        unused = (_unwrapped_used(f, e) or _unsynchronized(f, e) or _used_up_names(f, e) or _named_parameters(f, e)
                  or _gradient_before_wrapping(f, e) or _accumulated(f, e) or _group_added_after(f, e)
                  or _unfrozen_after(f, e, wraps))
        if unused:
            return unused
    summed += [e for e in by_hand if sums(e.node) and not _divided_by_size(f, e.node)]
    for e in summed:
        # A sum over N ranks with the LR of one rank is the average with the LR times N: the same update.
        # Only a sum on top of an LR already scaled by hvd.size() is N times too large.
        scaled = _scaled_lr(f, e)
        if scaled is not None:
            return Finding(WRONG, f"gradients summed, not averaged (line {e.line}), on top of the LR scaled by "
                           f"hvd.size() at line {scaled.line}: each step is hvd.size() times too large", e.line,
                           "use op=hvd.Average (the default), or divide the sum by hvd.size()")
    second = _unaveraged_step(f, wraps)
    if second is not None:
        return second
    applied = unaveraged_apply(f, _plain_optimizer) if wraps or by_hand else None
    if applied is not None:
        s, grad = applied
        return Finding(WRONG, f"the gradients applied at line {s.line} come from a tape Horovod did not wrap "
                       f"({ast.unparse(grad)[:60]}, line {grad.lineno}): that part of the model steps with this "
                       "rank's own gradients", grad.lineno,
                       "wrap that tape too: tape = hvd.DistributedGradientTape(tape), or allreduce its gradients")
    if summed:
        e = summed[0]
        return Finding(OK, f"gradients summed over ranks (line {e.line}) with an LR not scaled by hvd.size(): the "
                       "same update as averaging with the LR scaled", e.line)
    e = (wraps or by_hand)[0]
    return Finding(OK, f.text(e.line), e.line)


def _wrapped_periodically(f, wraps):
    """Every wrapper of the tape is behind a test of a step counter modulo K (`if step % sync_every == 0:`, K
    more than 1 with the options' defaults) while the gradients are applied on every step, outside that test:
    on the other steps each rank applies its own gradients, and the replicas drift apart."""
    tapes = [e for e in wraps if f.api(e, "DistributedGradientTape")]
    if not tapes or len(tapes) != len(wraps):
        return None
    ev = values.Evaluator(f.s, values.Where(0, False, defaults=True))
    found = []  # (tape, its test, the applies outside it), for every tape
    for e in tapes:
        test = next((g for g in e.ctx.guards if g.branch is True and _every_kth(f, ev, g, e)), None)
        if test is None:
            return None
        applies = [a for a in f.s.events if a.ctx.reached and getattr(a.node.func, "attr", "") == "apply_gradients"
                   and a.ctx.frames[-1:] == e.ctx.frames[-1:] and not any(g.test is test.test for g in a.ctx.guards)]
        if not applies:
            return None
        found.append((e, test, applies))
    e, test, applies = found[0]
    return Finding(WRONG, f"the tape is wrapped at line {e.line} only when `{ast.unparse(test.test)}`, but the "
                   f"gradients are applied on every step (line {applies[0].line}): on the other steps each rank "
                   "applies its own, and the replicas drift apart", e.line,
                   "wrap the tape on every step (to average less often, accumulate and apply only on the sync steps)")


def _every_kth(f, ev, guard, e):
    """`x % K == 0` with K more than 1 on the default run (the test itself, or the value handed to the parameter
    it reads): true one step in K."""
    test = guard.test
    if isinstance(test, ast.Name) and guard.frame is not None and test.id in guard.frame.bindings:
        test = guard.frame.bindings[test.id].expr  # `if sync:` with `sync` handed `step % k == 0`
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq) and \
            isinstance(test.left, ast.BinOp) and isinstance(test.left.op, ast.Mod):
        k = ev.value(test.left.right, None, e)
        if k is None:  # `--sync-every` defaulting to `int(os.environ.get("SYNC_EVERY", 4))`: 4 unless exported
            flag = f.ev.flag(test.left.right, None)
            reads = [c for c in ast.walk(flag.default) if isinstance(c, ast.Call) and len(c.args) == 2 and f.s.qual(
                c.func) in ("os.environ.get", "os.getenv")] if flag is not None and flag.default is not None else []
            k = next((c.args[1].value for c in reads if isinstance(c.args[1], ast.Constant)), None)
        return isinstance(k, int) and not isinstance(k, bool) and k > 1
    return False


def _off_by_default(f, wraps):
    """Every wrapper runs only under an option that is off by default (`if cfg.allreduce_grads:` with the
    dataclass field False and the config file not setting it): a run with the defaults averages nothing."""
    offs = [values.off_by_default(f.s, e, f.path_guards(e)) if f.guard_kind(e) == "unknown" else []
            for e in wraps]
    if not wraps or not all(offs):
        return None
    e, options = wraps[0], sorted({o for off in offs for o in off})
    return Finding(WRONG, f"the wrapper at line {e.line} runs only when {', '.join(options)} is set, which is off "
                   "by default: a run with the defaults never averages gradients", e.line,
                   "wrap on every run, not only when that option is set")


def _unread_averaging(f):
    """Finding(cannot tell) when no averaging is seen but code that could not be read could average: a call
    into it handed Horovod (Facts.hands_horovod); or, where that code could do Horovod's work itself
    (Facts.acts_itself: the project's own code, or a library's that knows Horovod), code not read that is
    the step itself: it made the optimizer a training step steps with (`opt = hvd_utils.distributed(opt)`,
    `model.compile(optimizer=build_optimizer(cfg))`: a wrapper, maybe), or the training call runs it (a
    Trainer's `fit`, the fit of a Keras model whose class is not read: its own train_step may wrap the
    tape); with no training call seen at all, a call whose result is unused, into such code or a method of
    an object it made (`trainer.train()`). A framework's optimizer class is known: it wraps nothing."""
    calls = [(u.event.node, u) for u in f.unread_on_path if f.hands_horovod(u) and f.handed_training(u)]
    for s in f.steps:
        if f.off_path(s):
            continue
        u = f.unread_code(s.node)
        if u is not None and f.acts_itself(u, 5):
            calls.append((s.node, u))
        for opt in _stepped_optimizers(f, s):
            u = f.unread_maker(opt)
            if u is not None and f.acts_itself(u, 5) and not _optimizer_class(f, u.event.node) and \
                    not names.LIBRARY_OPTIMIZER.match(f.s.qual(u.event.node.func)):
                calls.append((u.event.node, u))
    fits = [s for s in f.steps if getattr(s.node.func, "attr", "") in ("fit", "fit_generator", "train_on_batch")]
    if fits and not any(getattr(e.node.func, "attr", "") == "compile" and e.ctx.reached for e in f.s.events):
        # a Keras model fit but compiled nowhere in the code read: the code not read that is handed the model
        # (or an object such code made) for what it does to it (`compile_model(model, lr)`, its result unused)
        # compiles it, with a wrapped optimizer maybe
        calls += [(u.event.node, u) for u in f.unread_on_path if f.acts_itself(u, 5) and
                  result_discarded(u.event.node) and any(is_model(f, a, u.event) or f.unread_maker(a) is not None
                                                         for a in handed(u.event.node))]
    if not f.steps:
        # the steps run in code not read; an optimizer handed to such code and given back (`optimizer =
        # dist.wrap_and_sync(optimizer, head)`) may come back wrapped
        made = {id(o.node) for o in f.optimizers}
        calls += [(u.event.node, u) for u in f.unread_on_path if f.acts_itself(u, 5) and
                  not result_discarded(u.event.node) and any(
                      f.mentions(a, lambda n: id(n) in made) for a in handed(u.event.node))]
        for e in f.s.events:
            u = f.unread_code(e.node) if e.ctx.reached and result_discarded(e.node) and not f.off_path(e) else None
            if u is not None and f.acts_itself(u, 5) and (e.node is not u.event.node or handed(e.node)):
                calls.append((e.node, u))
    calls.sort(key=lambda c: c[0].lineno)
    return f.cannot_tell("gradient averaging", calls)


def _stepped_optimizers(f, s):
    """The expressions holding the optimizer a training call steps with: the receiver of `opt.step()` (the
    optimizer a GradScaler steps), or the optimizer compiled into the model a Keras fit trains."""
    attr = s.node.func.attr
    if attr in ("fit", "fit_generator", "train_on_batch"):
        compiled = _compiled(f, s)
        return [compiled[0]] if compiled is not None else []
    receiver = s.node.func.value
    if attr == "step" and s.node.args and f.mentions(receiver, _grad_scaler(f)):
        return [s.node.args[0]]
    return [receiver]


def _unwrapped_used(f, e):
    """`dtape = DistributedGradientTape(tape)` then `tape.gradient(...)`: the wrapper is never the one used."""
    new, old = assigned_name(e.node), dotted(e.node.args[0]) if e.node.args else None
    if not new or not old or new == old:
        return None
    methods = ("gradient", "step", "apply_gradients", "minimize")
    used = lambda who: [x for x in f.s.events if x.order > e.order and isinstance(x.node.func, ast.Attribute)  # noqa
                        and x.node.func.attr in methods and dotted(x.node.func.value) == who]
    passed = lambda who: [x for x in f.s.events if x.order > e.order and any(  # noqa: E731
        k.arg == "optimizer" and dotted(k.value) == who for k in x.node.keywords)]
    # a name spelled as the unwrapped one that holds the wrapper (`optimizer`, a parameter of the project's
    # `train_one_epoch(model, optimizer, ...)` handed `self.optimizer`) is no use of the unwrapped one
    unwrapped = [x for x in used(old) + passed(old) if not any(o is e.node for o in f.origins(
        x.node.func.value if x in used(old) else next(k.value for k in x.node.keywords if k.arg == "optimizer")))]
    if unwrapped and not (used(new) or passed(new)):
        x = unwrapped[0]
        return Finding(WRONG, f"line {e.line} wraps `{old}` as `{new}`, but line {x.line} uses the unwrapped `{old}`: "
                       "gradients are not averaged", x.line,
                       f"use `{new}` there (or assign the wrapper back to `{old}`)")
    return None


def _scaled_lr(f, e):
    """The optimizer construction, among those the summing wrapper (or any, for a sum by hand) takes, whose
    LR grows with hvd.size(); None when none is seen scaled."""
    opts = f.optimizers
    given = e.node.args[:1] + [k.value for k in e.node.keywords if k.arg == "optimizer"]
    mine = [o for o in opts if any(f.mentions(g, lambda n, o=o: n is o.node) for g in given)]
    for o in mine or opts:
        expr = lr_expr(f, o)
        if expr is None or expr is mappings.UNRESOLVED:
            continue
        if f.lr_scaled_once(expr):
            return o
    return None


def _horovod_qual(e):
    """hvdkit re-exports Horovod's modules (hvdkit.torch.hvd is horovod.torch)."""
    q = e.qual
    for mine, theirs in (("hvdkit.torch.hvd.", "horovod.torch."), ("hvdkit.tensorflow.hvd.", "horovod.tensorflow.")):
        if q.startswith(mine):
            return theirs + q[len(mine):]
    return q


def _unknown_keyword(f, e):
    accepted = names.signature(_horovod_qual(e))
    if accepted is None:
        return None
    return next((k.arg for k in e.node.keywords if k.arg and k.arg not in accepted), None)


def _accumulated(f, e):
    """The wrapper left at backward_passes_per_step=1 under gradient accumulation (accumulation()), as a
    finding. A fault behind a flag is reported with the flag named."""
    acc = accumulation(f, e)
    if acc is None:
        return None
    return Finding(WRONG, f"{condition(f, acc.step)}line {acc.backward.line} runs backward() {acc.how}, but the "
                   f"DistributedOptimizer made at line {e.line} keeps backward_passes_per_step=1: Horovod raises "
                   "AssertionError at the second backward()", e.line,
                   f"hvd.DistributedOptimizer(..., backward_passes_per_step={acc.count_text})")


class Accumulation(NamedTuple):
    step: object  # the optimizer's step() event
    backward: object  # a backward() event that runs more than once per step
    how: str  # how it accumulates, for the evidence
    count_text: str  # the count as the source writes it (`args.accum_steps`)
    count: object  # its value in the default run (an int), or None


def accumulation(f, e):
    """Gradient accumulation under the torch DistributedOptimizer made by event `e`, left at
    backward_passes_per_step=1, in either form: backward() on every pass of a loop and the optimizer's step()
    only under a remainder test (`if (it + 1) % accum == 0:`), or backward() in an inner loop of micro-batches
    (`for micro in range(args.accum):`) inside the loop that steps, once after it. Horovod's gradient hook
    counts the backward passes and raises AssertionError ("Gradients were computed more than
    backward_passes_per_step times before call to step()") at the second. A count whose value is 1 in the
    default run (an option declared with default 1) accumulates nothing; an inner loop only counts with a
    count of 2 or more the source gives; a loop that also runs a backward under the step's own test (a GAN's
    generator every n_critic steps, its critic on every one) is two optimizers' passes, not accumulation.
    An Accumulation or None; asked by step 5 and by the crash finding, found once."""
    return f.memo(("accumulation", id(e)), lambda: _find_accumulation(f, e))


def _find_accumulation(f, e):
    if not _one_pass_per_step(e):
        return None
    is_opt = lambda node, at: holds(f, node, at, e.node)  # noqa: E731 - the wrapper, where it is used
    default_run = Evaluator(f.s, Where(None, True, defaults=True))  # `--accum-grad` as declared
    calls = _method_calls_after(f, e)
    for x in calls:
        if x.node.func.attr != "step" or not x.ctx.loops or not (
                is_opt(x.node.func.value, x) or x.node.args and is_opt(x.node.args[0], x)):
            continue
        loop = x.ctx.loops[-1]
        backs = [b for b in calls if b.node.func.attr == "backward" and b.ctx.loops and b.ctx.loops[-1] is loop]
        for g in x.ctx.guards:
            mods = remainders(g.test)
            counts = [default_run.value(m.right, g.frame, x) for m in mods]
            if not mods or 1 in counts:
                continue
            passes = [b for b in backs if not any(h.test is g.test for h in b.ctx.guards)]
            if passes and len(passes) == len(backs):  # a backward under the step's own test is that step's pass
                known = counts[0] if len(counts) == 1 and isinstance(counts[0], int) else None
                return Accumulation(x, passes[0], f"on every pass and line {x.line} steps only when "
                                    f"`{ast.unparse(g.test)}`", ast.unparse(mods[0].right), known)
        inner = _micro_batches(f, e, x, calls, default_run)
        if inner is not None:
            return inner
    return None


def _micro_batches(f, e, x, calls, default_run):
    """backward() in a `for _ in range(n)` loop of its own inside the loop that runs step `x` (which is not
    in it), with n >= 2 in the default run, and not another network's loop: an Accumulation, else None."""
    depth = len(x.ctx.loops)
    owners = _wrapped_owners(f, e)
    for b in calls:
        if b.node.func.attr != "backward" or len(b.ctx.loops) != depth + 1 or b.order > x.order or \
                any(m is not n for m, n in zip(b.ctx.loops, x.ctx.loops)):
            continue
        loop = b.ctx.loops[depth]
        it = loop.iter if isinstance(loop, (ast.For, ast.AsyncFor)) else None
        if not (isinstance(it, ast.Call) and f.s.qual(it.func) == "range" and len(it.args) == 1):
            continue
        # another network's passes: the inner loop steps an optimizer of its own after the backward (a GAN's
        # critic), and the gradients do not reach the wrapped model (its output made under no_grad)
        stepped_inside = any(c.node.func.attr == "step" and c.order > b.order and len(c.ctx.loops) > depth and
                             c.ctx.loops[depth] is loop for c in calls)
        if owners and stepped_inside and not any(_gradient_reaches(f, b.node.func.value, o, set()) for o in owners):
            continue
        frame = b.ctx.frames[-1] if b.ctx.frames else None
        n = default_run.value(it.args[0], frame, b)
        if isinstance(n, int) and not isinstance(n, bool) and n >= 2:
            return Accumulation(x, b, f"{n} times per step (the loop at line {loop.lineno}, "
                                f"`{ast.unparse(it)}`) before the step at line {x.line}", ast.unparse(it.args[0]), n)
    return None


def twice_backward(f, e):
    """Two backward() passes through the model a torch DistributedOptimizer left at backward_passes_per_step=1
    names, in one iteration before its step() (a GAN critic's `err_real.backward()` then
    `err_fake.backward()`, then `opt_d.step()`): Horovod's hook raises AssertionError at the second (when
    there is more than one rank). (first, second backward event, step event, the model) or None."""
    if not _one_pass_per_step(e):
        return None
    owners = _wrapped_owners(f, e)
    calls = _method_calls_after(f, e)
    is_opt = lambda node, at: holds(f, node, at, e.node)  # noqa: E731 - the wrapper, where it is used
    for x in calls:
        if x.node.func.attr != "step" or not x.ctx.loops or not is_opt(x.node.func.value, x):
            continue
        loop, guards = x.ctx.loops[-1], [(id(g.test), g.branch) for g in x.ctx.guards]
        innermost = lambda ev: bool(ev.ctx.loops) and ev.ctx.loops[-1] is loop  # noqa: E731 - the same loop
        earlier = [s.order for s in calls if s.node.func.attr == "step" and innermost(s) and
                   s.order < x.order and is_opt(s.node.func.value, s)]
        backs = [b for b in calls if b.node.func.attr == "backward" and innermost(b) and
                 b.order < x.order and all(b.order > o for o in earlier) and
                 [(id(g.test), g.branch) for g in b.ctx.guards] == guards]
        for owner in sorted(owners):
            through = [b for b in backs if _gradient_reaches(f, b.node.func.value, owner, set())
                       and not _frozen(f, owner, b)]
            if len(through) >= 2:
                return through[0], through[1], x, owner
    return None


def _wrapped_owners(f, e):
    """The models whose parameters the wrapper made by `e` names (`named_parameters=netD.named_parameters()`)."""
    named = next((k.value for k in e.node.keywords if k.arg == "named_parameters"), None)
    return {r.name for r in _param_owners(f, named, e)} if named is not None else set()


def _frozen(f, owner, b):
    """The model's parameters are switched off (`requires_grad = False`, `requires_grad_(False)`, on the model
    or on each parameter a loop over its `parameters()` binds, in the code or in a helper the walk entered:
    `set_requires_grad(netD, False)`) by the last such switch before the backward `b` of its walk: its
    parameters get no gradient there, and Horovod's hooks on them do not run."""
    last = None
    for x in f.s.events + f.s.assigns:
        if x.order >= b.order or not same_walk(x, b):
            continue
        switch = _grad_switch(f, x)
        if switch is not None and (last is None or x.order > last[0]) and _switches_owner(f, switch[0], owner, x):
            last = (x.order, switch[1], x)
    if last is None:
        return False
    frame = last[2].ctx.frames[-1] if last[2].ctx.frames else None
    return f.ev.value(last[1], frame, last[2]) is False


def _grad_switch(f, x):
    """(what is switched, the value expression) for `t.requires_grad = v` or `t.requires_grad_(v)`."""
    node = x.node
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute) \
            and node.targets[0].attr == "requires_grad":
        return node.targets[0].value, node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "requires_grad_":
        return node.func.value, node.args[0] if node.args else ast.Constant(value=True)
    return None


def _switches_owner(f, target, owner, x):
    """`target` is the model `owner` (through the walked call's parameters), or a loop's variable over
    something made of its parameters (`for p in itertools.chain(D_a.parameters(), D_b.parameters())`)."""
    names = {resolve(x, dotted(target))} if dotted(target) else set()
    for lp in x.ctx.loops:
        if isinstance(lp, (ast.For, ast.AsyncFor)) and dotted(target) in {dotted(t) for t in ast.walk(lp.target)}:
            names |= {resolve(x, dotted(n.func.value)) for n in ast.walk(lp.iter) if isinstance(n, ast.Call) and
                      isinstance(n.func, ast.Attribute) and n.func.attr in ("parameters", "named_parameters")
                      and dotted(n.func.value)}
    return owner in names


_CUTS = ("detach", "detach_", "item", "numpy", "tolist")  # what a tensor method cuts off the graph


def _gradient_reaches(f, node, owner, seen, depth=0):
    """Gradients from the value `node` flow into the model `owner`: a call `owner(...)` is in what it is made
    of, through names and the project's functions, and no `.detach()` / `.item()` / `.data` cuts the way
    (`netD(fake.detach())` sends nothing into the generator that made `fake`)."""
    if depth > 30 or node is None or id(node) in seen:
        return False
    seen.add(id(node))
    down = lambda n: _gradient_reaches(f, n, owner, seen, depth + 1)  # noqa: E731 - a local shorthand
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Attribute) and node.func.attr in _CUTS:
            return False
        if dotted(node.func) == owner:
            return True
        parts = ([node.func.value] if isinstance(node.func, ast.Attribute) else []) + node.args + \
            [k.value for k in node.keywords]
        return any(down(x) for x in parts)
    if isinstance(node, ast.Attribute):
        return node.attr != "data" and down(node.value)
    if isinstance(node, ast.Name):
        return any(down(v) for a in f.s.assignments_to(node) if not _without_grad(f, a.node)
                   for v in unpacked(f, a, node.id))
    return any(down(c) for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr))


_NO_GRAD = ("torch.no_grad", "torch.inference_mode")


def _without_grad(f, stmt):
    """The assignment runs under `with torch.no_grad():` (or inference_mode): its value records no graph."""
    return any(isinstance(p, (ast.With, ast.AsyncWith)) and any(
        isinstance(i.context_expr, ast.Call) and f.s.qual(i.context_expr.func) in _NO_GRAD for i in p.items)
        for p in parents(stmt))


def _one_pass_per_step(e):
    """A torch DistributedOptimizer left at backward_passes_per_step=1 (not given it, by keyword, by position
    or through `**kwargs`): Horovod's hook then allows one backward() per parameter between steps."""
    return _torch_wrapper(e) and len(e.node.args) <= 3 and \
        not any(k.arg in ("backward_passes_per_step", None) for k in e.node.keywords)


def _method_calls_after(f, e):
    """The method calls (`x.step()`, `scaler.unscale_(opt)`) the walk reaches after the wrapper made by event
    `e`, in walk order: what the accumulation and synchronisation rules (and the crash finding) read."""
    return f.memo(("method calls after", id(e)), lambda: [
        x for x in f.s.events if x.ctx.reached and x.order > e.order and isinstance(x.node.func, ast.Attribute)])


def accumulation_crashes(f):
    """(node, error, why, kind) for the crash finding: the backward() of an accumulation() whose modulus is a
    known count above 1 in the default run (a literal, an option's declared default) raises AssertionError on
    its second pass, before the first step. A count the source does not give is the step's fault only. Also
    two backward() passes through the wrapped model before one step (twice_backward())."""
    out = []
    for e in _torch_wrappers(f):
        twice = twice_backward(f, e)
        if twice is not None:
            first, second, x, owner = twice
            out.append((second.node, "AssertionError: Gradients were computed more than backward_passes_per_step "
                        "times before call to step().", f"`{owner}`'s parameters get gradients from the backward() "
                        f"at line {first.line} and again at line {second.line} before the step at line {x.line}, "
                        f"and the DistributedOptimizer made at line {e.line} keeps backward_passes_per_step=1",
                        "AssertionError"))
        acc = accumulation(f, e)
        if acc is None or acc.count is None or isinstance(acc.count, bool) or acc.count < 2:
            continue
        out.append((acc.backward.node, "AssertionError: Gradients were computed more than backward_passes_per_step "
                    "times before call to step().",
                    f"backward() runs {acc.how}: the optimizer steps every {acc.count} passes ({acc.count_text} in "
                    f"the default run), but the DistributedOptimizer made at line {e.line} keeps "
                    "backward_passes_per_step=1", "AssertionError"))
    return out


def _torch_wrapper(e):
    """The event makes horovod.torch's DistributedOptimizer (hooks on its parameters' gradients)."""
    return e.qual.endswith("DistributedOptimizer") and "torch" in e.qual


def _group_added_after(f, e):
    """`opt.add_param_group(...)` on a torch DistributedOptimizer after it is made (a backbone unfrozen part-way):
    Horovod registers its gradient hooks, and the set of parameters synchronize() allreduces, once, for the
    groups the optimizer holds when wrapped; the parameters of a group added later step with this rank's own
    gradients (optimizer.py: _register_hooks and _requires_update, in __init__ only)."""
    if not _torch_wrapper(e):
        return None
    x = next((x for x in _method_calls_after(f, e) if x.node.func.attr == "add_param_group" and
              holds(f, x.node.func.value, x, e.node)), None)
    if x is None:
        return None
    return Finding(WRONG, f"{condition(f, x)}line {x.line} adds a parameter group to the DistributedOptimizer made at "
                   f"line {e.line}: Horovod hooks only the parameters the optimizer held when wrapped, so those "
                   "added later step with this rank's own gradients", x.line,
                   "give the optimizer every group before wrapping it (a frozen group with requires_grad set "
                   "before wrapping), or wrap a new optimizer after adding the group")


def _unfrozen_after(f, e, wraps):
    """Parameters frozen before a torch DistributedOptimizer is made and unfrozen after it (`requires_grad =
    False` or a computed value before, `requires_grad_(True)` after), with no wrapper made after that: Horovod
    hooks only the parameters that require gradients when it wraps (_register_hooks), so the unfrozen ones
    step with this rank's own gradients."""
    if not _torch_wrapper(e):
        return None
    sets = _requires_grad_sets(f)
    frozen = any(x.order < e.order and not _true(v) for x, v in sets)
    thawed = next((x for x, v in sets if x.order > e.order and _true(v)), None)
    if not frozen or thawed is None or any(w.order > thawed.order for w in wraps):
        return None
    return Finding(WRONG, f"{condition(f, thawed)}line {thawed.line} lets parameters frozen when the "
                   f"DistributedOptimizer was made (line {e.line}) require gradients: Horovod hooks only the "
                   "parameters that required gradients when wrapped, so those step with this rank's own gradients",
                   thawed.line, "set requires_grad before wrapping (freeze by not stepping them instead), or wrap "
                   "the optimizer again after unfreezing")


def _requires_grad_sets(f):
    """[(event, value)] for each `x.requires_grad = value` and `x.requires_grad_(value)` the walk reaches, in
    walk order (computed once: asked for each wrapper)."""
    return f.memo("requires_grad sets", lambda: sorted(_find_requires_grad_sets(f), key=lambda pair: pair[0].order))


def _find_requires_grad_sets(f):
    out = [(a, a.node.value) for a in f.s.assigns if a.ctx.reached and isinstance(a.node, ast.Assign) and
           any(isinstance(t, ast.Attribute) and t.attr == "requires_grad" for t in a.node.targets)]
    for x in f.s.events:
        if x.ctx.reached and isinstance(x.node.func, ast.Attribute) and x.node.func.attr == "requires_grad_":
            given = x.node.args[:1] or [k.value for k in x.node.keywords if k.arg == "requires_grad"]
            out.append((x, given[0] if given else ast.Constant(True)))
    return out


def _true(node):
    return isinstance(node, ast.Constant) and node.value is True


def _unsynchronized(f, e):
    """A torch DistributedOptimizer's gradients read before Horovod has averaged them: AMP's GradScaler
    (`unscale_`, or `step`, which unscales and checks for infs), or gradient clipping, with no
    `opt.synchronize()` before it; then step() writes back the averaged, still scaled and unclipped
    gradients. And step() after synchronize() outside `with opt.skip_synchronize():` allreduces every
    gradient a second time (Horovod warns). Horovod's docs: synchronize(), then step in skip_synchronize().
    A fault behind a flag (`if args.amp:`) is reported with the flag named."""
    if not _torch_wrapper(e):
        return None
    is_opt = lambda node, at: holds(f, node, at, e.node)  # noqa: E731 - the wrapper, where it is used
    events = _method_calls_after(f, e)
    syncs = [x for x in events if x.node.func.attr == "synchronize" and is_opt(x.node.func.value, x)]
    opt = dotted(e.node.func) and (assigned_name(e.node) or "optimizer")
    for x in events:
        attr, receiver = x.node.func.attr, x.node.func.value
        first = x.node.args[0] if x.node.args else None
        scaler = attr in ("unscale_", "step") and is_opt(first, x) and f.mentions(receiver, _grad_scaler(f))
        clipping = attr in ("clip_grad_norm_", "clip_grad_value_")
        if not (scaler or clipping) or any(_before(s, x) for s in syncs):
            continue
        if clipping and not _steps_after(f, x, is_opt):
            continue  # clipping another optimizer's model, or outside this optimizer's training
        what = "AMP's GradScaler" if scaler else "gradient clipping"
        made = origin(f, receiver, x) if scaler else None  # a scaler made disabled unless an option is on
        switched = enabled_by(f, made, x) if isinstance(made, ast.Call) else ""
        return Finding(WRONG, f"{condition(f, x)}{switched}{what} at line {x.line} reads the gradients of the "
                       f"DistributedOptimizer made at line {e.line} before they are averaged (no {opt}.synchronize() "
                       "before it): the step then writes back the averaged gradients as they were before it", x.line,
                       f"call {opt}.synchronize() before it, then step inside `with {opt}.skip_synchronize():`")
    for s in syncs:
        later = [x for x in events if _before(s, x) and (x.node.func.attr == "step" and (
            is_opt(x.node.func.value, x) or x.node.args and is_opt(x.node.args[0], x)))]
        unskipped = next((x for x in later if not _in_skip_synchronize(f, x, is_opt)), None)
        if unskipped is not None:
            return Finding(WRONG, f"{condition(f, unskipped)}the step at line {unskipped.line} follows "
                           f"{opt}.synchronize() (line {s.line}) outside `with {opt}.skip_synchronize():`: step() "
                           "allreduces every gradient again (Horovod warns), after they were read", unskipped.line,
                           f"step inside `with {opt}.skip_synchronize():`")
    return None


def _grad_scaler(f):
    return lambda n: isinstance(n, ast.Call) and f.s.qual(n.func).split(".")[-1] == "GradScaler"


def _before(a, b):
    """Event a ran before event b in the same call of the function around a (b may be deeper), on the same
    path (not in the other branch of an `if` around both)."""
    fa, fb = a.ctx.frames, b.ctx.frames
    exclusive = any(g.test is h.test and g.branch != h.branch for g in a.ctx.guards for h in b.ctx.guards)
    return a.order < b.order and len(fa) <= len(fb) and all(x is y for x, y in zip(fa, fb)) and not exclusive


def _steps_after(f, x, is_opt):
    return any(_before(x, s) or s.ctx.frames[:1] == x.ctx.frames[:1] and s.order > x.order for s in f.s.events
               if getattr(s.node.func, "attr", "") == "step" and (is_opt(s.node.func.value, s) or s.node.args
                                                                    and is_opt(s.node.args[0], s)))


def _in_skip_synchronize(f, x, is_opt):
    for p in parents(x.node):
        if isinstance(p, (ast.With, ast.AsyncWith)) and any(
                isinstance(i.context_expr, ast.Call) and getattr(i.context_expr.func, "attr", "") == "skip_synchronize"
                and is_opt(i.context_expr.func.value, x) for i in p.items):
            return True
    return False


def _param_owners(f, node, at):
    """The modules whose parameters an expression holds, where `at` reads it: `m` for m.parameters() /
    m.named_parameters() / m.<sub>.parameters(), through the values that reach its names (param-group dicts,
    filters, lists), each as the object that call made (held.Ref)."""
    out = []
    for x, a in sources(f, node, at):
        for sub in ast.walk(x):
            if isinstance(sub, ast.Call) and getattr(sub.func, "attr", "") in ("parameters", "named_parameters"):
                owner = dotted(sub.func.value)
                if owner:
                    out.append(Ref(f, owner, a))
    return out


def _named_parameters(f, e):
    """An optimizer parameter that named_parameters does not name (unnamed_parameters()), as a finding."""
    found = unnamed_parameters(f, e)
    if found is None:
        return None
    given, unnamed = found
    named_ = ", ".join(sorted({f"`{g.name}`" for g in given}))
    return Finding(WRONG, f"line {e.line} names the parameters of {named_}, but the optimizer also trains those of "
                   f"`{unnamed[0].name}`: Horovod raises ValueError (parameters not named), so gradients are never "
                   "averaged", e.line, "named_parameters= the whole model's named_parameters() (a superset is ok)")


def unnamed_parameters(f, e):
    """DistributedOptimizer(opt, named_parameters=...) names the parameters Horovod allreduces. Names for a
    superset of what the optimizer holds are fine (Horovod takes the ones it needs); an optimizer parameter
    without a name makes Horovod raise ValueError at wrapping ("one or more model parameters were not
    named"), so nothing is averaged. (the named owners, the unnamed ones) or None; asked by step 5 and by the
    crash finding, found once."""
    return f.memo(("unnamed parameters", id(e)), lambda: _find_unnamed_parameters(f, e))


def _names_given(e):
    """The named_parameters a DistributedOptimizer is given (by keyword, or second by position in torch)."""
    named = next((k.value for k in e.node.keywords if k.arg == "named_parameters"), None)
    if named is None and len(e.node.args) > 1 and "torch" in e.qual:
        named = e.node.args[1]
    return named


def _find_unnamed_parameters(f, e):
    named = _names_given(e)
    base = e.node.args[0] if e.node.args else next((k.value for k in e.node.keywords if k.arg == "optimizer"), None)
    if named is None or base is None:
        return None
    given = _param_owners(f, named, e)
    trained = []
    for x, a in sources(f, base, e):
        for c in ast.walk(x):
            if isinstance(c, ast.Call) and names.OPTIMIZER_CLASS.match(f.s.qual(c.func)) and c.args:
                trained += _param_owners(f, c.args[0], a)
    if not trained:  # built in the project's factory (`build_optimizer(model, physics, lr)`): its construction
        made_by = {id(x) for x, _ in sources(f, base, e) if isinstance(x, ast.Call)}
        for o in f.optimizers:
            if o.node.args and o.order < e.order and any(id(fr.call) in made_by for fr in o.ctx.frames):
                trained += _param_owners(f, o.node.args[0], o)
    made = origin(f, base, e)  # opt.add_param_group({"params": m.parameters()}) on the same optimizer, before
    for x in f.s.events:
        if x.order < e.order and x.ctx.reached and getattr(x.node.func, "attr", "") == "add_param_group" and \
                made is not None and origin(f, x.node.func.value, x) is made:
            trained += [o for a in x.node.args for o in _param_owners(f, a, x)]
    if not given or not trained or any(r.name == "self" for r in given + trained):
        return None
    unnamed = [t for t in trained if not any(t.within(g) for g in given)]
    return (given, unnamed) if unnamed else None


def used_up_names(f, e):
    """See _find_used_up_names(); asked by step 5 and by the crash finding, found once."""
    return f.memo(("used up names", id(e)), lambda: _find_used_up_names(f, e))


def _find_used_up_names(f, e):
    """`named = model.named_parameters()` (a generator), iterated (`[p for n, p in named if ...]`, a `for`
    loop, list() or dict() of it) and only then handed to the torch DistributedOptimizer made by `e` as
    named_parameters: Horovod gets an empty list, every parameter is unnamed, and it raises ValueError ("one
    or more model parameters were not named"), tried in the blind set zb. (the assignment, the node that used
    it up) in the same function, with nothing assigned to the name between, or None."""
    named = _names_given(e)
    if not isinstance(named, ast.Name) or "torch" not in e.qual:
        return None
    made = [a for a in f.s.assignments_to(named) if a.order < e.order and isinstance(a.node, ast.Assign)]
    value = made[-1].node.value if len(made) == 1 else None
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and
            value.func.attr == "named_parameters"):
        return None
    func, start, end = enclosing_def(e.node), made[-1].node.lineno, e.node.lineno
    for n in ast.walk(func if func is not None else module_of(e.node, f.s.main).tree):
        if not (isinstance(n, ast.Name) and n.id == named.id and isinstance(n.ctx, ast.Load) and
                start < n.lineno < end and enclosing_def(n) is func):
            continue
        parent = getattr(n, "parent", None)
        if isinstance(parent, (ast.comprehension, ast.For)) and parent.iter is n or isinstance(parent, ast.Call) and \
                f.s.qual(parent.func) in ("list", "tuple", "dict", "set", "sorted", "sum") and n in parent.args:
            return made[-1], n
    return None


def _used_up_names(f, e):
    found = used_up_names(f, e)
    if found is None:
        return None
    a, n = found
    return Finding(WRONG, f"`{ast.unparse(a.node.targets[0])}` is a generator ({ast.unparse(a.node.value)}, line "
                   f"{a.node.lineno}) that line {n.lineno} uses up before line {e.line} hands it to Horovod: it "
                   "names no parameter, and Horovod raises ValueError (parameters not named)", e.line,
                   f"pass named_parameters={ast.unparse(a.node.value)} (a fresh generator) or list(...) it once")


# Horovod 0.28.1's error for an optimizer parameter named_parameters does not name (tried here).
_UNNAMED = "ValueError: named_parameters was specified, but one or more model parameters were not named"


def unnamed_parameter_crashes(f):
    """(node, error, why, kind) for the crash finding: each torch DistributedOptimizer whose optimizer holds
    parameters its named_parameters does not name raises ValueError where it is made, also when the names
    are a generator used up before (used_up_names())."""
    out = []
    for e in _torch_wrappers(f):
        used = used_up_names(f, e)
        if used is not None:
            out.append((e.node, _UNNAMED, f"{ast.unparse(used[0].node.targets[0])} was used up at line "
                        f"{used[1].lineno}: Horovod gets no names", "ValueError"))
            continue
        found = unnamed_parameters(f, e)
        if found is not None:
            given, unnamed = found
            out.append((e.node, _UNNAMED, f"the optimizer holds {unnamed[0].name}.parameters(), which "
                        f"{given[0].name}.named_parameters() does not contain", "ValueError"))
    return out


def _torch_wrappers(f):
    """The torch DistributedOptimizer constructions the walk reaches: what the crash finding's queries ask of."""
    return [e for e in f.s.events if f.api(e, "DistributedOptimizer") and e.ctx.reached and "torch" in e.qual]


def _gradient_before_wrapping(f, e):
    """`grads = tape.gradient(...)` and only then `tape = hvd.DistributedGradientTape(tape)`: those
    gradients were never averaged."""
    if not e.qual.endswith("GradientTape") or not e.node.args:
        return None
    tape = dotted(e.node.args[0])
    early = [x for x in f.s.events if isinstance(x.node.func, ast.Attribute) and x.node.func.attr == "gradient"
             and dotted(x.node.func.value) == tape and x.order < e.order and x.ctx.reached
             and x.ctx.frames[-1:] == e.ctx.frames[-1:]]
    later = [x for x in f.s.events if isinstance(x.node.func, ast.Attribute) and x.node.func.attr == "gradient"
             and x.order > e.order and x.ctx.frames[-1:] == e.ctx.frames[-1:]]
    if early and not later:
        return Finding(WRONG, f"the gradients at line {early[0].line} are taken from the tape before line {e.line} "
                       "wraps it: they are this rank's own", early[0].line,
                       "wrap the tape first, then call .gradient on the wrapper")
    return None


def _unaveraged_step(f, wraps):
    """An optimizer step whose optimizer, where it steps, is not the wrapped one: a second network's (a
    GAN's), one rebuilt for a second phase of training, a Keras model recompiled with a plain optimizer.
    Its gradients are this rank's own. Judged by the values that reach the step, not by names."""
    if not wraps:
        return None
    for s in f.s.events:
        attr = getattr(s.node.func, "attr", "")
        if not s.ctx.reached or attr not in ("step", "fit", "fit_generator") or f.on_rank0_alone(s):
            continue  # rank 0 alone stepping (an LR range test on a copy) is no data-parallel step to wrap
        plain = _plain_stepped(f, s) if attr == "step" else _plain_compile(f, s)
        if plain is not None and not (attr == "step" and _grads_set_averaged(f, s)):
            value, made = plain
            where = f"line {made.line}" if made is not s else f"line {s.line}"
            return Finding(WRONG, f"{condition(f, made)}the optimizer that steps at line {s.line} ({where}: "
                           f"{ast.unparse(value)[:60]}) is not wrapped in hvd.DistributedOptimizer: its gradients are "
                           "this rank's own", made.line,
                           "wrap it too: opt = hvd.DistributedOptimizer(opt, named_parameters=...)")
    return None


def _grads_set_averaged(f, s):
    """Before the plain `opt.step()`, in the same function, the code sets parameters' gradients to ones averaged
    by hand (`a.grad = hvd.allreduce(g)` over `torch.autograd.grad(loss, alphas)`, `p.grad.copy_(avg)`): that
    optimizer steps with the job's gradients, no wrapper needed."""
    here = enclosing_def(s.node)
    for e in gradient_allreduces(f):
        if e.order > s.order or enclosing_def(e.node) is not here:
            continue
        stmt = getattr(e.node, "parent", None)
        stored = isinstance(stmt, ast.Assign) and stmt.value is e.node and any(
            isinstance(t, ast.Attribute) and t.attr == "grad" for t in stmt.targets)
        copied = isinstance(stmt, ast.Call) and getattr(stmt.func, "attr", "") == "copy_" and isinstance(
            stmt.func.value, ast.Attribute) and stmt.func.value.attr in ("grad", "data")
        if stored or copied or f.s.qual(e.node.func).endswith("allreduce_"):
            return True
    return False


def unaveraged_optimizers(f):
    """{id(construction)}: the optimizers that step where no Horovod wrapper took them while another
    optimizer is wrapped (a second network's, a task-weighting module's): their updates are each rank's own
    (the fault _unaveraged_step reports). Facts.unaveraged_optimizers."""
    if not [e for e in f.s.events if f.api(e, *names.WRAPPERS) and e.ctx.reached]:
        return set()
    steps = [s for s in f.s.events if s.ctx.reached and getattr(s.node.func, "attr", "") == "step"
             and not f.on_rank0_alone(s)]
    # and TensorFlow's: an optimizer applying the gradients of a tape no wrapper took (`w_opt` of a
    # task-weighting module beside the network's wrapped tape)
    return {id(plain[0]) for plain in (_plain_stepped(f, s) for s in steps if not _grads_set_averaged(f, s))
            if plain is not None} | \
        {id(plain[0]) for _, _, plain in unaveraged_applies(f, _plain_optimizer)}


def _plain_stepped(f, s):
    """_plain_optimizer of the optimizer an `opt.step()` steps (the argument of a GradScaler's `step`)."""
    receiver = s.node.func.value
    scaled = s.node.args and f.mentions(receiver, _grad_scaler(f))
    return _plain_optimizer(f, s.node.args[0] if scaled else receiver, s)


def _plain_optimizer(f, node, at, depth=0):
    """(value, where) when `node`, at the event `at`, may hold a framework optimizer that no Horovod wrapper
    took; None when every value that reaches is wrapped, or cannot be told (a helper's return)."""
    if depth > 4:
        return None
    if isinstance(node, ast.Call):
        if _optimizer_class(f, node):
            return node, at
        made = _registry_made(f, node, at)
        if made is not None:
            return made, at
        values = returned(f, node, at)
    else:
        values = reaching(f, node, at)
    for value, a in values:
        if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or):
            # `optimizer = optimizer or make_optimizer(cfg)`: the first operand that is not None
            v = next((v for v in value.values if not _none_here(f, v, a)), None)
            got = _plain_optimizer(f, v, a, depth + 1) if isinstance(v, (ast.Name, ast.Attribute, ast.Call)) \
                else None
            if got is not None:
                return got[0], a
            continue
        if isinstance(value, ast.Call) and wrapper(f, value):
            if off_by_default(f.s, a):
                continue  # wrapped only with an option the default run leaves off (`if args.sync_d:`)
            return None  # a wrapper; what comes before it reaches only where Horovod is off
        if f.off_path(a):
            continue
        if isinstance(value, (ast.Name, ast.Attribute)) or isinstance(value, ast.Call) and returned(f, value, a):
            got = _plain_optimizer(f, value, a, depth + 1)
            if got is not None:
                return got[0], a
            continue
        if isinstance(value, ast.Call) and _optimizer_class(f, value):
            return value, a
        made = _registry_made(f, value, a) if isinstance(value, ast.Call) else None
        if made is not None:
            return made, a
    return None


def _optimizer_class(f, call):
    """A construction of the framework's own optimizer class (torch.optim.SGD, keras.optimizers.Adam):
    known by the module it comes from."""
    return bool(names.OPTIMIZER_CLASS.match(f.s.qual(call.func)))


def _none_here(f, node, at):
    """Every value that reaches `node` at `at` is None (a parameter the call left at its default None)."""
    if isinstance(node, ast.Constant):
        return node.value is None
    values = [v for v, _ in reaching(f, node, at)] if isinstance(node, (ast.Name, ast.Attribute)) else []
    frame = at.ctx.frames[-1] if at.ctx.frames else None
    b = frame.bindings.get(node.id) if isinstance(node, ast.Name) and frame is not None and not values else None
    values = values or ([b.expr] if b is not None and b.default else [])
    return bool(values) and all(isinstance(v, ast.Constant) and v.value is None for v in values)


def _registry_made(f, call, at):
    """`OPTIMIZERS[name](cfg, lr)` over a dict written out in the project whose every value is a lambda that
    builds a framework optimizer (`"adam": lambda o, lr: keras.optimizers.Adam(learning_rate=lr)`), or is such a
    class itself (the call then makes it): one of those plain optimizers, whichever the key picks; else None."""
    table = call.func.value if isinstance(call.func, ast.Subscript) else None
    if not isinstance(table, (ast.Name, ast.Attribute)):
        return None
    dicts = [v for v, _ in reaching(f, table, at)] or [a.node.value for a in f.s.assignments_to(table)]
    if len(dicts) != 1 or not isinstance(dicts[0], ast.Dict) or not dicts[0].values:
        return None
    values = dicts[0].values
    if all(isinstance(v, (ast.Name, ast.Attribute)) and names.OPTIMIZER_CLASS.match(f.s.qual(v)) for v in values):
        return call  # the classes themselves (`{"adam": keras.optimizers.Adam, ...}[name](learning_rate=lr)`)
    bodies = [v.body if isinstance(v, ast.Lambda) else None for v in values]
    if any(not isinstance(b, ast.Call) or not _optimizer_class(f, b) for b in bodies):
        return None
    return bodies[0]


def _plain_compile(f, fit):
    """The compile that reaches a Keras fit (the same model, before it, in the same walk) gives it an optimizer
    by name (Keras makes a plain one) or a plain optimizer object."""
    if any(f.api(e, "DistributedGradientTape", "PartialDistributedGradientTape") for e in f.s.events) or \
            gradient_allreduces(f):
        return None  # the gradients are averaged in a step of the script's own (a Model's train_step)
    compiled = _compiled(f, fit)
    if compiled is None:
        return None
    given, c = compiled
    if isinstance(given, ast.Constant) and isinstance(given.value, str):
        return given, c
    return _plain_optimizer(f, given, c)


def _compiled(f, fit):
    """(the optimizer expression, the compile event) of the last compile that reaches a Keras fit: the same
    model, before it, in the same walk; None when none is seen or it is given no optimizer."""
    model = dotted(fit.node.func.value)
    compiles = [c for c in f.s.events if getattr(c.node.func, "attr", "") == "compile" and c.ctx.reached
                and c.order < fit.order and dotted(c.node.func.value) == model and same_walk(c, fit)]
    if not model or not compiles:
        return None
    c = compiles[-1]
    given = next((k.value for k in c.node.keywords if k.arg == "optimizer"), c.node.args[0] if c.node.args else None)
    return (given, c) if given is not None else None




GRADIENT_CALLS = ("gradient", "compute_gradients", "gradients")  # tape.gradient, opt.compute_gradients, tf.gradients
ALLREDUCES = ("allreduce", "grouped_allreduce", "allreduce_")


def _is_gradient(n):
    """A gradient's source: tape.gradient(...), opt.compute_gradients(...), tf.gradients(...), or p.grad. Not a
    tape's gradient with respect to a tensor it watches (an input: a PGD attack's `x_adv`), which is no
    parameter's."""
    return isinstance(n, ast.Call) and getattr(n.func, "attr", "") in GRADIENT_CALLS and not _of_watched(n) or \
        isinstance(n, ast.Attribute) and n.attr == "grad"


def _of_watched(call):
    """`tape.gradient(loss, x)` in a function (or module) where `tape.watch(x)` is called."""
    if getattr(call.func, "attr", "") != "gradient" or len(call.args) < 2 or not isinstance(call.args[1], ast.Name):
        return False
    tape, wrt = dotted(call.func.value), call.args[1].id
    scope = enclosing_def(call) or next((p for p in parents(call) if isinstance(p, ast.Module)), None)
    return scope is not None and tape is not None and any(
        isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "watch" and dotted(n.func.value) == tape
        and n.args and isinstance(n.args[0], ast.Name) and n.args[0].id == wrt for n in ast.walk(scope))


def _gradient_value(f, node, held=None):
    """The expression is (an element of) gradients: through names assigned them, names gradients were
    accumulated into, and the variables of a loop or comprehension over them (`[hvd.allreduce(g) for g in
    grads]`, `for g in grads:`)."""
    held = _holders_of_gradients(f) if held is None else held
    source = lambda n: _is_gradient(n) or isinstance(n, (ast.Name, ast.Attribute)) and dotted(n) in held  # noqa: E731
    if f.mentions(node, source):
        return True
    used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    for p in parents(node):
        for g in loop_bindings(p):
            bound = {n.id for n in ast.walk(g.target) if isinstance(n, ast.Name)}
            if bound & used and f.mentions(g.iter, source):
                return True
    return False


def _holders_of_gradients(f):
    """Names that gradients are accumulated into (`a.assign_add(g)`, `acc[k] += p.grad`, `buf.add_(g)`,
    through `for a, g in zip(accum, grads)`): they hold gradients, and averaging them averages gradients.
    Computed once; repeated until no new name, since one holder may be added into another."""
    if getattr(f, "_gradient_holders", None) is None:
        held = set()
        while True:
            new = set()
            for node in f.s.nodes():
                into, value = _accumulation(node)
                if into is not None and _gradient_value(f, value, held):
                    new |= _holder_names(into) - held
            if not new:
                break
            held |= new
        f._gradient_holders = held
    return f._gradient_holders


def _accumulation(node):
    """(what is added into, what is added) for `x.assign_add(v)`, `x.add_(v)`, `x += v`, `x = x + v`.
    `p.add_(g, alpha=-lr)` is an update of the parameters, not an accumulation."""
    if isinstance(node, ast.Call) and getattr(node.func, "attr", "") in ("assign_add", "add_") and node.args \
            and not any(k.arg == "alpha" for k in node.keywords):
        return node.func.value, node.args[0]
    if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add):
        return node.target, node.value
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.BinOp) \
            and isinstance(node.value.op, ast.Add):
        return node.targets[0], node.value
    return None, None


def _holder_names(into):
    """The names an accumulator lives in: `acc[k]` is in acc; a loop variable `a` of `for a, g in
    zip(accum, grads)` (or `for i, a in enumerate(accum)`) is accum."""
    name = _root(into)
    out = set()
    for p in parents(into):
        for g in loop_bindings(p):
            target, it = g.target, g.iter
            if isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(it, ast.Call) \
                    and dotted(it.func) == "enumerate" and it.args:
                target, it = target.elts[1], it.args[0]
            pairs = zip(target.elts, it.args) if isinstance(target, ast.Tuple) and isinstance(it, ast.Call) \
                and dotted(it.func) == "zip" else [(target, it)]
            out |= {_root(i) for t, i in pairs if isinstance(t, ast.Name) and t.id == name} - {None}
    # A loop variable stands for its container only: names are matched file-wide, and a short loop name
    # (`a`) elsewhere in the file (`x + a` in a model builder) is no accumulator.
    return out or {name} - {None}


def _root(node):
    """The name holding a value or its elements: accum for accum[i], accum.values(), self.acc[k]."""
    while isinstance(node, ast.Subscript) or isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr in ("values", "items") and not node.args:
        node = node.value if isinstance(node, ast.Subscript) else node.func.value
    return dotted(node) if isinstance(node, (ast.Name, ast.Attribute)) else None


def gradient_allreduces(f):
    """Gradients averaged by hand, whatever their names: an allreduce given gradients, or map(hvd.allreduce,
    grads). Computed once (step 8 leaves them out of the metrics)."""
    return f.memo("gradient_allreduces", lambda: _find_gradient_allreduces(f))


def _find_gradient_allreduces(f):
    out, applied = [], None
    for e in f.s.events:
        if f.api(e, *ALLREDUCES):
            arg = e.node.args[0] if e.node.args else next((k.value for k in e.node.keywords if k.arg == "tensor"),
                                                          None)
            if applied is None:
                applied = _applied(f)
            if arg is not None and (_gradient_value(f, arg) or id(e.node) in applied):
                out.append(e)
        elif f.s.qual(e.node.func) == "map" and len(e.node.args) > 1 and _names_allreduce(f, e.node.args[0]) \
                and _gradient_value(f, e.node.args[1]):
            out.append(e)
    return out


def _applied(f):
    """Ids of what the optimizers apply as gradients is made of (`opt.apply_gradients(zip(grads, vars))`): an
    allreduce there averages gradients, whatever they were accumulated in before (`acc.mean()` of a class
    holding tf.Variables)."""
    given = [a for e in f.s.events if getattr(e.node.func, "attr", "") == "apply_gradients"
             for a in e.node.args[:1] + [k.value for k in e.node.keywords if k.arg == "grads_and_vars"]]
    return {id(n) for n in flow_sources(f, given, derived)} if given else set()


def _names_allreduce(f, node):
    a = f.s.api(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
    return bool(a) and a[1].split(".")[-1] in ALLREDUCES


def _divided_by_size(f, call):
    """A sum made an average: divided by hvd.size() where it is made, or where its holder is reassigned, or
    scaled by Horovod's prescale_factor / postscale_factor."""
    if any(k.arg in ("prescale_factor", "postscale_factor") for k in call.keywords):
        return True
    by_size = lambda n: isinstance(n, ast.BinOp) and isinstance(n.op, ast.Div) and f.mentions(  # noqa: E731
        n.right, f.is_size) or isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Div) and f.mentions(
        n.value, f.is_size)
    stmt = next((p for p in parents(call) if isinstance(p, ast.stmt)), None)
    if stmt is None or any(by_size(n) for n in ast.walk(stmt)):
        return stmt is not None
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
    held = {dotted(t) for t in targets if t is not None} - {None}
    if any(by_size(a.node) or a.node.value is not None and any(by_size(n) for n in ast.walk(a.node.value))
           for h in held for a in f.s.assignments_to(h) if a.node is not stmt):
        return True
    # or into a new name: grads = [s / hvd.size() for s in summed]
    return any(isinstance(a.node, ast.Assign) and a.node is not stmt and any(by_size(n) for n in ast.walk(a.node.value))
               and {n.id for n in ast.walk(a.node.value) if isinstance(n, ast.Name)} & held for a in f.s.assigns)
