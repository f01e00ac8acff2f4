"""Run a training script on one rank under observation: `python -m hvdkit.check.run.bootstrap SCRIPT ARGS...`.

Launched by `hvdkit check --run` (dynamic.py) under mpirun. It runs SCRIPT as `python SCRIPT ARGS`
would (sys.argv, sys.path[0], __name__ == "__main__"), with hooks put on Horovod and the framework
as soon as the script imports them; the rank's observations go to $HVDKIT_CHECK_OUT/rank-N.json.
Nothing here imports a framework: the hooks receive the modules the script imported.
"""
import builtins
import os
import runpy
import signal
import sys
import traceback

from hvdkit.check.run import hooks_horovod
from hvdkit.check.run.observer import Observer, StopRun, TimeLimit
from hvdkit.common.ranks import rank_and_size

HOROVOD_MODULES = ("horovod.torch", "horovod.tensorflow", "horovod.tensorflow.keras", "horovod.keras")


def _ready(name):
    m = sys.modules.get(name)
    spec = getattr(m, "__spec__", None)
    return m is not None and not getattr(spec, "_initializing", False)


def install_import_hook(obs, extra=None):
    """Patch each framework module once, right after the script (or a library) has imported it.

    `extra` (hvdkit check --against) has hooks of its own: extra.torch(torch, obs) and extra.tf(tf, keras, obs)
    run after --run's, on the same modules."""
    done = set()
    real_import = builtins.__import__

    def patch_loaded():
        if "torch" not in done and _ready("torch") and _ready("torch.optim"):
            done.add("torch")
            from hvdkit.check.run import hooks_torch, simulate_torch
            hooks_torch.install(sys.modules["torch"], obs)
            simulate_torch.install(sys.modules["torch"], obs)
            if extra is not None:
                extra.torch(sys.modules["torch"], obs)
        if "torchvision" not in done and "torch" in done and _ready("torchvision.datasets"):
            done.add("torchvision")
            from hvdkit.check.run import simulate_torch
            simulate_torch.install_datasets(sys.modules["torchvision.datasets"], sys.modules["torch"], obs)
        # Not while Keras itself is importing (`import keras` first imports TensorFlow): wait for it to finish.
        if "tf" not in done and _ready("tensorflow") and ("keras" not in sys.modules or _ready("keras")):
            done.add("tf")
            # tf.keras loads Keras lazily, past this hook: load it now, as the script's first tf.keras would.
            __import__("importlib").import_module("keras")
            from hvdkit.check.run import hooks_tf, simulate_tf
            hooks_tf.install(sys.modules["tensorflow"], sys.modules["keras"], obs)
            simulate_tf.install(sys.modules["tensorflow"], sys.modules["keras"], obs)
            if extra is not None:
                extra.tf(sys.modules["tensorflow"], sys.modules["keras"], obs)
        for name in HOROVOD_MODULES:
            if name not in done and _ready(name):
                done.add(name)
                before = None
                if name == "horovod.torch" and "torch" in done:
                    from hvdkit.check.run import hooks_torch
                    before = hooks_torch.before_broadcast(sys.modules["torch"], obs)
                hooks_horovod.patch(sys.modules[name], obs, before)

    def observed_import(name, globals=None, locals=None, fromlist=(), level=0):
        module = real_import(name, globals, locals, fromlist, level)
        if level == 0 and name.split(".")[0] in ("torch", "torchvision", "tensorflow", "keras", "horovod", "hvdkit"):
            patch_loaded()
        return module
    builtins.__import__ = observed_import
    _watch_open(obs, real_open=builtins.open)


def _watch_open(obs, real_open):
    """Files the script itself opens for writing (libraries' caches and our own output are left out)."""
    out = os.path.abspath(obs.out_dir)

    def observed_open(file, mode="r", *a, **k):
        if isinstance(file, (str, os.PathLike)) and any(c in mode for c in "wax") and \
                not os.path.abspath(os.fspath(file)).startswith(out) and obs.script_line() is not None:
            obs.on_write("open", os.fspath(file))
        return real_open(file, mode, *a, **k)
    builtins.open = observed_open


def _shutdown_horovod():
    """Finalize MPI through Horovod (every rank stops after the same step): mpirun reports a rank that
    leaves without MPI_Finalize as a failure."""
    for name in HOROVOD_MODULES:
        m = sys.modules.get(name)
        if m is not None and getattr(m, "is_initialized", lambda: False)():
            m.shutdown()
            return


def _on_term(signum, frame):
    """dynamic.py's time limit (mpirun passes its SIGTERM on): leave through the script's frames, so the
    crash record names the line this rank was stuck at."""
    raise TimeLimit("stopped by SIGTERM while running this line: the time limit (--timeout; a collective "
                    "called on some ranks only, or a step slower than the limit), or mpirun ending the job after "
                    "another rank failed")


def main(argv, observer=Observer, extra=None):
    """Run the script; `observer` (an Observer class) and `extra` (install_import_hook's) are --against's."""
    if not argv:
        print("usage: python -m hvdkit.check.run.bootstrap SCRIPT [ARGS...]", file=sys.stderr)
        return 2
    script = argv[0]
    rank, size = rank_and_size()
    obs = observer(script, int(os.environ.get("HVDKIT_CHECK_STEPS", "3")), os.environ["HVDKIT_CHECK_OUT"], rank, size)
    install_import_hook(obs, extra)
    signal.signal(signal.SIGTERM, _on_term)
    sys.argv = [script] + list(argv[1:])
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    status = 0
    try:
        runpy.run_path(script, run_name="__main__")
        obs.on_finish()
    except StopRun:
        pass
    except SystemExit as exc:
        obs.rec.exit = exc.code if isinstance(exc.code, int) or exc.code is None else str(exc.code)
        status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if status:  # argparse's usage error, the script's own sys.exit(1): say so, with the line
            obs.on_crash(exc)
    except BaseException as exc:  # the script's own crash: recorded, shown, and the rank fails
        obs.on_crash(exc)
        traceback.print_exc()
        status = 1
    obs.write()
    if status == 0:
        _shutdown_horovod()
    sys.stdout.flush()
    sys.stderr.flush()
    # Leave at once: Horovod's and TensorFlow's exit handlers would wait for ranks that stopped mid-epoch.
    os._exit(status)


if __name__ == "__main__":
    main(sys.argv[1:])
