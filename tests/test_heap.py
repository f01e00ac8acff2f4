"""hvdkit.torch.init() keeps freed step buffers in glibc's heap (hvdkit/common/heap.py), unless the user chose.

A probe process allocates ten 4 MiB blocks, writes them and frees them, as a step does with its activations,
and counts the page faults of ten such steps (getrusage). With glibc's defaults the freed 40 MiB at the
heap's top is more than its trim threshold (twice the largest block freed), so it goes back to the OS and
every step faults its 10240 pages in again; kept in the heap, the steps after the first fault nothing.
The environment has no GLIBC_TUNABLES (hvdkit's launchers add huge pages, which fault 2 MiB at a time).
"""
import os
import subprocess
import sys

import pytest

from conftest import ROOT

PROBE = r"""
import ctypes, importlib, resource, sys
libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = (ctypes.c_size_t,)
libc.free.argtypes = (ctypes.c_void_p,)
libc.memset.argtypes = (ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t)
caller = sys.argv[1]
if caller == "common":
    from hvdkit.common import heap
    heap.keep_in_heap()
elif caller != "none":
    importlib.import_module("hvdkit." + caller).init(threads=1)

def step():
    blocks = [libc.malloc(4 * 2**20) for _ in range(10)]
    for b in blocks:
        libc.memset(b, 1, 4 * 2**20)
    for b in blocks:
        libc.free(b)

step()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(10):
    step()
print("FAULTS_PER_STEP", (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) // 10)
"""
PAGES_PER_STEP = 10 * 4 * 2**20 // 4096  # every page of the ten blocks, faulted in again


def faults_per_step(tmp_path, caller, **env):
    (tmp_path / "probe.py").write_text(PROBE)
    base = {k: v for k, v in os.environ.items()
            if k not in ("GLIBC_TUNABLES", "HVDKIT_KEEP_HEAP") and not k.startswith("MALLOC_")}
    base.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""), **env)
    done = subprocess.run([sys.executable, str(tmp_path / "probe.py"), caller], env=base, cwd=tmp_path,
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    line = [ln for ln in done.stdout.splitlines() if ln.startswith("FAULTS_PER_STEP")]
    return int(line[0].split()[1])


def test_glibc_gives_freed_steps_back_without_hvdkit(tmp_path):
    # The baseline the other tests are read against: glibc's own thresholds.
    assert faults_per_step(tmp_path, "none") >= PAGES_PER_STEP * 0.9


def test_keep_in_heap_keeps_freed_steps(tmp_path):
    assert faults_per_step(tmp_path, "common") < 10


@pytest.mark.parametrize("env,kept", [
    ({}, True),
    ({"HVDKIT_KEEP_HEAP": "0"}, False),  # the documented opt-out
    ({"MALLOC_TRIM_THRESHOLD_": "131072"}, False),  # the user's own threshold wins
    ({"GLIBC_TUNABLES": "glibc.malloc.trim_threshold=131072"}, False),
])
@pytest.mark.torch
@pytest.mark.horovod
def test_torch_init_keeps_the_heap_unless_the_user_chose(tmp_path, env, kept):
    faults = faults_per_step(tmp_path, "torch", **env)
    assert (faults < 10) if kept else (faults >= PAGES_PER_STEP * 0.9), faults


@pytest.mark.tensorflow
@pytest.mark.horovod
def test_tensorflow_init_leaves_glibc_alone(tmp_path):
    # TensorFlow's ResNet34 step gained nothing from these thresholds (docs/performance.md).
    assert faults_per_step(tmp_path, "tensorflow") >= PAGES_PER_STEP * 0.9
