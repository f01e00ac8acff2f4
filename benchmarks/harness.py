"""The one harness every benchmark stands on: launch N ranks, collect their records, alternate sides,
summarize, stamp the machine, write the record.

A rank script takes `--json-dir DIR` and writes `DIR/rank<r>.json` (its own record); `ranks()` launches
it with hvdkit's launcher and returns the records in rank order, or raises BenchError with the output's
tail. `alternate()` gives the order of the launches: each repetition starts one side later, so no side
always runs first and drifting machine load hits every side alike. `stats()` is the summary every
record uses (min, median, max, spread = (max - min) / median). `write()` stamps what was read from the
machine at run time (CPU model, cores, THP mode, load before and after, versions) and writes atomically.
Sentences in records come from `compare_sentence()` and the benchmarks' own functions of measured values.
"""
import datetime
import importlib.metadata as md
import json
import os
import platform
import shlex
import socket
import statistics
import subprocess
import sys
import tempfile

from hvdkit.scale import launch
from hvdkit.common.context import usable_cores
from hvdkit.common.errors import HvdkitError
from hvdkit.common.files import replacing

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "benchmarks", "results")
VERSIONS = ("torch", "tensorflow-cpu", "keras", "horovod", "mpi4py", "numpy")


class BenchError(HvdkitError, RuntimeError):
    pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def loadavg():
    return list(os.getloadavg())


def thp_mode():
    """The kernel's transparent-huge-pages mode ('always', 'madvise', 'never'), or None where unreadable."""
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            text = f.read()
    except OSError:
        return None
    return text[text.index("[") + 1:text.index("]")] if "[" in text else text.strip()


def machine():
    """What this machine is, read now."""
    cpu, vector = platform.processor() or platform.machine(), []
    if os.path.exists("/proc/cpuinfo"):
        with open("/proc/cpuinfo") as f:
            lines = f.read().splitlines()
        names = [line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")]
        cpu = names[0] if names else cpu
        flags = next((line.split(":", 1)[1].split() for line in lines if line.startswith("flags")), [])
        # The vector units the float32 kernels can use: same model name, different speed without AVX-512.
        vector = [f for f in ("avx2", "fma", "avx512f", "avx512_bf16", "amx_tile") if f in flags]
    mem = None
    if os.path.exists("/proc/meminfo"):
        with open("/proc/meminfo") as f:
            mem = round(int(f.readline().split()[1]) / 2**20, 1)
    versions = {}
    for name in VERSIONS:
        try:
            versions[name] = md.version(name)
        except md.PackageNotFoundError:
            versions[name] = None
    return {"cpu": cpu, "vector_extensions": vector, "cores": os.cpu_count(), "usable_cores": usable_cores(),
            "memory_gib": mem, "thp": thp_mode(), "python": platform.python_version(), "os": platform.platform(),
            "versions": versions}


def stats(values):
    values = list(values)
    med = statistics.median(values)
    return {"median": med, "min": min(values), "max": max(values),
            "spread": (max(values) - min(values)) / med if med else None, "all": values}


def alternate(sides, repeats):
    """(repetition, side) in launch order: a b c, b c a, c a b, ..."""
    sides = list(sides)
    for rep in range(repeats):
        k = rep % len(sides) if sides else 0
        for side in sides[k:] + sides[:k]:
            yield rep, side


def shown(env_set, argv, n=2, launcher="mpirun"):
    """A launch as one types it from the repository root (OpenMPI's root switches left out)."""
    prefix = "".join(f"{k}={v} " for k, v in sorted(env_set.items()))
    head = f"horovodrun -np {n}" if launcher == "horovodrun" else f"{launcher} -n {n}"
    return prefix + head + " python " + shlex.join(os.path.relpath(a, ROOT) if os.path.isabs(a) else a for a in argv)


def run(n, argv, env_set=None, launcher="mpirun", extra=(), threads=None, timeout=600):
    """Launch `python argv...` on n ranks from the repository root; the finished process, or BenchError
    with the output's tail when it exits non-zero. env_set: variables for the ranks (exported with -x)."""
    env_set = dict(env_set or {})
    env = launch.child_env(n, threads=threads)
    env.update(env_set)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    cmd = launch.command(n, [sys.executable, *argv], launcher, extra=extra, env_names=sorted(env_set), threads=threads)
    try:
        proc = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise BenchError(f"{shown(env_set, argv, n, launcher)}: no exit within {timeout} s") from None
    if proc.returncode != 0:
        tail = (proc.stderr.strip() or proc.stdout.strip()).splitlines()[-3:]
        raise BenchError(f"{shown(env_set, argv[:-2] if '--json-dir' in argv else argv, n, launcher)}: "
                         f"exit {proc.returncode}: {' | '.join(tail)}")
    return proc


def ranks(n, argv, env_set=None, launcher="mpirun", extra=(), threads=None, timeout=600):
    """Launch `python argv... --json-dir DIR` on n ranks; the ranks' records (DIR/rank<r>.json), rank 0
    first. A launch whose processes did not all write a record, or report another job size (each became
    its own 1-rank job), is a BenchError."""
    with tempfile.TemporaryDirectory(prefix="bench-") as out:
        run(n, [*argv, "--json-dir", out], env_set, launcher, extra, threads, timeout)
        records = []
        for r in range(n):
            path = os.path.join(out, f"rank{r}.json")
            if os.path.exists(path):
                with open(path) as f:
                    records.append(json.load(f))
    what = shown(env_set or {}, argv, n, launcher)
    if len(records) != n:
        raise BenchError(f"{what}: {len(records)} of {n} ranks wrote a record: they did not form one {n}-rank job")
    if any(r.get("size", n) != n for r in records):
        raise BenchError(f"{what}: the ranks report job sizes {sorted({r.get('size') for r in records})}, not {n}")
    return records


def compare_sentence(name_a, a, name_b, b, unit="ms", digits=1):
    """Two sides' repeated launches, from their stats: medians with ranges, the ratio of medians, and
    whether the ranges overlap (then launch-to-launch noise is as large as the difference)."""
    f = f".{digits}f"
    text = (f"{name_a} {a['median']:{f}} {unit} (range {a['min']:{f}}-{a['max']:{f}}) against {name_b} "
            f"{b['median']:{f}} {unit} (range {b['min']:{f}}-{b['max']:{f}}) over {len(a['all'])} and "
            f"{len(b['all'])} launches, ratio of medians {a['median'] / b['median']:.2f}")
    overlap = a["min"] <= b["max"] and b["min"] <= a["max"]
    return text + ("; the ranges overlap." if overlap else "; the ranges do not overlap.")


def write(record, out, load_before):
    """Stamp the machine (read now), the load before and after, the date; write `out` atomically."""
    record["machine"] = {**machine(), "loadavg_before": load_before, "loadavg_after": loadavg()}
    record["measured_at"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    out = os.path.abspath(out)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with replacing(out) as tmp:
        with open(tmp, "w") as f:
            json.dump(record, f, indent=2)
            f.write("\n")
    print(f"wrote {os.path.relpath(out, ROOT) if out.startswith(ROOT) else out}", flush=True)
    return out
