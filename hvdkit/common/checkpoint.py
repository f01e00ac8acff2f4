"""Checkpoint files: atomic writes, checksums, rotation, and fallback past a damaged file.

The framework modules turn model/optimizer state into bytes and back; this module owns the files.
Layout: DIR/epoch-0003.ckpt with DIR/epoch-0003.ckpt.sha256 beside it. A file is only ever seen
complete (written to a temp name, fsynced, renamed), and a file whose checksum does not match is
skipped with a warning in favour of the previous one.

The bytes hold tensors/arrays and plain data only, decoded without running code (torch.load with
weights_only=True; TensorFlow: npz read with allow_pickle=False + JSON): the checksum only proves a file
is intact, not that it came from hvdkit, and anyone who can write to a shared run directory could plant
one. A file that would need pickle is refused on every rank (UnsafeCheckpointError), not skipped: falling
back past it would silently restart training; `convert_file` rewrites an older file the user trusts.
"""
import hashlib
import os
import re
import warnings

from hvdkit.common.errors import HvdkitError
from hvdkit.common.files import write_bytes as _atomic_write

_NAME = re.compile(r"^epoch-(\d+)\.ckpt$")


class CheckpointError(HvdkitError, RuntimeError):
    pass


class UnsafeCheckpointError(CheckpointError):
    """Raised by a decoder for a file that would need pickle: `what` it holds, the `command` converting it."""

    def __init__(self, what, command):
        super().__init__(what)
        self.what, self.command = what, command

    def message(self, path):
        return (f"checkpoint {path} {self.what}, and hvdkit does not unpickle checkpoints (that can run any "
                f"code): if you wrote it and trust it, convert it with `{self.command} {path}`")


class CheckpointFiles:
    def __init__(self, directory, keep=3):
        if keep is not None and keep < 1:
            raise ValueError(f"keep must be >= 1 (or None to keep all), got {keep}")
        self.directory = os.fspath(directory)
        self.keep = keep

    def path(self, epoch):
        return os.path.join(self.directory, f"epoch-{epoch:04d}.ckpt")

    def epochs(self):
        """Epochs with a checkpoint file, newest first."""
        if not os.path.isdir(self.directory):
            return []
        found = (_NAME.match(n) for n in os.listdir(self.directory))
        return sorted((int(m.group(1)) for m in found if m), reverse=True)

    def write(self, epoch, data):
        if epoch < 0:
            raise ValueError(f"epoch must be >= 0, got {epoch}")
        os.makedirs(self.directory, exist_ok=True)
        path = self.path(epoch)
        # The checksum goes first: a crash between the two leaves an old-or-missing file, never a
        # new file with a stale checksum that would pass verification.
        _atomic_write(path + ".sha256", hashlib.sha256(data).hexdigest().encode() + b"\n")
        _atomic_write(path, data)
        self._rotate()
        return path

    def _rotate(self):
        if self.keep is None:
            return
        for epoch in self.epochs()[self.keep:]:
            for suffix in ("", ".sha256"):
                try:
                    os.unlink(self.path(epoch) + suffix)
                except FileNotFoundError:
                    pass

    def read_verified(self, epoch):
        """Bytes of one checkpoint, or None (with a warning) if it is damaged."""
        path = self.path(epoch)
        try:
            with open(path, "rb") as f:
                data = f.read()
            with open(path + ".sha256", "rb") as f:
                expected = f.read().strip().decode("ascii", "replace")
        except OSError as exc:
            warnings.warn(f"hvdkit: skipping checkpoint {path}: {exc.strerror}")
            return None
        if hashlib.sha256(data).hexdigest() != expected:
            warnings.warn(f"hvdkit: checkpoint {path} is truncated or corrupt (checksum mismatch); "
                          "falling back to the previous one")
            return None
        return data

    def latest(self, decode):
        """(payload, path) of the newest checkpoint that verifies and decodes, or (None, None).

        CheckpointError (one line) if the newest intact file is one that only pickle could read."""
        for epoch in self.epochs():
            data = self.read_verified(epoch)
            if data is None:
                continue
            try:
                return decode(data), self.path(epoch)
            except UnsafeCheckpointError as exc:
                raise CheckpointError(exc.message(self.path(epoch))) from None
            except Exception as exc:  # checksum matched but the content is not ours: say so, keep looking
                warnings.warn(f"hvdkit: {self.path(epoch)} is not a readable checkpoint ({exc}); skipping")
        return None, None


def convert_file(path, trusted_decode, encode):
    """Rewrite one checkpoint in the safe format; the original is kept as PATH.unsafe (which restore ignores).

    `trusted_decode` may run code: only for files the user vouches for (older hvdkit, the same run).
    """
    path = os.fspath(path)
    with open(path, "rb") as f:
        data = f.read()
    try:
        with open(path + ".sha256", "rb") as f:
            expected = f.read().strip().decode("ascii", "replace")
    except FileNotFoundError:
        raise CheckpointError(f"{path}.sha256 is missing: only hvdkit's own checkpoints are converted") from None
    if hashlib.sha256(data).hexdigest() != expected:
        raise CheckpointError(f"{path} does not match {path}.sha256 (truncated or corrupt): not converted")
    new = encode(trusted_decode(data))
    _atomic_write(path + ".unsafe", data)
    # As in write(): checksum first, so a crash in between leaves a mismatch (skipped), never a bad pass.
    _atomic_write(path + ".sha256", hashlib.sha256(new).hexdigest().encode() + b"\n")
    _atomic_write(path, new)
    return path
