"""`hvdkit timeline`: capture a HOROVOD_TIMELINE trace of chosen steps, and answers from it.

    hvdkit timeline capture --steps 5:8 -o trace.json -- mpirun -n 2 python train.py [ARGS]
    hvdkit timeline summary trace.json [--json] [--top 10]
    hvdkit timeline compare two_ranks.json four_ranks.json
    hvdkit timeline slice trace.json --start 2 --end 2.5 -o small.json
    hvdkit timeline plot trace.json -o timeline.png [--start 2 --end 2.5]

Times for --start/--end are seconds from the trace's first event (or with a unit: 250ms, 1500us).
capture needs nothing in the script: steps run through hvdkit's Meter or hk.progress are recorded A..B-1
only (hvdkit.timeline.capture); a plain Horovod script's trace holds the whole run, which it says.
"""
import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

from hvdkit.cli import UsageError
from hvdkit.common.errors import FAILURE_STATUS, HvdkitError


class CaptureError(HvdkitError, RuntimeError):
    """The captured run failed or wrote no trace: one line, exit status 1."""
    status = FAILURE_STATUS


def _window(args):
    from hvdkit.timeline.window import parse_time
    try:
        start = parse_time(args.start) if args.start is not None else None
        end = parse_time(args.end) if args.end is not None else None
    except ValueError as exc:
        raise UsageError(str(exc))
    if start is not None and end is not None and end <= start:
        raise UsageError(f"--end ({args.end}) must be after --start ({args.start})")
    return start, end


def _output(args):
    out = os.path.abspath(args.output)
    if os.path.abspath(args.trace) == out:
        raise UsageError(f"-o {args.output} is the input trace: write the result to another file")
    if not os.path.isdir(os.path.dirname(out)):
        raise UsageError(f"-o {args.output}: directory {os.path.dirname(out)} does not exist")
    return out


def _summaries(paths, top, gap_us):
    from hvdkit.timeline import summarize
    if top < 0 or gap_us < 0:
        raise UsageError("--top and --gap-us must be >= 0")
    return [summarize(p, top=top, gap_us=gap_us) for p in paths]  # TraceError: main() prints its line


def run_summary(args):
    from hvdkit.timeline.report import summary_text
    [d] = _summaries([args.trace], args.top, args.gap_us)
    print(json.dumps(d, indent=2) if args.json else summary_text(d))


def run_compare(args):
    from hvdkit.timeline.report import compare_rows, compare_text
    a, b = _summaries([args.a, args.b], args.top, args.gap_us)
    if args.json:
        rows = [{"metric": label, "a": va, "b": vb} for label, va, vb, _, _ in compare_rows(a, b)]
        print(json.dumps({"a": a, "b": b, "rows": rows}, indent=2))
    else:
        print(compare_text(a, b))


def run_slice(args):
    from hvdkit.timeline.slicing import EmptyWindow, slice_trace
    start, end = _window(args)
    out = _output(args)
    try:
        events, meta = slice_trace(args.trace, out, start, end)
    except EmptyWindow:
        raise UsageError(f"no event of {args.trace} falls in the window: check --start/--end against the wall "
                         "time that `hvdkit timeline summary` prints")
    print(f"wrote {args.output}: {events} events and {meta} metadata records (tensor names)")


def run_plot(args):
    from hvdkit.timeline.plot import plot
    start, end = _window(args)
    out = _output(args)
    n = plot(args.trace, out, start, end, title=args.title)  # TraceError, PlotError: main() prints their line
    print(f"wrote {args.output} ({n} intervals)")


def _capture_env(path, steps, mark_cycles, report):
    """The ranks' variables: Horovod records the whole run from init, hvdkit's window narrows it to `steps`."""
    from hvdkit.timeline import capture
    env = {"HOROVOD_TIMELINE": path, capture.PATH_ENV: path, capture.STEPS_ENV: steps, capture.REPORT_ENV: report}
    if mark_cycles:
        env[capture.MARK_CYCLES_ENV] = "1"
    return env


def _capture_argv(args, names):
    """The command to run: launched by hvdkit with -n, else the user's own (OpenMPI's mpirun gets -x for each
    variable, so that ranks on other nodes see them too)."""
    from hvdkit.scale import launch
    command = args.program[1:] if args.program[:1] == ["--"] else list(args.program)
    if not command:
        raise UsageError("no program to run: add -- and the command, e.g. -- mpirun -n 2 python train.py")
    try:
        if args.ranks is not None:
            return launch.command(args.ranks, command, args.launcher, extra=shlex.split(args.launcher_args),
                                  env_names=names), launch.child_env(args.ranks)
        exe = shutil.which(command[0])
        if exe and os.path.basename(command[0]) in ("mpirun", "mpiexec") and launch.is_openmpi(exe):
            command = [command[0], *[a for name in names for a in ("-x", name)], *command[1:]]
        return command, launch.root_switches(dict(os.environ))
    except launch.LaunchError as exc:
        raise UsageError(str(exc)) from None


def run_capture(args):
    from hvdkit.timeline.capture import parse_steps
    try:
        first, end = parse_steps(args.steps)
    except ValueError as exc:
        raise UsageError(f"--steps: {exc}") from None
    out = os.path.abspath(args.output)
    if not os.path.isdir(os.path.dirname(out)):
        raise UsageError(f"-o {args.output}: directory {os.path.dirname(out)} does not exist")
    names = sorted(_capture_env("", "", args.mark_cycles, ""))
    argv, env = _capture_argv(args, names)
    # Recorded beside the target and moved there only when the run succeeded: a failed run keeps the old trace.
    stage = tempfile.mkdtemp(prefix=".capture-", dir=os.path.dirname(out))
    try:
        trace, report = os.path.join(stage, "trace.json"), os.path.join(stage, "report.json")
        env.update(_capture_env(trace, f"{first}:{end}", args.mark_cycles, report))
        env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
        try:
            code = subprocess.run(argv, env=env).returncode
        except OSError as exc:
            raise UsageError(f"cannot start {argv[0]}: {exc.strerror}") from None
        if code != 0:
            raise CaptureError(f"the run failed (exit {code}); no trace kept")
        if not os.path.exists(trace):
            raise CaptureError("the run wrote no trace: it never started Horovod (hvd.init() or hk.init())")
        done = None
        if os.path.exists(report):
            with open(report) as f:
                done = json.load(f)
        os.replace(trace, out)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    _say_captured(args, out, first, end, done)


def _say_captured(args, out, first, end, done):
    n = os.path.getsize(out)
    size = f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.1f} kB"
    if done is None:
        program = next((a for a in args.program if a.endswith(".py")), "the program")
        print(f"note: {os.path.basename(program)} ran no step through hvdkit's Meter or hk.progress (a plain Horovod "
              f"script?): {args.output} ({size}) holds the whole run as HOROVOD_TIMELINE records it, not steps "
              f"{first}:{end}")
        return
    if done["recorded"] is None:
        raise CaptureError(f"the run ended after {done['steps_run']} steps, before step {first}: "
                           f"choose --steps within 0:{done['steps_run']}")
    a, b = done["recorded"]
    cut = f" (the run ended at step {b})" if b < end else ""
    print(f"wrote {args.output}: steps {a} to {b - 1} on {done['ranks']} rank(s){cut}, {size}; "
          f"read it with: hvdkit timeline summary {args.output}")


def register(sub):
    p = sub.add_parser("timeline", help="summarize, compare, slice or plot a HOROVOD_TIMELINE trace",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    tl = p.add_subparsers(dest="timeline_command", metavar="ACTION", required=True)
    fmt = argparse.ArgumentDefaultsHelpFormatter

    def common(q):
        q.add_argument("--json", action="store_true", help="machine-readable output")
        q.add_argument("--top", type=int, default=10, help="tensors listed by time and by bytes")
        q.add_argument("--gap-us", type=float, default=200,
                       help="a rank counts as last ready only if its tick comes this much after the previous one "
                            "(ticks of one coordinator cycle arrive microseconds apart, in rank order)")

    def window(q):
        q.add_argument("--start", help="window start, seconds from the first event (or 250ms, 1500us)")
        q.add_argument("--end", help="window end, same units")
        q.add_argument("-o", "--output", required=True, help="file to write")

    q = tl.add_parser("capture", help="record Horovod's timeline of steps A..B-1 of a run, from outside the script",
                      formatter_class=fmt)
    q.add_argument("--steps", required=True, metavar="A:B", help="record steps A to B-1, counting from 0")
    q.add_argument("-o", "--output", default="trace.json", help="the trace (written by rank 0)")
    q.add_argument("--mark-cycles", action="store_true", help="mark Horovod's background cycles too")
    q.add_argument("-n", "--ranks", type=int, help="launch this many ranks (else the command is a launch itself)")
    q.add_argument("--launcher", default="mpirun", help="with -n: mpirun, mpiexec, horovodrun or srun")
    q.add_argument("--launcher-args", default="", help="with -n: extra launcher arguments, one string")
    q.add_argument("program", nargs=argparse.REMAINDER, help="-- then the command (mpirun ... python train.py)")
    q.set_defaults(run=run_capture)

    q = tl.add_parser("summary", help="where the time goes: collectives, phases, tensors, fusion, stragglers, "
                                      "cycles", formatter_class=fmt)
    q.add_argument("trace")
    common(q)
    q.set_defaults(run=run_summary)

    q = tl.add_parser("compare", help="two traces side by side (e.g. 2 vs 4 ranks)", formatter_class=fmt)
    q.add_argument("a")
    q.add_argument("b")
    common(q)
    q.set_defaults(run=run_compare)

    q = tl.add_parser("slice", help="a time window as a small trace for chrome://tracing or Perfetto",
                      formatter_class=fmt)
    q.add_argument("trace")
    window(q)
    q.set_defaults(run=run_slice)

    q = tl.add_parser("plot", help="phases per tensor over a time window, and phase totals (PNG/PDF/SVG)",
                      formatter_class=fmt)
    q.add_argument("trace")
    window(q)
    q.add_argument("--title", help="figure title")
    q.set_defaults(run=run_plot)
