"""`hvdkit doctor` on this machine: everything hvdkit needs is found, with Horovod's real build flags."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

BIN = os.path.dirname(sys.executable)


@pytest.mark.horovod
@pytest.mark.slow
def test_doctor_reports_frameworks_and_controllers():
    # As the README runs it, `.venv/bin/hvdkit doctor` with the venv not activated: its bin is not on PATH.
    path = os.pathsep.join(d for d in os.environ["PATH"].split(os.pathsep)
                           if os.path.realpath(d) != os.path.realpath(BIN))
    out = subprocess.run([os.path.join(BIN, "hvdkit"), "doctor", "--json"], capture_output=True, text=True,
                         timeout=300, env=dict(os.environ, PATH=path))
    report = json.loads(out.stdout)
    rows = {r["check"]: r for r in report["checks"]}
    assert out.returncode == 0 and report["failed"] == 0, out.stdout
    assert set(rows["horovod frameworks"]["detail"].split(", ")) >= {"TensorFlow", "PyTorch"}
    assert {"MPI", "Gloo"} <= set(rows["horovod controllers"]["detail"].split(", "))
    assert rows["mpirun -n 2"]["status"] == "ok"
    # make setup applied hvdkit's Keras 3 patch to Horovod, and doctor can tell.
    assert rows["horovod keras API"]["status"] == "ok" and "patched by hvdkit" in rows["horovod keras API"]["detail"]
    # ... and its C++ patch: the background thread wakes on an enqueue.
    assert rows["horovod cycle"]["status"] == "ok" and "wakes" in rows["horovod cycle"]["detail"], rows["horovod cycle"]
    # make setup patched torchvision's import: its Python parts work, its CUDA-built C++ ops do not load.
    assert rows["torchvision"]["status"] == "ok", rows["torchvision"]
    assert "models, datasets, transforms work" in rows["torchvision"]["detail"]
    assert rows["torchvision C++ ops"]["status"] == "warn" and "nms" in rows["torchvision C++ ops"]["detail"]


def test_doctor_says_which_torchvision_parts_work():
    from hvdkit.cli.doctor import OK, WARN, torchvision_rows
    rows = torchvision_rows({"version": "0.28.0", "models": True, "datasets": "OSError: no PIL", "transforms": True,
                             "ops": True})
    assert [r[:2] for r in rows] == [(WARN, "torchvision"), (OK, "torchvision C++ ops")]
    assert rows[0][2] == "0.28.0: models, transforms work; broken: datasets (OSError: no PIL)"
    rows = torchvision_rows({"import": "RuntimeError: operator torchvision::nms does not exist"})
    assert len(rows) == 1 and rows[0][0] == WARN and "patch_torchvision.sh" in rows[0][3]
    assert torchvision_rows({})[0][2] == "not installed"


@pytest.mark.torch
def test_torchvision_python_parts_work_after_setup():
    """make setup installs torchvision 0.28.0 (a CUDA build) and patches its import: resnet34 runs on CPU."""
    code = ("import torch, torchvision; m = torchvision.models.resnet34(); "
            "print(tuple(m(torch.zeros(1, 3, 64, 64)).shape), torchvision.extension._has_ops())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.split()[-3:] == ["(1,", "1000)", "False"], out.stderr[-2000:]
    # The patch step is idempotent: a second make setup finds it applied and leaves it.
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    again = subprocess.run(["bash", os.path.join(root, "scripts", "patch_torchvision.sh"), sys.executable],
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 0 and "already patched" in again.stderr, again.stderr


def test_doctor_warns_about_an_unpatched_horovod_on_keras3():
    from hvdkit.cli.doctor import WARN, keras_api_status
    status, detail, fix = keras_api_status({"keras": "3.15.1", "horovod": "0.28.1", "tensorflow": "2.21.0",
                                            "horovod_keras3": False})
    assert status == WARN and "assume Keras 2" in detail and "build_horovod.sh" in fix
    assert keras_api_status({"keras": "2.15.0", "horovod": "0.28.1", "tensorflow": "2.15.0",
                             "horovod_keras3": False})[0] == "ok"


def test_doctor_warns_about_a_horovod_that_sleeps_out_its_cycle():
    from hvdkit.cli.doctor import OK, WARN, cycle_wake_status
    status, detail, fix = cycle_wake_status({"horovod": "0.28.1", "horovod_cycle_wake": False})
    assert status == WARN and "HOROVOD_CYCLE_TIME" in detail and "build_horovod.sh" in fix
    assert cycle_wake_status({"horovod": "0.28.1", "horovod_cycle_wake": True})[0] == OK
    assert cycle_wake_status({"horovod": None, "horovod_cycle_wake": None}) is None


@pytest.mark.slow  # doctor launches 2 ranks to check mpirun
def test_doctor_fails_with_a_fix_when_horovod_is_missing(tmp_path):
    # An interpreter without Horovod: the system python3 with only the standard library.
    out = subprocess.run([os.path.join(BIN, "hvdkit"), "doctor", "--python", "/usr/bin/python3"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 1
    line = [ln for ln in out.stdout.splitlines() if "horovod" in ln and "FAIL" in ln][0]
    assert "fix: make setup" in line


def test_doctor_says_whether_torchvisions_mnist_is_staged(tmp_path, monkeypatch):
    """The data rows for torchvision's MNIST/FashionMNIST under a root: not staged, hvdkit's stand-in, or
    someone's own files (here a fake Fashion-MNIST stands in for Debian's package)."""
    from hvdkit.cli.doctor import OK, WARN, Report, check_data
    from hvdkit.data import datasets, idx, torchvision_layout
    monkeypatch.delenv("HVDKIT_DATA", raising=False)
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras"))
    system = tmp_path / "system-fashion"
    system.mkdir()
    monkeypatch.setattr(datasets, "_SYSTEM_DIRS", {"fashion-mnist": (str(system),)})
    for base, shape in zip(datasets.IDX_FILES.values(), ((3, 28, 28), (3,), (2, 28, 28), (2,))):
        idx.write_idx(system / base, np.zeros(shape, np.uint8))

    def rows(root):
        report = Report()
        check_data(report, str(root))
        return {r["check"]: (r["status"], r["detail"], r["fix"]) for r in report.rows}

    root = tmp_path / "data"
    got = rows(root)
    assert got["data: torchvision MNIST"] == (
        WARN, f"not staged in {root}/MNIST/raw: download=True would try the internet",
        f"hvdkit data torch-mnist --root {root} (Fashion-MNIST stands in), or copy real MNIST: docs/install.md")
    assert got["data: torchvision FashionMNIST"][0] == WARN
    torchvision_layout.stage(root, quiet=True)
    got = rows(root)
    assert got["data: torchvision MNIST"][:2] == (
        OK, f"{root}/MNIST/raw: Fashion-MNIST standing in for MNIST (hvdkit data torch-mnist), not MNIST")
    assert got["data: torchvision FashionMNIST"][:2] == (OK, f"{root}/FashionMNIST/raw: the four IDX files")
    monkeypatch.setenv("HVDKIT_DATA", str(root))  # hvdkit's own loader finds the stand-in there, and says so
    assert rows(root)["data: mnist"][:2] == (OK, f"{root}/MNIST/raw (hvdkit's Fashion-MNIST stand-in, not MNIST)")
    (root / "MNIST" / "raw" / "hvdkit-standin.txt").unlink()  # as if real MNIST had been copied in
    assert rows(root)["data: torchvision MNIST"][:2] == (OK, f"{root}/MNIST/raw: the four IDX files")
