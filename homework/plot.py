"""Plots of the scaling study: accuracy_N.pdf per rank count, an overlay of all, time per epoch and speed-up.

    python homework/plot.py homework/results/tensorflow/scaling --out homework

Reads every metrics_N.json in the directory (written by study.py or by --metrics); writes, each as
PDF (one page) and PNG:
  accuracy_N      train and validation accuracy vs epoch at N ranks (the homework's deliverable)
  accuracy_all    validation (solid) and train (dashed) accuracy of every N on one plot
  scaling         training time per epoch vs N, and speed-up over 1 rank with the ideal line
and, beside the metrics files, summary.json: the figures of the scaling plot (seconds per epoch and
speed-up over 1 rank, by rank count) and the 1-minute load average the epochs recorded, the record
homework/README.md's tables link to.
Epoch 1 includes one-off start-up (graph tracing, first allreduce), so times use the median of the
later epochs when there are any.
"""
import argparse
import glob
import json
import os
import re
import statistics
import sys

from hvdkit.common.files import write_json


def read_runs(directory):
    """{ranks: run dict} from metrics_N.json files."""
    runs = {}
    for path in glob.glob(os.path.join(directory, "metrics_*.json")):
        m = re.fullmatch(r"metrics_(\d+)\.json", os.path.basename(path))
        if not m:
            continue
        with open(path) as f:
            run = json.load(f)
        if run.get("epochs"):
            runs[int(m.group(1))] = run
    return dict(sorted(runs.items()))


def epoch_time(run):
    times = [e["time"] for e in run["epochs"]]
    return statistics.median(times[1:] if len(times) > 1 else times)


def summary(runs):
    """The scaling plot's figures: {"train_seconds_per_epoch": {N: s}, "speedup": {N: x}}, keys the rank counts
    as strings; speed-up only with a 1-rank run. Also how busy the machine was: "load_avg_1min": {N: min,
    mean, max over the epochs that recorded it, and how many did}, for the runs that recorded any."""
    times = {str(n): epoch_time(run) for n, run in runs.items()}
    out = {"statistic": "median training time of epochs 2 and later (epoch 1 when there is no other); "
                        "speed-up: the 1-rank time over the N-rank time",
           "epochs": {str(n): len(run["epochs"]) for n, run in runs.items()},
           "train_seconds_per_epoch": times}
    if "1" in times:
        out["speedup"] = {n: times["1"] / t for n, t in times.items()}
    loads = {str(n): [e["load_avg_1min"] for e in run["epochs"] if "load_avg_1min" in e] for n, run in runs.items()}
    out["load_avg_1min"] = {n: {"min": min(v), "mean": statistics.mean(v), "max": max(v), "epochs": len(v)}
                            for n, v in loads.items() if v}
    return out


def write_summary(runs, directory):
    path = os.path.join(directory, "summary.json")
    write_json(path, summary(runs))
    return path


def _title(run):
    data = run["dataset"] + (f" (first {run['subset']})" if run.get("subset") else "")
    return (f"{data}, {run['framework']}, batch {run['batch_size']}/rank, "
            f"lr {run['lr']:g} x ranks" + (f", warmup {run['warmup_epochs']:g} ep" if run.get("warmup_epochs") else ""))


def _ranks(n):
    return f"{n} rank" + ("s" if n != 1 else "")


def _save(fig, out, name):
    paths = []
    for ext in ("pdf", "png"):
        path = os.path.join(out, f"{name}.{ext}")
        fig.savefig(path, dpi=150 if ext == "png" else None)
        paths.append(path)
    return paths


def plot_accuracy(plt, run, n, out):
    fig, ax = plt.subplots(figsize=(6, 4), layout="constrained")
    epochs = [e["epoch"] for e in run["epochs"]]
    ax.plot(epochs, [e["train_accuracy"] for e in run["epochs"]], "o--", label="train")
    ax.plot(epochs, [e["val_accuracy"] for e in run["epochs"]], "o-", label="validation")
    ax.set(xlabel="epoch", ylabel="accuracy", title=f"{_ranks(n)}: {_title(run)}")
    ax.title.set_fontsize(9)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.grid(alpha=0.3)
    ax.legend()
    paths = _save(fig, out, f"accuracy_{n}")
    plt.close(fig)
    return paths


def plot_overlay(plt, runs, out):
    fig, ax = plt.subplots(figsize=(6, 4), layout="constrained")
    for i, (n, run) in enumerate(runs.items()):
        epochs = [e["epoch"] for e in run["epochs"]]
        color = f"C{i}"
        ax.plot(epochs, [e["val_accuracy"] for e in run["epochs"]], "o-", color=color, label=f"{_ranks(n)}, validation")
        ax.plot(epochs, [e["train_accuracy"] for e in run["epochs"]], "--", color=color, alpha=0.6,
                label=f"{_ranks(n)}, train")
    ax.set(xlabel="epoch", ylabel="accuracy", title="all scales: " + _title(next(iter(runs.values()))))
    ax.title.set_fontsize(9)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    paths = _save(fig, out, "accuracy_all")
    plt.close(fig)
    return paths


def plot_scaling(plt, runs, out):
    figures = summary(runs)
    ranks = list(runs)
    times = [figures["train_seconds_per_epoch"][str(n)] for n in ranks]
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.6), layout="constrained")
    left.plot(ranks, times, "o-")
    left.set(xlabel="ranks", ylabel="training time per epoch (s)", xscale="log", xticks=ranks, xticklabels=ranks,
             title="time per epoch (median of epochs 2+)")
    if "speedup" in figures:
        speedup = [figures["speedup"][str(n)] for n in ranks]
        right.plot(ranks, speedup, "o-", label="measured")
        for n, s in zip(ranks, speedup):
            right.annotate(f"{s:.2f}x", (n, s), textcoords="offset points", xytext=(0, 6), ha="center", fontsize=8)
        right.plot(ranks, ranks, ":", color="gray", label="ideal")
        right.set(xlabel="ranks", ylabel="speed-up over 1 rank", xscale="log", yscale="log", xticks=ranks,
                  xticklabels=ranks, yticks=ranks, yticklabels=ranks, title="speed-up")
        right.legend()
    else:
        right.set_axis_off()
        right.text(0.5, 0.5, "no 1-rank run: no speed-up", ha="center")
    for ax in (left, right):
        ax.title.set_fontsize(9)
        ax.grid(alpha=0.3, which="both")
        ax.minorticks_off()
    paths = _save(fig, out, "scaling")
    plt.close(fig)
    return paths


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("metrics_dir", help="directory with metrics_N.json files")
    p.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)), help="where the plots go")
    args = p.parse_args(argv)
    runs = read_runs(args.metrics_dir)
    if not runs:
        p.exit(2, f"plot.py: error: no metrics_N.json with any epoch in {args.metrics_dir}: run "
                  "`python homework/study.py scaling` first (or train with --metrics DIR/metrics_N.json)\n")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    os.makedirs(args.out, exist_ok=True)
    written = []
    for n, run in runs.items():
        written += plot_accuracy(plt, run, n, args.out)
    written += plot_overlay(plt, runs, args.out)
    written += plot_scaling(plt, runs, args.out)
    written.append(write_summary(runs, args.metrics_dir))
    for n, run in runs.items():
        print(f"{_ranks(n)}: {len(run['epochs'])} epochs, final val accuracy {run['epochs'][-1]['val_accuracy']:.4f}, "
              f"{epoch_time(run):.1f} s/epoch")
    print("wrote " + " ".join(written))
    return 0


if __name__ == "__main__":
    sys.exit(main())
