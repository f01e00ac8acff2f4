"""Bad input ends a program with one line naming the problem and the fix, exit status 2, no traceback,
and nothing the user had is overwritten (issue 8). Single-process or 1-rank runs, to stay fast."""
import gzip
import hashlib
import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import ROOT
from hvdkit.data.idx import write_idx

HOMEWORK = os.path.join(ROOT, "homework")
ENV = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
       "HVDKIT_DATA": "/nonexistent-hvdkit-data", "TF_CPP_MIN_LOG_LEVEL": "2"}


def run(argv, cwd, env=None, timeout=120):
    return subprocess.run(argv, cwd=cwd, env=env or ENV, capture_output=True, text=True, timeout=timeout)


def usage_error(proc, *words):
    """Exit 2, no traceback, and the last stderr line (the error) contains every one of `words`."""
    err = proc.stderr.strip()
    assert proc.returncode == 2, f"exit {proc.returncode}\n{proc.stdout[-2000:]}\n{err[-3000:]}"
    assert "Traceback" not in err, err[-3000:]
    # The launcher may add its own "job aborted" notice after the program's line.
    errors = [line for line in err.splitlines() if ": error: " in line]
    assert len(errors) == 1, err
    line = errors[0]
    for word in words:
        assert word in line, f"{word!r} not in {line!r}"
    return line


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


# --- data sets: read by the homework scripts' loader (numpy only: no framework start-up per case) ---

LOADER = f"""
import sys
sys.path.insert(0, {HOMEWORK!r})
import mnist_common
mnist_common.load(mnist_common.parser("loader").parse_args())
print("LOADED")
"""


def mnist_dir(path, n=5, shape=(28, 28)):
    path.mkdir()
    rng = np.random.default_rng(0)
    for split, prefix in (("train", "train"), ("test", "t10k")):
        write_idx(path / f"{prefix}-images-idx3-ubyte", rng.integers(0, 256, (n, *shape), dtype=np.uint8))
        write_idx(path / f"{prefix}-labels-idx1-ubyte", rng.integers(0, 10, n, dtype=np.uint8))
    return path


def truncate(path):
    data = path.read_bytes()
    path.write_bytes(data[:len(data) - 7])


def gzip_cut(path):
    data = gzip.compress(path.read_bytes())
    path.unlink()
    path.with_name(path.name + ".gz").write_bytes(data[:len(data) // 2])


def garbage(path):
    path.write_bytes(b"<html>404 Not Found</html>")


@pytest.mark.parametrize("damage,words", [
    (truncate, ["train-images-idx3-ubyte", "truncated"]),
    (gzip_cut, ["train-images-idx3-ubyte.gz", "damaged gzip", "fetch the file again"]),
    (garbage, ["train-images-idx3-ubyte", "not an IDX file"]),
])
def test_damaged_idx(tmp_path, damage, words):
    data = mnist_dir(tmp_path / "d")
    damage(data / "train-images-idx3-ubyte")
    proc = run([sys.executable, "-c", LOADER, "--data-dir", str(data)], tmp_path)
    usage_error(proc, *words)


def test_wrong_image_shape(tmp_path):
    data = mnist_dir(tmp_path / "d", shape=(32, 32))
    usage_error(run([sys.executable, "-c", LOADER, "--data-dir", str(data)], tmp_path), "28 x 28", "32x32")


def test_truncated_npz(tmp_path):
    data = tmp_path / "d"
    data.mkdir()
    arrays = {k: np.zeros((4, 28, 28) if k[0] == "x" else 4, np.uint8)
              for k in ("x_train", "y_train", "x_test", "y_test")}
    np.savez(data / "mnist.npz", **arrays)
    raw = (data / "mnist.npz").read_bytes()
    (data / "mnist.npz").write_bytes(raw[:len(raw) // 2])
    usage_error(run([sys.executable, "-c", LOADER, "--data-dir", str(data)], tmp_path), "mnist.npz", "fetch it again")


def test_npz_without_the_arrays(tmp_path):
    data = tmp_path / "d"
    data.mkdir()
    np.savez(data / "mnist.npz", images=np.zeros((2, 28, 28), np.uint8))
    usage_error(run([sys.executable, "-c", LOADER, "--data-dir", str(data)], tmp_path), "no x_train", "mnist.npz")


# --- a real homework script: the checks happen before any training, and --metrics is left alone ---

@pytest.mark.parametrize("args,words", [
    (["--batch-size", "0"], ["--batch-size", "at least 1"]),
    (["--batch-size", "-3"], ["--batch-size", "at least 1"]),
    (["--dataset", "cifar10"], ["--dataset", "invalid choice"]),
])
def test_homework_options(tmp_path, args, words):
    """The four homework scripts share this parser (a per-rank batch of 0 was a 12-line DataLoader traceback)."""
    usage_error(run([sys.executable, "-c", LOADER, *args], tmp_path), *words)


@pytest.mark.torch
def test_homework_script_without_data(tmp_path):
    metrics = tmp_path / "metrics.json"
    metrics.write_text('{"earlier": "run"}')
    before = digest(metrics)
    proc = run([sys.executable, os.path.join(HOMEWORK, "pytorch_mnist.py"), "--metrics", str(metrics),
                "--data-dir", "no-such-dir"], tmp_path)
    usage_error(proc, "--data-dir no-such-dir is not a directory")
    assert digest(metrics) == before, "a failed start must not touch the previous metrics"


# --- hvdkit scale ---

def hvdkit(args, cwd, env=None):
    return run([sys.executable, "-m", "hvdkit", *args], cwd, env=env)


@pytest.mark.parametrize("args,words", [
    (["-n", "0"], ["bad -n '0'", "e.g. -n 1,2,4,8"]),
    (["-n", "1", "--launcher", "slurmrun"], ["unknown launcher 'slurmrun'", "mpirun"]),
    (["-n", "2,4", "--strong", "--global-batch-size", "2"], ["global batch 2", "4 ranks"]),
])
def test_scale_options(tmp_path, args, words):
    (tmp_path / "prog.py").write_text("pass\n")
    usage_error(hvdkit(["scale", *args, "--out", "out", "--", "python", "prog.py"], tmp_path), *words)
    assert not (tmp_path / "out").exists()


def previous_results(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "scale.csv").write_text("ranks,rate\n1,10\n")
    return out


@pytest.mark.slow
def test_strong_scaling_of_a_program_without_record_or_batch_option(tmp_path):
    """A program that writes no run record is swept by its launches' wall times (issue 41; a note says what
    cannot be measured: tests/test_tools_user_scripts.py). Strong scaling then needs the per-rank batch on
    the command line, where hvdkit can rewrite it per run: without it, one line naming the option to add."""
    (tmp_path / "prog.py").write_text("print('trained, but wrote no record')\n")
    out = previous_results(tmp_path)
    proc = hvdkit(["scale", "-n", "1", "--strong", "--out", "out", "--", "python", "prog.py"], tmp_path)
    usage_error(proc, "writes no run record", "add --batch-size N", "--batch-flag")
    assert (out / "scale.csv").read_text() == "ranks,rate\n1,10\n"


def test_scale_without_mpirun(tmp_path):
    (tmp_path / "prog.py").write_text("pass\n")
    env = {**ENV, "PATH": str(tmp_path / "empty-bin")}
    usage_error(hvdkit(["scale", "-n", "1", "--out", "out", "--", "python", "prog.py"], tmp_path, env=env),
                "mpirun not found on PATH", "install OpenMPI")


@pytest.mark.slow
def test_scale_more_ranks_than_slots(tmp_path):
    """A host list with fewer slots than ranks: OpenMPI's 20-line notice becomes one line with the fix."""
    (tmp_path / "prog.py").write_text("pass\n")
    out = previous_results(tmp_path)
    proc = hvdkit(["scale", "-n", "2", "--launcher-args", "--host localhost:1", "--out", "out", "--",
                   "python", "prog.py"], tmp_path)
    usage_error(proc, "2 ranks are more than the launcher's slots", "--oversubscribe")
    assert (out / "scale.csv").read_text() == "ranks,rate\n1,10\n"


# --- hvdkit timeline ---

@pytest.mark.parametrize("content,words", [
    ("", ["is empty", "HOROVOD_TIMELINE"]),
    ("<html>not json</html>\n", ["is not JSON"]),
    ('[\n{"name": "allreduce.w", "ph": "B", "ts": 1, "pid": 1', ["cut off"]),
    ('{"traceEvents": [{"name": "conv", "ph": "X", "ts": 1, "dur": 2}]}',
     ["not a Horovod timeline", "other profilers"]),
])
def test_bad_timeline(tmp_path, content, words):
    (tmp_path / "trace.json").write_text(content)
    usage_error(hvdkit(["timeline", "summary", "trace.json"], tmp_path), *words)


# --- checkpoints, in a real (1-rank) launch ---

TRAIN = """
import sys
import torch
import hvdkit.torch as hk
ctx = hk.init(seed=0, threads=1)
width, epochs = int(sys.argv[1]), int(sys.argv[2])
model = torch.nn.Linear(width, 2)
ckpt = hk.Checkpointer("ckpt", keep=3)
start = ckpt.restore(model=model)
print("START", start, flush=True)
for epoch in range(start, epochs):
    with torch.no_grad():
        model.weight.add_(1.0)
    ckpt.save(epoch, model=model)
print("WEIGHT", float(model.weight.sum()), flush=True)
"""


@pytest.mark.torch
@pytest.mark.horovod
@pytest.mark.slow
def test_corrupt_checkpoint_falls_back_with_warning(ranks, tmp_path):
    ranks(1, TRAIN, [4, 2]).check()
    latest = tmp_path / "ckpt" / "epoch-0001.ckpt"
    latest.write_bytes(latest.read_bytes()[:-10])  # a write cut short (as by a full disk)
    resumed = ranks(1, TRAIN, [4, 2]).check()
    assert resumed.lines("START") == ["1"], "must resume after epoch 0, the last intact checkpoint"
    assert "truncated or corrupt (checksum mismatch); falling back" in resumed.stderr


@pytest.mark.torch
@pytest.mark.horovod
@pytest.mark.slow
def test_checkpoint_from_another_model(ranks, tmp_path):
    ranks(1, TRAIN, [4, 1]).check()
    files = {p.name: digest(p) for p in (tmp_path / "ckpt").iterdir()}
    proc = ranks(1, TRAIN, [5, 2])
    usage_error(proc, "does not fit 'model'", "different model", "another checkpoint directory")
    assert not proc.lines("START")
    assert {p.name: digest(p) for p in (tmp_path / "ckpt").iterdir()} == files, "nothing overwritten"
