"""MNIST and Fashion-MNIST from files already on the machine; nothing is downloaded at run time.

    x_train, y_train, x_test, y_test = load("mnist", data_dir=None)   # uint8 Nx28x28, int64 labels

Places searched, in order (the first that has the data wins; a damaged file there is an error, not
skipped, so a bad download does not go unnoticed):
  1. `data_dir` (the scripts' --data-dir), then `$HVDKIT_DATA`: in the subdirectory named for the data
     set (mnist/, MNIST/raw/, fashion-mnist/, FashionMNIST/raw/, ...), then in the directory itself;
  2. Keras's cache ($KERAS_HOME or ~/.keras, then datasets/): mnist.npz, or fashion-mnist/ with IDX files;
  3. for Fashion-MNIST, Debian's package dataset-fashion-mnist (/usr/share/datasets/fashion-mnist).
A place holds a data set as Keras's mnist.npz (MNIST only) or as the four IDX files, plain or gzip'd.

    write_keras_mnist()   # `hvdkit data keras-mnist`: Fashion-MNIST as Keras's cache file mnist.npz
    (hvdkit.data.torchvision_layout stages it for torchvision: `hvdkit data torch-mnist`)
"""
import io
import os
import warnings
import zipfile

import numpy as np

from hvdkit.common import files
from hvdkit.data.idx import DataError, read_idx, read_npz

__all__ = ["load", "available", "find", "write_keras_mnist", "DataError", "HOW_TO_GET", "NAMES"]

NAMES = ("mnist", "fashion-mnist")
TITLES = {"mnist": "MNIST", "fashion-mnist": "Fashion-MNIST"}
HOW_TO_GET = {
    "mnist": "on a machine with internet, for Keras run "
             "`python -c \"import keras; keras.datasets.mnist.load_data()\"` and copy the "
             "~/.keras/datasets/mnist.npz it writes to this machine's ~/.keras/datasets/ or $HVDKIT_DATA/; "
             "for torchvision run "
             "`python -c \"from torchvision import datasets; datasets.MNIST('data', download=True)\"` and copy the "
             "data/MNIST/ it writes over your scripts' data/MNIST/ (remove a stand-in's first) or to "
             "$HVDKIT_DATA/MNIST/; or put the four MNIST IDX files in $HVDKIT_DATA/mnist/",
    "fashion-mnist": "apt-get install dataset-fashion-mnist (Debian/Ubuntu), or put the four IDX files from "
                     "github.com/zalandoresearch/fashion-mnist in $HVDKIT_DATA/fashion-mnist/",
}
# Subdirectory names under a data root: ours, then torchvision's layout.
_SUBDIRS = {
    "mnist": ("mnist", "MNIST", os.path.join("MNIST", "raw")),
    "fashion-mnist": ("fashion-mnist", "fashion_mnist", "FashionMNIST", os.path.join("FashionMNIST", "raw")),
}
_SYSTEM_DIRS = {"fashion-mnist": ("/usr/share/datasets/fashion-mnist",)}
_NPZ = {"mnist": "mnist.npz"}
# Beside the four IDX files in torchvision's MNIST/raw/ when they are `hvdkit data torch-mnist`'s stand-in.
TORCH_STANDIN_MARK = "hvdkit-standin.txt"
# The same four names for both data sets; Kaggle's copies spell them with a dot (train-images.idx3-ubyte).
IDX_FILES = {
    "x_train": "train-images-idx3-ubyte",
    "y_train": "train-labels-idx1-ubyte",
    "x_test": "t10k-images-idx3-ubyte",
    "y_test": "t10k-labels-idx1-ubyte",
}


def _idx_file(directory, base):
    for name in (base, base + ".gz", base.replace("-idx", ".idx"), base.replace("-idx", ".idx") + ".gz"):
        path = os.path.join(directory, name)
        if os.path.isfile(path):
            return path
    return None


def _keras_datasets_dir():
    home = os.environ.get("KERAS_HOME") or os.path.join(os.path.expanduser("~"), ".keras")
    return os.path.join(home, "datasets")


def _places(name, data_dir=None):
    """(description, [directories]) to look in, in order."""
    places = []
    for label, root in (("--data-dir", data_dir), ("$HVDKIT_DATA", os.environ.get("HVDKIT_DATA"))):
        if not root:
            places.append((f"{label} (not set)", []))
            continue
        root = os.path.expanduser(os.fspath(root))
        subs = _SUBDIRS[name]
        places.append((f"{label} {root} (and its {', '.join(s + '/' for s in subs)})",
                       [os.path.join(root, sub) for sub in subs] + [root]))
    keras_dir = _keras_datasets_dir()
    keras_dir = keras_dir if name == "mnist" else os.path.join(keras_dir, name)
    places.append(("Keras cache " + keras_dir, [keras_dir]))
    places += [("Debian package dir " + d, [d]) for d in _SYSTEM_DIRS.get(name, ())]
    return places


def _check_name(name):
    if name not in NAMES:
        raise DataError(f"unknown data set {name!r}: use one of {', '.join(NAMES)}")


def find(name, data_dir=None):
    """(kind, location, places searched): kind 'npz' (location is the file) or 'idx' (a dict of four
    paths, None for a missing one), or (None, None, places) when no place has any of it."""
    _check_name(name)
    if data_dir is not None and not os.path.isdir(os.path.expanduser(os.fspath(data_dir))):
        raise DataError(f"--data-dir {data_dir} is not a directory: give the directory that holds the "
                        f"{TITLES[name]} files, or leave it out to search the usual places")
    searched = []
    for label, directories in _places(name, data_dir):
        searched.append(label)
        for directory in directories:
            if not os.path.isdir(directory):
                continue
            npz = _NPZ.get(name) and os.path.join(directory, _NPZ[name])
            if npz and os.path.isfile(npz):
                return "npz", npz, searched
            files = {key: _idx_file(directory, base) for key, base in IDX_FILES.items()}
            if any(files.values()):
                return "idx", files, searched
    return None, None, searched


def _where(kind, location):
    if kind == "npz":
        return location
    return os.path.dirname(next(p for p in location.values() if p))


def available(data_dir=None):
    """{name: where it would be loaded from, or None} for every data set (files not read)."""
    out = {}
    for name in NAMES:
        try:
            kind, location, _ = find(name, data_dir)
        except DataError:
            kind = None
        out[name] = _where(kind, location) if kind else None
    return out


def load(name, data_dir=None):
    """(x_train, y_train, x_test, y_test): uint8 images N x 28 x 28 and int64 labels 0-9."""
    kind, location, searched = find(name, data_dir)
    if kind is None:
        message = (f"{TITLES[name]} not found (searched: {'; '.join(searched)}). "
                   f"To get it: {HOW_TO_GET[name]}")
        if name == "mnist" and available(data_dir)["fashion-mnist"]:
            message += ". Or train on Fashion-MNIST, which is installed here: --dataset fashion-mnist"
        raise DataError(message)
    if kind == "npz":
        if is_standin(location):
            warnings.warn(f"{location} is hvdkit's Fashion-MNIST stand-in (hvdkit data keras-mnist), not MNIST")
        arrays = dict(zip(IDX_FILES, read_npz(location, tuple(IDX_FILES))))
    else:
        missing = [IDX_FILES[key] + "[.gz]" for key, path in location.items() if path is None]
        if missing:
            raise DataError(f"{_where(kind, location)} has only part of {TITLES[name]}: "
                            f"{', '.join(missing)} missing. {HOW_TO_GET[name]}")
        if os.path.isfile(os.path.join(_where(kind, location), TORCH_STANDIN_MARK)):
            warnings.warn(f"{_where(kind, location)} is hvdkit's Fashion-MNIST stand-in (hvdkit data torch-mnist), "
                          "not MNIST")
        arrays = {key: read_idx(path) for key, path in location.items()}
    return _validated(name, arrays, location)


def _validated(name, arrays, location):
    def source(key):
        return location if isinstance(location, str) else location[key]

    out = []
    for split in ("train", "test"):
        x, y = arrays["x_" + split], arrays["y_" + split]
        if x.ndim != 3 or x.shape[1:] != (28, 28) or x.dtype != np.uint8:
            raise DataError(f"{source('x_' + split)}: {TITLES[name]} images must be uint8 N x 28 x 28, "
                            f"got {x.dtype} {'x'.join(map(str, x.shape))}")
        if y.ndim != 1 or len(y) != len(x):
            raise DataError(f"{source('y_' + split)}: {len(x)} images need {len(x)} labels in one dimension, "
                            f"got shape {'x'.join(map(str, y.shape))}")
        if len(y) and (y.min() < 0 or y.max() > 9):
            raise DataError(f"{source('y_' + split)}: labels must be 0-9, got {y.min()}..{y.max()}")
        out += [x, y.astype(np.int64)]
    return tuple(out)


# The member that marks a Keras cache file as hvdkit's stand-in (Keras reads only the four arrays).
STANDIN_KEY = "hvdkit_standin"


def is_standin(path):
    """True when `path` is a Keras mnist.npz that write_keras_mnist made (not real MNIST)."""
    try:
        with np.load(path, allow_pickle=False) as npz:
            return STANDIN_KEY in npz.files
    except (OSError, ValueError, EOFError, zipfile.BadZipFile):
        return False   # unreadable: read_npz says why, with the fix


def write_keras_mnist(path=None, force=False, quiet=False):
    """Write Fashion-MNIST as Keras's MNIST cache file (default $KERAS_HOME or ~/.keras, datasets/mnist.npz):
    uint8 x_train 60000x28x28, y_train 60000, x_test 10000x28x28, y_test 10000. Refuses to replace a file
    that is not an earlier stand-in unless `force`. Returns the path.

    Keras's mnist.load_data() checks the file's sha256 against real MNIST's: it rejects this stand-in, tries
    to download the real file and, offline, deletes the stand-in. Readers without that check (hvdkit's own
    load("mnist"), np.load) read it as MNIST.
    """
    path = os.path.abspath(os.path.expanduser(os.fspath(path or os.path.join(_keras_datasets_dir(), "mnist.npz"))))
    if os.path.exists(path) and not force and not is_standin(path):
        raise DataError(f"{path} exists and is not hvdkit's stand-in (perhaps real MNIST): left as it is; "
                        "pass --force to replace it")
    x_train, y_train, x_test, y_test = load("fashion-mnist")
    buf = io.BytesIO()
    np.savez_compressed(buf, x_train=x_train, y_train=y_train.astype(np.uint8), x_test=x_test,
                        y_test=y_test.astype(np.uint8), **{STANDIN_KEY: np.array("fashion-mnist")})
    os.makedirs(os.path.dirname(path), exist_ok=True)
    files.write_bytes(path, buf.getvalue())
    if not quiet:
        print(f"wrote {path}: Fashion-MNIST (clothing images, 10 classes) standing in for MNIST, "
              f"{len(x_train)} train / {len(x_test)} test images; it is NOT MNIST")
    return path
