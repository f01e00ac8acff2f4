"""Step 1: hvd.init() runs on every rank before any other Horovod call."""

from hvdkit.check import names
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
    early = [e for e in f.s.api_calls(*names.NEEDS_INIT) if e.order < first.order and e.ctx.reached
             and e.api[1].split(".")[-1] in names.NEEDS_INIT]
    if early:
        e = early[0]
        return Finding(WRONG, f"{f.s.qual(e.node.func).split('.')[-1]}() at line {e.line} runs before "
                       f"init() at line {first.line}", e.line, "move hvd.init() above every other Horovod call")
    kind = f.guard_kind(first)
    if kind in ("rank", "never"):
        return Finding(WRONG, f"init() at line {first.line} runs {'on some ranks only' if kind == 'rank' else 'never'}",
                       first.line, "call hvd.init() unconditionally on every rank")
    return Finding(OK, f"{f.text(first.line)}", first.line)


