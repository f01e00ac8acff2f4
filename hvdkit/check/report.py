"""The report: static and dynamic findings merged per step, as a table or JSON, and the exit status."""
import textwrap

from hvdkit.check import FLAGGED, STEPS, UNKNOWN, Finding


def merge(static, dynamic):
    """{step: Finding}: the dynamic verdict wins where it speaks; the static evidence is kept beside it."""
    out = {}
    static_flags = {n for n, s in static.items() if s is not None and s.verdict in FLAGGED}
    for n, _, _ in STEPS:
        s, d = static.get(n), (dynamic or {}).get(n)
        if _explained_crash(n, s, d, static_flags):
            d = Finding(None, d.evidence)  # shown beside the static verdict, not as a verdict of its own
        if d is not None and d.verdict is not None:
            if s is not None and s.verdict in FLAGGED and d.verdict in FLAGGED:
                d.verdict = s.verdict  # both flag it: the source says whether the code is absent or wrong
            if s is not None and s.verdict != d.verdict:
                d.evidence += f" [static pass said {s.verdict}: {s.evidence}]"
            d.fix = d.fix or (s.fix if s is not None else None)
            d.line = d.line or (s.line if s is not None else None)
            out[n] = d
        else:
            out[n] = s
            if d is not None and d.evidence and s is not None:
                s.evidence += f" [run: {d.evidence}]"
    return out


def _explained_crash(n, s, d, static_flags):
    """A crash charged to step 5 because it surfaced in the training call (fit, the step function) while the
    static pass found another step missing or wrong: that fault explains it (every rank writing one file,
    a collective on rank 0 only), so it does not make step 5 wrong too. The crash stays in the run's summary
    and the exit status."""
    return n == 5 and d is not None and getattr(d, "crash", False) and (s is None or s.verdict not in FLAGGED) \
        and bool(static_flags - {5})


def as_json(path, findings, notes, info, run=None, against=None):
    """The JSON report. Its fields (docs/check.md, "The report") are an interface: the static pass fills
    `crash`, `files_read` and `entry_points` (through `info`), `--run` fills `run`, `--against` `against`."""
    return {"script": path, **{k: v for k, v in info.items() if k not in REPORT_INFO},
            "crash": info.get("crash"), "files_read": info.get("files_read", [path]),
            "entry_points": info.get("entry_points", []),
            "steps": {str(n): {"name": key, "title": title, **findings[n].as_dict()} for n, key, title in STEPS},
            "flagged": [n for n, _, _ in STEPS if findings[n].verdict in FLAGGED],
            "notes": notes, "run": run, "against": against,
            "exit_status": exit_status(findings, run, against, info.get("crash"))}


# What `info` carries into fields of their own (the rest, frameworks and keras_fit, is copied as it is).
REPORT_INFO = ("crash", "files_read", "entry_points")


def exit_status(findings, run=None, against=None, crash=None):
    """0 only when no step is missing or wrong, the static pass found no crash, the script ran to the
    observed steps (--run) and trained what its sequential script trains (--against); else 1."""
    if any(f.verdict in FLAGGED for f in findings.values()) or crash:
        return 1
    if run and run.get("crash"):
        return 1
    return 1 if against is not None and not against.get("equivalent") else 0


def text(path, findings, notes, run=None, width=110, info=None, against=None):
    info = info or {}
    lines = [f"hvdkit check {path}", ""]
    crash = info.get("crash")
    if crash:
        where = f"{crash['file']}:{crash['line']}" if crash.get("file") else f"line {crash['line']}"
        lines += textwrap.wrap(f"CRASH at {where}: {crash['error']}" + (f" ({crash['why']})" if crash.get("why")
                               else ""), width, subsequent_indent="  ")
        lines.append("")
    lines.append(f"{'step':<24} {'verdict':<12} evidence / fix")
    for n, key, title in STEPS:
        f = findings[n]
        where = f"{f.file}:{f.line}: " if f.file and f.line else \
            f"line {f.line}: " if f.line and f"line {f.line}" not in f.evidence else ""
        src = " (run)" if f.source == "run" else ""
        body = textwrap.wrap(where + f.evidence + src, width - 38) or [""]
        lines.append(f"{n} {key:<22} {f.verdict.upper() if f.verdict in FLAGGED else f.verdict:<12} {body[0]}")
        lines += [" " * 37 + b for b in body[1:]]
        if f.fix and f.verdict in FLAGGED + (UNKNOWN,):
            lines += [" " * 37 + b for b in textwrap.wrap("fix: " + f.fix, width - 38)]
    if notes:
        lines += ["", "notes:"] + [f"  - {n}" for n in notes]
    if info.get("entry_points"):
        lines += ["", "entry points (nothing at the module's level runs the training; each judged as run):"]
        lines += [f"  - {e['function']}" + (f" ({e['file']}:{e['line']})" if e.get("file") else f" (line {e['line']})")
                  + (f": {e['why']}" if e.get("why") else "") for e in info["entry_points"]]
    if len(info.get("files_read", ())) > 1:
        lines += ["", "read: " + ", ".join(info["files_read"])]
    if run:
        lines += ["", f"run: {run.get('summary', '')}"]
        if run.get("crash"):
            c = run["crash"]
            lines += [f"  crashed on rank {c.get('rank')}: {c.get('error')}"
                      + (f" (line {c['line']}: {c.get('code', '')})" if c.get("line") else "")]
            if c.get("hint"):
                lines.append(f"  hint: {c['hint']}")
    if against is not None:
        lines += [""] + against_lines(against, width)
    flagged = [str(n) for n, _, _ in STEPS if findings[n].verdict in FLAGGED]
    lines += ["", f"{len(flagged)} step(s) missing or wrong: {', '.join(flagged)}" if flagged
              else "no step missing or wrong"]
    return "\n".join(lines)


def against_lines(a, width=110):
    """The `--against` comparison as text, from its JSON dict (docs/check.md, "The report")."""
    head = f"against {a.get('sequential', 'the sequential script')}: "
    if a.get("reason"):
        return textwrap.wrap(head + "cannot compare: " + a["reason"], width, subsequent_indent="  ")
    d = a.get("first_divergence")
    if a.get("equivalent"):
        body = f"equivalent over {a['steps_compared']} step(s)"
    elif d:
        body = (f"diverges at step {d['step']}, {d['tensor']}: "
                f"max |diff| {d['max_abs']:.3g} > tolerance {d['tolerance']:.3g}")
    else:
        body = "not equivalent"
    if a.get("explained_by"):
        body += "; explained by step(s) " + ", ".join(str(n) for n in a["explained_by"])
    if a.get("lr_ratio") is not None:
        body += f"; LR ratio (Horovod / sequential) {a['lr_ratio']:.3g}"
    return textwrap.wrap(head + body, width, subsequent_indent="  ")
