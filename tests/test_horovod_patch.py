"""scripts/patches: per-fix Python patches with no binary entries, and the combined patch that is exactly their sum.

The combined patch is checked by regenerating it from Horovod 0.28.1's pristine sdist (the one `make setup`
downloads, so pip's cache answers) plus the per-fix patches; a combined patch that drifted is reported.
"""
import glob
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT

PATCHES = os.path.join(ROOT, "scripts", "patches")
COMBINED = os.path.join(PATCHES, "horovod-0.28.1-python.patch")


def test_patches_hold_text_only():
    patches = glob.glob(os.path.join(PATCHES, "**", "*.patch"), recursive=True)
    assert len(glob.glob(os.path.join(PATCHES, "horovod-python", "[0-9][0-9]-*.patch"))) >= 7
    for path in patches:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8")  # a binary entry would not decode, or shows up below
        assert "Binary files" not in text and "GIT binary patch" not in text, path
        assert ".pyc" not in text and "__pycache__" not in text, path


@pytest.fixture(scope="module")
def sdist(tmp_path_factory):
    out = tmp_path_factory.mktemp("sdist")
    proc = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                           "horovod==0.28.1", "-d", str(out)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return str(out / "horovod-0.28.1.tar.gz")


def _regenerate(patches_dir, sdist, *args):
    return subprocess.run(["bash", os.path.join(patches_dir, "regenerate.sh"), *args], capture_output=True,
                          text=True, timeout=300, env=dict(os.environ, HOROVOD_SDIST=sdist, PYTHON=sys.executable))


@pytest.mark.horovod
def test_combined_patch_is_the_sum_of_the_per_fix_patches(sdist):
    proc = _regenerate(PATCHES, sdist, "--check")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "identical" in proc.stdout


@pytest.mark.horovod
def test_a_drifted_combined_patch_is_reported_and_rewritten(tmp_path, sdist):
    copy = str(tmp_path / "patches")
    shutil.copytree(PATCHES, copy)
    drifted = os.path.join(copy, os.path.basename(COMBINED))
    with open(drifted) as f:
        text = f.read()
    with open(drifted, "w") as f:
        f.write(text.replace("return var_ref(vars)", "return vars.ref()", 1))
    proc = _regenerate(copy, sdist, "--check")
    assert proc.returncode == 1 and "differs from the per-fix patches' sum" in proc.stderr, proc.stderr
    assert _regenerate(copy, sdist).returncode == 0
    with open(drifted) as f, open(COMBINED) as g:
        assert f.read() == g.read()
