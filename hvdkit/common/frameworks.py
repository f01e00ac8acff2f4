"""Importing a framework or Horovod with an error that says how to get it."""
import importlib

_INSTALL = {
    "torch": "pip install torch==2.13.0  (or: make setup)",
    "tensorflow": "pip install tensorflow-cpu==2.21.0  (or: make setup)",
    "horovod": "bash scripts/build_horovod.sh  (or: make setup)",
    "mpi4py": "pip install mpi4py  (needs an MPI, e.g. apt-get install libopenmpi-dev)",
}


def require(module, needed_by):
    """Import `module`, or raise ImportError naming the command that installs it."""
    top = module.split(".")[0]
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        missing = (getattr(exc, "name", None) or top).split(".")[0]
        if missing not in _INSTALL and missing != top:
            raise  # something installed is broken inside: the original error says more
        how = _INSTALL.get(missing, "pip install " + missing)
        raise ImportError(f"{needed_by} needs {missing}, which is not installed ({exc}): {how}") from exc
