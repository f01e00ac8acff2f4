"""Step 7 for PyTorch: rank 0 writes, every rank resumes from the same state."""
import io
import pickle

import torch
import horovod.torch as hvd
from torch.serialization import get_unsafe_globals_in_checkpoint

from hvdkit.common.checkpoint import CheckpointError, UnsafeCheckpointError
from hvdkit.common.restore import CheckpointerBase


class Checkpointer(CheckpointerBase):
    """save(epoch, model=..., optimizer=..., ...) on every rank (only the root writes);
    restore(model=..., ...) -> the epoch to start from (0 when there is no checkpoint).

    Objects with state_dict()/load_state_dict() (modules, optimizers, schedulers, hvdkit's
    ShardedLoader) are saved by state; other values (numbers, dicts) as they are, and after restore
    they are in `self.values`.
    """
    hvd = hvd

    @staticmethod
    def encode(payload):
        buf = io.BytesIO()
        torch.save(payload, buf)
        data = buf.getvalue()
        # Refused now rather than at resume: what weights_only=True would not load (scans, runs nothing).
        unsafe = get_unsafe_globals_in_checkpoint(io.BytesIO(data))
        if unsafe:
            raise TypeError(f"cannot checkpoint {', '.join(unsafe)}: checkpoints hold tensors and plain data "
                            "(numbers, strings, lists, dicts, state_dict()s); pass e.g. float(x) or torch.as_tensor(x)")
        return data

    @staticmethod
    def decode(data):
        return load_safe(data)

    @staticmethod
    def dump(obj):
        return obj.state_dict() if hasattr(obj, "state_dict") else obj

    @staticmethod
    def value(saved):
        return saved

    @staticmethod
    def load_into(obj, state):
        if not hasattr(obj, "load_state_dict"):
            raise TypeError(f"cannot restore into a {type(obj).__name__}: it has no load_state_dict()")
        obj.load_state_dict(state)


CONVERT = "python -m hvdkit.torch.convert_checkpoint"


def load_safe(data):
    """torch.load(weights_only=True): tensors and plain data only; UnsafeCheckpointError for anything else."""
    try:
        return torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except pickle.UnpicklingError:
        try:
            names = get_unsafe_globals_in_checkpoint(io.BytesIO(data))
        except Exception:  # not a zip archive (a bare pickle): torch's restricted unpickler refused it
            names = []
        what = f"holds {', '.join(names)}" if names else "holds objects other than tensors and plain data"
        raise UnsafeCheckpointError(what, CONVERT) from None


def load_trusted(data):
    """Only for `convert_checkpoint`, on a file the user vouches for: this may run code."""
    return torch.load(io.BytesIO(data), map_location="cpu", weights_only=False)


__all__ = ["Checkpointer", "CheckpointError"]
