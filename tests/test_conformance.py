"""conformance.upstream (Horovod's own tests run at 2 ranks) on a tiny fake upstream tree and, quickly, on the
real one; its missing-directory error, `hvdkit data keras-mnist` read back by Keras's own MNIST loader, the
examples' time limits against the record, and torchvision's files staged where Horovod's PyTorch examples look."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from conftest import BIN, ROOT

FAKE_TEST = '''\
import os

RANK = int(os.environ.get("OMPI_COMM_WORLD_RANK", "0"))


def test_passes():
    assert True


def test_fails_on_rank_1():
    if RANK == 1:
        raise ValueError(f"rank {RANK} disagrees")
'''
FASHION = "/usr/share/datasets/fashion-mnist"


def _env(**extra):
    return dict(os.environ, PATH=BIN + os.pathsep + os.environ["PATH"], **extra)


@pytest.mark.slow
def test_runner_on_a_fake_upstream_tree(tmp_path):
    parallel = tmp_path / "horovod" / "test" / "parallel"
    parallel.mkdir(parents=True)
    (parallel / "test_fake.py").write_text(FAKE_TEST)
    out = tmp_path / "upstream.json"
    proc = subprocess.run([sys.executable, "-m", "conformance.upstream", str(tmp_path / "horovod"), "--no-examples",
                           "--out", str(out)], cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    record = json.loads(out.read_text())
    (f,) = record["files"]
    assert (f["file"], f["passed"], f["failed"], f["skipped"], f["not_run"], f["exit_status"]) == \
        ("test_fake.py", 1, 1, 0, 0, 1)
    (failed,) = f["failures"]
    assert failed["test"] == "test_fake.py::test_fails_on_rank_1"
    assert failed["failures"] == [{"ranks": [1], "subtest": None, "when": "call", "type": "ValueError",
                                   "message": "rank 1 disagrees", "frame": "test_fake.py:12",
                                   "test_frame": "test_fake.py:12", "horovod_frame": None}]
    assert record["targets"]["non-GPU tests pass, but the excused"]["met"] is False
    assert not list(parallel.glob("**/__pycache__")) and not (parallel / ".pytest_cache").exists()


@pytest.mark.horovod
@pytest.mark.slow
def test_quick_run_of_horovods_own_suite(tmp_path):
    """`make test`'s smoke run of the real suite: one small file at 2 ranks (a note when its tree is absent)."""
    out = tmp_path / "upstream.json"
    proc = subprocess.run([sys.executable, "-m", "conformance.upstream", "--quick", "--out", str(out)], cwd=ROOT,
                          env=_env(), capture_output=True, text=True, timeout=1500)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    record = json.loads(out.read_text())
    assert record["command"].startswith("python -m conformance.upstream --quick")
    if "not_run" not in record:
        assert [f["file"] for f in record["files"]] == ["test_timeline.py"]
        assert record["totals"]["passed"] > 0 and record["totals"]["failed"] == 0, record["totals"]


def test_missing_upstream_dir_is_one_line(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "conformance.upstream", str(tmp_path / "nowhere")], cwd=ROOT,
                          env=_env(), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "git clone --depth 1 -b v0.28.1 https://github.com/horovod/horovod" in proc.stderr


@pytest.mark.tensorflow
@pytest.mark.skipif(not os.path.isdir(FASHION), reason="needs Debian's dataset-fashion-mnist (make setup installs it)")
@pytest.mark.slow
def test_keras_mnist_standin_read_by_keras_loader(tmp_path):
    from hvdkit.data.idx import read_idx
    home = tmp_path / "keras"
    env = _env(KERAS_HOME=str(home))
    made = subprocess.run([os.path.join(BIN, "hvdkit"), "data", "keras-mnist"], env=env, capture_output=True,
                          text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    assert "Fashion-MNIST" in made.stdout and "NOT MNIST" in made.stdout
    # Keras reads it (under another cache name too, as Horovod's examples ask for) with hvdkit's hook on the path.
    (home / "datasets" / "mnist-1.npz").write_bytes((home / "datasets" / "mnist.npz").read_bytes())
    script = textwrap.dedent("""
        import tensorflow as tf
        (x, y), (xt, yt) = tf.keras.datasets.mnist.load_data(path="mnist-1.npz")
        print("SHAPES", x.shape, x.dtype, y.shape, y.dtype, xt.shape, yt.shape, int(x[7].sum()), yt[:8].tolist())
    """)
    hook = os.path.join(ROOT, "hvdkit", "data", "keras_standin")
    read = subprocess.run([sys.executable, "-c", script], env=dict(env, PYTHONPATH=hook), capture_output=True,
                          text=True, timeout=120)
    assert read.returncode == 0, read.stderr[-2000:]
    x_ref, y_ref = read_idx(f"{FASHION}/train-images-idx3-ubyte.gz"), read_idx(f"{FASHION}/t10k-labels-idx1-ubyte.gz")
    line = next(ln for ln in read.stdout.splitlines() if ln.startswith("SHAPES"))
    assert line == (f"SHAPES (60000, 28, 28) uint8 (60000,) uint8 (10000, 28, 28) (10000,) "
                    f"{int(x_ref[7].sum())} {y_ref[:8].tolist()}")
    # A file that is not the stand-in (here: any other bytes, standing for real MNIST) is never replaced.
    real = home / "datasets" / "mnist.npz"
    real.write_bytes(b"not hvdkit's stand-in")
    again = subprocess.run([os.path.join(BIN, "hvdkit"), "data", "keras-mnist"], env=env, capture_output=True,
                           text=True, timeout=60)
    assert again.returncode == 2 and "--force" in again.stderr and len(again.stderr.strip().splitlines()) == 1
    assert real.read_bytes() == b"not hvdkit's stand-in"


def test_example_limits_are_twice_the_recorded_times():
    """Every example's limit is at least twice its time in the committed record (a slower run there means the
    limit must rise), and any limit above the floor comes with the reason the example is long."""
    from conformance import upstream_examples as ex
    with open(os.path.join(ROOT, "conformance", "results", "upstream.json")) as f:
        examples = json.load(f)["examples"]
    timed = [e for e in examples if e.get("seconds")]
    assert timed
    for e in timed:
        assert ex.limit(e["script"]) >= 2 * e["seconds"], e
    assert all(script in ex.LONG for script, seconds in ex.LIMITS.items() if seconds > ex.FLOOR)
    assert ex.limit("any/other.py") == ex.FLOOR and ex.limit("any/other.py", 7) == 7


def test_pytorch_examples_get_torchvisions_files_where_they_look(tmp_path, monkeypatch):
    """Horovod's idiom `data_dir = args.data_dir or './data'` then datasets.MNIST(data_dir, download=True): the
    files are staged under the working directory's ./data; a .gz left beside them is a download."""
    from conformance import upstream_examples as ex
    from hvdkit.data import datasets, idx
    system = tmp_path / "system-fashion"
    system.mkdir()
    monkeypatch.setattr(datasets, "_SYSTEM_DIRS", {"fashion-mnist": (str(system),)})
    monkeypatch.delenv("HVDKIT_DATA", raising=False)
    for base, shape in zip(datasets.IDX_FILES.values(), ((3, 28, 28), (3,), (2, 28, 28), (2,))):
        idx.write_idx(system / base, np.ones(shape, np.uint8))
    source = ("data_dir = args.data_dir or './data'\n"
              "train_dataset = datasets.MNIST(data_dir, train=True, download=True)\n")
    work = tmp_path / "work"
    staged = ex.provide_torchvision(source, str(work))
    assert staged == {"mnist": str(work / "data" / "MNIST" / "raw"),
                      "fashion-mnist": str(work / "data" / "FashionMNIST" / "raw")}
    assert (work / "data" / "MNIST" / "raw" / "t10k-images-idx3-ubyte").stat().st_size == 16 + 2 * 28 * 28
    assert ex.downloads(staged) == []
    (work / "data" / "MNIST" / "raw" / "train-images-idx3-ubyte.gz").write_bytes(b"")
    assert ex.downloads(staged) == [str(work / "data" / "MNIST" / "raw" / "train-images-idx3-ubyte.gz")]
    assert ex.provide_torchvision("datasets.CIFAR10('./data', download=True)", str(tmp_path / "w2")) is None
    assert ex.provide_torchvision("keras.datasets.mnist.load_data()", str(tmp_path / "w3")) is None
