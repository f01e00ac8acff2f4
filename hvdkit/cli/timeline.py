"""`hvdkit timeline`: answers from a HOROVOD_TIMELINE trace (summary, compare, slice, plot).

    hvdkit timeline summary trace.json [--json] [--top 10]
    hvdkit timeline compare two_ranks.json four_ranks.json
    hvdkit timeline slice trace.json --start 2 --end 2.5 -o small.json
    hvdkit timeline plot trace.json -o timeline.png [--start 2 --end 2.5]

Times for --start/--end are seconds from the trace's first event (or with a unit: 250ms, 1500us).
"""
import argparse
import json
import os

from hvdkit.cli import UsageError


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
