"""`hvdkit check HVD.py --against SEQ.py`: what it finds on real pairs, and what it costs.

    python -m benchmarks.check_against_bench                      # everything (an hour or more on 2 cores)
    python -m benchmarks.check_against_bench --only pairs --ranks 2
    python -m benchmarks.check_against_bench --only students

Three parts, each written into benchmarks/results/check_against.json (a part not run keeps its last record):
- pairs: the homework pairs (homework/*_mnist.py against *_hvd.py) and the examples/resnet34 pairs (32 px
  images) at 2 and 4 ranks (4: oversubscribed on this machine), K = 4 optimizer steps: the comparison
  (equivalent, the largest difference and its tolerance, the LR and batch ratios) and its time against the
  two scripts' own K-step runs, measured in the same run and interleaved (the check first for one pair,
  the scripts' own runs first for the next). A script's own K-step run is the script under the --run
  bootstrap, which stops it after K optimizer steps (its hooks count the steps and hash the weights).
- twins: tests/check_against/twins.py's Horovod twins (Horovod's own API, PyTorch and TensorFlow), at
  2 ranks: each broken twin must be explained by its step, each equivalent twin equivalent.
- students: tests/check_against/students/, 14 conversions of a course-style TF 2 MNIST template, each
  against the template at 2 ranks: recall and precision on the hand-labelled faults of steps 3-6 (a fault
  is a labelled step; a flag is a step in `explained_by`; a pair that cannot be compared flags nothing).
"""
import argparse
import json
import os
import sys
import tempfile
import time

from benchmarks import harness
from hvdkit.check.against.run import against
from hvdkit.check.run import dynamic

ROOT = harness.ROOT
OUT = os.path.join(harness.RESULTS, "check_against.json")
STEPS = 4
HOMEWORK = ["--dataset", "fashion-mnist", "--subset", "2048", "--batch-size", "64", "--epochs", "1"]
RESNET = ["--image-size", "32", "--batch-size", "4", "--num-classes", "10", "--num-steps", "4", "--warmup-steps", "0"]
PAIRS = {  # name: (Horovod script, sequential script, arguments for both)
    "homework_tf": ("homework/tensorflow2_mnist_hvd.py", "homework/tensorflow2_mnist.py", HOMEWORK),
    "homework_torch": ("homework/pytorch_mnist_hvd.py", "homework/pytorch_mnist.py", HOMEWORK),
    "resnet34_tf": ("examples/resnet34/train_hvd.py", "examples/resnet34/train_resnet34.py", RESNET),
    "resnet34_torch": ("examples/resnet34/train_hvd_torch.py", "examples/resnet34/train_resnet34_torch.py", RESNET),
}
KEPT = ("equivalent", "explained_by", "first_divergence", "largest", "lr_ratio", "batch_ratio", "grad_scale",
        "steps_compared", "reason", "evidence", "seconds")


def own_run(script, args, ranks, timeout):
    """Seconds of the script's own run to STEPS optimizer steps (ranks > 1: under mpirun), and its steps."""
    with tempfile.TemporaryDirectory(prefix="hvdkit-own-") as out:
        argv = [sys.executable, "-m", "hvdkit.check.run.bootstrap", script, *args]
        launched = dynamic.execute(argv, ranks, {"HVDKIT_CHECK_OUT": out, "HVDKIT_CHECK_STEPS": str(STEPS)}, timeout,
                                   mpi=ranks > 1)
        steps = []
        for r in range(ranks):
            path = os.path.join(out, f"rank-{r}.json")
            steps.append(json.load(open(path))["steps"] if os.path.exists(path) else None)
    return launched.seconds, steps


def bench_pairs(ranks_list, timeout, only_pair=None):
    rows = {}
    order = 0
    for name, (hvd, seq, args) in PAIRS.items():
        if only_pair and only_pair not in name:
            continue
        for ranks in ranks_list:
            hvd_path, seq_path = (os.path.join(ROOT, p) for p in (hvd, seq))
            with tempfile.TemporaryDirectory(prefix="hvdkit-against-bench-") as cwd:
                os.chdir(cwd)
                check_first = order % 2 == 0
                order += 1
                if check_first:
                    result = against(hvd_path, seq_path, args, ranks, STEPS, timeout)
                own_hvd, own_seq = own_run(hvd_path, args, ranks, timeout), own_run(seq_path, args, 1, timeout)
                if not check_first:
                    result = against(hvd_path, seq_path, args, ranks, STEPS, timeout)
                os.chdir(ROOT)
            own = own_hvd[0] + own_seq[0]
            rows[f"{name}@{ranks}"] = {
                "command": f"hvdkit check {hvd} --against {seq} -n {ranks} --steps {STEPS} -- {' '.join(args)}",
                "against": {k: result.get(k) for k in KEPT}, "own_seconds": {"horovod": own_hvd[0],
                                                                            "sequential": own_seq[0], "sum": own},
                "own_steps": {"horovod": own_hvd[1], "sequential": own_seq[1]},
                "check_first": check_first, "time_ratio": round(result["seconds"]["total"] / own, 2) if own else None}
            print(name, ranks, rows[f"{name}@{ranks}"]["against"]["equivalent"],
                  rows[f"{name}@{ranks}"]["time_ratio"], flush=True)
    return rows


def bench_twins(timeout):
    sys.path.insert(0, os.path.join(ROOT, "tests", "check_against"))
    import twins
    rows = {}
    for project, twin, step, what, _ in twins.TWINS:
        with tempfile.TemporaryDirectory(prefix="hvdkit-twin-") as d:
            hvd, seq = twins.write(project, twin, d)
            result = against(hvd, seq, twins.outputs(project, twin, d), 2, STEPS, timeout)
        want = sorted(step) if isinstance(step, tuple) else [step] if step else []
        right = result["explained_by"] == want and (result["equivalent"] is (step is None) or want == [4])
        rows[f"{project}/{twin}"] = {"what": what, "expected_step": step, "right": right,
                                     "against": {k: result.get(k) for k in KEPT}}
        print(project, twin, right, result["explained_by"], flush=True)
    return {"twins": rows, "right": sum(r["right"] for r in rows.values()), "of": len(rows)}


def bench_students(timeout):
    folder = os.path.join(ROOT, "tests", "check_against", "students")
    with open(os.path.join(folder, "labels.json")) as f:
        labels = {k: v for k, v in json.load(f).items() if not k.startswith("_")}
    rows, per_step = {}, {s: {"tp": 0, "fn": 0, "fp": 0} for s in (3, 4, 5, 6)}
    for script in sorted(labels):
        with tempfile.TemporaryDirectory(prefix="hvdkit-student-") as cwd:
            os.chdir(cwd)
            result = against(os.path.join(folder, script), os.path.join(folder, "tensorflow2_mnist.py"), [], 2, STEPS,
                             timeout)
            os.chdir(ROOT)
        faults = {int(s) for s in labels[script]["faults"]}
        flags = set(result["explained_by"]) & set(per_step)
        for s in per_step:
            per_step[s]["tp"] += s in faults and s in flags
            per_step[s]["fn"] += s in faults and s not in flags
            per_step[s]["fp"] += s in flags and s not in faults
        rows[os.path.splitext(script)[0]] = {"faults": sorted(faults), "flags": sorted(flags),
                                             "against": {k: result.get(k) for k in KEPT}}
        print(script, sorted(faults), sorted(flags), result["reason"], flush=True)
    tp, fn, fp = (sum(v[k] for v in per_step.values()) for k in ("tp", "fn", "fp"))
    return {"scripts": rows, "per_step": per_step,
            "overall": {"faults": tp + fn, "tp": tp, "fn": fn, "fp": fp,
                        "recall": round(tp / (tp + fn), 3) if tp + fn else None,
                        "precision": round(tp / (tp + fp), 3) if tp + fp else None}}


def targets(record):
    """The issue's bars: every pair equivalent at an LR ratio equal to its global batch ratio, in at most 3 x the
    two scripts' own K-step runs; every twin explained as labelled; recall >= 0.8 and precision >= 0.9 on the
    students' labelled faults."""
    out = {}
    pairs = record.get("pairs") or {}
    if pairs:
        worst = max((r["time_ratio"] or float("inf")) for r in pairs.values())
        out["pairs_equivalent"] = {"met": all(r["against"]["equivalent"] and not r["against"]["explained_by"]
                                              for r in pairs.values()), "pairs": len(pairs)}
        out["time_at_most_3x_own_runs"] = {"met": worst <= 3, "worst_ratio": worst}
    if record.get("twins"):
        out["twins_explained"] = {"met": record["twins"]["right"] == record["twins"]["of"]}
    overall = (record.get("students") or {}).get("overall")
    if overall:
        out["students_recall"] = {"met": (overall["recall"] or 0) >= 0.8, "value": overall["recall"], "bar": 0.8}
        out["students_precision"] = {"met": (overall["precision"] or 0) >= 0.9, "value": overall["precision"],
                                     "bar": 0.9}
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", choices=("pairs", "twins", "students"), action="append")
    ap.add_argument("--pair", help="pairs whose name contains this (homework_tf, resnet34_torch, ...)")
    ap.add_argument("--ranks", type=int, nargs="+", default=[2, 4])
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per launch")
    ap.add_argument("--out", default=OUT)
    args = ap.parse_args(argv)
    parts = args.only or ["pairs", "twins", "students"]
    record = json.load(open(args.out)) if os.path.exists(args.out) else {}
    load_before = harness.loadavg()
    t0 = time.time()
    if "pairs" in parts:
        pairs = bench_pairs(args.ranks, args.timeout, args.pair)
        record["pairs"] = {**(record.get("pairs") or {}), **pairs} if args.pair or args.ranks != [2, 4] else pairs
    if "twins" in parts:
        record["twins"] = bench_twins(args.timeout)
    if "students" in parts:
        record["students"] = bench_students(args.timeout)
    record["steps"] = STEPS
    record["command"] = "python -m benchmarks.check_against_bench"
    record["last_run"] = {"parts": parts, "seconds": round(time.time() - t0, 1)}
    record["targets"] = targets(record)
    harness.write(record, args.out, load_before)
    return 0


if __name__ == "__main__":
    sys.exit(main())
