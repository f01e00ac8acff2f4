"""Stage MNIST and Fashion-MNIST where torchvision's data sets read them, so `download=True` downloads nothing.

    stage(root)     # `hvdkit data torch-mnist`: ROOT/MNIST/raw/ (Fashion-MNIST standing in), ROOT/FashionMNIST/raw/
    state(root)     # {"mnist": "stand-in" | "files" | None, "fashion-mnist": ...}: what is there now

What torchvision (0.28) does, read in torchvision/datasets/mnist.py: `MNIST(root, download=True)` calls
`_check_exists()`, which asks only that the four files ROOT/MNIST/raw/train-images-idx3-ubyte,
train-labels-idx1-ubyte, t10k-images-idx3-ubyte and t10k-labels-idx1-ubyte exist -- uncompressed, by those
names, with no checksum; if they do, `download()` returns without touching the network, and the data set
reads them as IDX (uint8 images N x 28 x 28, uint8 labels). FashionMNIST is the same under
ROOT/FashionMNIST/raw/ (the class name). A relative root is relative to the directory each rank starts in.

ROOT/MNIST/raw/ gets Fashion-MNIST (clothing images, 10 classes): no package ships MNIST, so it stands in,
as `hvdkit data keras-mnist` does for Keras. The file MARK beside the four says so, hvdkit's own loader warns
when it reads them, and `hvdkit doctor` reports it. Files that are not an earlier stand-in there (real MNIST,
say) are left alone unless `force`. ROOT/FashionMNIST/raw/ gets the real Fashion-MNIST. Each file is written
atomically, the mark first, so ranks staging the same shared root at once neither clash nor refuse each other.
"""
import os

import numpy as np

from hvdkit.common import files
from hvdkit.data.datasets import IDX_FILES, TORCH_STANDIN_MARK as MARK, DataError, HOW_TO_GET, TITLES, load
from hvdkit.data.idx import read_idx, write_idx

# hvdkit's name -> torchvision's class; its files are in ROOT/<class name>/raw/.
CLASSES = {"mnist": "MNIST", "fashion-mnist": "FashionMNIST"}
MARK_TEXT = ("Fashion-MNIST (clothing images, 10 classes) standing in for MNIST, written by `hvdkit data torch-mnist` "
             "from Debian's dataset-fashion-mnist. It is NOT MNIST. For real MNIST: " + HOW_TO_GET["mnist"] + "\n")


def resolve_root(root=None):
    """`root` as an absolute path; by default $HVDKIT_DATA if set, else ./data (Horovod's and PyTorch's examples')."""
    return os.path.abspath(os.path.expanduser(os.fspath(root or os.environ.get("HVDKIT_DATA") or "data")))


def folder(root, name):
    return os.path.join(os.path.expanduser(os.fspath(root)), CLASSES[name], "raw")


def is_standin(directory):
    """True when `directory` holds the four files as `stage` wrote them for MNIST (not real MNIST)."""
    return os.path.isfile(os.path.join(directory, MARK))


def state(root):
    """{name: "stand-in" (stage's Fashion-MNIST in MNIST's place), "files" (all four, someone's), or None
    (not all four there: torchvision would download)} for each folder under `root`."""
    out = {}
    for name in CLASSES:
        directory = folder(root, name)
        if not all(os.path.isfile(os.path.join(directory, base)) for base in IDX_FILES.values()):
            out[name] = None
        else:
            out[name] = "stand-in" if name == "mnist" and is_standin(directory) else "files"
    return out


def _arrays(source):
    """{file name: array as torchvision reads it}: labels back to uint8 (load() widens them to int64)."""
    x_train, y_train, x_test, y_test = source
    arrays = dict(zip(IDX_FILES.values(), (x_train, y_train, x_test, y_test)))
    return {base: a.astype(np.uint8) for base, a in arrays.items()}


def _same(path, array):
    try:
        return np.array_equal(read_idx(path), array)
    except DataError:
        return False


def _stage_one(directory, arrays, standin, force):
    present = [b for b in arrays if os.path.exists(os.path.join(directory, b))]
    ours = is_standin(directory) if standin else all(_same(os.path.join(directory, b), arrays[b]) for b in present)
    if present and not ours and not force:
        what = "files not written by hvdkit (perhaps real MNIST)" if standin else "other data than Fashion-MNIST's"
        raise DataError(f"{directory} already has {', '.join(present)}, {what}: left as they are; "
                        "pass --force to replace them")
    if standin:  # the mark first: a rank staging the same root meanwhile sees the files as ours
        files.write_bytes(os.path.join(directory, MARK), MARK_TEXT.encode())
    for base, array in arrays.items():
        path = os.path.join(directory, base)
        if os.path.exists(path) and _same(path, array):
            continue
        with files.replacing(path) as tmp:
            write_idx(tmp, array, compress=False)


def stage(root=None, force=False, quiet=False):
    """Write Fashion-MNIST as torchvision's MNIST (a stand-in) and FashionMNIST files under `root` (default
    `resolve_root()`'s). Refuses to replace other files there unless `force`. Returns {name: directory}."""
    root = resolve_root(root)
    if os.path.exists(root) and not os.path.isdir(root):
        raise DataError(f"--root {root} is a file: give a directory (it is created if missing)")
    arrays = _arrays(load("fashion-mnist"))  # a DataError says where it looked and how to install it
    out = {}
    for name in ("mnist", "fashion-mnist"):
        out[name] = folder(root, name)
        try:
            _stage_one(out[name], arrays, standin=name == "mnist", force=force)
        except OSError as exc:
            raise DataError(f"cannot write in {out[name]}: {exc.strerror or exc}; give a writable --root") from None
    if not quiet:
        n_train, n_test = len(arrays[IDX_FILES["x_train"]]), len(arrays[IDX_FILES["x_test"]])
        print(f"staged {out['mnist']}: Fashion-MNIST (clothing images, 10 classes) standing in for MNIST, "
              f"{n_train} train / {n_test} test images; it is NOT MNIST")
        print(f"staged {out['fashion-mnist']}: {TITLES['fashion-mnist']}, {n_train} train / {n_test} test images")
    return out
