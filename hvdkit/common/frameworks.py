"""Importing a framework or Horovod with an error that says how to get it (and TensorFlow without its chatter)."""
import importlib
import os
import re
import sys
import tempfile

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


# What TensorFlow 2.21 writes to stderr while it is imported, whatever TF_CPP_MIN_LOG_LEVEL says: absl's
# pre-initialisation notice and the oneDNN notice, once per TensorFlow library (4 lines per rank).
_TF_STARTUP_NOTICES = re.compile(
    rb"All log messages before absl::InitializeLog\(\) is called|\] oneDNN custom operations are on"
    rb"|cpu_feature_guard\.cc|This TensorFlow binary is optimized|rebuild TensorFlow with the appropriate")
QUIET_LEVEL = "2"  # TensorFlow's C++ INFO and WARNING lines off, errors kept


def import_quietly(module="tensorflow", needed_by="this program"):
    """Import TensorFlow (or a module that imports it) without its C++ start-up notices.

    TF_CPP_MIN_LOG_LEVEL=0 shows everything TensorFlow writes. Unset, it becomes 2 (INFO and WARNING off).
    TensorFlow 2.21 writes its import-time notices whatever the level says, so at any level above 0 the
    import's stderr is filtered: the known notices are dropped, every other line (a real error) is written back.
    """
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", QUIET_LEVEL)
    if "tensorflow" in sys.modules or os.environ["TF_CPP_MIN_LOG_LEVEL"].strip() in ("", "0"):
        return require(module, needed_by)
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (AttributeError, OSError, ValueError):  # no real stderr (embedded, a notebook): nothing to filter
        return require(module, needed_by)
    with tempfile.TemporaryFile() as captured:
        os.dup2(captured.fileno(), 2)
        try:
            return require(module, needed_by)
        finally:
            # Hazard: a crash inside the import would lose what it wrote here; TensorFlow's import
            # failures are Python exceptions, raised after stderr is back.
            os.dup2(saved, 2)
            os.close(saved)
            captured.seek(0)
            kept = [line for line in captured.read().splitlines(keepends=True)
                    if not _TF_STARTUP_NOTICES.search(line)]
            if kept:
                os.write(2, b"".join(kept))
