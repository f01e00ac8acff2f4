"""What ResNet34's convolutions alone reach on this machine: the ceiling under resnet_bench's step targets.

    python -m benchmarks.conv_bench --out benchmarks/results/conv.json   # both frameworks, 64, 224 px: 44 min
    python -m benchmarks.conv_bench --quick --out /tmp/conv.json         # smoke: 32 px, 2 timed runs

In one run, --repeats times in turn: the machine's 2-thread float32 matmul rate (resnet_bench's
measurement: the faster of torch's and TensorFlow's; the median over the repeats), and every distinct
convolution of hvdkit's ResNet34 at each image size in each framework, forward and backward alone, in each
of the framework's ways (benchmarks/ranks/conv_layers_rank.py: PyTorch's kernel on NCHW, on channels-last,
and hvdkit's matrix-product path; TensorFlow's kernel, hvdkit's matrix-product path, and the kernel compiled
by XLA; per layer and way the median over the repeats). Per framework and size, with each layer taken at its
fastest way and weighted by how often the model uses it: the convolutions' GFLOP/s and their fraction of the
matmul rate; the same at the way hvdkit's model takes for each layer, and for TensorFlow without XLA.
A training step also runs batch norm, ReLU, the residual adds and the optimizer, so that fraction is an
upper bound on resnet_bench's `fraction_of_matmul` for a step that computes its convolutions in those ways;
the record has no targets of its own.
"""
import argparse
import statistics
import sys

from benchmarks import harness, resnet_bench
from benchmarks.harness import BenchError

RANK = "benchmarks/ranks/conv_layers_rank.py"
FRAMEWORKS = ("torch", "tensorflow")
COMPILED = "xla"  # a way that needs graph compilation: the ceiling is also given without it


def merged(launches):
    """One row per layer: each way's median time over the launches (all of them kept)."""
    rows = []
    for same in zip(*launches):
        row = dict(same[0], seconds={}, seconds_all={})
        for way in same[0]["seconds"]:
            row["seconds_all"][way] = [r["seconds"][way] for r in same]
            row["seconds"][way] = statistics.median(row["seconds_all"][way])
        rows.append(row)
    return rows


def summarize(rows, machine_gflops):
    """Per size: time and GFLOP/s of all layers each way, at each layer's fastest way, and at hvdkit's."""
    ways = list(rows[0]["seconds"])
    flops = sum(r["count"] * r["flops"] for r in rows)
    seconds = {way: sum(r["count"] * r["seconds"][way] for r in rows) for way in ways}
    seconds["fastest_per_layer"] = sum(r["count"] * min(r["seconds"].values()) for r in rows)
    if COMPILED in ways:
        seconds[f"fastest_without_{COMPILED}"] = sum(
            r["count"] * min(t for w, t in r["seconds"].items() if w != COMPILED) for r in rows)
    seconds["hvdkit_choice"] = sum(r["count"] * r["seconds"][r["hvdkit_way"]] for r in rows)
    gflops = {way: flops / s / 1e9 for way, s in seconds.items()}
    return {"conv_flops_per_step": flops, "seconds_per_step": seconds, "gflops": gflops,
            "fraction_of_matmul": {way: g / machine_gflops for way, g in gflops.items()},
            "fastest_way": [min(r["seconds"], key=r["seconds"].get) for r in rows]}


def notes(record):
    rate = record["matmul"][str(record["threads"])]["machine_gflops"]
    out = [f"Machine matmul rate at {record['threads']} threads: {rate:.0f} GFLOP/s."]
    for fw, entry in record["frameworks"].items():
        for size, s in entry["sizes"].items():
            frac = s["fraction_of_matmul"]
            ways = list(entry["layers"][size][0]["seconds"])
            text = (f"{fw}, {size} px, batch {record['batch']}: ResNet34's convolutions alone, each layer at its "
                    f"fastest of {', '.join(ways)}, run at {s['gflops']['fastest_per_layer']:.0f} GFLOP/s, "
                    f"{frac['fastest_per_layer']:.2f} of the matmul rate (hvdkit's model's choices: "
                    f"{frac['hvdkit_choice']:.2f}; all by the library's kernel: {frac['kernel']:.2f}")
            if f"fastest_without_{COMPILED}" in frac:
                text += f"; fastest without {COMPILED}: {frac[f'fastest_without_{COMPILED}']:.2f}"
            out.append(text + f"). A {fw} training step that computes them in these ways stays below "
                              f"{frac['fastest_per_layer']:.2f} of it here.")
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="64,224", help="image sizes, comma-separated")
    p.add_argument("--frameworks", default=",".join(FRAMEWORKS), help="comma-separated subset of torch,tensorflow")
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--reps", type=int, default=10, help="timed runs per layer and way in a launch")
    p.add_argument("--repeats", type=int, default=3, help="launches per size, alternated with the matmul's")
    p.add_argument("--matmul-size", type=int, default=2048)
    p.add_argument("--timeout", type=int, default=900, help="seconds per launch")
    p.add_argument("--quick", action="store_true", help="smoke run: 32 px, 2 timed runs, 512^2 matmul")
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    if args.quick:
        args.sizes, args.reps, args.repeats, args.matmul_size = "32", 2, 1, 512
    sizes = [int(v) for v in args.sizes.split(",") if v]
    frameworks = [f for f in args.frameworks.split(",") if f]
    if not frameworks or set(frameworks) - set(FRAMEWORKS):
        raise BenchError(f"--frameworks {args.frameworks!r}: use a comma-separated subset of {','.join(FRAMEWORKS)}")
    load_before = harness.loadavg()
    threads = str(args.threads)
    matmuls, launches = [], {(fw, size): [] for fw in frameworks for size in sizes}
    for rep in range(args.repeats):  # the matmul and each launch in turn, so slow spells of a shared host spread
        matmuls.append(resnet_bench.matmul_at(args.threads, args))  # resnet_bench's measurement
        for fw, size in launches:
            argv = [RANK, "--framework", fw, "--image-size", str(size), "--batch", str(args.batch),
                    "--threads", threads, "--reps", str(args.reps)]
            launches[fw, size].append(harness.ranks(1, argv, threads=args.threads, timeout=args.timeout)[0]["layers"])
    rate = statistics.median(m["machine_gflops"] for m in matmuls)
    record = {"benchmark": "conv", "batch": args.batch, "threads": args.threads, "reps": args.reps,
              "repeats": args.repeats,
              "command": "python -m benchmarks.conv_bench" + (" --quick" if args.quick else ""),
              "matmul": {threads: {"machine_gflops": rate, "per_repeat": matmuls}},
              "frameworks": {fw: {"layers": {}, "sizes": {}} for fw in frameworks}}
    for (fw, size), runs in launches.items():
        record["frameworks"][fw]["layers"][str(size)] = rows = merged(runs)
        record["frameworks"][fw]["sizes"][str(size)] = summarize(rows, rate)
    record["notes"] = notes(record)
    print("\n".join(record["notes"]))
    harness.write(record, args.out, load_before)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BenchError as e:
        sys.exit(f"conv_bench: error: {e}")
