"""`hvdkit doctor`: is this machine ready for `mpirun -n N python train.py`?

Every check runs in a subprocess, so a framework that crashes on import is reported, not fatal.
"""
import json
import os
import re
import shutil
import subprocess
import sys

from hvdkit.scale import launch
from hvdkit.common.context import usable_cores

OK, WARN, FAIL = "ok", "warn", "FAIL"
_VERSIONS = """
import importlib.metadata as md, json, sys
out = {"python": sys.version.split()[0]}
for key, names in {"torch": ["torch"], "tensorflow": ["tensorflow", "tensorflow-cpu"], "keras": ["keras"],
                   "horovod": ["horovod"], "mpi4py": ["mpi4py"], "numpy": ["numpy"]}.items():
    for n in names:
        try:
            out[key] = md.version(n); break
        except md.PackageNotFoundError:
            out[key] = None
try:  # hvdkit's Keras 3 patch adds horovod/_keras/keras3.py (found without importing TensorFlow)
    files = md.distribution("horovod").files or []
    out["horovod_keras3"] = any(str(f) == "horovod/_keras/keras3.py" for f in files)  # RECORD paths use /
except md.PackageNotFoundError:
    out["horovod_keras3"] = None
try:  # hvdkit's C++ patch (scripts/patches/horovod-core/) reads HVDKIT_CYCLE_WAKE: its name is in the library
    libs = [f.locate() for f in md.distribution("horovod").files or [] if str(f).endswith(".so")]
    out["horovod_cycle_wake"] = any(b"HVDKIT_CYCLE_WAKE" in open(p, "rb").read() for p in libs) if libs else None
except (md.PackageNotFoundError, OSError):
    out["horovod_cycle_wake"] = None
print(json.dumps(out))
"""
_FIX = {
    "torch": "pip install torch==2.13.0 (or make setup)",
    "tensorflow": "pip install tensorflow-cpu==2.21.0 (or make setup)",
    "horovod": "make setup (builds Horovod 0.28.1 with scripts/build_horovod.sh)",
    "mpi4py": "pip install mpi4py (needs libopenmpi-dev)",
}


# What of torchvision works here: PyPI's 0.28.0 is a CUDA build whose C++ ops cannot load beside CPU torch
# (make setup patches its import; scripts/patch_torchvision.sh); its Python parts work without them.
_TORCHVISION = """
import json
out = {}
try:
    import torchvision
    out["version"] = torchvision.__version__
except Exception as exc:
    out["import"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:160] if str(exc) else ''}"
    print(json.dumps(out)); raise SystemExit
def part(name, fn):
    try:
        fn(); out[name] = True
    except Exception as exc:
        out[name] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:120] if str(exc) else ''}"
part("models", lambda: torchvision.models.resnet18(weights=None))
part("datasets", lambda: torchvision.datasets.FakeData(size=1, image_size=(3, 8, 8))[0])
part("transforms", lambda: torchvision.transforms.ToTensor()(torchvision.transforms.ToPILImage()(
    __import__("torch").zeros(3, 8, 8))))
out["ops"] = bool(torchvision.extension._has_ops())
print(json.dumps(out))
"""
PYTHON_PARTS = ("models", "datasets", "transforms")


def torchvision_rows(probe):
    """[(status, check, detail, fix)] for torchvision from the probe's answers ({} when not installed)."""
    fix_import = "make setup (scripts/patch_torchvision.sh patches the CUDA wheel's import for CPU torch)"
    if not probe:
        return [(WARN, "torchvision", "not installed", "pip install torchvision==0.28.0 (or make setup)")]
    if "import" in probe:
        return [(WARN, "torchvision", f"import torchvision fails: {probe['import']}", fix_import)]
    works = [p for p in PYTHON_PARTS if probe.get(p) is True]
    broken = [f"{p} ({probe.get(p)})" for p in PYTHON_PARTS if probe.get(p) is not True]
    rows = [(OK if not broken else WARN, "torchvision",
             f"{probe['version']}: {', '.join(works) or 'nothing'} work" + (f"; broken: {'; '.join(broken)}"
                                                                            if broken else ""), fix_import)]
    rows.append((OK, "torchvision C++ ops", "loaded (torchvision.ops, image decoding)", "") if probe.get("ops") else
                (WARN, "torchvision C++ ops", "not loaded: torchvision.ops (nms, roi_align, deform_conv2d) and "
                 "torchvision.io's decoders fail; models, datasets and transforms do not need them",
                 "a torchvision built for this torch (PyPI's is a CUDA build) if a script uses torchvision.ops"))
    return rows


def check_torchvision(report, versions, python):
    if not versions.get("torch"):
        return
    code, out, err = _run([python, "-c", _TORCHVISION], timeout=180)
    try:
        probe = json.loads(out.strip().splitlines()[-1]) if code == 0 else {"import": (err or out).strip()[-160:]}
    except (ValueError, IndexError):
        probe = {"import": (err or out).strip()[-160:]}
    if "import" in probe and "No module named 'torchvision'" in probe["import"]:
        probe = {}
    for row in torchvision_rows(probe):
        report.add(*row)


def keras_api_status(versions):
    """(status, detail, fix) for Horovod's own Keras API with the installed Keras, or None without both."""
    keras, patched = versions.get("keras"), versions.get("horovod_keras3")
    if not (keras and versions.get("horovod") and versions.get("tensorflow")):
        return None
    if int(keras.split(".")[0]) < 3:
        return OK, f"Keras {keras}: Horovod's own code path", ""
    if patched:
        return OK, f"Keras {keras}: patched by hvdkit (scripts/patches/horovod-0.28.1-python.patch)", ""
    return (WARN, f"Keras {keras}: this Horovod's horovod.tensorflow.keras optimizer and callbacks assume Keras 2",
            "rebuild with hvdkit's patch: bash scripts/build_horovod.sh (hvdkit's own API works either way)")


def cycle_wake_status(versions):
    """(status, detail, fix) for how Horovod's background thread waits between cycles, or None without Horovod."""
    wake = versions.get("horovod_cycle_wake")
    if not versions.get("horovod") or wake is None:
        return None
    if wake:
        return OK, "wakes when a tensor is enqueued (hvdkit's patch, scripts/patches/horovod-core/)", ""
    return (WARN, "sleeps out each HOROVOD_CYCLE_TIME: a small blocking allreduce waits up to a cycle",
            "rebuild with hvdkit's patch: bash scripts/build_horovod.sh (docs/horovod-patch.md)")


def _run(argv, timeout=120, env=None):
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env)
        return p.returncode, p.stdout, p.stderr
    except (OSError, subprocess.TimeoutExpired) as exc:
        return -1, "", str(exc)


class Report:
    def __init__(self):
        self.rows = []

    def add(self, status, what, detail="", fix=""):
        self.rows.append({"status": status, "check": what, "detail": detail, "fix": fix})

    @property
    def failed(self):
        return [r for r in self.rows if r["status"] == FAIL]

    def print(self):
        for r in self.rows:
            line = f"  {r['status']:<4}  {r['check']:<30} {r['detail']}"
            if r["fix"] and r["status"] != OK:
                line += f"  -> fix: {r['fix']}"
            print(line.rstrip())


def check_versions(report, python):
    code, out, err = _run([python, "-c", _VERSIONS])
    versions = json.loads(out) if code == 0 else {}
    report.add(OK, "python", versions.get("python", sys.version.split()[0]))
    for name in ("torch", "tensorflow", "keras", "horovod", "mpi4py"):
        v = versions.get(name)
        required = name in ("horovod",)
        report.add(OK if v else (FAIL if required else WARN), name, v or "not installed",
                   _FIX.get(name, f"pip install {name}"))
    keras_api = keras_api_status(versions)
    if keras_api:
        report.add(keras_api[0], "horovod keras API", *keras_api[1:])
    cycle = cycle_wake_status(versions)
    if cycle:
        report.add(cycle[0], "horovod cycle", *cycle[1:])
    return versions


def check_build(report, versions, python):
    """Horovod's own view of its build, as `horovodrun --check-build` prints it."""
    if not versions.get("horovod"):
        return {}
    # The checked environment's own launcher first: `.venv/bin/hvdkit doctor` works without activating it.
    beside = os.path.join(os.path.dirname(os.path.abspath(python)), "horovodrun")
    exe = beside if os.access(beside, os.X_OK) else shutil.which("horovodrun")
    if not exe:
        report.add(FAIL, "horovod build", f"horovodrun not found beside {python} nor on PATH", _FIX["horovod"])
        return {}
    code, out, err = _run([exe, "--check-build"], timeout=180)
    sections = _check_build_sections(out)
    if code != 0 or not sections:
        report.add(FAIL, "horovod build", f"horovodrun --check-build failed: {(err or out).strip()[:200]}",
                   _FIX["horovod"])
        return sections
    frameworks = sections.get("Available Frameworks", [])
    report.add(OK if frameworks else FAIL, "horovod frameworks", ", ".join(frameworks) or "none", _FIX["horovod"])
    for title in ("Available Controllers", "Available Tensor Operations"):
        on = sections.get(title, [])
        report.add(OK if "MPI" in on and "Gloo" in on else WARN, "horovod " + title.split()[-1].lower(),
                   ", ".join(on) or "none", "rebuild with make setup (needs libopenmpi-dev for MPI)")
    for name, installed in (("TensorFlow", versions.get("tensorflow")), ("PyTorch", versions.get("torch"))):
        if installed and name not in frameworks:
            report.add(FAIL, f"horovod + {name}", f"{name} {installed} installed but Horovod was built without it",
                       "rebuild: bash scripts/build_horovod.sh (the cache key follows framework versions)")
    return sections


def _check_build_sections(text):
    sections, current = {}, None
    for line in text.splitlines():
        if line.strip().endswith(":") and line.strip()[:-1] in ("Available Frameworks", "Available Controllers",
                                                                  "Available Tensor Operations"):
            current = line.strip()[:-1]
            sections[current] = []
        else:
            m = re.match(r"\s*\[X\]\s+(.+)", line)
            if m and current:
                sections[current].append(m.group(1).strip())
    return sections


def check_mpi(report, python):
    mpirun = shutil.which("mpirun")
    if not mpirun:
        report.add(FAIL, "mpirun", "not found", "apt-get install openmpi-bin libopenmpi-dev (or module load openmpi)")
        return
    code, out, err = _run([mpirun, "--version"], timeout=30)
    report.add(OK, "mpirun", (out or err).splitlines()[0] if (out or err) else mpirun)
    mpi_code = "from mpi4py import MPI; print(MPI.Get_library_version().splitlines()[0])"
    code, out, err = _run([python, "-c", mpi_code], 60)
    if code == 0:
        report.add(OK, "MPI library", out.strip())
    rank_code = "from hvdkit.common.ranks import rank_and_size; print('RANK', rank_and_size()[0])"
    argv = launch.command(2, [python, "-c", rank_code], "mpirun")
    for _attempt in range(2):  # once more before failing: a loaded machine can lose a start-up race
        code, out, err = _run(argv, timeout=120, env=launch.child_env(2))
        got = sorted(line.split()[1] for line in out.splitlines() if line.startswith("RANK"))
        if code == 0 and got == ["0", "1"]:
            break
    if code == 0 and got == ["0", "1"]:
        report.add(OK, "mpirun -n 2", "started ranks 0 and 1" + (" (oversubscribed)" if usable_cores() < 2 else ""))
    else:
        said = (err.strip() or out.strip() or "no output").splitlines()[-1][:200]
        report.add(FAIL, "mpirun -n 2", f"exit {code}, ranks seen {got}: {said}",
                   "check `mpirun -n 2 hostname`; see docs/install.md")
    if hasattr(os, "geteuid") and os.geteuid() == 0 and not os.environ.get("OMPI_ALLOW_RUN_AS_ROOT"):
        report.add(WARN, "running as root", "plain `mpirun` refuses root",
                   "export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 (hvdkit's own launchers do)")


def check_hardware(report):
    report.add(OK, "cores", f"{usable_cores()} usable by this process")
    gpus = []
    if shutil.which("nvidia-smi"):
        code, out, _ = _run(["nvidia-smi", "-L"], timeout=30)
        gpus = [ln for ln in out.splitlines() if ln.startswith("GPU")] if code == 0 else []
    report.add(OK, "GPUs", f"{len(gpus)}" + (f" ({gpus[0]})" if gpus else " (CPU training)"))


def check_data(report, root=None):
    """Where hvdkit's loader finds each data set, and what torchvision's MNIST/FashionMNIST would find under
    `root` (default $HVDKIT_DATA, else ./data): staged files, or a download that fails offline."""
    try:
        from hvdkit.data import datasets, torchvision_layout
    except ImportError:  # hvdkit.data needs numpy
        return
    for name, where in datasets.available().items():
        standin = where and (datasets.is_standin(where) or torchvision_layout.is_standin(where))
        report.add(OK if where else WARN, f"data: {name}",
                   (where + " (hvdkit's Fashion-MNIST stand-in, not MNIST)" if standin else where) or "not found",
                   datasets.HOW_TO_GET.get(name, ""))
    root = torchvision_layout.resolve_root(root)
    stage = f"hvdkit data torch-mnist --root {root}"
    for name, found in torchvision_layout.state(root).items():
        where = torchvision_layout.folder(root, name)
        detail = {"stand-in": f"{where}: Fashion-MNIST standing in for MNIST (hvdkit data torch-mnist), not MNIST",
                  "files": f"{where}: the four IDX files"}.get(found, f"not staged in {where}: download=True "
                                                                  "would try the internet")
        fix = stage + (" (Fashion-MNIST stands in), or copy real MNIST: docs/install.md" if name == "mnist" else "")
        report.add(OK if found else WARN, f"data: torchvision {torchvision_layout.CLASSES[name]}", detail, fix)


def run(args):
    python = args.python or sys.executable
    report = Report()
    versions = check_versions(report, python)
    check_torchvision(report, versions, python)
    check_build(report, versions, python)
    check_mpi(report, python)
    check_hardware(report)
    check_data(report, args.data_root)
    if args.json:
        print(json.dumps({"checks": report.rows, "failed": len(report.failed)}, indent=2))
    else:
        print(f"hvdkit doctor ({python})")
        report.print()
        print(f"{len(report.failed)} check(s) failed" if report.failed else "all required checks passed")
    return 1 if report.failed else 0


def register(sub):
    p = sub.add_parser("doctor", help="check versions, Horovod's build, MPI launch, hardware and data sets")
    p.add_argument("--python", help="interpreter to check (default: this one)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--data-root", help="root your scripts pass to torchvision's datasets.MNIST "
                                       "(default: $HVDKIT_DATA, else ./data)")
    p.set_defaults(run=run)
