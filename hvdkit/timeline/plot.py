"""A picture of a trace window: phases per tensor over time, and a bar chart of phase totals."""
from hvdkit.common.errors import HvdkitError
from hvdkit.common.files import replacing
from hvdkit.timeline.parse import Trace, horovod_records
from hvdkit.timeline.summary import Summary
from hvdkit.timeline.window import clipped

MAX_INTERVALS = 200_000
MAX_ROWS = 40
_COLORS = {
    "QUEUE": "#9467bd", "WAIT_FOR_DATA": "#8c564b", "WAIT_FOR_OTHER_TENSOR_DATA": "#c49c94",
    "MEMCPY_IN_FUSION_BUFFER": "#2ca02c", "MEMCPY_OUT_FUSION_BUFFER": "#98df8a", "INIT_FUSION_BUFFER": "#bcbd22",
    "ALLOCATE_OUTPUT": "#17becf",
}
_WIRE_COLORS = ["#d62728", "#1f77b4", "#ff7f0e", "#e377c2"]


class PlotError(HvdkitError, ValueError):
    pass


def collect(path, start_us=None, end_us=None):
    """(intervals [(pid, name, depth, start, end)], ticks [(pid, ts)], cycle marks, names, window Summary)."""
    trace = Trace(path)
    summary = Summary()
    stacks, intervals, ticks, marks = {}, [], [], []
    with horovod_records(trace, keep=(PlotError,)):
        for r in clipped(trace, start_us, end_us):
            summary.add(r)
            ph = r["ph"]
            if ph == "B":
                stacks.setdefault(r["pid"], []).append((r["name"], r["ts"]))
            elif ph == "E":
                stack = stacks.get(r["pid"])
                if stack:
                    name, begin = stack.pop()
                    intervals.append((r["pid"], name, len(stack), begin, r["ts"]))
                    if len(intervals) > MAX_INTERVALS:
                        raise PlotError(f"the window holds more than {MAX_INTERVALS} intervals: narrow it with "
                                        "--start/--end (seconds from the first event)")
            elif ph == "X":
                ticks.append((r["pid"], r["ts"]))
            elif ph == "i":
                marks.append(r["ts"])
        return intervals, ticks, marks, summary.names, summary.finish()


def _color(name, wire_names):
    if name in _COLORS:
        return _COLORS[name]
    if name in wire_names:
        return _WIRE_COLORS[wire_names.index(name) % len(_WIRE_COLORS)]
    return "#7f7f7f"


def plot(path, out, start_us=None, end_us=None, title=None):
    """Draw the window of `path` into the image file `out`; return the number of intervals drawn."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    intervals, ticks, marks, names, summary = collect(path, start_us, end_us)
    if not intervals:
        raise PlotError(f"no complete interval in the window of {path}: choose --start/--end within the wall time "
                        "that `hvdkit timeline summary` prints")
    origin = summary.first_ts
    busy = {}
    for pid, name, depth, s, e in intervals:
        if depth == 0 and not name.startswith("NEGOTIATE_"):
            busy[pid] = busy.get(pid, 0) + e - s
    pids = sorted({i[0] for i in intervals}, key=lambda p: (-busy.get(p, 0), p))[:MAX_ROWS]
    row = {pid: i for i, pid in enumerate(sorted(pids))}
    spans = summary.as_dict()
    wire_names = sorted(n for n in spans["activities"] if n not in _COLORS)

    fig, (ax, bars) = plt.subplots(2, 1, figsize=(12, 3 + 0.28 * len(row)),
                                   gridspec_kw={"height_ratios": [max(3, 0.28 * len(row)), 2.2]})
    groups = {}
    # Collectives of microseconds would vanish beside a window of seconds: draw at least a hair's width.
    least = max(summary.last_ts - origin, 1) / 1e3 / 1500
    for pid, name, depth, s, e in intervals:
        if pid in row:
            groups.setdefault((pid, name, depth), []).append(((s - origin) / 1e3, max((e - s) / 1e3, least)))
    for (pid, name, depth), segs in sorted(groups.items(), key=lambda kv: kv[0][2]):  # outer phases first
        y = row[pid]
        if depth == 0:
            negotiate = name.startswith("NEGOTIATE_")
            ax.broken_barh(segs, (y - 0.4, 0.8), facecolors="#e0e0e0" if negotiate else "#ffffff",
                           edgecolors="#9e9e9e" if negotiate else "#000000", linewidth=0.5)
        else:
            ax.broken_barh(segs, (y - 0.3, 0.6), facecolors=_color(name, wire_names), linewidth=0, zorder=2)
    tick_x = [(ts - origin) / 1e3 for pid, ts in ticks if pid in row]
    tick_y = [row[pid] for pid, ts in ticks if pid in row]
    ax.scatter(tick_x, tick_y, marker="|", s=60, color="black", linewidths=1, zorder=3)
    for ts in marks:
        ax.axvline((ts - origin) / 1e3, color="#1f77b4", alpha=0.08, linewidth=0.5)
    ax.set_yticks(range(len(row)))
    ax.set_yticklabels([_short(names.get(pid, f"pid {pid}")) for pid in sorted(pids)], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("ms from the window start" + (f" ({start_us / 1e3:g} ms after the first event)" if start_us else ""))
    ax.set_title(title or f"{path}: phases per tensor" + (f" (top {MAX_ROWS} tensors by time)"
                                                           if len(busy) > MAX_ROWS else ""), fontsize=9)
    legend = [Patch(facecolor="#e0e0e0", edgecolor="#9e9e9e", label="NEGOTIATE_*"),
              Patch(facecolor="white", edgecolor="black", label="operation")]
    legend += [Patch(facecolor=_color(n, wire_names), label=n) for n in spans["activities"]]
    ax.legend(handles=legend, fontsize=7, loc="upper left", bbox_to_anchor=(1.005, 1.0), borderaxespad=0)

    phases = {**spans["negotiations"], **spans["collectives"], **spans["activities"]}
    labels = list(phases)
    walls = [phases[n]["wall_us"] / 1e3 for n in labels]
    sums = [phases[n]["tensor_us"] / 1e3 for n in labels]
    ys = range(len(labels))
    bars.barh([y + 0.2 for y in ys], sums, height=0.4, color="#bdbdbd", label="summed over tensors")
    bars.barh([y - 0.2 for y in ys], walls, height=0.4,
              color=[_color(n, wire_names) if n in spans["activities"] else "#636363" for n in labels],
              label="wall (any tensor)")
    bars.set_yticks(list(ys))
    bars.set_yticklabels(labels, fontsize=7)
    bars.invert_yaxis()
    bars.set_xscale("log")
    bars.set_xlabel("ms in the window (log scale)")
    bars.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    try:
        with replacing(out) as tmp:
            fig.savefig(tmp, dpi=120)
    except ValueError as exc:  # matplotlib: unknown image format
        raise PlotError(f"cannot write {out}: {exc} (use .png, .pdf or .svg)") from None
    finally:
        plt.close(fig)
    return len(intervals)


def _short(name, width=40):
    return name if len(name) <= width else "..." + name[-(width - 3):]
