"""The project's one atomic writer: a reader sees the previous file (or none) or the new one, never half of one.

Checkpoints, their checksums, run records, benchmark records, timeline slices and plots, the Keras MNIST
stand-in and the homework's metrics all go through `replacing`: written to a temporary file beside the
target (same file system, so the rename is atomic), flushed to disk, then renamed over it.
"""
import contextlib
import json
import os
import tempfile


@contextlib.contextmanager
def replacing(path):
    """Yield a temporary path beside `path`; it becomes `path` only if the block succeeds.

    The temporary name keeps `path`'s extension (matplotlib picks the format from it). The file gets the
    permissions a plain open() would give (mkstemp makes it private), and is fsynced before the rename:
    otherwise a power cut can leave the new name pointing at empty blocks.
    """
    path = os.path.abspath(os.fspath(path))
    directory = os.path.dirname(path)
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".hvdkit-", suffix=os.path.splitext(path)[1], dir=directory)
    os.close(fd)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    try:
        yield tmp
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_bytes(path, data):
    """Write `data` to `path` atomically; returns the absolute path."""
    with replacing(path) as tmp:
        with open(tmp, "wb") as f:
            f.write(data)
    return os.path.abspath(os.fspath(path))


def write_json(path, obj, indent=1):
    """Write `obj` as JSON (and a final newline) to `path` atomically; returns the absolute path."""
    return write_bytes(path, (json.dumps(obj, indent=indent) + "\n").encode())
