"""Allreduce latency and bus bandwidth at 2 ranks: Horovod (MPI and Gloo controllers) vs mpi4py vs torch.distributed.

    python -m benchmarks.allreduce_bench --out benchmarks/results/allreduce.json   # full (a few minutes)
    python -m benchmarks.allreduce_bench --quick --out /tmp/allreduce.json         # smoke (make test)

Each side is its own 2-rank launch of benchmarks/ranks/allreduce_rank.py through benchmarks/harness.py
(in-place float32 sums, each rank pinned to one core); the launches alternate sides (each repetition
starts one side later), --repeats times. A call's latency is
the slowest rank's time for it (nccl-tests also take the maximum over ranks); per size: the median and
min-max over all timed calls, algorithm bandwidth = bytes / median latency, bus bandwidth = algbw x
2(n-1)/n (nccl-tests' definition for allreduce: what each link carries). Targets: Horovod's bus
bandwidth with hvdkit's defaults (side hvdkit: hvdkit.torch.init() on hvdkit's Horovod) >= 0.9 x mpi4py's at
every size >= 16 MB; upstream's defaults and HOROVOD_CYCLE_TIME=0 against the best side are reported
beside it. hvdkit_cycle_sleep is the hvdkit side with upstream's sleep between cycles put back
(HVDKIT_CYCLE_WAKE=0, scripts/patches/horovod-core/); hvdkit_two_copy and hvdkit_page_aligned are what earlier
hvdkits chose, hvdkit_4k_pages is without the huge pages hvdkit's launchers ask glibc for, mpi4py_page_aligned
is mpi4py on buffers that start on a page boundary. The extra sides hvd_mpi_cycle0.1 (up to 1 MB) and
hvd_mpi_cycle0 (every size) show what cuts Horovod's small-message latency; "notes" in the JSON says what
this run measured.

Why a blocking call on upstream Horovod costs about a cycle at small sizes (horovod/common/operations.cc in
0.28.1): hvd.allreduce_ only enqueues the tensor; Horovod's background thread wakes once per
HOROVOD_CYCLE_TIME (1 ms by default), agrees with the other ranks which tensors are ready, runs the collective
and marks the handle done. HOROVOD_CYCLE_TIME=0 removes the wait, but the thread then polls without pause on
the core the compute uses. hvdkit's Horovod wakes the thread on the enqueue instead (every side here but
hvdkit_cycle_sleep runs on it). Large messages go to MPI_Allreduce / Gloo on the tensor itself. At
64 MB, OpenMPI's reduction ran about 1.6x slower into a buffer that starts on a page boundary (mpi4py's too, sides
hvdkit_page_aligned and mpi4py_page_aligned in benchmarks/results/allreduce.json); NumPy's
arrays start 16 bytes in, PyTorch's tensors 64 bytes in unless THP_MEM_ALLOC_ENABLE=1 aligns them to the page.
Huge pages for glibc's malloc (GLIBC_TUNABLES=glibc.malloc.hugetlb=1, set by hvdkit's launchers) keep the
tensors' offset and put OpenMPI's own reduction buffers on 2 MB pages too. mpirun with
HOROVOD_CONTROLLER=gloo does not give a Gloo job (no rendezvous server: each process is its own 1-rank job), so
the Gloo side uses horovodrun --gloo.
"""
import argparse
import statistics
import sys
import time

from benchmarks import harness
from benchmarks.harness import BenchError

RANK_SCRIPT = "benchmarks/ranks/allreduce_rank.py"
OUT = "benchmarks/results/allreduce.json"
RANKS = 2
TARGET = 0.9
LARGE = 16 * 2**20
FULL_SIZES = [4**k * 1024 for k in range(1, 9)]  # 4 KB .. 64 MB
SMALL_LIMIT = 2**20  # the cycle-time side: small messages only, where the cycle dominates

# name: (rank script --impl, launcher, extra launcher args, environment, small sizes only)
SIDES = {
    "hvd_mpi": ("hvd", "mpirun", [], {}, False),
    # hvdkit.torch.init()'s CPU defaults on hvdkit's Horovod (its background thread wakes on an enqueue),
    # and the same with upstream's sleep between cycles put back.
    "hvdkit": ("hvdkit", "mpirun", [], {}, False),
    "hvdkit_cycle_sleep": ("hvdkit", "mpirun", [], {"HVDKIT_CYCLE_WAKE": "0"}, False),
    # What an earlier hvdkit chose: init() set OpenMPI's two-copy shared-memory path on GPU-less ranks, and the
    # launchers PyTorch's THP_MEM_ALLOC_ENABLE=1, which puts large tensors on huge pages aligned to the page.
    "hvdkit_two_copy": ("hvdkit", "mpirun", [], {"OMPI_MCA_btl_vader_single_copy_mechanism": "none"}, False),
    "hvdkit_page_aligned": ("hvdkit", "mpirun", [], {"THP_MEM_ALLOC_ENABLE": "1"}, False),
    # No huge pages for glibc's malloc (hvdkit's launchers ask for them): PyTorch's tensors, OpenMPI's buffers.
    "hvdkit_4k_pages": ("hvdkit", "mpirun", [], {"GLIBC_TUNABLES": "glibc.malloc.hugetlb=0"}, False),
    "hvd_gloo": ("hvd", "horovodrun", ["--gloo"], {}, False),
    "mpi4py": ("mpi4py", "mpirun", [], {}, False),
    # mpi4py on buffers that start on a page boundary: the alignment, not Horovod, is what slows that side.
    "mpi4py_page_aligned": ("mpi4py", "mpirun", [], {"BENCH_PAGE_ALIGNED": "1"}, False),
    "torch_gloo": ("torch", "mpirun", [], {"MASTER_ADDR": "127.0.0.1"}, False),
    "hvd_mpi_cycle0.1": ("hvd", "mpirun", [], {"HOROVOD_CYCLE_TIME": "0.1"}, True),
    "hvd_mpi_cycle0": ("hvd", "mpirun", [], {"HOROVOD_CYCLE_TIME": "0"}, False),
}


QUICK_SIDES = ("hvd_mpi", "hvdkit", "hvd_gloo", "mpi4py", "torch_gloo")  # --quick: one launch of each


def iterations(nbytes, quick):
    """Enough calls for a stable median, within about two seconds per size at a few GB/s."""
    return 5 if quick else max(40, min(200, 2**27 // nbytes))


def launch_side(name, sizes, quick):
    """One 2-rank launch; per size, the per-call latency of the slowest rank."""
    impl, launcher, extra, side_env, _ = SIDES[name]
    argv = [RANK_SCRIPT, "--impl", impl, "--sizes", ",".join(map(str, sizes)),
            "--iters", ",".join(str(iterations(s, quick)) for s in sizes), "--untimed", "1" if quick else "5"]
    env_set = dict(side_env, **({"MASTER_PORT": str(harness.free_port())} if impl == "torch" else {}))
    records = harness.ranks(RANKS, argv, env_set, launcher, extra)
    per_call = {int(key): [max(calls) for calls in zip(*(r["times"][key] for r in records))]
                for key in records[0]["times"]}
    shown_env = {k: v for k, v in env_set.items() if k != "MASTER_PORT"}
    return {"command": harness.shown(shown_env, argv, RANKS, launcher), "info": records[0]["info"],
            "per_call": per_call}


def gloo_controller_under_mpirun():
    """What mpirun with HOROVOD_CONTROLLER=gloo gives: without horovodrun's rendezvous, no 2-rank job."""
    env_set = {"HOROVOD_CONTROLLER": "gloo", "HOROVOD_CPU_OPERATIONS": "gloo"}
    argv = [RANK_SCRIPT, "--impl", "hvd", "--sizes", "4096", "--iters", "2"]
    try:
        harness.ranks(RANKS, argv, env_set)
        return {"command": harness.shown(env_set, argv, RANKS), "one_job": True, "error": None}
    except BenchError as e:
        return {"command": harness.shown(env_set, argv, RANKS), "one_job": False, "error": str(e).split(": ", 1)[-1]}


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
    # (side, what it is compared with: the best side at that size, or one named side)
    for side, base in (("hvdkit", "mpi4py"), ("hvd_mpi", None), ("hvd_mpi_cycle0", None), ("hvd_gloo", None)):
        if side not in table or (base and base not in table):
            continue
        ratios = {}
        for s in large:
            best = (table[base][str(s)]["busbw_GBps"] if base else
                    max(rows[str(s)]["busbw_GBps"] for rows in table.values() if str(s) in rows))
            ratios[str(s)] = table[side][str(s)]["busbw_GBps"] / best
        if ratios:
            worst = min(ratios.values())
            result[f"{side}_busbw_over_{base or 'best'}_at_16MB_plus"] = {
                "target": TARGET, "measured": round(worst, 3), "met": worst >= TARGET, "per_size": ratios}
    return result


def notes(record):
    """Sentences from this record's measurements (and the THP mode read from the machine at run time)."""
    table = record["results"]
    sizes = sorted({int(k) for rows in table.values() for k in rows})
    if not sizes:
        return []

    def latencies(size):
        return ", ".join(f"{name} {rows[str(size)]['latency_median_us']:.0f} us" for name, rows in table.items()
                         if str(size) in rows)

    out = [f"Median latency at {fmt_size(sizes[0])}: {latencies(sizes[0])}."]
    out += [f"At {fmt_size(s)}: {latencies(s)}." for s in sizes if s >= LARGE]
    thp = record.get("machine", {}).get("thp")
    # (side, the side it is compared with, what it is, whether the machine's THP mode decides it)
    for side, base, what, thp_decides in (
            ("hvdkit_4k_pages", "hvdkit", "glibc's malloc on 4 KB pages", True),
            ("hvdkit_page_aligned", "hvdkit", "PyTorch's own huge pages, page-aligned (THP_MEM_ALLOC_ENABLE=1)", False),
            ("hvdkit_two_copy", "hvdkit", "OpenMPI's two-copy path", False),
            ("mpi4py_page_aligned", "mpi4py", None, False)):
        large = [s for s in sizes if s >= LARGE and str(s) in table.get(side, {}) and str(s) in table.get(base, {})]
        if large:
            out.append(f"{base} over {side}{f' ({what})' if what else ''}, bus bandwidth: "
                       + ", ".join(f"{table[base][str(s)]['busbw_GBps'] / table[side][str(s)]['busbw_GBps']:.2f}x "
                                   f"at {fmt_size(s)}" for s in large)
                       + (f"; the machine's THP mode, read at run time: '{thp}'." if thp and thp_decides else "."))
    gloo = record.get("mpirun_with_gloo_controller")
    if gloo and "one_job" in gloo:
        out.append("mpirun with HOROVOD_CONTROLLER=gloo HOROVOD_CPU_OPERATIONS=gloo "
                   + ("formed one 2-rank job." if gloo["one_job"] else "did not form one 2-rank job"
                      + (f": {gloo['error']}." if gloo.get("error") else ".")))
    return out


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
                        help=f"smoke run: 4 KB and 64 KB, 5 calls, one launch of each of {', '.join(QUICK_SIDES)}")
    parser.add_argument("--out", default=OUT)
    args = parser.parse_args(argv)
    sizes = [4096, 65536] if args.quick else sorted(int(s) for s in args.sizes.split(","))
    sides = [s for s in args.sides.split(",") if s]
    unknown = [s for s in sides if s not in SIDES]
    if unknown:
        parser.error(f"unknown side {unknown[0]!r}: use some of {', '.join(SIDES)}")
    if args.quick:
        sides = [s for s in sides if s in QUICK_SIDES]
    repeats = 1 if args.quick else args.repeats

    load_before = harness.loadavg()
    t0 = time.perf_counter()
    runs = {name: [] for name in sides}
    commands = {}
    for rep, name in harness.alternate(sides, repeats):
        mine = [s for s in sizes if not SIDES[name][4] or s <= SMALL_LIMIT]
        try:
            run = launch_side(name, mine, args.quick)
        except BenchError as exc:
            print(f"allreduce_bench: error: {exc}", file=sys.stderr)
            return 1
        runs[name].append(run)
        commands[name] = run["command"]
        print(f"repeat {rep + 1}/{repeats} {name}: done ({time.perf_counter() - t0:.0f} s)", flush=True)
    mpirun_gloo = None if args.quick else gloo_controller_under_mpirun()

    table = summarize(runs, sizes)
    print_table(table, sizes)
    goals = targets(table, sizes)
    for name, t in goals.items():
        print(f"{name}: {t['measured']:.3f} (target >= {t['target']}) {'met' if t['met'] else 'NOT met'}")
    record = {
        "benchmark": "allreduce",
        "command": " ".join(["python -m benchmarks.allreduce_bench", *(argv if argv is not None else sys.argv[1:])]),
        "ranks": RANKS, "dtype": "float32", "op": "sum, in place", "repeats": repeats,
        "elapsed_s": time.perf_counter() - t0,
        "side_commands": commands,
        "side_info": {name: launches[0]["info"] for name, launches in runs.items()},
        "results": table,
        "busbw_ratio_same_transport": same_transport(table),
        "mpirun_with_gloo_controller": mpirun_gloo,
        "targets": goals,
    }
    record["machine"] = {"thp": harness.thp_mode()}
    record["notes"] = notes(record)
    print("\n".join(record["notes"]))
    harness.write(record, args.out, load_before)
    return 0


if __name__ == "__main__":
    sys.exit(main())
