"""`import hvdkit` pulls in no framework; each framework module pulls in only its own."""
import subprocess
import sys

import pytest


def _modules_after(stmt):
    code = f"import sys; {stmt}; print(' '.join(m for m in ('torch', 'tensorflow', 'keras') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return set(out.stdout.split())


def test_top_package_and_common_import_no_framework():
    assert _modules_after("import hvdkit, hvdkit.common.schedule, hvdkit.common.metrics, hvdkit.common.files, "
                          "hvdkit.common.ranks, hvdkit.common.argtypes, hvdkit.data.datasets, hvdkit.scale.launch, "
                          "hvdkit.scale.meter, hvdkit.timeline.capture, hvdkit.cli") == set()


@pytest.mark.torch
@pytest.mark.horovod
def test_torch_module_does_not_import_tensorflow():
    loaded = _modules_after("import hvdkit.torch")
    assert "torch" in loaded and "tensorflow" not in loaded and "keras" not in loaded


@pytest.mark.tensorflow
@pytest.mark.horovod
def test_tensorflow_module_does_not_import_torch():
    loaded = _modules_after("import hvdkit.tensorflow")
    assert "tensorflow" in loaded and "torch" not in loaded


def test_missing_framework_names_the_install_command():
    # Hide torch from the interpreter: the error must say how to install it, in one line.
    code = ("import sys; sys.modules['torch'] = None\n"
            "try:\n    import hvdkit.torch\nexcept ImportError as e:\n    print('ERR', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("ERR")][0]
    assert "pip install torch==2.13.0" in line and "make setup" in line
