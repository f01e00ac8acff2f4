"""Imported at interpreter start-up when this directory is on PYTHONPATH (`hvdkit data keras-mnist` prints how).

Keras's mnist.load_data() compares its cache file's sha256 with the real MNIST's, so it rejects the
Fashion-MNIST stand-in `hvdkit data keras-mnist` writes, tries to download MNIST and, offline, deletes the
stand-in. This hook waits until Keras itself imports keras.src.utils.file_utils (nothing is imported here)
and makes its validate_file accept a file that carries the stand-in's marker member; every other file is
still checked against its hash. Without this directory on PYTHONPATH nothing changes.
"""
import importlib.abc
import sys
import zipfile

_MODULE = "keras.src.utils.file_utils"
_MARKER = "hvdkit_standin.npy"  # hvdkit.data.datasets.STANDIN_KEY, as np.savez names the member


def _is_standin(path):
    try:
        with zipfile.ZipFile(path) as z:
            return _MARKER in z.namelist()
    except (OSError, zipfile.BadZipFile):
        return False


def _patch(module):
    check = module.validate_file

    def validate_file(fpath, file_hash, *args, **kwargs):
        return _is_standin(fpath) or check(fpath, file_hash, *args, **kwargs)

    module.validate_file = validate_file


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != _MODULE:
            return None
        for finder in sys.meta_path:
            spec = None if finder is self else getattr(finder, "find_spec", lambda *a: None)(name, path, target)
            if spec is not None and spec.loader is not None:
                run = spec.loader.exec_module

                def exec_module(module, run=run):
                    run(module)
                    _patch(module)

                spec.loader.exec_module = exec_module
                return spec
        return None


sys.meta_path.insert(0, _Finder())
