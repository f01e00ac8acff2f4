"""The setup is idempotent: a second run finds everything in place and rebuilds nothing."""
import os
import subprocess
import sys

import pytest

from conftest import ROOT


@pytest.mark.horovod
@pytest.mark.slow  # runs setup
def test_second_setup_reuses_everything():
    if not os.path.exists(os.path.join(sys.prefix, ".hvdkit-horovod-key")):
        pytest.skip("this interpreter's Horovod was not installed by scripts/build_horovod.sh")
    out = subprocess.run(["bash", os.path.join(ROOT, "scripts", "setup.sh"), sys.executable],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "python dependencies up to date" in out.stderr
    assert "already installed for this key" in out.stderr
    assert "building Horovod" not in out.stderr


def test_patch_applies_to_what_it_claims():
    patch = open(os.path.join(ROOT, "scripts", "patches", "horovod-0.28.1.patch")).read()
    assert "+set(CMAKE_CXX_STANDARD 17)" in patch and "+    set(CMAKE_CXX_STANDARD 17)" in patch
    assert "+if(HAVE_CUDA OR HAVE_ROCM)" in patch  # XLA ops only for GPU builds
