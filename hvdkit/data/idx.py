"""Readers for the two files MNIST-like data sets come in: IDX (LeCun's format) and Keras's mnist.npz.

numpy only. Every problem with a file is a DataError whose message is one line naming the file and
what is wrong with it, so a truncated download is reported as such, not as a reshape error.
"""
import gzip
import math
import os
import struct
import tokenize
import zipfile
import zlib

import numpy as np

from hvdkit.common.errors import HvdkitError


class DataError(HvdkitError, RuntimeError):
    """A data set is missing or a data file is unreadable; the message is one line that says what to do."""


# IDX type codes (third magic byte) -> big-endian numpy dtypes.
IDX_DTYPES = {
    0x08: np.dtype(">u1"),
    0x09: np.dtype(">i1"),
    0x0B: np.dtype(">i2"),
    0x0C: np.dtype(">i4"),
    0x0D: np.dtype(">f4"),
    0x0E: np.dtype(">f8"),
}
_GZIP_MAGIC = b"\x1f\x8b"


def _read_bytes(path):
    """The file's bytes, gunzipped when it is gzip data (decided by content, not by the name)."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as exc:
        raise DataError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if not raw.startswith(_GZIP_MAGIC):
        return raw
    try:
        return gzip.decompress(raw)
    except (EOFError, OSError, zlib.error) as exc:
        raise DataError(f"{path}: damaged gzip data ({exc}); the download was probably cut short: "
                        "fetch the file again") from None


def parse_idx(data, name="<bytes>"):
    """An IDX payload (bytes) -> ndarray with the header's shape, in native byte order."""
    if len(data) < 4:
        raise DataError(f"{name}: not an IDX file ({len(data)} bytes, shorter than the 4-byte magic number)")
    zero, code, ndim = data[:2], data[2], data[3]
    if zero != b"\x00\x00" or code not in IDX_DTYPES or ndim == 0:
        raise DataError(f"{name}: not an IDX file (magic number {data[:4].hex()}; IDX files start with "
                        f"0000 then a type code in {', '.join(f'{c:02x}' for c in IDX_DTYPES)} and a dimension count)")
    header = 4 + 4 * ndim
    if len(data) < header:
        raise DataError(f"{name}: truncated IDX header ({len(data)} bytes, the {ndim} dimensions need {header})")
    shape = struct.unpack(f">{ndim}I", data[4:header])
    dtype = IDX_DTYPES[code]
    expected = math.prod(shape) * dtype.itemsize  # Python ints: numpy's int64 product wraps around
    got = len(data) - header
    if got != expected:
        what = "truncated" if got < expected else "has trailing bytes"
        raise DataError(f"{name}: {what}: header says {'x'.join(map(str, shape))} {dtype.name} = {expected} "
                        f"data bytes, file has {got}")
    try:
        return np.frombuffer(data, dtype=dtype, offset=header).reshape(shape).astype(dtype.newbyteorder("="))
    except ValueError:  # a zero dimension beside dimensions whose product overflows (found by atheris)
        raise DataError(f"{name}: not an IDX file (impossible shape {'x'.join(map(str, shape))})") from None


def read_idx(path):
    """Read an IDX file, plain or gzip'd, checking the magic number, type code and exact size."""
    return parse_idx(_read_bytes(path), os.fspath(path))


def write_idx(path, array, compress=None):
    """Write `array` as IDX (gzip'd when compress is true, or when the name ends in .gz). For tests and tools."""
    array = np.asarray(array)
    codes = {dt.newbyteorder("="): code for code, dt in IDX_DTYPES.items()}
    code = codes.get(array.dtype.newbyteorder("="))
    if code is None:
        raise ValueError(f"IDX has no type code for {array.dtype}")
    data = (bytes([0, 0, code, array.ndim]) + struct.pack(f">{array.ndim}I", *array.shape)
            + array.astype(IDX_DTYPES[code]).tobytes())
    if compress if compress is not None else os.fspath(path).endswith(".gz"):
        data = gzip.compress(data)
    with open(path, "wb") as f:
        f.write(data)


NPZ_KEYS = ("x_train", "y_train", "x_test", "y_test")


def read_npz(path, keys=NPZ_KEYS):
    """The arrays `keys` of an .npz file (Keras's mnist.npz by default), all read and checked now."""
    try:
        npz = np.load(path, allow_pickle=False)
        if not isinstance(npz, np.lib.npyio.NpzFile):
            raise DataError(f"{path}: a single .npy array, not an .npz archive; expected Keras's mnist.npz")
        with npz:
            missing = [k for k in keys if k not in npz.files]
            if missing:
                # Member names are arbitrary text: repr() any that would break the message's one line.
                have = ", ".join(f if f.isprintable() else repr(f) for f in npz.files) or "nothing"
                raise DataError(f"{path}: no {', '.join(missing)} in it (it has {have}); "
                                "expected Keras's mnist.npz")
            return tuple(npz[k] for k in keys)
    except DataError:
        raise
    except OSError as exc:
        raise DataError(f"{path}: cannot read ({exc.strerror or exc})") from None
    # RuntimeError: zipfile's answer to a member flagged encrypted, or (NotImplementedError) to a version or
    # compression it lacks; TokenError: numpy's reading of a garbled .npy header (all found by atheris).
    except (zipfile.BadZipFile, ValueError, EOFError, zlib.error, KeyError, RuntimeError,
            tokenize.TokenError) as exc:
        raise DataError(f"{path}: not a readable .npz file ({exc}); the download was probably cut short: "
                        "fetch it again") from None
