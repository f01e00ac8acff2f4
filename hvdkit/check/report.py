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


def as_json(path, findings, notes, info, run=None):
    return {"script": path, **info,
            "steps": {str(n): {"name": key, "title": title, **findings[n].as_dict()} for n, key, title in STEPS},
            "flagged": [n for n, _, _ in STEPS if findings[n].verdict in FLAGGED],
            "notes": notes, "run": run, "exit_status": exit_status(findings, run)}


def exit_status(findings, run=None):
    """0 only when no step is missing or wrong (and, with --run, the script ran to the observed steps)."""
    if any(f.verdict in FLAGGED for f in findings.values()):
        return 1
    return 1 if run and run.get("crash") else 0


def text(path, findings, notes, run=None, width=110):
    lines = [f"hvdkit check {path}", ""]
    lines.append(f"{'step':<24} {'verdict':<12} evidence / fix")
    for n, key, title in STEPS:
        f = findings[n]
        where = f"line {f.line}: " if f.line and f"line {f.line}" not in f.evidence else ""
        src = " (run)" if f.source == "run" else ""
        body = textwrap.wrap(where + f.evidence + src, width - 38) or [""]
        lines.append(f"{n} {key:<22} {f.verdict.upper() if f.verdict in FLAGGED else f.verdict:<12} {body[0]}")
        lines += [" " * 37 + b for b in body[1:]]
        if f.fix and f.verdict in FLAGGED + (UNKNOWN,):
            lines += [" " * 37 + b for b in textwrap.wrap("fix: " + f.fix, width - 38)]
    if notes:
        lines += ["", "notes:"] + [f"  - {n}" for n in notes]
    if run:
        lines += ["", f"run: {run.get('summary', '')}"]
        if run.get("crash"):
            c = run["crash"]
            lines += [f"  crashed on rank {c.get('rank')}: {c.get('error')}"
                      + (f" (line {c['line']}: {c.get('code', '')})" if c.get("line") else "")]
            if c.get("hint"):
                lines.append(f"  hint: {c['hint']}")
    flagged = [str(n) for n, _, _ in STEPS if findings[n].verdict in FLAGGED]
    lines += ["", f"{len(flagged)} step(s) missing or wrong: {', '.join(flagged)}" if flagged
              else "no step missing or wrong"]
    return "\n".join(lines)
