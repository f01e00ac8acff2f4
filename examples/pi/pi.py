"""Monte Carlo estimate of pi with mpi4py: the course's first parallel program, done right.

    mpirun -n 4 python examples/pi/pi.py -N 100000000

Each rank draws its share of the N points (the first N % size ranks take one extra) from its own
random stream (numpy SeedSequence(seed).spawn(size)[rank]), counts those inside the disc, and the
integer counts are summed with MPI Allreduce. The vectorized method works in bounded chunks, so
N = 1e10 runs in constant memory. `--method loop` is the tutorial's per-sample Python loop, and
`--method both` runs the two one after the other for comparison. Without mpirun (or without mpi4py)
the program runs as rank 0 of 1; `count_inside` can be imported and called with no MPI at all.
"""
import argparse
import json
import math
import os
import random
import sys
import time

import numpy as np

# Two 2**16-sample float64 buffers (1 MiB together) are about a core's L2 cache (1 MiB here), so the
# arithmetic after the draws runs on cached data: python -m benchmarks.pi_bench measured 2**16 at
# 0.85-0.89 of numpy's bare draw rate, 2**20 (spilling to memory) at 0.70-0.77.
DEFAULT_CHUNK = 2**16
METHODS = ("vectorized", "loop", "both")
# Set by mpirun/mpiexec/srun in every rank they start; absent when the script is run with plain python.
LAUNCHER_VARS = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK", "MPI_LOCALNRANKS")


def count_inside(n, rng=None, chunk=DEFAULT_CHUNK):
    """How many of n uniform points in the unit square fall inside the quarter disc x^2 + y^2 < 1.

    The probability is pi/4, the same as for the tutorial's disc of radius 1/2 centred in
    [-1/2, 1/2]^2, without the shift. `rng` is a numpy Generator (PCG64, numpy's default), a
    SeedSequence, an int seed or None. The x coordinates are the stream's draws in order and the
    y coordinates those of its jumped copy (a distant, non-overlapping part of the same stream), so
    the count does not depend on `chunk`, which only bounds memory (about 17 * chunk bytes).
    """
    if n < 0:
        raise ValueError(f"number of samples must be >= 0, got {n}")
    if chunk < 1:
        raise ValueError(f"chunk must be >= 1, got {chunk}")
    rx = np.random.default_rng(rng)
    ry = np.random.Generator(rx.bit_generator.jumped())
    size = max(1, min(n, chunk))
    xs, ys, mask = np.empty(size), np.empty(size), np.empty(size, dtype=bool)
    inside = 0
    for start in range(0, n, size):
        m = min(size, n - start)
        x, y = xs[:m], ys[:m]
        rx.random(out=x)
        ry.random(out=y)
        # In place on two contiguous buffers: the cheapest numpy form of x*x + y*y < 1.
        np.square(x, out=x)
        np.square(y, out=y)
        x += y
        np.less(x, 1.0, out=mask[:m])
        inside += int(np.count_nonzero(mask[:m]))
    return inside


def count_inside_loop(n, rng):
    """The tutorial's per-sample loop: points in [-1/2, 1/2]^2, inside the disc of radius 1/2."""
    inside = 0
    for _ in range(n):
        x = rng.uniform(-0.5, 0.5)
        y = rng.uniform(-0.5, 0.5)
        if x * x + y * y < 0.25:
            inside += 1
    return inside


def share(n, rank, size):
    """Samples of rank `rank`: n // size, plus one for the first n % size ranks."""
    return n // size + (1 if rank < n % size else 0)


def rank_seed(seed, rank, size):
    """This rank's child of SeedSequence(seed): independent of every other rank's, and reproducible."""
    return np.random.SeedSequence(seed).spawn(size)[rank]


def loop_rng(seed_sequence):
    """Python's `random` generator for the loop, seeded with 128 bits of this rank's SeedSequence."""
    return random.Random(int.from_bytes(seed_sequence.generate_state(4).tobytes(), "little"))


def estimate(inside, n):
    """(pi estimate, binomial standard error 4 * sqrt(p (1 - p) / n)) from a count of n samples."""
    p = inside / n
    return 4.0 * p, 4.0 * math.sqrt(p * (1.0 - p) / n)


class _Serial:
    """The few MPI calls this program makes, for a single process without MPI."""
    rank, size = 0, 1

    def Allreduce(self, send, recv, op=None):
        recv[...] = send

    def reduce(self, value, op=None, root=0):
        return value

    def gather(self, value, root=0):
        return [value]

    def bcast(self, value, root=0):
        return value

    def Barrier(self):
        pass


def world():
    """(comm, SUM, MAX): MPI's world if an MPI launcher started us, else a one-rank stand-in."""
    launched = [name for name in LAUNCHER_VARS if name in os.environ]
    if not launched:
        return _Serial(), None, None
    try:
        from mpi4py import MPI
    except ImportError:
        sys.exit(f"pi.py: error: started by an MPI launcher ({launched[0]} is set) but mpi4py is not "
                 f"installed: pip install mpi4py")
    return MPI.COMM_WORLD, MPI.SUM, MPI.MAX


def run(method, args, seed, comm, SUM, MAX):
    """Count on every rank and combine; returns the record on rank 0, None elsewhere."""
    rank, size = comm.rank, comm.size
    n = share(args.N, rank, size)
    child = rank_seed(seed, rank, size)
    comm.Barrier()  # MPI: start the clock together, so the slowest rank's time is the run's time
    t0, cpu0 = time.perf_counter(), time.process_time()
    if method == "vectorized":
        inside = count_inside(n, np.random.default_rng(child), args.chunk)
    else:
        inside = count_inside_loop(n, loop_rng(child))
    cpu = time.process_time() - cpu0  # the count alone: MPI may spin, burning CPU, while it waits
    # Integers, not the tutorial's doubles: a float64 count is inexact beyond 2**53 samples.
    counts = np.array([inside, n], dtype=np.int64)
    total = np.empty_like(counts)
    comm.Allreduce(counts, total, op=SUM)  # MPI: sum of (inside, samples) over ranks
    elapsed = time.perf_counter() - t0
    slowest = comm.reduce(elapsed, op=MAX, root=0)  # MPI: the run lasts as long as its slowest rank
    # MPI: shown so the split (and its remainder) can be checked; CPU time tells a slow rank from
    # one that waited for a core on a busy machine.
    per_rank = comm.gather((n, cpu), root=0)
    if rank != 0:
        return None
    inside_total, samples = (int(v) for v in total)
    pi, std_error = estimate(inside_total, samples)
    return {"method": method, "inside": inside_total, "samples": samples,
            "samples_per_rank": [n for n, _ in per_rank], "cpu_s_per_rank": [c for _, c in per_rank],
            "estimate": pi, "abs_error": abs(pi - math.pi), "std_error": std_error,
            "time_s": slowest, "samples_per_s": samples / slowest if slowest > 0 else None}


def positive_int(text):
    """An integer >= 1, also written as 1e8."""
    try:
        value = float(text) if any(c in text for c in ".eE") else int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}")
    if value != int(value) or value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 1, got {text}")
    return int(value)


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")


def parse_args(argv=None):
    parser = _Parser(prog="pi.py", description=__doc__.split("\n\n")[0],
                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("-N", type=positive_int, default=5_000_000,
                        help="total samples over all ranks (1e8 is accepted)")
    parser.add_argument("--method", choices=METHODS, default="vectorized",
                        help="numpy in chunks, the tutorial's Python loop, or both in one run")
    parser.add_argument("--seed", type=int, default=None,
                        help="root seed (>= 0) for reproducible counts; default: fresh entropy, printed")
    parser.add_argument("--chunk", type=positive_int, default=DEFAULT_CHUNK,
                        help="samples per vectorized step (memory bound; does not change the count)")
    parser.add_argument("--json", metavar="PATH", help="also write the results as a JSON record here")
    args = parser.parse_args(argv)
    if args.seed is not None and args.seed < 0:
        parser.error(f"--seed must be >= 0, got {args.seed}")
    if args.json and os.path.isdir(args.json):
        parser.error(f"--json {args.json} is a directory: give a file name, e.g. {os.path.join(args.json, 'pi.json')}")
    return args


def report(records, args, seed, size):
    per_rank = records[0]["samples_per_rank"]
    print(f"pi: N = {args.N:,} samples on {size} rank(s), {min(per_rank):,}..{max(per_rank):,} per rank, "
          f"seed {seed}")
    print(f"samples per rank: {' '.join(map(str, per_rank))}")
    for r in records:
        rate = f"{r['samples_per_s']:.3g}" if r["samples_per_s"] else "n/a"
        sigmas = f"{r['abs_error'] / r['std_error']:.1f}" if r["std_error"] > 0 else "inf"
        print(f"{r['method']:>10}: pi ~ {r['estimate']:.8f}  |error| {r['abs_error']:.2e}  "
              f"std error {r['std_error']:.2e}  ({sigmas} sigma)  "
              f"time {r['time_s']:.3f} s (slowest rank)  {rate} samples/s")
    if len(records) == 2 and records[0]["time_s"] > 0:
        print(f"speed-up of vectorized over the loop: {records[1]['time_s'] / records[0]['time_s']:.1f}x")


def main(argv=None):
    args = parse_args(argv)
    comm, SUM, MAX = world()
    # MPI: all ranks must spawn their streams from the same root, so rank 0's entropy is shared.
    seed = args.seed if args.seed is not None else comm.bcast(np.random.SeedSequence().entropy, root=0)
    methods = ("vectorized", "loop") if args.method == "both" else (args.method,)
    records = [run(method, args, seed, comm, SUM, MAX) for method in methods]
    if comm.rank != 0:
        return 0
    report(records, args, seed, comm.size)
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        record = {"program": "examples/pi/pi.py", "N": args.N, "seed": seed, "chunk": args.chunk,
                  "ranks": comm.size, "numpy": np.__version__, "results": records}
        with open(args.json, "w") as f:
            json.dump(record, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
