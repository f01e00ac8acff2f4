"""The homework's two studies: scaling (1, 2, 4, 8 ranks) and LR warmup (N ranks, with and without).

    python homework/study.py scaling -- --dataset fashion-mnist --epochs 8
    python homework/study.py warmup --ranks 8 --seeds 0 1 2 --warmup-epochs 2 -- --dataset fashion-mnist --epochs 4
    python homework/plot.py homework/results/tensorflow/scaling --out homework
    python homework/study.py scaling --framework torch -- --dataset fashion-mnist --epochs 8   # the PyTorch pair

Everything after `--` goes to the training script. Ranks are launched as `hvdkit.scale.launch` does
everywhere in hvdkit: mpirun with oversubscription and one thread per rank when ranks outnumber cores.
Each run writes its metrics JSON under OUT/FRAMEWORK/; a run whose file is already complete is not run again (so an
interrupted study resumes), unless --force.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

# Run from a checkout without installing hvdkit (the ranks get the same directory on PYTHONPATH).
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from hvdkit.common.files import write_json
from hvdkit.scale import launch

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = {"tensorflow": "tensorflow2_mnist_hvd.py", "torch": "pytorch_mnist_hvd.py"}


def _epochs_wanted(script_args):
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--epochs", type=int, default=16)
    return p.parse_known_args(script_args)[0].epochs


def _complete(path, epochs):
    try:
        with open(path) as f:
            return len(json.load(f)["epochs"]) >= epochs
    except (OSError, ValueError, KeyError):
        return False


def run(n, args, metrics, extra=()):
    """Launch the training script on n ranks, writing `metrics`; returns wall seconds (None if skipped)."""
    script_args = [*args.script_args, *extra, "--metrics", metrics]
    if not args.force and _complete(metrics, _epochs_wanted(args.script_args)):
        print(f"[study] {metrics} is complete; skipping (use --force to rerun)", flush=True)
        return None
    argv = launch.command(n, [sys.executable, os.path.join(HERE, SCRIPTS[args.framework]), *script_args],
                          args.launcher)
    env = launch.child_env(n)
    env["PYTHONPATH"] = os.path.dirname(HERE) + os.pathsep + env.get("PYTHONPATH", "")
    print("[study] " + " ".join(argv), flush=True)
    t0 = time.perf_counter()
    proc = subprocess.run(argv, env=env)
    if proc.returncode != 0:
        sys.exit(f"[study] {n} ranks failed (exit {proc.returncode}); see the output above")
    return time.perf_counter() - t0


def scaling(args):
    out = os.path.join(args.out, args.framework, "scaling")
    os.makedirs(out, exist_ok=True)
    for n in args.ranks:
        wall = run(n, args, os.path.join(out, f"metrics_{n}.json"))
        if wall is not None:
            print(f"[study] {n} ranks: {wall:.0f} s wall", flush=True)
    print(f"[study] done; plot with: python {os.path.join(HERE, 'plot.py')} {out} --out {HERE}")


def warmup(args):
    out = os.path.join(args.out, args.framework, "warmup")
    os.makedirs(out, exist_ok=True)
    n = args.ranks[0]
    for seed in args.seeds:
        for w in (0.0, args.warmup_epochs):
            run(n, args, warmup_metrics(out, n, w, seed), ["--seed", str(seed), "--warmup-epochs", str(w)])
    print(write_warmup_summary(out, n, args.seeds, args.warmup_epochs, args.script_args))


def warmup_metrics(out, n, warmup_epochs, seed):
    return os.path.join(out, f"metrics_{n}_warmup{warmup_epochs:g}_seed{seed}.json")


def write_warmup_summary(out, n, seeds, warmup_epochs, script_args):
    """The warmup study's record, from its metrics files in `out` (so it can be rebuilt without training):
    summary.json (every run's final epoch, seed by seed without then with warmup, and per setting the
    mean and spread of warmup_settings) and summary.md (warmup_table); returns the table."""
    rows = []
    for seed in seeds:
        for w in (0.0, warmup_epochs):
            with open(warmup_metrics(out, n, w, seed)) as f:
                final = json.load(f)["epochs"][-1]
            rows.append({"seed": seed, "warmup_epochs": w, "val_accuracy": final["val_accuracy"],
                         "val_loss": final["val_loss"], "epochs": final["epoch"]})
    record = {"ranks": n, "script_args": script_args, "runs": rows, "settings": warmup_settings(rows)}
    write_json(os.path.join(out, "summary.json"), record)
    table = warmup_table(rows, n)
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write(table + "\n")
    return table


def warmup_settings(rows):
    """Per warmup setting (ascending): the seeds, and the mean and sample standard deviation over them of the
    final validation accuracy (stdev None with one seed)."""
    out = []
    for w in sorted({r["warmup_epochs"] for r in rows}):
        seeds = sorted(r["seed"] for r in rows if r["warmup_epochs"] == w)
        values = [next(r["val_accuracy"] for r in rows if r["warmup_epochs"] == w and r["seed"] == s) for s in seeds]
        out.append({"warmup_epochs": w, "seeds": seeds, "val_accuracy_mean": statistics.mean(values),
                    "val_accuracy_stdev": statistics.stdev(values) if len(values) > 1 else None})
    return out


def warmup_table(rows, n):
    """Markdown: final validation accuracy per seed, with and without warmup, and the mean ± stdev."""
    settings = warmup_settings(rows)
    seeds = sorted({r["seed"] for r in rows})
    acc = {(r["seed"], r["warmup_epochs"]): r["val_accuracy"] for r in rows}
    head = [f"warmup {s['warmup_epochs']:g} epochs" for s in settings]
    lines = [f"| {n} ranks: final val accuracy | " + " | ".join(head) + " |", "|---" * (len(head) + 1) + "|"]
    for seed in seeds:
        row = " | ".join(f"{acc[(seed, s['warmup_epochs'])]:.4f}" for s in settings)
        lines.append(f"| seed {seed} | {row} |")
    cells = []
    for s in settings:
        spread = f" ± {s['val_accuracy_stdev']:.4f}" if s["val_accuracy_stdev"] is not None else ""
        cells.append(f"**{s['val_accuracy_mean']:.4f}**{spread}")
    lines.append("| mean ± stdev | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    script_args = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    p = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("study", choices=("scaling", "warmup"))
    p.add_argument("--framework", choices=sorted(SCRIPTS), default="tensorflow")
    p.add_argument("--ranks", type=int, nargs="+", help="rank counts (default: 1 2 4 8 for scaling, 8 for warmup)")
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2], help="warmup study: seeds to repeat with")
    p.add_argument("--warmup-epochs", type=float, default=2.0, help="warmup study: the warmup to compare with none")
    p.add_argument("--out", default=os.path.join(HERE, "results"),
                   help="metrics go to OUT/FRAMEWORK/scaling or OUT/FRAMEWORK/warmup")
    p.add_argument("--launcher", default="mpirun", choices=launch.LAUNCHERS)
    p.add_argument("--force", action="store_true", help="rerun runs whose metrics file is already complete")
    args = p.parse_args(argv)
    args.script_args = script_args
    if args.ranks is None:
        args.ranks = [1, 2, 4, 8] if args.study == "scaling" else [8]
    if any(n < 1 for n in args.ranks):
        p.error("--ranks must be >= 1")
    if args.study == "warmup" and len(args.ranks) != 1:
        p.error("the warmup study runs at one rank count: give --ranks N")
    for flag in ("--metrics", "--seed", "--warmup-epochs"):
        if args.study == "warmup" and flag in script_args or flag == "--metrics" and flag in script_args:
            p.error(f"{flag} is set by the study itself; leave it out of the script's arguments")
    try:
        (scaling if args.study == "scaling" else warmup)(args)
    except launch.LaunchError as exc:
        p.exit(2, f"study.py: error: {exc}\n")


if __name__ == "__main__":
    main()
