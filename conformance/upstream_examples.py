"""Horovod's example scripts (DIR/examples/**.py), run unmodified at 2 ranks, for conformance.upstream.

Each script runs from its own temporary working directory (they write checkpoints to ./), with small
sizes through its own command-line flags where it has them. Elastic scripts run under horovodrun in
elastic mode (a host-discovery script naming localhost with 2 slots); the others under mpirun.
Scripts that import torchvision are reported "needs torchvision" and not run when it does not import.
MNIST scripts get the Keras cache file `hvdkit data keras-mnist` writes (Fashion-MNIST standing in) in
a throwaway KERAS_HOME, under every name the scripts ask for (mnist.npz, mnist-<rank>.npz), and hvdkit's
keras_standin hook on PYTHONPATH, without which Keras rejects any file that is not the real MNIST.
"""
import os
import re
import subprocess
import sys
import time

from conformance import upstream_known
from hvdkit.data import datasets
from hvdkit.scale import launch
from hvdkit.data.keras_standin import DIR as STANDIN_HOOK

RANKS = 2
TIMEOUT = 1200  # the MNIST examples train 24 epochs (elastic Keras MNIST: ~14 min at 2 ranks here, under load)
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


def command(rel, path, work):
    argv = [sys.executable, path, *ARGS.get(rel, [])]
    if not rel.startswith("elastic" + os.sep):
        return launch.command(RANKS, argv, "mpirun")
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


def run_examples(directory, tmp, sandbox_env, run_group, timeout=TIMEOUT):
    records = []
    env = sandbox_env(tmp)
    no_torchvision = torchvision_error(env)
    for rel in scripts(directory):
        path = os.path.join(directory, "examples", rel)
        with open(path, encoding="utf-8") as f:
            source = f.read()
        record = {"script": rel, "args": ARGS.get(rel, [])}
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
        argv = command(rel, path, work)
        print(f"== example {rel}: {' '.join(argv)}", flush=True)
        start = time.perf_counter()
        status, output = run_group(argv, work, run_env, timeout, subprocess.PIPE)
        seconds = round(time.perf_counter() - start, 1)
        record.update(exit_status=status, seconds=seconds,
                      status="passed" if status == 0 else ("timed out" if status is None else "failed"))
        if status != 0:
            reason, frame, tail = failure(output or "")
            record.update(reason=f"killed after {timeout} s" if status is None else reason, frame=frame,
                          output_tail=tail)
            why = upstream_known.excuse_example(rel, reason, frame) if status is not None else None
            if why:
                record.update(status="excused", excused_because=why)
        print(f"   {record['status']} in {seconds} s{': ' + record['reason'] if status else ''}", flush=True)
        records.append(record)
    return records
