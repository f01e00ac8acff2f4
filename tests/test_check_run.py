"""`hvdkit check --run`: real 2-rank launches observed for 3 optimizer steps. The homework passes; a missing
broadcast, a broadcast that never fires, checkpoints from every rank are seen in what the ranks did;
a Keras 2 -> 3 crash is reported with its line and a hint. (Kept to a few launches: about a minute.)"""
import json
import os
import subprocess
import sys
import textwrap

import pytest

from hvdkit.data import datasets

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MUTANTS = os.path.join(ROOT, "tests", "check_mutants")
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
