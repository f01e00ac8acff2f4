"""Every error hvdkit means for a user derives from hvdkit.common.errors.HvdkitError, which the `hvdkit`
command and init()'s exception hook print as one line with the error's exit status."""
import importlib
import inspect
import pkgutil
import subprocess
import sys

import hvdkit
from hvdkit.common.errors import HvdkitError

# Modules that import a framework or Horovod at the top: their errors are checked where they are defined.
NEEDS_FRAMEWORK = ("hvdkit.torch", "hvdkit.tensorflow", "hvdkit.check.hooks_",
                   "hvdkit.data.keras_standin.sitecustomize")
# Exceptions that never reach a user: control flow caught by hvdkit itself.
INTERNAL = {"hvdkit.check.run.observer.StopRun", "hvdkit.check.run.observer.TimeLimit",
            "hvdkit.common.npz_payload.UnsupportedValue", "hvdkit.timeline.slicing.EmptyWindow"}


def _framework_free_modules(package=hvdkit):
    yield package
    # Not pkgutil.walk_packages: it imports every package it enters, hvdkit.torch and hvdkit.tensorflow too.
    for info in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
        if info.name.startswith(NEEDS_FRAMEWORK) or info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        if info.ispkg:
            yield from _framework_free_modules(module)
        else:
            yield module


def test_every_error_class_derives_from_the_base():
    found = {}
    for module in _framework_free_modules():
        for name, obj in vars(module).items():
            if inspect.isclass(obj) and issubclass(obj, BaseException) and obj.__module__ == module.__name__:
                found[f"{module.__name__}.{name}"] = obj
    assert "hvdkit.data.idx.DataError" in found and "hvdkit.scale.launch.LaunchError" in found  # the walk works
    strays = sorted(k for k, v in found.items() if k not in INTERNAL and not issubclass(v, HvdkitError))
    assert strays == []


def test_cli_prints_any_hvdkit_error_as_one_line_with_its_status(tmp_path):
    # A file that is not a timeline: the reader's TraceError reaches main() unconverted.
    bad = tmp_path / "trace.json"
    bad.write_text("not a timeline\n")
    proc = subprocess.run([sys.executable, "-m", "hvdkit", "timeline", "summary", str(bad)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    (line,) = proc.stderr.splitlines()
    assert line.startswith("hvdkit timeline: error: ") and str(bad) in line
