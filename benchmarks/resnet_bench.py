"""ResNet34 training against this machine's own limit: its matmul rate, the model's FLOPs, each framework's images/s.

    python -m benchmarks.resnet_bench --out benchmarks/results/resnet.json     # full (about 45 minutes)
    python -m benchmarks.resnet_bench --quick --out /tmp/resnet.json          # smoke: 32 px, 2 steps, no variants

In one run, each piece a 1-rank launch through benchmarks/harness.py (benchmarks/ranks/resnet_limit_rank.py):
- matmul: float32 2048 x 2048 products at 1 and 2 threads, by torch (`a @ b`: MKL) and by TensorFlow
  (`tf.matmul`: oneDNN). The machine's rate at T threads is the faster library's median: a rate the
  hardware reached, not one library's (MKL takes its AVX2 path on AMD CPUs; oneDNN uses AVX-512 where the
  CPU has it, and the record's machine entry says which CPU ran).
- flops: hvdkit's ResNet34 training step's FLOPs per image, counted by torch's FlopCounterMode.
- runs: the example users run, `OMP_NUM_THREADS=2 HVDKIT_RECORD=run.json mpirun --bind-to none -n 1 python
  examples/resnet34/train_hvd.py (train_hvd_torch.py) --image-size S --batch-size 16 ...`, each framework and
  size, alternated, --repeats times, driven from outside as `hvdkit scale` drives it (its threads and its run
  record from the environment); images/s is the run record's total_rate. GFLOP/s = images/s x FLOPs per
  image. The host's speed drifts, so each run is followed by a 2-thread matmul of both libraries (the first
  preceded by the one above): a launch's fraction is its GFLOP/s over the machine's rate around it (each
  library's mean of the readings before and after, the faster library's), and the size's fraction is the
  median launch's.
- profile: where a PyTorch step's time goes at the first size (torch.profiler, each operator's share).
- allreduce CPU: the same step at 1 and at 2 ranks (64 px, 1 thread and one core each, hvdkit's launcher
  binding), with the CPU time per step of the compute threads and of the others (Horovod's background thread,
  MPI): on a machine whose cores are all computing, the allreduce's CPU time cannot hide behind the step; with
  the compute as long as at 1 rank, efficiency would be wall(1 rank) / (wall(1 rank) + other CPU(2 ranks)).
  The 2-rank step also runs with each of hvdkit's CPU allreduce defaults put back to Horovod's or OpenMPI's
  own (REVERTED), and with all of them at once.
- variants: what else the field uses, each against hvdkit's defaults in the same launches (the step
  outside Horovod, benchmarks/ranks/resnet_limit_rank.py's VARIANTS), alternated, --variant-repeats times.
Targets at batch 16, 2 threads: each framework >= 0.6 of the matmul rate at 64 px and >= 0.9 at 224 px,
TensorFlow >= 0.83 of PyTorch's images/s at 64 px.
"""
import argparse
import json
import os
import statistics
import sys
import tempfile
import time

from benchmarks import harness
from benchmarks.harness import BenchError, stats

OUT = os.path.join(harness.RESULTS, "resnet.json")
RANK = "benchmarks/ranks/resnet_limit_rank.py"
TRAIN = {"tensorflow": "examples/resnet34/train_hvd.py", "torch": "examples/resnet34/train_hvd_torch.py"}
FRAMEWORKS = ("torch", "tensorflow")
LIBRARIES = ("torch", "tensorflow")
# (framework, image size): variants measured against "hvdkit" there. Eigen is left out at 224 px for its time
# per step. hvdkit's TF step chooses XLA or not by a timed trial (hk.train_step); no_xla is the step without it,
# at both sizes. torch.compile's gain or loss shows at 64 px already.
VARIANTS = {
    ("tensorflow", 64): ("library_conv", "keras_batch_norm", "xla", "no_xla", "inter_op_1", "onednn_off",
                         "keep_heap"),
    ("tensorflow", 224): ("keras_batch_norm", "no_xla"),
    ("torch", 64): ("library_conv", "channels_last", "torch_compile", "page_aligned_thp", "glibc_heap"),
    ("torch", 224): ("nchw", "page_aligned_thp", "glibc_heap"),
}
# Fraction of the machine's 2-thread matmul rate each framework's step must reach, per image size (issue 26).
TARGET_FRACTION, TARGET_TF_OVER_TORCH = {64: 0.6, 224: 0.9}, 0.83
# hvdkit's CPU allreduce defaults (hvdkit/common/context.py, and the TF tape's 1/size seed), each put back to
# Horovod's or OpenMPI's own in the 2-rank allreduce CPU runs, then all together; glibc's heap thresholds
# (hvdkit/common/heap.py, torch's init()), and OpenMPI's two-copy path
# (init() chose it before this record's hvdkit): name -> (environment, rank script variant, frameworks).
MiB = 2**20
UPSTREAM_ENV = {"HOROVOD_FUSION_THRESHOLD": str(128 * MiB), "OMPI_MCA_btl_vader_single_copy_mechanism": "cma",
                "OMPI_MCA_mpi_yield_when_idle": "0"}
REVERTED = {
    "fusion_128_mib": ({"HOROVOD_FUSION_THRESHOLD": str(128 * MiB)}, "hvdkit", FRAMEWORKS),
    "two_copy": ({"OMPI_MCA_btl_vader_single_copy_mechanism": "none"}, "hvdkit", FRAMEWORKS),
    "busy_polling": ({"OMPI_MCA_mpi_yield_when_idle": "0"}, "hvdkit", FRAMEWORKS),
    "horovod_tape": ({}, "horovod_tape", ("tensorflow",)),
    "glibc_heap": ({"HVDKIT_KEEP_HEAP": "0"}, "hvdkit", ("torch",)),
    "all_upstream": (UPSTREAM_ENV, "hvdkit", ("torch",)),
    "all_upstream_tf": (UPSTREAM_ENV, "horovod_tape", ("tensorflow",)),
}

# The allreduce runs time TF's step without XLA: the Horovod-tape sides cannot be compiled, and the study is
# of the allreduce's CPU cost, not of XLA.
ALLREDUCE_BASE = {("tensorflow", "hvdkit"): "no_xla"}


def allreduce_variant(framework, variant):
    """The rank script's variant the allreduce runs launch for `variant` (ALLREDUCE_BASE)."""
    return ALLREDUCE_BASE.get((framework, variant), variant)


def matmul_at(threads, args):
    """Both libraries' float32 matmul rate at `threads` (one launch each); the faster is the machine's."""
    rates = {}
    for lib in LIBRARIES:
        rec = harness.ranks(1, [RANK, "matmul", "--library", lib, "--threads", str(threads),
                                "--size", str(args.matmul_size)], threads=threads, timeout=args.timeout)[0]
        rates[lib] = stats(rec["gflops"])
    best = max(rates, key=lambda lib: rates[lib]["median"])
    print(f"matmul {args.matmul_size}^2 float32, {threads} thread(s): "
          + ", ".join(f"{lib} {s['median']:.0f}" for lib, s in rates.items()) + " GFLOP/s", flush=True)
    return {"gflops": rates, "best_library": best, "machine_gflops": rates[best]["median"]}


def bracket(before, after):
    """The machine's rate over a run between two matmul readings: each library's mean of the two medians, the
    faster library's mean the machine's."""
    means = {lib: (before["gflops"][lib]["median"] + after["gflops"][lib]["median"]) / 2 for lib in LIBRARIES}
    best = max(means, key=means.get)
    return {"gflops": {lib: {"median": means[lib], "before": before["gflops"][lib]["median"],
                             "after": after["gflops"][lib]["median"]} for lib in LIBRARIES},
            "best_library": best, "machine_gflops": means[best]}


def measure_matmul(args):
    # --quick: only the rate the runs are measured against (--threads), 2 launches instead of 4.
    return {str(threads): matmul_at(threads, args) for threads in ((args.threads,) if args.quick else (1, 2))}


def example_run(framework, size, args, out_dir, rep):
    """One 1-rank launch of the example, its threads and run record given by the environment; its record."""
    path = os.path.join(out_dir, f"{framework}-{size}-{rep}.json")
    argv = [TRAIN[framework], "--image-size", str(size), "--batch-size", str(args.batch),
            "--num-steps", str(args.steps), "--warmup-steps", str(args.untimed)]
    threads = {"OMP_NUM_THREADS": str(args.threads)}
    harness.run(1, argv, {**threads, "HVDKIT_RECORD": path}, threads=args.threads, timeout=args.timeout)
    with open(path) as f:
        rec = json.load(f)
    return rec, f"OMP_NUM_THREADS={args.threads} HVDKIT_RECORD=run.json mpirun --bind-to none -n 1 python " \
        + " ".join(argv)


def step_argv(framework, size, threads, steps, args, variant="hvdkit"):
    """The rank script's `step` measurement, as launched."""
    return [RANK, "step", "--framework", framework, "--variant", variant, "--image-size", str(size),
            "--batch", str(args.batch), "--threads", str(threads), "--steps", str(steps),
            "--untimed", str(args.untimed)]


def variant_run(framework, size, variant, args):
    argv = step_argv(framework, size, args.threads, args.variant_steps, args, variant)
    rec = harness.ranks(1, argv, threads=args.threads, timeout=args.timeout)[0]
    times = sorted(rec["step_times"])
    rec["images_per_s"] = args.batch / times[len(times) // 2]  # the median step's rate
    return rec


def summarize_runs(runs, flops):
    out = {}
    for (fw, size), recs in runs.items():
        rates = stats(r["total_rate"] for r, _ in recs)
        per_image = flops[str(size)]
        launches = [{"images_per_s": r["total_rate"], "machine_gflops": r["matmul"]["machine_gflops"],
                     "gflops_by_library": {lib: g["median"] for lib, g in r["matmul"]["gflops"].items()},
                     "gflops_before_after": {lib: [g["before"], g["after"]]
                                             for lib, g in r["matmul"]["gflops"].items()},
                     "fraction_of_matmul": r["total_rate"] * per_image / 1e9 / r["matmul"]["machine_gflops"]}
                    for r, _ in recs]
        out.setdefault(fw, {})[str(size)] = {
            "images_per_s": rates, "gflops": rates["median"] * per_image / 1e9,
            # each launch against the machine's rate read just before and after it (bracket); the median launch
            "fraction_of_matmul": statistics.median(x["fraction_of_matmul"] for x in launches),
            "launches": launches,
            "step_times": [r["step_times"][0] for r, _ in recs],
            "load_average": [r.get("load_average") for r, _ in recs],
            "command": recs[0][1]}
    return out


def allreduce_cpu(args):
    """Per framework: the 1- and 2-rank step's wall and CPU time per step (rank 0), and the 2-rank step with
    each of REVERTED, alternated; the efficiency the allreduce's CPU time alone leaves, and each reverted
    side's efficiency against the same 1-rank step."""
    runs = {(fw, n, name): [] for fw in FRAMEWORKS for n, name in [(1, "hvdkit"), (2, "hvdkit")]
            + [(2, name) for name, (_, _, fws) in REVERTED.items() if fw in fws]}
    for _, (fw, n, name) in harness.alternate(runs, args.variant_repeats):
        env, variant, _ = REVERTED.get(name, ({}, "hvdkit", FRAMEWORKS))
        argv = step_argv(fw, 64, 1, args.split_steps, args, allreduce_variant(fw, variant))
        runs[fw, n, name].append(harness.ranks(n, argv, env_set=env, threads=1, timeout=args.timeout)[0]["per_step_ms"])
        print(f"{fw} {n} rank(s), 1 thread each, {name}: {runs[fw, n, name][-1]}", flush=True)
    med = {key: {k: stats(r[k] for r in recs)["median"] for k in recs[0]} for key, recs in runs.items()}
    out = {}
    for fw in FRAMEWORKS:
        one, two = med[fw, 1, "hvdkit"], med[fw, 2, "hvdkit"]
        out[fw] = {"per_step_ms": {"1": runs[fw, 1, "hvdkit"], "2": runs[fw, 2, "hvdkit"]},
                   "median_per_step_ms": {"1": one, "2": two},
                   "efficiency": one["wall"] / two["wall"],
                   "other_cpu_share_at_2": two["other_cpu"] / two["wall"],
                   "efficiency_from_allreduce_cpu": one["wall"] / (one["wall"] + two["other_cpu"]),
                   "rank_variant": allreduce_variant(fw, "hvdkit"),
                   "reverted": {name: {"environment": REVERTED[name][0],
                                       "variant": allreduce_variant(fw, REVERTED[name][1]),
                                       "per_step_ms": runs[fw, 2, name], "median_per_step_ms": med[fw, 2, name],
                                       "efficiency": one["wall"] / med[fw, 2, name]["wall"]}
                                for (f, n, name) in runs if f == fw and name in REVERTED}}
    return out


def summarize_variants(variants):
    out = {}
    for (fw, size), sides in variants.items():
        base = stats(r["images_per_s"] for r in sides["hvdkit"])
        entry = {"hvdkit": {"images_per_s": base}}
        for name, recs in sides.items():
            if name == "hvdkit":
                continue
            s = stats(r["images_per_s"] for r in recs)
            entry[name] = {"images_per_s": s, "over_hvdkit": s["median"] / base["median"],
                           "untimed_s": stats(r["untimed_s"] for r in recs)}
        out.setdefault(fw, {})[str(size)] = entry
    return out


def notes(record):
    """Sentences from the measured values."""
    m2 = record["matmul"]["2"]
    lines = [f"Machine matmul rate at 2 threads: {m2['machine_gflops']:.0f} GFLOP/s ({m2['best_library']}; "
             + ", ".join(f"{lib} {s['median']:.0f}" for lib, s in m2["gflops"].items()) + ")."]
    readings = sorted(g for sizes in record["runs"].values() for r in sizes.values() for x in r["launches"]
                      for g in x["gflops_before_after"][m2["best_library"]])
    lines.append(f"Read again after every run, {m2['best_library']}'s rate ranged {readings[0]:.0f}-{readings[-1]:.0f} "
                 "GFLOP/s; each run's fraction is against the mean of the readings before and after it.")
    for fw, sizes in record["runs"].items():
        for size, r in sizes.items():
            lines.append(f"{fw} {size} px: {r['images_per_s']['median']:.1f} img/s (range "
                         f"{r['images_per_s']['min']:.1f}-{r['images_per_s']['max']:.1f}), {r['gflops']:.0f} GFLOP/s, "
                         f"{r['fraction_of_matmul']:.2f} of the matmul rate.")
    for fw, sizes in record.get("variants", {}).items():
        for size, entry in sizes.items():
            for name, v in entry.items():
                if name != "hvdkit":
                    lines.append(f"{fw} {size} px, {name}: {v['over_hvdkit']:.2f} x hvdkit's images/s "
                                 f"({v['images_per_s']['median']:.1f} against "
                                 f"{entry['hvdkit']['images_per_s']['median']:.1f}).")
    for fw, a in record.get("allreduce_cpu", {}).items():
        m1, m2 = a["median_per_step_ms"]["1"], a["median_per_step_ms"]["2"]
        lines.append(f"{fw} 64 px, 1 thread per rank: step {m1['wall']:.1f} ms at 1 rank, {m2['wall']:.1f} ms at 2 "
                     f"(efficiency {a['efficiency']:.2f}); at 2 ranks the threads other than the compute ones used "
                     f"{m2['other_cpu']:.1f} ms of CPU per step; with the compute as at 1 rank that alone gives "
                     f"{a['efficiency_from_allreduce_cpu']:.2f}.")
        for name, r in a.get("reverted", {}).items():
            lines.append(f"{fw} 64 px, 2 ranks with {name} instead of hvdkit's default: step "
                         f"{r['median_per_step_ms']['wall']:.1f} ms, other threads "
                         f"{r['median_per_step_ms']['other_cpu']:.1f} "
                         f"ms of CPU per step, efficiency {r['efficiency']:.2f}.")
    return lines


def targets(record, size=64):
    """Each framework's fraction of the matmul rate at every size with a target; TF over torch at `size`."""
    runs, out = record["runs"], {}
    for fw in runs:
        for px, target in TARGET_FRACTION.items():
            if str(px) in runs[fw]:
                frac = runs[fw][str(px)]["fraction_of_matmul"]
                out[f"{fw}_fraction_of_matmul_{px}px"] = {"target": target, "measured": round(frac, 3),
                                                          "met": frac >= target}
    if all(str(size) in runs.get(fw, {}) for fw in FRAMEWORKS):
        ratio = (runs["tensorflow"][str(size)]["images_per_s"]["median"]
                 / runs["torch"][str(size)]["images_per_s"]["median"])
        out[f"tensorflow_over_torch_{size}px"] = {"target": TARGET_TF_OVER_TORCH, "measured": round(ratio, 3),
                                                  "met": ratio >= TARGET_TF_OVER_TORCH}
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--sizes", default="64,224", help="image sizes, comma-separated")
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--steps", type=int, default=10, help="timed steps of each example run")
    p.add_argument("--untimed", "--warmup", type=int, default=3, help="untimed steps first")
    p.add_argument("--repeats", type=int, default=3, help="example runs per framework and size, alternated")
    p.add_argument("--variant-steps", type=int, default=6)
    p.add_argument("--variant-repeats", type=int, default=2, help="also the repeats of the allreduce CPU runs")
    p.add_argument("--split-steps", type=int, default=20, help="timed steps of each allreduce CPU run")
    p.add_argument("--no-variants", action="store_true")
    p.add_argument("--matmul-size", type=int, default=2048)
    p.add_argument("--timeout", type=float, default=900)
    p.add_argument("--quick", action="store_true",
                   help="smoke: 32 px, 2 steps after 1, once, no variants, matmul at --threads only")
    p.add_argument("--out", default=OUT)
    args = p.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    if args.quick:
        sizes, args.steps, args.untimed, args.repeats, args.no_variants, args.matmul_size = [32], 2, 1, 1, True, 512

    load_before, t0 = harness.loadavg(), time.perf_counter()
    try:
        matmul = measure_matmul(args)
        flops = harness.ranks(1, [RANK, "flops", "--sizes", ",".join(map(str, sizes))], threads=1,
                              timeout=args.timeout)[0]["flops_per_image"]
        runs = {(fw, s): [] for s in sizes for fw in FRAMEWORKS}
        # The host's speed drifts (the same matmul read 134-172 GFLOP/s within an hour in one record, and one
        # step 1.5 times as fast two minutes later in another): every run is measured between two readings of
        # the machine's rate, each run's "after" the next one's "before", the first's "before" `matmul`'s.
        before = matmul[str(args.threads)]
        with tempfile.TemporaryDirectory(prefix="resnet-bench-") as tmp:
            for rep, (fw, size) in harness.alternate(runs, args.repeats):
                rec, command = example_run(fw, size, args, tmp, rep)
                after = matmul_at(args.threads, args)
                runs[fw, size].append(({**rec, "matmul": bracket(before, after)}, command))
                before = after
                rate = runs[fw, size][-1][0]['total_rate']
                print(f"repeat {rep + 1}/{args.repeats} {fw} {size} px: {rate:.1f} img/s "
                      f"[{time.perf_counter() - t0:.0f} s]", flush=True)
        profile = harness.ranks(1, [RANK, "profile", "--image-size", str(sizes[0]), "--batch", str(args.batch),
                                    "--threads", str(args.threads), "--steps", str(args.steps if args.quick else 5),
                                    "--untimed", str(args.untimed)],
                                threads=args.threads, timeout=args.timeout)[0]
        variants = {}
        if not args.no_variants:
            for fw, size in [k for k in VARIANTS if k[1] in sizes]:
                sides = {name: [] for name in ("hvdkit",) + VARIANTS[fw, size]}
                for _, name in harness.alternate(sides, args.variant_repeats):
                    sides[name].append(variant_run(fw, size, name, args))
                    print(f"{fw} {size} px {name}: {sides[name][-1]['images_per_s']:.1f} img/s "
                          f"[{time.perf_counter() - t0:.0f} s]", flush=True)
                variants[fw, size] = sides
        split = {} if args.no_variants else allreduce_cpu(args)
    except BenchError as exc:
        print(f"resnet_bench: error: {exc}", file=sys.stderr)
        return 1

    from benchmarks.ranks.resnet_limit_rank import VARIANTS as DESCRIBED
    record = {
        "benchmark": "resnet",
        "command": "python -m benchmarks.resnet_bench" + (" --quick" if args.quick else ""),
        "config": {"sizes": sizes, "batch": args.batch, "threads": args.threads, "steps": args.steps,
                   "untimed_steps": args.untimed, "repeats": args.repeats, "variant_steps": args.variant_steps,
                   "variant_repeats": args.variant_repeats, "matmul_size": args.matmul_size},
        "matmul": matmul,
        "flops_per_image": flops,
        "runs": summarize_runs(runs, flops),
        "profile_torch": profile,
        "variants": summarize_variants(variants),
        "allreduce_cpu": split,
        "variant_meaning": {name: text for name, (_, text) in DESCRIBED.items()},
        "elapsed_s": time.perf_counter() - t0,
    }
    record["targets"] = targets(record, 64)
    record["notes"] = notes(record)
    for line in record["notes"]:
        print(line)
    harness.write(record, args.out, load_before)
    return 0


if __name__ == "__main__":
    sys.exit(main())
