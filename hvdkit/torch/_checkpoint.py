"""Step 7 for PyTorch: rank 0 writes, every rank resumes from the same state."""
import io

import torch
import horovod.torch as hvd

from hvdkit.common import restore as _restore
from hvdkit.common.checkpoint import CheckpointError, CheckpointFiles


class Checkpointer:
    """save(epoch, model=..., optimizer=..., ...) on every rank (only the root writes);
    restore(model=..., ...) -> the epoch to start from (0 when there is no checkpoint).

    Objects with state_dict()/load_state_dict() (modules, optimizers, schedulers, hvdkit's
    ShardedLoader) are saved by state; other values (numbers, dicts) as they are, and after restore
    they are in `self.values`.
    """

    def __init__(self, directory, keep=3, root_rank=0):
        self.files = CheckpointFiles(directory, keep)
        self.root_rank = root_rank
        self.values = {}

    def save(self, epoch, **objects):
        if hvd.rank() != self.root_rank:
            return None
        state = {name: (obj.state_dict() if hasattr(obj, "state_dict") else obj) for name, obj in objects.items()}
        buf = io.BytesIO()
        torch.save({"epoch": int(epoch), "objects": state}, buf)
        return self.files.write(int(epoch), buf.getvalue())

    def restore(self, **objects):
        payload, path = None, None
        if hvd.rank() == self.root_rank:
            payload, path = self._load_latest()
        # One broadcast of the whole state: every rank resumes from exactly what the root read.
        payload, path = hvd.broadcast_object((payload, path), root_rank=self.root_rank, name="hvdkit.restore")
        if payload is None:
            return 0
        self.values = {k: v for k, v in payload["objects"].items() if k not in objects}
        return _restore.apply(payload, objects, path, _load_into)

    def _load_latest(self):
        return self.files.latest(lambda data: torch.load(io.BytesIO(data), map_location="cpu", weights_only=False))


def _load_into(obj, state):
    if hasattr(obj, "load_state_dict"):
        obj.load_state_dict(state)
    else:
        raise TypeError(f"cannot restore into a {type(obj).__name__}: it has no load_state_dict()")


__all__ = ["Checkpointer", "CheckpointError"]
