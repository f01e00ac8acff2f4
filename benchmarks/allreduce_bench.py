"""Allreduce latency and bus bandwidth at 2 ranks: Horovod (MPI and Gloo controllers) vs mpi4py vs torch.distributed.

    python -m benchmarks.allreduce_bench --out benchmarks/results/allreduce.json   # full (a few minutes)
    python -m benchmarks.allreduce_bench --quick --out /tmp/allreduce.json         # smoke (make test)

Each side is its own 2-rank launch of benchmarks/ranks/allreduce_rank.py (in-place float32 sums, each
rank pinned to one core); the launches alternate side by side, --repeats times. A call's latency is
the slowest rank's time for it (nccl-tests also take the maximum over ranks); per size: the median and
min-max over all timed calls, algorithm bandwidth = bytes / median latency, bus bandwidth = algbw x
2(n-1)/n (nccl-tests' definition for allreduce: what each link carries). Target: Horovod's bus
bandwidth >= 0.9 x the best side's at every size >= 16 MB, with Horovod's defaults and with
HOROVOD_CYCLE_TIME=0. The extra sides hvd_mpi_cycle0.1 (up to 1 MB) and hvd_mpi_cycle0 (every size)
show what cuts Horovod's small-message latency, hvd_mpi_cycle0_4k_pages what huge pages do for large
ones (hvdkit's launchers set THP_MEM_ALLOC_ENABLE=1); see "notes" in the JSON.
"""
import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

from hvdkit.common import launch
from hvdkit.common.context import usable_cores

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RANK_SCRIPT = os.path.join(ROOT, "benchmarks", "ranks", "allreduce_rank.py")
OUT = os.path.join(ROOT, "benchmarks", "results", "allreduce.json")
RANKS = 2
TARGET = 0.9
LARGE = 16 * 2**20
FULL_SIZES = [4**k * 1024 for k in range(1, 9)]  # 4 KB .. 64 MB
SMALL_LIMIT = 2**20  # the cycle-time side: small messages only, where the cycle dominates

# name: (rank script --impl, launcher, extra launcher args, environment, small sizes only)
SIDES = {
    "hvd_mpi": ("hvd", "mpirun", [], {}, False),
    "hvd_gloo": ("hvd", "horovodrun", ["--gloo"], {}, False),
    "mpi4py": ("mpi4py", "mpirun", [], {}, False),
    "torch_gloo": ("torch", "mpirun", [], {"MASTER_ADDR": "127.0.0.1"}, False),
    "hvd_mpi_cycle0.1": ("hvd", "mpirun", [], {"HOROVOD_CYCLE_TIME": "0.1"}, True),
    "hvd_mpi_cycle0": ("hvd", "mpirun", [], {"HOROVOD_CYCLE_TIME": "0"}, False),
    # What hvdkit's launch environment gains over a plain launch: PyTorch tensors on 4 KB pages.
    "hvd_mpi_cycle0_4k_pages": ("hvd", "mpirun", [], {"HOROVOD_CYCLE_TIME": "0", "THP_MEM_ALLOC_ENABLE": "0"}, False),
}

NOTES = (
    "Horovod's small-message latency is its background cycle, not the transport. hvd.allreduce_ only "
    "enqueues the tensor; Horovod's background thread wakes once per cycle (RunLoopOnce sleeps until "
    "HOROVOD_CYCLE_TIME ms after the previous cycle began: 1 ms by default since v0.21, 5 ms before; "
    "horovod/common/operations.cc in 0.28.1), agrees with the other ranks which tensors are ready "
    "(an allreduce of response-cache bits when the tensor name was seen before, a gather of requests "
    "to rank 0 otherwise), runs the allreduce and marks the handle done, while the Python thread polls "
    "it. So one blocking call costs up to a cycle of waiting plus the negotiation and the transport. "
    "HOROVOD_CYCLE_TIME=0.1 (milliseconds; exported to the ranks with -x) shortens the wait (side "
    "hvd_mpi_cycle0.1); HOROVOD_CYCLE_TIME=0 removes it (side hvd_mpi_cycle0): the background thread "
    "never sleeps, so no wake-up is lost on a busy machine either (a 1 ms sleep can oversleep by "
    "milliseconds when other processes hold the cores), but it then polls without pause and takes CPU "
    "from compute on the core it shares. In training the cycle is mostly hidden: "
    "gradients are enqueued during backward and fused (HOROVOD_FUSION_THRESHOLD, 128 MB) into few "
    "allreduces per cycle. Name tensors (Horovod's optimizers do): unnamed calls get a fresh name each "
    "time and are negotiated through rank 0 on every call. Large messages go straight to "
    "MPI_Allreduce / Gloo on the tensor itself (one tensor: no fusion-buffer copy; the call is the "
    "same in-place MPI_Allreduce with MPI_SUM on floats as mpi4py's, horovod/common/ops/mpi_operations.cc "
    "in 0.28.1). What made that same call slower under Horovod was the memory: NumPy puts arrays of 4 MB "
    "and more on transparent huge pages (madvise(MADV_HUGEPAGE), on by default since NumPy 1.22), PyTorch "
    "only with THP_MEM_ALLOC_ENABLE=1, and this machine's THP mode is 'madvise'. On 4 KB pages OpenMPI's "
    "shared-memory copies of a 16 MB message touch 4096 pages instead of 8. Found by hand on 2026-11-23 "
    "before THP_MEM_ALLOC_ENABLE was set: a HOROVOD_TIMELINE of 66 calls at 16 MB (cycle 0, `hvdkit "
    "timeline summary`) put the time in MPI_ALLREDUCE itself (4.33 ms mean; negotiation 0.009 ms), and "
    "mpi4py's Allreduce on a torch-allocated buffer took 4.2-5.2 ms against 3.2-4.0 ms on a NumPy array "
    "(4 launches each, alternated); with THP_MEM_ALLOC_ENABLE=1, 2.5-3.3 ms. hvdkit's launchers set "
    "THP_MEM_ALLOC_ENABLE=1 (docs/scale.md); side hvd_mpi_cycle0_4k_pages is Horovod without it. On a "
    "machine whose THP mode is 'always' both get huge pages anyway. With its defaults Horovod still adds "
    "about a cycle (1 ms) per call at every size. On a network, where a 16 MB allreduce takes longer than "
    "on shared memory, these costs weigh less. The Gloo controller runs over TCP on loopback, so the MPI sides' "
    "shared memory is out of its reach; torch_gloo is the comparison on the same transport. mpirun with "
    "HOROVOD_CONTROLLER=gloo HOROVOD_CPU_OPERATIONS=gloo does not give a Gloo job: without horovodrun's rendezvous server each "
    "process initialises as its own 1-rank job (hvd.size() == 1, checked below), so the Gloo side "
    "is launched with horovodrun --gloo (slow to start: it imports TensorFlow to check the build)."
)


class BenchError(RuntimeError):
    pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def iterations(nbytes, quick):
    """Enough calls for a stable median, within about two seconds per size at a few GB/s."""
    return 5 if quick else max(40, min(200, 2**27 // nbytes))


def launch_side(name, sizes, quick, tmp):
    """One 2-rank launch; per size, the per-call latency of the slowest rank."""
    impl, launcher, extra, side_env, _ = SIDES[name]
    out = tempfile.mkdtemp(dir=tmp, prefix=f"{name}-")
    argv = [sys.executable, RANK_SCRIPT, "--impl", impl, "--out", out,
            "--sizes", ",".join(map(str, sizes)),
            "--iters", ",".join(str(iterations(s, quick)) for s in sizes),
            "--warmup", "1" if quick else "5"]
    env = launch.child_env(RANKS)
    env.update(side_env)
    if impl == "torch":
        env["MASTER_PORT"] = str(free_port())
    names = sorted(k for k in env if k.startswith(("HOROVOD_", "MASTER_", "THP_")))
    cmd = launch.command(RANKS, argv, launcher, extra=extra, env_names=names)
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        tail = (proc.stderr.strip() or proc.stdout.strip()).splitlines()[-3:]
        raise BenchError(f"{name}: exit {proc.returncode}: {' | '.join(tail)}")
    records = read_ranks(name, out)
    per_call = {}
    for key in records[0]["times"]:
        per_call[int(key)] = [max(calls) for calls in zip(*(r["times"][key] for r in records))]
    return {"command": " ".join(f"{k}={env[k]}" for k in names) + (" " if names else "") + " ".join(cmd),
            "info": records[0]["info"], "per_call": per_call}


def read_ranks(name, out):
    """The ranks' records; a side whose processes did not form one 2-rank job is an error."""
    records = []
    for rank in range(RANKS):
        path = os.path.join(out, f"rank-{rank}.json")
        if not os.path.exists(path):
            raise BenchError(f"{name}: no record from rank {rank}: the processes did not form one {RANKS}-rank job")
        with open(path) as f:
            records.append(json.load(f))
    sizes = {r["size"] for r in records}
    if sizes != {RANKS}:
        raise BenchError(f"{name}: the ranks report job sizes {sorted(sizes)}, not {RANKS}")
    return records


def gloo_controller_under_mpirun(tmp):
    """What mpirun with HOROVOD_CONTROLLER=gloo gives: the job size each process sees."""
    out = tempfile.mkdtemp(dir=tmp, prefix="mpirun-gloo-")
    env = launch.child_env(RANKS)
    env.update(HOROVOD_CONTROLLER="gloo", HOROVOD_CPU_OPERATIONS="gloo")
    argv = [sys.executable, RANK_SCRIPT, "--impl", "hvd", "--out", out, "--sizes", "4096", "--iters", "2"]
    cmd = launch.command(RANKS, argv, "mpirun", env_names=["HOROVOD_CONTROLLER", "HOROVOD_CPU_OPERATIONS"])
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    seen = []
    for entry in sorted(os.listdir(out)):
        with open(os.path.join(out, entry)) as f:
            rec = json.load(f)
        seen.append({"rank": rec["rank"], "size": rec["size"], "info": rec["info"]})
    return {"command": "HOROVOD_CONTROLLER=gloo HOROVOD_CPU_OPERATIONS=gloo " + " ".join(cmd),
            "exit": proc.returncode, "records": seen,
            "one_job": len(seen) == RANKS and all(s["size"] == RANKS for s in seen)}


def summarize(runs, sizes):
    """Per side and size: pooled per-call latencies over the repeats -> median, min, max, bandwidths."""
    table = {}
    for name, launches in runs.items():
        rows = {}
        for size in sizes:
            calls = [t for run in launches if size in run["per_call"] for t in run["per_call"][size]]
            if not calls:
                continue
            med = statistics.median(calls)
            algbw = size / med / 1e9
            rows[str(size)] = {
                "bytes": size, "calls": len(calls), "latency_median_us": med * 1e6,
                "latency_min_us": min(calls) * 1e6, "latency_max_us": max(calls) * 1e6,
                "latency_median_per_launch_us": [statistics.median(run["per_call"][size]) * 1e6
                                                 for run in launches if size in run["per_call"]],
                "algbw_GBps": algbw, "busbw_GBps": algbw * 2 * (RANKS - 1) / RANKS,
            }
        table[name] = rows
    return table


def targets(table, sizes):
    result = {}
    large = [s for s in sizes if s >= LARGE]
    for side in ("hvd_mpi", "hvd_mpi_cycle0", "hvd_gloo"):
        if side not in table:
            continue
        ratios = {}
        for s in large:
            best = max(rows[str(s)]["busbw_GBps"] for rows in table.values() if str(s) in rows)
            ratios[str(s)] = table[side][str(s)]["busbw_GBps"] / best
        if ratios:
            worst = min(ratios.values())
            result[f"{side}_busbw_over_best_at_16MB_plus"] = {
                "target": TARGET, "measured": round(worst, 3), "met": worst >= TARGET, "per_size": ratios}
    return result


def measured_note(table):
    """The numbers behind the notes, from this run: median latencies at the smallest and the large sizes."""
    sizes = sorted({int(k) for rows in table.values() for k in rows})
    if not sizes:
        return ""

    def latencies(size):
        return ", ".join(f"{name} {rows[str(size)]['latency_median_us']:.0f} us" for name, rows in table.items()
                         if str(size) in rows)

    note = f" Measured in this run, median latency at {fmt_size(sizes[0])}: {latencies(sizes[0])}."
    return note + "".join(f" At {fmt_size(s)}: {latencies(s)}." for s in sizes if s >= LARGE)


def same_transport(table):
    """Horovod over its transport alone, per size: hvd_mpi / mpi4py and hvd_gloo / torch_gloo bus bandwidth."""
    pairs = {"hvd_mpi_over_mpi4py": ("hvd_mpi", "mpi4py"), "hvd_gloo_over_torch_gloo": ("hvd_gloo", "torch_gloo")}
    out = {}
    for key, (hvd, base) in pairs.items():
        if hvd in table and base in table:
            out[key] = {s: round(table[hvd][s]["busbw_GBps"] / table[base][s]["busbw_GBps"], 3)
                        for s in table[hvd] if s in table[base]}
    return out


def fmt_size(n):
    return f"{n // 2**20} MB" if n >= 2**20 else f"{n // 1024} KB"


def print_table(table, sizes):
    names = list(table)
    print(f"{'size':>7} " + " ".join(f"{n:>22}" for n in names))
    print(f"{'':>7} " + " ".join(f"{'median us | busbw GB/s':>22}" for _ in names))
    for s in sizes:
        cells = []
        for n in names:
            row = table[n].get(str(s))
            cells.append(f"{row['latency_median_us']:>11.1f} | {row['busbw_GBps']:>8.3f}" if row else f"{'-':>22}")
        print(f"{fmt_size(s):>7} " + " ".join(f"{c:>22}" for c in cells))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--sizes", default=",".join(map(str, FULL_SIZES)), help="message sizes in bytes")
    parser.add_argument("--repeats", type=int, default=5, help="alternating launches of every side")
    parser.add_argument("--sides", default=",".join(SIDES), help=f"some of {', '.join(SIDES)}")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: 4 KB and 64 KB, 5 calls, one launch of each main side")
    parser.add_argument("--out", default=OUT)
    args = parser.parse_args(argv)
    sizes = [4096, 65536] if args.quick else sorted(int(s) for s in args.sizes.split(","))
    sides = [s for s in args.sides.split(",") if s]
    unknown = [s for s in sides if s not in SIDES]
    if unknown:
        parser.error(f"unknown side {unknown[0]!r}: use some of {', '.join(SIDES)}")
    if args.quick:
        sides = [s for s in sides if not SIDES[s][4]]
    repeats = 1 if args.quick else args.repeats
    # horovodrun and mpirun beside the interpreter (the venv), as `hvdkit scale` and the tests find them.
    os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")

    with open("/proc/loadavg") as f:
        load_before = f.read().split()
    t0 = time.perf_counter()
    runs = {name: [] for name in sides}
    commands = {}
    with tempfile.TemporaryDirectory() as tmp:
        for rep in range(repeats):
            for name in sides:
                mine = [s for s in sizes if not SIDES[name][4] or s <= SMALL_LIMIT]
                try:
                    run = launch_side(name, mine, args.quick, tmp)
                except BenchError as exc:
                    print(f"allreduce_bench: error: {exc}", file=sys.stderr)
                    return 1
                runs[name].append(run)
                commands[name] = run["command"]
                print(f"repeat {rep + 1}/{repeats} {name}: done ({time.perf_counter() - t0:.0f} s)", flush=True)
        mpirun_gloo = None if args.quick else gloo_controller_under_mpirun(tmp)
    with open("/proc/loadavg") as f:
        load_after = f.read().split()

    table = summarize(runs, sizes)
    print_table(table, sizes)
    goals = targets(table, sizes)
    for name, t in goals.items():
        print(f"{name}: {t['measured']:.3f} (target >= {t['target']}) {'met' if t['met'] else 'NOT met'}")
    record = {
        "benchmark": "allreduce",
        "command": "python -m benchmarks.allreduce_bench" + (" --quick" if args.quick else ""),
        "ranks": RANKS, "dtype": "float32", "op": "sum, in place", "repeats": repeats,
        "machine": {"cores": usable_cores(), "loadavg_before": load_before, "loadavg_after": load_after},
        "elapsed_s": time.perf_counter() - t0,
        "side_commands": commands,
        "side_info": {name: launches[0]["info"] for name, launches in runs.items()},
        "results": table,
        "busbw_ratio_same_transport": same_transport(table),
        "mpirun_with_gloo_controller": mpirun_gloo,
        "notes": NOTES + measured_note(table),
        "targets": goals,
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(record, f, indent=2)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
