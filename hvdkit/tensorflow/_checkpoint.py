"""Step 7 for TensorFlow / Keras 3: rank 0 writes, every rank resumes from the same state."""
import pickle

import keras
import horovod.tensorflow as hvd

from hvdkit.common import npz_payload
from hvdkit.common.checkpoint import CheckpointError, UnsafeCheckpointError
from hvdkit.common.restore import CheckpointerBase
from hvdkit.tensorflow._core import build_optimizer


def _has_variables(obj):
    return isinstance(obj, (keras.Model, keras.layers.Layer, keras.optimizers.Optimizer))


def _dump(obj):
    if _has_variables(obj):
        return {"kind": "variables", "arrays": [v.numpy() for v in obj.variables],
                "paths": [v.path for v in obj.variables]}
    if hasattr(obj, "state_dict"):
        return {"kind": "state", "state": obj.state_dict()}
    return {"kind": "value", "value": obj}


def _load_into(obj, saved):
    if _has_variables(obj):
        variables = obj.variables
        arrays = saved.get("arrays")
        if saved["kind"] != "variables" or len(arrays) != len(variables):
            raise ValueError(f"it holds {len(arrays or [])} variables, the object has {len(variables)}")
        for v, a, path in zip(variables, arrays, saved["paths"]):
            if tuple(v.shape) != a.shape:
                raise ValueError(f"variable {path} has shape {a.shape} in the checkpoint, {tuple(v.shape)} here")
        for v, a in zip(variables, arrays):
            v.assign(a)
    elif hasattr(obj, "load_state_dict"):
        obj.load_state_dict(saved["state"])
    else:
        raise TypeError(f"cannot restore into a {type(obj).__name__}: it has no variables or load_state_dict()")


class Checkpointer(CheckpointerBase):
    """save(epoch, model=..., optimizer=..., ...) on every rank (only the root writes);
    restore(model=..., ...) -> the epoch to start from (0 when there is no checkpoint).

    Keras models and optimizers are saved by their variables (optimizer.iterations included, so a
    LearningRateSchedule resumes at the right step); objects with state_dict() (hvdkit's
    ShardedDataset) by state; other values as they are, found after restore in `self.values`.
    """
    hvd = hvd
    dump = staticmethod(_dump)
    load_into = staticmethod(_load_into)

    @staticmethod
    def encode(payload):
        try:
            return npz_payload.encode(payload, "the checkpoint")
        except npz_payload.UnsupportedValue as exc:
            raise TypeError(f"cannot checkpoint: {exc}; checkpoints hold Keras variables, arrays and plain data "
                            "(numbers, strings, lists, dicts, state_dict()s)") from None

    @staticmethod
    def decode(data):
        return load_safe(data)

    @staticmethod
    def value(saved):
        return saved.get("value")

    def prepare(self, objects):
        models = [o for o in objects.values() if isinstance(o, keras.Model)]
        for obj in objects.values():
            # Slot variables must exist before they can be assigned.
            if isinstance(obj, keras.optimizers.Optimizer) and not obj.built and models:
                build_optimizer(obj, models[0].trainable_variables)


CONVERT = "python -m hvdkit.tensorflow.convert_checkpoint"
_PICKLE_PROTOCOL_2_PLUS = b"\x80"  # what hvdkit before the npz format wrote (pickle.HIGHEST_PROTOCOL)


def load_safe(data):
    """The payload of an npz checkpoint; UnsafeCheckpointError for a pickle (older hvdkit, or planted)."""
    if data[:1] == _PICKLE_PROTOCOL_2_PLUS:
        raise UnsafeCheckpointError("is a pickle (as older hvdkit wrote them)", CONVERT)
    return npz_payload.decode(data)


def load_trusted(data):
    """Only for `convert_checkpoint`, on a file the user vouches for: this may run code."""
    return pickle.loads(data) if data[:1] == _PICKLE_PROTOCOL_2_PLUS else npz_payload.decode(data)


__all__ = ["Checkpointer", "CheckpointError"]
