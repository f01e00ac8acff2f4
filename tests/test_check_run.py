"""`hvdkit check --run`: real 2-rank launches observed for 3 optimizer steps. The homework passes; a missing
broadcast, a broadcast that never fires, checkpoints from every rank are seen in what the ranks did;
a Keras 2 -> 3 crash is reported with its line and a hint. Scripts written for GPU nodes (tests/check_run/)
run on this CPU-only machine with the simulation said; a crash is a verdict on its step. Horovod's own
PyTorch benchmark runs on 2 ranks with torchvision's models. (Kept to a few launches: about 3 minutes.)"""
import json
import os
import subprocess
import sys
import textwrap

import pytest

from hvdkit.data import datasets

from conftest import run_ranks

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MUTANTS = os.path.join(ROOT, "tests", "check_mutants")
GPU_SCRIPTS = os.path.join(ROOT, "tests", "check_run")
UPSTREAM = os.path.join(os.path.dirname(ROOT), "shared", "upstream-horovod-0.28.1", "examples")
pytestmark = [pytest.mark.horovod, pytest.mark.slow]  # slow: launches ranks
have_fashion = pytest.mark.skipif(not datasets.available()["fashion-mnist"],
                                  reason="Fashion-MNIST not installed (make setup installs dataset-fashion-mnist)")
TINY = ["--dataset", "fashion-mnist", "--subset", "256", "--epochs", "1", "--batch-size", "32"]


def check_run(script, *script_args, cwd):
    proc = subprocess.run([sys.executable, "-m", "hvdkit", "check", script, "--run", "--json", "--", *script_args],
                          capture_output=True, text=True, cwd=cwd, timeout=300)
    assert proc.stdout.strip(), proc.stderr[-3000:]
    return proc.returncode, json.loads(proc.stdout)


def by_run(report):
    return {int(n): s["verdict"] for n, s in report["steps"].items() if s["source"] == "run"}


@have_fashion
@pytest.mark.torch
@pytest.mark.tensorflow
@pytest.mark.parametrize("script", ["pytorch_mnist_hvd.py", "tensorflow2_mnist_hvd.py"])
def test_homework_all_eight_ok_when_run(tmp_path, script):
    status, report = check_run(os.path.join(ROOT, "homework", script), *TINY, cwd=tmp_path)
    assert status == 0, report["steps"]
    assert all(s["verdict"] == "ok" for s in report["steps"].values())
    run = report["run"]
    assert run["crash"] is None and all(r["steps"] == 3 for r in run["per_rank"].values())
    # What only the run can say: init on both ranks, equal weights after steps 1 and 3, LR x 2 (--lr 1e-3).
    assert by_run(report) == {1: "ok", 5: "ok", 6: "ok"}
    assert all(r["lr"] == pytest.approx(2e-3) for r in run["per_rank"].values())
    assert len({r["first_batch"] for r in run["per_rank"].values()}) == 2


@pytest.mark.torch
def test_missing_broadcast_and_every_rank_checkpointing_seen(tmp_path):
    status, report = check_run(os.path.join(MUTANTS, "torch_s6_removed.py"), "--ckpt-dir", str(tmp_path), cwd=tmp_path)
    assert status == 1 and by_run(report)[6] == "missing" and report["flagged"] == [6]
    assert "different weights" in report["steps"]["6"]["evidence"]
    status, report = check_run(os.path.join(MUTANTS, "torch_s7_broken.py"), "--ckpt-dir", str(tmp_path), cwd=tmp_path)
    assert status == 1 and by_run(report)[7] == "wrong" and report["flagged"] == [7]
    writers = sorted(r for r, rec in report["run"]["per_rank"].items() if rec["writes"])
    assert writers == ["0", "1"]
    # The epoch is 2 steps per rank: the one save seen on each rank came after step 2.
    assert [w["step"] for w in report["run"]["per_rank"]["1"]["writes"]] == [2]


@pytest.mark.tensorflow
def test_broadcast_that_never_fires_seen(tmp_path):
    status, report = check_run(os.path.join(MUTANTS, "tf_loop_s6_broken.py"), "--ckpt-dir", str(tmp_path), cwd=tmp_path)
    assert status == 1 and report["flagged"] == [6] and by_run(report)[6] in ("wrong", "missing")
    assert report["run"]["per_rank"]["0"]["steps"] == 3


@pytest.mark.tensorflow
def test_keras3_crash_reported_with_line_and_hint(tmp_path):
    script = tmp_path / "old_keras.py"
    script.write_text(textwrap.dedent("""\
        import keras
        import horovod.tensorflow.keras as hvd
        hvd.init()
        opt = keras.optimizers.SGD(lr=0.01 * hvd.size())
        """))
    status, report = check_run(str(script), cwd=tmp_path)
    crash = report["run"]["crash"]
    assert status == 1 and crash["line"] == 4 and "lr" in crash["code"]
    assert "learning_rate=" in crash["hint"]


@pytest.mark.tensorflow
def test_tf_script_pinned_to_gpus_runs_on_cpu_and_its_silent_broadcast_is_flagged(tmp_path):
    status, report = check_run(os.path.join(GPU_SCRIPTS, "tf_pinned_never_broadcast.py"), "--out", str(tmp_path),
                               cwd=tmp_path)
    run = report["run"]
    assert run["crash"] is None and [r["steps"] for r in run["per_rank"].values()] == [3, 3], run["log_tail"]
    # Flagged by the run (source "run"); the static pass sees the guard is never true on the first step and
    # names it "wrong", and where both flag a step the merge keeps the static kind.
    assert by_run(report)[6] in ("missing", "wrong") and 6 in report["flagged"] and status == 1
    assert "no broadcast ran" in report["steps"]["6"]["evidence"]
    said = " | ".join(run["simulated"])
    assert "list_physical_devices('GPU') answered with 2 simulated GPU(s)" in said
    assert "set_visible_devices on a simulated GPU did nothing" in said
    assert "keras.datasets.mnist.load_data() returned synthetic arrays" in said
    assert "simulated on this machine" in run["summary"]

    # The twin broadcasts after batch 1: equal weights after step 1 and after step 3, nothing flagged by the run.
    status, report = check_run(os.path.join(GPU_SCRIPTS, "tf_pinned_ok.py"), "--out", str(tmp_path), cwd=tmp_path)
    assert report["run"]["crash"] is None and by_run(report) == {1: "ok", 5: "ok", 6: "ok"}, report["steps"]
    assert 6 not in report["flagged"]


@pytest.mark.torch
def test_torch_script_written_for_cuda_runs_on_cpu_with_a_synthetic_mnist(tmp_path):
    script = os.path.join(GPU_SCRIPTS, "torch_cuda_pinned.py")
    status, report = check_run(script, "--out", str(tmp_path), cwd=tmp_path)
    run = report["run"]
    assert run["crash"] is None and [r["steps"] for r in run["per_rank"].values()] == [3, 3], run["log_tail"]
    assert by_run(report) == {1: "ok", 5: "ok", 6: "ok"} and report["flagged"] == [], report["steps"]
    said = " | ".join(run["simulated"])
    for what in ("torch.cuda.set_device() did nothing", "Module.cuda() kept it on the CPU",
                 "Tensor.to(cuda) kept it on the CPU", "torch.zeros(device=cuda) made a CPU tensor",
                 "torchvision.datasets.MNIST replaced by 2048 train"):
        assert what in said
    # DistributedSampler over the stand-in's 2048 images: different first batches on the two ranks.
    assert len({r["first_batch"] for r in run["per_rank"].values()}) == 2

    # The same script reading an argument it never declared, after step 2: the crash is step 4's verdict.
    status, report = check_run(script, "--out", str(tmp_path), "--crash-at-step", "2", cwd=tmp_path)
    crash, line = report["run"]["crash"], _line_of(script, "args.learning_rate")
    assert status == 1 and crash["line"] == line and "has no attribute 'learning_rate'" in crash["error"]
    assert crash["step"] == 4 and report["steps"]["4"]["verdict"] == "wrong" and 4 in report["flagged"]
    assert report["steps"]["4"]["line"] == line and report["steps"]["4"]["source"] == "run"
    assert [r["steps"] for r in report["run"]["per_rank"].values()] == [2, 2]


def _line_of(path, text):
    with open(path) as f:
        return next(i for i, line in enumerate(f, 1) if text in line)


@pytest.mark.torch
@pytest.mark.skipif(not os.path.isdir(UPSTREAM), reason=f"Horovod's examples not found at {UPSTREAM}")
def test_horovods_pytorch_synthetic_benchmark_runs_on_two_ranks(tmp_path):
    """torchvision's models through Horovod's own example: make setup's torchvision imports on CPU torch."""
    script = os.path.join(UPSTREAM, "pytorch", "pytorch_synthetic_benchmark.py")
    res = run_ranks(2, script, ["--no-cuda", "--model", "resnet18", "--batch-size", "4", "--num-iters", "2",
                                "--num-batches-per-iter", "1", "--num-warmup-batches", "1"],
                    cwd=tmp_path, timeout=300).check()
    assert res.lines("Model:") == ["resnet18"] and res.lines("Number of CPUs:") == ["2"]
    assert len(res.lines("Iter #")) == 2
    total = res.lines("Total img/sec on 2 CPU(s):")
    assert len(total) == 1 and float(total[0].split()[0]) > 0
