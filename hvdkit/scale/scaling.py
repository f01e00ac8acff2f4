"""From run records to a scaling table: speed-up, efficiency, oversubscription; text, CSV and plots.

Speed-up is the total rate over the smallest run's, efficiency the speed-up over the ideal (ranks / base
ranks). Weak scaling (fixed per-rank batch) and strong scaling (fixed global batch) use the same formulas
on throughput: what differs is the work each run was given. A run with more ranks than cores on a node
is marked oversubscribed: its ranks take turns on the cores, so its "efficiency" measures time-sharing,
not parallel scaling, and is shown in parentheses.
"""
import csv
import io
import math

COLUMNS = ("ranks", "threads_per_rank", "total_rate", "rate_mean", "rate_std", "speedup", "ideal_speedup",
           "efficiency", "slowest_rank", "slowest_rate", "fastest_rank", "fastest_rate", "oversubscribed",
           "batch_size", "global_batch_size", "busy_before", "load_average", "record")


def rows(records, cores=None, paths=None, busy=None):
    """One dict per record (sorted by ranks); `cores` decides oversubscription for records that do not say;
    `paths` maps ranks to the record's file and `busy` to the processes running just before the run."""
    records = sorted(records, key=lambda r: r["ranks"])
    if not records:
        return []
    base = records[0]
    out = []
    for i, r in enumerate(records):
        ideal = r["ranks"] / base["ranks"]
        speedup = r["total_rate"] / base["total_rate"]
        over = r.get("oversubscribed")
        if over is None:
            over = cores is not None and r["ranks"] > cores
        out.append({
            "ranks": r["ranks"], "threads_per_rank": r.get("threads_per_rank"),
            "total_rate": r["total_rate"], "rate_mean": r.get("rate_mean"), "rate_std": r.get("rate_std"),
            "speedup": speedup, "ideal_speedup": ideal, "efficiency": speedup / ideal,
            "slowest_rank": r["slowest_rank"]["rank"], "slowest_rate": r["slowest_rank"]["rate"],
            "fastest_rank": r["fastest_rank"]["rank"], "fastest_rate": r["fastest_rank"]["rate"],
            "oversubscribed": bool(over), "batch_size": r.get("batch_size"),
            "global_batch_size": r.get("global_batch_size"), "busy_before": (busy or {}).get(r["ranks"]),
            "load_average": r.get("load_average"),
            "record": (paths or {}).get(r["ranks"], ""),
        })
    return out


def _f(x, fmt):
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, fmt)


def table(rows_, unit="images", cores=None):
    """The table as text, with a footnote when some rows are oversubscribed."""
    u = {"images": "img"}.get(unit, unit)
    head = ("ranks", "threads", f"total {u}/s", f"per rank {u}/s", "speed-up", "efficiency",
            "slowest rank", "fastest rank", "note")
    lines = []
    for r in rows_:
        eff = f"{100 * r['efficiency']:.0f}%"
        lines.append((
            str(r["ranks"]), _f(r["threads_per_rank"], "d"), _f(r["total_rate"], ".2f"),
            f"{_f(r['rate_mean'], '.2f')} ± {_f(r['rate_std'], '.2f')}",
            f"{r['speedup']:.2f}x", f"({eff})" if r["oversubscribed"] else eff,
            f"{r['slowest_rank']}: {r['slowest_rate']:.2f}", f"{r['fastest_rank']}: {r['fastest_rate']:.2f}",
            "oversubscribed" if r["oversubscribed"] else ""))
    widths = [max(len(row[i]) for row in [head] + lines) for i in range(len(head))]

    def fmt(row):
        cells = (c.rjust(w) if i < 8 else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths)))
        return "| " + " | ".join(cells) + " |"
    text = [fmt(head), "|" + "|".join("-" * (w + 2) for w in widths) + "|"] + [fmt(row) for row in lines]
    if any(r["oversubscribed"] for r in rows_):
        where = f" ({cores} cores here)" if cores else ""
        text.append(f"(efficiency) oversubscribed: more ranks than cores on a node{where}; the ranks take turns "
                    "on the cores, so this measures time-sharing, not parallel scaling.")
    return "\n".join(text)


def to_csv(rows_):
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for r in rows_:
        writer.writerow({k: ("" if r.get(k) is None else r[k]) for k in COLUMNS})
    return buf.getvalue()


def plot(rows_, paths, title="", unit="images", mode="weak"):
    """Throughput and efficiency against ranks, with the ideal line, saved to each of `paths` (png, pdf)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = [r["ranks"] for r in rows_]
    base = rows_[0]
    ideal = [base["total_rate"] * r["ideal_speedup"] for r in rows_]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    ax1.plot(n, ideal, "--", color="gray", label="ideal (linear)")
    ax2.axhline(100, ls="--", color="gray", label="ideal")
    over = [r for r in rows_ if r["oversubscribed"]]
    fair = [r for r in rows_ if not r["oversubscribed"]]
    for ax, color, y in ((ax1, "C0", lambda r: r["total_rate"]), (ax2, "C1", lambda r: 100 * r["efficiency"])):
        ax.plot(n, [y(r) for r in rows_], ":", color=color)
        ax.plot([r["ranks"] for r in fair], [y(r) for r in fair], "o-", color=color, label="measured")
        if over:
            ax.plot([r["ranks"] for r in over], [y(r) for r in over], "o", color=color, mfc="white",
                    label="oversubscribed (ranks > cores)")
            ax.axvspan(over[0]["ranks"] / 2 ** 0.25, n[-1] * 2 ** 0.25, color="0.9", zorder=0)
    for ax in (ax1, ax2):
        ax.set_xscale("log", base=2)
        ax.set_xticks(n)
        ax.set_xticklabels([str(x) for x in n])
        ax.set_xlabel("ranks")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    ax1.set_ylabel(f"total {unit}/s (sum over ranks)")
    ax1.set_title("throughput")
    ax2.set_ylabel("efficiency (%)")
    ax2.set_ylim(0, max(110, max(100 * r["efficiency"] for r in rows_) * 1.1))
    ax2.set_title(f"{mode} scaling efficiency")
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    for path in paths:
        fig.savefig(path, dpi=120)
    plt.close(fig)
