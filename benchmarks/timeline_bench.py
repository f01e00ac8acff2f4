"""Speed and memory of `hvdkit timeline summary` on a 100 MB trace (target: < 10 s, < 500 MB peak RSS).

    python -m benchmarks.timeline_bench            # capture a real trace, grow it to 100 MB and 1 GB, measure
    python -m benchmarks.timeline_bench --trace my.json --sizes 100       # grow your own trace

The big trace is a real 2-rank Horovod trace (captured here with mpirun, or given with --trace) whose
events are repeated with shifted timestamps, in Horovod 0.28's own layout. Each summary runs in a fresh
interpreter, so the peak RSS reported is the whole process (interpreter included). "seconds" is wall
time (median of --repeats, with min-max); "cpu_seconds" the process's CPU time, which other jobs on a shared machine
disturb less; the load average is recorded with the results.
Writes benchmarks/results/timeline.json.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

from benchmarks import harness

ROOT = harness.ROOT
RESULTS = os.path.join(harness.RESULTS, "timeline.json")
TARGET_S, TARGET_MB = 10.0, 500.0

CAPTURE = """
import torch, horovod.torch as hvd
hvd.init()
torch.set_num_threads(1)
model = torch.nn.Sequential(*[torch.nn.Linear(64, 64) for _ in range(8)], torch.nn.Linear(64, 10))
opt = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.01),
                               named_parameters=model.named_parameters())
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
for step in range(30):
    opt.zero_grad()
    torch.nn.functional.cross_entropy(model(torch.randn(32, 64)), torch.randint(0, 10, (32,))).backward()
    opt.step()
"""

MEASURE = """
import json, resource, sys, time
t, cpu = time.perf_counter(), time.process_time()
from hvdkit.timeline import summarize
d = summarize(sys.argv[1])
elapsed, cpu = time.perf_counter() - t, time.process_time() - cpu
peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": elapsed, "cpu_seconds": cpu, "peak_rss_mb": peak_mb,
                  "records": d["records"], "allreduces": d["collectives"].get("ALLREDUCE", {}).get("count")}))
"""


def capture(path):
    """A real trace: 2 ranks, a 9-layer MLP, 30 steps, cycle marks on."""
    script = os.path.join(os.path.dirname(path), "capture.py")
    with open(script, "w") as f:
        f.write(CAPTURE)
    harness.run(2, [script], {"HOROVOD_TIMELINE": path, "HOROVOD_TIMELINE_MARK_CYCLES": "1"}, threads=1)


def grow(source, out, target_bytes):
    """Repeat source's events (timestamps shifted past the previous copy) until out reaches target_bytes."""
    with open(source) as f:
        records = json.load(f)
    meta = [r for r in records if r["ph"] == "M"]
    events = [r for r in records if r["ph"] != "M"]
    # A whole-run trace ends mid-collective (Horovod's shutdown drops the writer's queue): repeat only up to
    # the last moment nothing was open, so every copy is a complete, well-nested stretch.
    depth, quiet = 0, 0
    for i, r in enumerate(events):
        depth += {"B": 1, "E": -1}.get(r["ph"], 0)
        if depth == 0:
            quiet = i + 1
    events = events[:quiet]
    first, last = events[0]["ts"], max(r["ts"] for r in events)
    period = last - first + 1000
    texts = []
    with open(out, "w") as f:
        f.write("[\n" + "".join(json.dumps(r) + ",\n" for r in meta))
        copy, written, sep = 0, f.tell(), ""
        while written < target_bytes:
            shift = copy * period
            texts = [json.dumps({**r, "ts": r["ts"] + shift}) for r in events]
            chunk = sep + ",".join(texts)
            f.write(chunk)
            written += len(chunk)
            sep, copy = ",", copy + 1
        f.write("]")
    return copy, len(events) * copy + len(meta)


def measure(path):
    out = subprocess.run([sys.executable, "-c", MEASURE, path], capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")))
    return json.loads(out.stdout)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--trace", help="real trace to grow (default: capture one with mpirun -n 2)")
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 1000],
                    help="trace sizes to measure, MB (1000: memory must stay flat)")
    ap.add_argument("--repeats", type=int, default=3, help="runs per size; median and min-max are reported")
    ap.add_argument("--keep", action="store_true", help="keep the generated traces")
    ap.add_argument("--out", default=RESULTS, help="where to write the JSON results")
    args = ap.parse_args(argv)
    work = tempfile.mkdtemp(prefix="timeline-bench-")
    source = args.trace
    if source is None:
        source = os.path.join(work, "real.json")
        print(f"capturing a real 2-rank trace into {source} ...", flush=True)
        capture(source)
    rows = []
    load_before = harness.loadavg()
    for mb in args.sizes:
        big = os.path.join(work, f"trace_{mb}MB.json")
        copies, records = grow(source, big, mb * 1_000_000)
        runs = [measure(big) for _ in range(args.repeats)]
        med = sorted(runs, key=lambda r: r["seconds"])[(len(runs) - 1) // 2]
        wall = harness.stats(r["seconds"] for r in runs)
        row = {"size_mb": round(os.path.getsize(big) / 1e6, 1), "copies_of_source": copies, "records": records,
               "seconds": round(med["seconds"], 2), "cpu_seconds": round(med["cpu_seconds"], 2),
               "min_max_seconds": [round(wall["min"], 2), round(wall["max"], 2)],
               "spread": wall["spread"] and round(wall["spread"], 3),
               "all_seconds": [round(r["seconds"], 2) for r in runs],
               "peak_rss_mb": round(max(r["peak_rss_mb"] for r in runs), 1),
               "mb_per_second": round(os.path.getsize(big) / 1e6 / med["seconds"], 1),
               "allreduces_counted": med["allreduces"]}
        # The time target is for 100 MB; bigger traces show that memory stays flat.
        row["meets_target"] = row["peak_rss_mb"] < TARGET_MB and (mb > 100 or row["seconds"] < TARGET_S)
        rows.append(row)
        print(json.dumps(row), flush=True)
        if not args.keep:
            os.unlink(big)
    result = {"benchmark": "hvdkit timeline summary", "target": f"100 MB in < {TARGET_S} s, < {TARGET_MB} MB peak RSS",
              "source_trace_bytes": os.path.getsize(source), "rows": rows,
              "command": "python -m benchmarks.timeline_bench " + " ".join(sys.argv[1:] if argv is None else argv)}
    harness.write(result, args.out, load_before)
    return 0 if all(r["meets_target"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
