"""Step 1: hvd.init() runs on every rank before any other Horovod call."""
import ast

from hvdkit.check import names
from hvdkit.check.crash_calls import fresh_launcher
from hvdkit.check.script import same_walk
from hvdkit.check.values import truthy
from hvdkit.check.findings import MISSING, OK, UNKNOWN, WRONG, Finding


def judge(f):
    inits = [e for e in f.s.api_calls("init") if e.api[1] == "init" and e.ctx.reached]
    if not inits and f.horovod_from and not f.init_candidates:
        name = f.horovod_from[0]
        return Finding(UNKNOWN, f"hvd.init() not seen in the code read; Horovod comes from `{name}`, "
                       "a module not in the project: importing it may init: cannot tell",
                       fix="give --root the project's folder")
    if not inits:
        return f.unread_finding("hvd.init()", 1) or Finding(
            MISSING, "no hvd.init() call", fix="call hvd.init() first, before any other Horovod call")
    first = inits[0]
    early = [e for e in _needing_init(f) if e.order < first.order]
    if early:
        e = early[0]
        return Finding(WRONG, f"{f.s.qual(e.node.func).split('.')[-1]}() at line {e.line} runs before "
                       f"init() at line {first.line}", e.line, "move hvd.init() above every other Horovod call")
    kind = f.guard_kind(first)
    if kind in ("rank", "never"):
        return Finding(WRONG, f"init() at line {first.line} runs {'on some ranks only' if kind == 'rank' else 'never'}",
                       first.line, "call hvd.init() unconditionally on every rank")
    uninit = _without_init(f, first)
    if uninit is not None:
        e, g = uninit
        return Finding(WRONG, f"init() at line {first.line} runs only when `{ast.unparse(g.test)}` is "
                       f"{g.branch}; {f.s.qual(e.node.func).split('.')[-1]}() at line {e.line} runs also when it is "
                       "not, and raises there (Horovod has not been initialized)", first.line,
                       "call hvd.init() unconditionally, before every other Horovod call")
    after = _after_shutdown(f) or _uninitialised_worker(f, inits)
    if after is not None:
        return after
    return Finding(OK, f"{f.text(first.line)}", first.line)


def _uninitialised_worker(f, inits):
    """A function handed to a launcher that starts new processes (`horovod.run(train_fn, ...)`) calls Horovod
    with no hvd.init() of its own: the launching process's init does not carry over, so its first Horovod
    query raises in every worker."""
    for e in _unguarded_first(f, _needing_init(f)):
        launcher = fresh_launcher(f, e)
        if launcher is None or any(fresh_launcher(f, i) is launcher for i in inits):
            continue
        call = ast.unparse(launcher.func)
        return Finding(WRONG, f"hvd.init() at line {inits[0].line} runs in the process that calls {call}() at line "
                       f"{launcher.lineno}; the workers it starts are new processes with no init() of their own, "
                       f"and {f.s.qual(e.node.func).split('.')[-1]}() at line {e.line} raises there (Horovod has "
                       "not been initialized)", e.line, "call hvd.init() first in the function the workers run")
    return None


def _needing_init(f):
    """The Horovod calls the walk reaches that raise before hvd.init(), in walk order."""
    return [e for e in f.s.api_calls(*names.NEEDS_INIT) if e.ctx.reached and
            e.api[1].split(".")[-1] in names.NEEDS_INIT]


def _unguarded_first(f, events):
    """`events` with those that run under no condition first (the evidence a finding names), each part in walk
    order."""
    return sorted(events, key=lambda e: (f.guard_kind(e) != "always", e.order))


def _after_shutdown(f):
    """hvd.shutdown() and then a Horovod call that needs init, with no init in between: later in the same walk,
    or earlier in a loop around the shutdown (`for fold in range(k): run_fold(...)` whose `finally:` shuts
    Horovod down: the next fold's calls find it uninitialised)."""
    inits = [e for e in f.s.api_calls("init") if e.api[1] == "init" and e.ctx.reached]
    needs = _needing_init(f)
    for s in f.s.api_calls("shutdown"):
        if not s.ctx.reached or s.api[1] != "shutdown":
            continue
        later = next((e for e in needs if e.order > s.order and same_walk(e, s) and not any(
            s.order < i.order < e.order for i in inits)), None)
        if later is not None:
            return Finding(WRONG, f"hvd.shutdown() at line {s.line} ends Horovod, and "
                           f"{f.s.qual(later.node.func).split('.')[-1]}() at line {later.line} runs after it "
                           "with no hvd.init() in between (Horovod has not been initialized)", s.line,
                           "shut Horovod down once, at the very end")
        for lp in s.ctx.loops:
            if not isinstance(lp, (ast.For, ast.While, ast.AsyncFor)) or any(lp in i.ctx.loops for i in inits):
                continue
            again = next((e for e in needs if e.order < s.order and lp in e.ctx.loops), None)
            if again is not None:
                return Finding(WRONG, f"hvd.shutdown() at line {s.line} runs inside the loop at line {lp.lineno}, "
                               f"which calls {f.s.qual(again.node.func).split('.')[-1]}() at line {again.line} "
                               "again on its next pass, after Horovod is shut down (Horovod has not been "
                               "initialized)", s.line, "shut Horovod down once, after the loop")
    return None


def _without_init(f, init):
    """(event, guard): a Horovod call that needs init() and runs whether or not the condition around init() holds
    (one the source does not decide, other than Horovod's own `is_initialized()` and a switch of the script's
    Horovod mode): under no condition init() is
    not under too, and in no `x if test else y` / `test and x` of its own. A call under a condition of its own is
    given the benefit of the doubt: that condition may be the same as init()'s (`if args.horovod:` in another
    function, `if hvd is not None:`). None when there is no such call."""
    skip = f.path_guards(init)
    conds = [g for g in init.ctx.guards if (g.test, g.branch) not in skip and not _asks_initialized(f, g.test)
             and truthy(f.ev.value(g.test, g.frame, init)) not in (True, False) and not _switch(f, g)]
    if not conds:
        return None
    mine = {(id(g.test), g.branch) for g in init.ctx.guards}
    for e in _unguarded_first(f, _needing_init(f)):
        if e.order <= init.order:
            continue
        theirs = {(id(g.test), g.branch) for g in e.ctx.guards}
        outside = [g for g in conds if (id(g.test), g.branch) not in theirs]
        if outside and theirs <= mine and not _conditional(e.node):
            return e, outside[0]
    return None


def _switch(f, guard):
    """The condition switches the script between its Horovod mode and another: the same test (as written) also
    guards Horovod calls under an `if` of its own elsewhere (`if args["horovod"]:` around the sampler, the
    optimizer, the broadcast). The run with it off is the script's non-Horovod mode, which the check does not
    judge; a condition around init() alone (`if use_cuda: hvd.init()`) is none."""
    text = ast.unparse(guard.test)
    return any(g.test is not guard.test and g.branch == guard.branch and ast.unparse(g.test) == text
               for e in f.s.events if e.api and e.ctx.reached for g in e.ctx.guards)


def _asks_initialized(f, test):
    return any(isinstance(n, ast.Call) and f.s.is_api(n, "is_initialized") for n in ast.walk(test))


def _conditional(node):
    """The call is in a branch of an expression of its statement: `x if test else y`, `test and x`."""
    child, parent = node, getattr(node, "parent", None)
    while parent is not None and not isinstance(parent, ast.stmt):
        if isinstance(parent, ast.IfExp) and child is not parent.test or \
                isinstance(parent, ast.BoolOp) and child is not parent.values[0]:
            return True
        child, parent = parent, getattr(parent, "parent", None)
    return False
