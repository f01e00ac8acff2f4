"""Step 7 for PyTorch: rank 0 writes, every rank resumes from the same state."""
import io

import torch
import horovod.torch as hvd

from hvdkit.common.checkpoint import CheckpointError
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
        return buf.getvalue()

    @staticmethod
    def decode(data):
        return torch.load(io.BytesIO(data), map_location="cpu", weights_only=False)

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


__all__ = ["Checkpointer", "CheckpointError"]
