"""The examples and the homework at their default settings, made short (few steps, small images, a data
subset), with every Python warning turned into an error: none may print a framework warning, and their
stderr stays empty (no TensorFlow start-up notices either). The Horovod scripts run on 2 real ranks.

Warnings allowed, with the reason: none so far. Add one to ALLOWED as a PYTHONWARNINGS entry
("ignore:message prefix:Category") with a comment saying why it cannot be fixed at its cause.
"""
import os
import subprocess
import sys

import pytest

from conftest import ROOT, run_ranks
from hvdkit.data import datasets

pytestmark = pytest.mark.slow  # launches ranks

ALLOWED = []
RESNET = ["--image-size", "32", "--num-steps", "2", "--warmup-steps", "1"]
MNIST = ["--dataset", "fashion-mnist", "--epochs", "1", "--subset", "256"]
have_fashion = pytest.mark.skipif(not datasets.available()["fashion-mnist"], reason="Fashion-MNIST not installed")
TF, TORCH = [pytest.mark.tensorflow], [pytest.mark.torch]
PROGRAMS = [  # (path, arguments, ranks: 0 = plain python)
    pytest.param("examples/resnet34/train_resnet34.py", RESNET, 0, marks=TF, id="resnet34-tf"),
    pytest.param("examples/resnet34/train_hvd.py", RESNET, 2, marks=TF + [pytest.mark.horovod], id="resnet34-tf-hvd"),
    pytest.param("examples/resnet34/train_resnet34_torch.py", RESNET, 0, marks=TORCH, id="resnet34-torch"),
    pytest.param("examples/resnet34/train_hvd_torch.py", RESNET, 2, marks=TORCH + [pytest.mark.horovod],
                 id="resnet34-torch-hvd"),
    pytest.param("homework/tensorflow2_mnist.py", MNIST, 0, marks=TF + [have_fashion], id="mnist-tf"),
    pytest.param("homework/tensorflow2_mnist_hvd.py", MNIST, 2, marks=TF + [have_fashion, pytest.mark.horovod],
                 id="mnist-tf-hvd"),
    pytest.param("homework/pytorch_mnist.py", MNIST, 0, marks=TORCH + [have_fashion], id="mnist-torch"),
    pytest.param("homework/pytorch_mnist_hvd.py", MNIST, 2, marks=TORCH + [have_fashion, pytest.mark.horovod],
                 id="mnist-torch-hvd"),
]


@pytest.mark.parametrize("path,args,ranks", PROGRAMS)
def test_runs_without_warnings(tmp_path, path, args, ranks):
    # The variable reaches every rank: mpirun starts local ranks with its own environment.
    env = dict(os.environ, PYTHONWARNINGS=",".join(["error", *ALLOWED]), PYTHONPATH=ROOT)
    env.pop("TF_CPP_MIN_LOG_LEVEL", None)  # the programs' own default, as a user gets it
    script = os.path.join(ROOT, path)
    if ranks:
        result = run_ranks(ranks, script, args, env=env, cwd=str(tmp_path))
        returncode, stdout, stderr = result.returncode, result.stdout, result.stderr
    else:
        proc = subprocess.run([sys.executable, script, *args], capture_output=True, text=True, timeout=300,
                              cwd=str(tmp_path), env=dict(env, OMP_NUM_THREADS="1"))
        returncode, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
    assert returncode == 0, f"exit {returncode}\n{stdout[-2000:]}\n{stderr[-4000:]}"
    assert stderr.strip() == "", stderr[-4000:]
    assert "loss" in stdout
