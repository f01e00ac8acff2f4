"""Horovod's example scripts (DIR/examples/**.py), run unmodified at 2 ranks, for conformance.upstream.

Each script runs from its own temporary working directory (they write checkpoints to ./), with small
sizes through its own command-line flags where it has them. Elastic scripts run under horovodrun in
elastic mode (a host-discovery script naming localhost with 2 slots); the others under mpirun.
Scripts that import torchvision are reported "needs torchvision" and not run when it does not import.
MNIST scripts get the Keras cache file `hvdkit data keras-mnist` writes (Fashion-MNIST standing in) in
a throwaway KERAS_HOME, under every name the scripts ask for (mnist.npz, mnist-<rank>.npz), and hvdkit's
keras_standin hook on PYTHONPATH, without which Keras rejects any file that is not the real MNIST.
Scripts that call torchvision's `datasets.MNIST(data_dir, download=True)` get the files `hvdkit data
torch-mnist` stages (Fashion-MNIST standing in) under the root they default to, `./data`, relative to the
working directory both ranks start in; a run that leaves a downloaded .gz beside them fails.

Each example has a time limit of at least twice its time in the last record (LIMITS); the three long ones
are long because the script fixes its own amount of training (LONG says how much) and has no flag to shrink it.
mpirun's ranks run unbound (UNBOUND): on a loaded shared machine bound ranks got about half the CPU time.
"""
import os
import re
import shutil
import subprocess
import sys
import time

from conformance import upstream_known
from hvdkit.data import datasets, torchvision_layout
from hvdkit.scale import launch
from hvdkit.data.keras_standin import DIR as STANDIN_HOOK

RANKS = 2
# Seconds per example: at least 2x its time at 2 ranks in the last record, conformance/results/upstream.json
# (tests/test_conformance.py holds the record to this), and above what a machine shared with other sessions
# has taken: on 2026-11-28, at a load average of 12-14 on the 2 cores, the elastic Keras MNIST took 2649 s,
# and the plain one was on course for about 4500 s (bound ranks) when that run was stopped. Start-up alone
# (imports, Horovod's launch) took 8-94 s there: no limit below FLOOR.
FLOOR = 300
LIMITS = {
    "tensorflow2/tensorflow2_keras_mnist.py": 5400,
    "elastic/tensorflow2/tensorflow2_keras_mnist_elastic.py": 5400,
    "tensorflow2/tensorflow2_mnist.py": 5400,
}
# Why those take minutes: the amount of training is fixed in the script, which has no flag to shrink it.
LONG = {
    "tensorflow2/tensorflow2_keras_mnist.py": "24 epochs of 500 // size steps of 128 images (250 per rank at 2)",
    "elastic/tensorflow2/tensorflow2_keras_mnist_elastic.py":
        "24 epochs of 500 // size steps of 128 images (250 per rank at 2)",
    "tensorflow2/tensorflow2_mnist.py": "10000 // size steps of 128 images (5000 per rank at 2)",
}
_TF_SMALL = ["--model", "MobileNetV3Small", "--batch-size", "4", "--num-batches-per-iter", "1",
             "--num-iters", "2", "--no-cuda"]
_TORCH_SMALL = ["--model", "resnet18", "--batch-size", "4", "--num-warmup-batches", "1",
                "--num-batches-per-iter", "1", "--num-iters", "2", "--no-cuda"]
# Small sizes, from each script's own argparse; scripts not listed run with their defaults.
ARGS = {
    "tensorflow2/tensorflow2_synthetic_benchmark.py": _TF_SMALL + ["--num-warmup-batches", "1"],
    "tensorflow2/tensorflow2_keras_synthetic_benchmark.py": _TF_SMALL,
    "elastic/tensorflow2/tensorflow2_synthetic_benchmark_elastic.py":
        _TF_SMALL + ["--num-warmup-batches", "1", "--num-batches-per-commit", "1"],
    "pytorch/pytorch_synthetic_benchmark.py": _TORCH_SMALL,
    "elastic/pytorch/pytorch_synthetic_benchmark_elastic.py": _TORCH_SMALL + ["--num-batches-per-commit", "1"],
    "keras/keras_mnist_advanced.py": ["--epochs", "1"],
    "pytorch/pytorch_mnist.py": ["--epochs", "1", "--no-cuda"],
    "elastic/pytorch/pytorch_mnist_elastic.py": ["--epochs", "1", "--no-cuda"],
}
_MNIST_NAME = re.compile(r"""load_data\(\s*path\s*=\s*['"]([^'"%]*)%d(\.npz)['"]""")
_TORCH_SETS = re.compile(r"\bdatasets\.(MNIST|FashionMNIST)\(")
_TORCH_ROOT = re.compile(r"""\bdata_dir\s*=\s*args\.data_dir\s+or\s+['"]([^'"]+)['"]""")


def scripts(directory):
    root = os.path.join(directory, "examples")
    found = []
    for base, _, names in os.walk(root):
        found += [os.path.relpath(os.path.join(base, n), root) for n in names if n.endswith(".py")]
    return sorted(found)


def torchvision_error(env):
    """None if torchvision imports in the ranks' interpreter, else its error's last line."""
    proc = subprocess.run([sys.executable, "-c", "import torchvision"], env=env, capture_output=True, text=True)
    return None if proc.returncode == 0 else (proc.stderr.strip().splitlines() or ["exit status"])[-1]


def provide_mnist(source, keras_home):
    """The stand-in cache file under the names `source` asks Keras for; returns those names."""
    names = ["mnist.npz"] if "mnist.load_data(" in source else []
    names += [m.group(1) + str(r) + m.group(2) for m in _MNIST_NAME.finditer(source) for r in range(RANKS)]
    for name in dict.fromkeys(names):
        datasets.write_keras_mnist(os.path.join(keras_home, "datasets", name), quiet=True)
    return names


def provide_torchvision(source, work):
    """Stage torchvision's MNIST and FashionMNIST files under the root `source` defaults to, resolved in
    `work` (where the ranks start); returns the root's raw/ folders, or None for a script without them."""
    if not _TORCH_SETS.search(source):
        return None
    root = _TORCH_ROOT.search(source)
    if root is None:  # not Horovod's idiom: run it anyway; the record will show the download error
        return None
    return torchvision_layout.stage(os.path.join(work, root.group(1)), quiet=True)


def downloads(staged):
    """Archives torchvision downloaded next to the staged files (it keeps the .gz it fetched), if any."""
    return sorted(os.path.join(d, n) for d in (staged or {}).values() for n in os.listdir(d) if n.endswith(".gz"))


def limit(rel, timeout=None):
    """The example's time limit: `timeout` (the --example-timeout given) or its LIMITS entry, else FLOOR."""
    return timeout or LIMITS.get(rel, FLOOR)


# Ranks free to move between cores. OpenMPI binds each of 2 ranks to one core, the best choice on a node of
# one's own; on a machine shared with other jobs a bound rank cannot leave a busy core. Measured in the same
# stopped run, load average 12-14: bound ranks of tensorflow2_keras_mnist.py got about 20% of a core each and
# took 3.1 min per epoch, the unbound ones of its elastic twin (horovodrun, same model and steps) about 37% and
# 1.75 min (twins, not one script both ways: a sign, not an A/B measurement).
UNBOUND = ("--bind-to", "none") if shutil.which("ompi_info") else ()


def command(rel, path, work):
    argv = [sys.executable, path, *ARGS.get(rel, [])]
    if not rel.startswith("elastic" + os.sep):
        return launch.command(RANKS, argv, "mpirun", extra=UNBOUND)
    discover = os.path.join(work, "discover_hosts.sh")
    with open(discover, "w") as f:
        f.write(f"#!/bin/sh\necho localhost:{RANKS}\n")
    os.chmod(discover, 0o755)
    argv = launch.command(RANKS, argv, "horovodrun")
    # Elastic mode takes its hosts from a discovery script instead of the fixed -H list. With one host
    # Horovod cannot work out a common network interface by itself (it waits, then times out), and a
    # failed worker blacklists the only host: the driver would wait its default 600 s for another.
    at = argv.index("-H")
    return argv[:at] + ["--min-np", str(RANKS), "--max-np", str(RANKS), "--host-discovery-script", discover,
                        "--network-interface", "lo", "--elastic-timeout", "60", "--gloo"] + argv[at + 2:]


_NOISE = re.compile(r"^([IWE]\d{4} |WARNING: All log messages|To enable the following instructions)")
_EXCEPTION = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt)\b")
_FRAME = re.compile(r'^File "([^"]+)", line (\d+)')


def failure(output):
    """(last exception line, its innermost 'file:line' frame or None, output tail) from a failed run's output."""
    lines = [re.sub(r"^\[\d+(,\d+)?\]<std\w+>:", "", ln).strip() for ln in output.splitlines()]
    lines = [ln for ln in lines if ln and not _NOISE.match(ln)]
    at = max((i for i, ln in enumerate(lines) if _EXCEPTION.match(ln)), default=None)
    frames = [m for m in (_FRAME.match(ln) for ln in lines[:at]) if m] if at is not None else []
    frame = None
    if frames:
        path = frames[-1].group(1)
        path = path.split("site-packages" + os.sep, 1)[-1].split("examples" + os.sep, 1)[-1]
        frame = f"{path}:{frames[-1].group(2)}"
    tail = "\n".join(lines[-8:])[-800:]
    return (lines[at][:500] if at is not None else (lines[-1][:500] if lines else "")), frame, tail


def run_examples(directory, tmp, sandbox_env, run_group, timeout=None, only=None):
    records = []
    env = sandbox_env(tmp)
    no_torchvision = torchvision_error(env)
    for rel in scripts(directory):
        if only and not any(word in rel for word in only):
            continue
        path = os.path.join(directory, "examples", rel)
        with open(path, encoding="utf-8") as f:
            source = f.read()
        seconds_max = limit(rel, timeout)
        record = {"script": rel, "args": ARGS.get(rel, []), "limit": seconds_max}
        if rel in LONG:
            record["long_because"] = LONG[rel]
        if "torchvision" in source and no_torchvision:
            records.append({**record, "status": "needs torchvision", "exit_status": None, "seconds": None,
                            "reason": f"imports torchvision, which does not import here: {no_torchvision}"})
            continue
        work = os.path.join(tmp, "examples", rel.replace(os.sep, "_").removesuffix(".py"))
        os.makedirs(work, exist_ok=True)
        run_env = sandbox_env(os.path.join(work, "sandbox"))
        mnist = provide_mnist(source, os.path.join(run_env["KERAS_HOME"]))
        if mnist:
            run_env["PYTHONPATH"] = STANDIN_HOOK + os.pathsep + run_env["PYTHONPATH"]
            record["data"] = (f"Fashion-MNIST standing in for MNIST as {', '.join(mnist)} in KERAS_HOME, "
                              "read through hvdkit's keras_standin hook")
        staged = provide_torchvision(source, work)
        if staged:
            record["data"] = (f"Fashion-MNIST standing in for MNIST in {os.path.relpath(staged['mnist'], work)} "
                              "(and FashionMNIST/raw) of the ranks' working directory, staged by hvdkit data "
                              "torch-mnist, read by torchvision's own MNIST(download=True)")
        argv = command(rel, path, work)
        print(f"== example {rel} (limit {seconds_max} s): {' '.join(argv)}", flush=True)
        start = time.perf_counter()
        status, output = run_group(argv, work, run_env, seconds_max, subprocess.PIPE)
        seconds = round(time.perf_counter() - start, 1)
        fetched = downloads(staged)
        if status == 0 and fetched:
            status, output = 1, f"RuntimeError: downloaded {', '.join(fetched)} instead of reading the staged files"
        record.update(exit_status=status, seconds=seconds,
                      status="passed" if status == 0 else ("timed out" if status is None else "failed"))
        if staged and status == 0:
            record["data"] += "; downloaded nothing (no .gz beside them after the run)"
        if status != 0:
            reason, frame, tail = failure(output or "")
            record.update(reason=f"killed after {seconds_max} s" if status is None else reason, frame=frame,
                          output_tail=tail)
            why = upstream_known.excuse_example(rel, reason, frame) if status is not None else None
            if why:
                record.update(status="excused", excused_because=why)
        print(f"   {record['status']} in {seconds} s{': ' + record['reason'] if status else ''}", flush=True)
        records.append(record)
    return records
