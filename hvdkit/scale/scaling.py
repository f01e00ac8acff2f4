"""From run records to a scaling table: speed-up, efficiency, oversubscription; text, CSV and plots.

Speed-up is the total rate over the smallest run's, efficiency the speed-up over the ideal. The ideal is
what the runs were given to compute with. With a GPU per rank, or one core per rank, that grows with the
ranks: ideal = ranks / base ranks. When the ranks of a node share its cores (1 rank x 2 threads, then 2
ranks x 1 thread on 2 cores), more ranks bring no more compute than the cores: ideal = cores used / base
cores used, with cores used = per node min(ranks x threads per rank, cores). A sweep whose records lack
threads_per_rank, or that ran on GPUs (the record's `device`), keeps the rank-count ideal.

Weak scaling (fixed per-rank batch) and strong scaling (fixed global batch) use the same formulas on
throughput: what differs is the work each run was given. A run with more ranks than cores on a node
is marked oversubscribed: its ranks take turns on the cores, so its "efficiency" measures time-sharing,
not parallel scaling, and is shown in parentheses.
"""
import csv
import io
import math

COLUMNS = ("ranks", "threads_per_rank", "total_rate", "rate_mean", "rate_std", "speedup", "ideal_speedup",
           "ideal_basis", "cores_used", "efficiency", "slowest_rank", "slowest_rate", "fastest_rank", "fastest_rate",
           "oversubscribed", "batch_size", "global_batch_size", "busy_before", "load_average", "record")


def rows(records, cores=None, paths=None, busy=None):
    """One dict per record (sorted by ranks); `cores` decides oversubscription for records that do not say;
    `paths` maps ranks to the record's file and `busy` to the processes running just before the run."""
    records = sorted(records, key=lambda r: r["ranks"])
    if not records:
        return []
    base = records[0]
    used = [cores_used(r, cores) for r in records]
    by_cores = None not in used and any(u * base["ranks"] != r["ranks"] * used[0] for u, r in zip(used, records))
    out = []
    for i, r in enumerate(records):
        ideal = used[i] / used[0] if by_cores else r["ranks"] / base["ranks"]
        speedup = r["total_rate"] / base["total_rate"]
        over = r.get("oversubscribed")
        if over is None:
            over = cores is not None and r["ranks"] > cores
        per_rank = "wall_seconds" not in r  # a launch timed from outside has no per-rank rates
        slow, fast = (r["slowest_rank"], r["fastest_rank"]) if per_rank else ({"rank": None, "rate": None},) * 2
        out.append({
            "ranks": r["ranks"], "threads_per_rank": r.get("threads_per_rank"),
            "total_rate": r["total_rate"], "rate_mean": r.get("rate_mean") if per_rank else None,
            "rate_std": r.get("rate_std") if per_rank else None,
            "speedup": speedup, "ideal_speedup": ideal, "ideal_basis": "cores" if by_cores else "ranks",
            "cores_used": used[i], "efficiency": speedup / ideal,
            "slowest_rank": slow["rank"], "slowest_rate": slow["rate"],
            "fastest_rank": fast["rank"], "fastest_rate": fast["rate"],
            "oversubscribed": bool(over), "batch_size": r.get("batch_size"),
            "global_batch_size": r.get("global_batch_size"), "busy_before": (busy or {}).get(r["ranks"]),
            "load_average": r.get("load_average"),
            "record": (paths or {}).get(r["ranks"], ""),
        })
    return out


def cores_used(rec, cores=None):
    """Cores a run's ranks could keep busy: per node min(ranks x threads per rank, the node's cores), summed;
    None on GPUs or when the record does not say its threads (`cores`: this node's, for local launches)."""
    threads = rec.get("threads_per_rank")
    device = str(rec.get("device") or "cpu").lower()
    node_cores = cores or rec.get("cpu_count")
    if not threads or not node_cores or "gpu" in device or "cuda" in device:
        return None
    hosts = rec.get("hosts") or 1
    per_node = rec.get("local_size") or -(-rec["ranks"] // hosts)
    return hosts * min(per_node * threads, node_cores)


def ideal_note(rows_):
    """One line saying which ideal the efficiencies are measured against."""
    base = rows_[0]
    if base.get("ideal_basis") == "cores":
        return (f"ideal: speed-up = cores used / {base['cores_used']} (cores used = ranks x threads per rank, at "
                "most the node's cores): the ranks share the node's cores, so adding ranks adds no compute beyond them")
    return f"ideal: speed-up = ranks / {base['ranks']} (linear in ranks: each rank brings its own core or GPU)"


def _f(x, fmt):
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, fmt)


def _rank_rate(row, which):
    return "-" if row[f"{which}_rank"] is None else f"{row[f'{which}_rank']}: {row[f'{which}_rate']:.2f}"


def table(rows_, unit="images", cores=None):
    """The table as text, with a footnote when some rows are oversubscribed."""
    u = {"images": "img"}.get(unit, unit)
    head = ("ranks", "threads", f"total {u}/s", f"per rank {u}/s", "speed-up", "ideal", "efficiency",
            "slowest rank", "fastest rank", "note")
    lines = []
    for r in rows_:
        eff = f"{100 * r['efficiency']:.0f}%"
        lines.append((
            str(r["ranks"]), _f(r["threads_per_rank"], "d"), _f(r["total_rate"], ".2f"),
            f"{_f(r['rate_mean'], '.2f')} ± {_f(r['rate_std'], '.2f')}" if r["rate_mean"] is not None else "-",
            f"{r['speedup']:.2f}x", f"{r['ideal_speedup']:.2f}x", f"({eff})" if r["oversubscribed"] else eff,
            _rank_rate(r, "slowest"), _rank_rate(r, "fastest"),
            "oversubscribed" if r["oversubscribed"] else ""))
    widths = [max(len(row[i]) for row in [head] + lines) for i in range(len(head))]

    def fmt(row):
        cells = (c.rjust(w) if i < len(head) - 1 else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths)))
        return "| " + " | ".join(cells) + " |"
    text = [fmt(head), "|" + "|".join("-" * (w + 2) for w in widths) + "|"] + [fmt(row) for row in lines]
    text.append(ideal_note(rows_))
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
    by_cores = base.get("ideal_basis") == "cores"
    ax1.plot(n, ideal, "--", color="gray", label="ideal (cores used)" if by_cores else "ideal (linear in ranks)")
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
    ax2.set_title(f"{mode} scaling efficiency, against {'the cores used' if by_cores else 'linear in ranks'}")
    basis = ("ideal = cores used (ranks x threads, at most the node's cores)" if by_cores
             else "ideal = linear in ranks (a core or GPU per rank)")
    fig.suptitle(f"{title}\n{basis}" if title else basis, fontsize=10)
    fig.tight_layout()
    for path in paths:
        fig.savefig(path, dpi=120)
    plt.close(fig)
