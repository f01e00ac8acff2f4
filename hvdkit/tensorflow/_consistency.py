"""Ranks that disagree (model, steps per epoch, versions) stop at start with one clear error, not a hang."""
import tensorflow as tf
import horovod.tensorflow as hvd

from hvdkit.common import fingerprint as _fp
from hvdkit.common.fingerprint import ConsistencyError


def check_consistent(model=None, **values):
    """Call on every rank after building the model (and dataset): raises ConsistencyError on every rank
    when any rank's model shapes, given values (e.g. steps=steps_per_epoch) or installed versions differ."""
    fp = _fp.base("tensorflow", tf.__version__)
    if model is not None:
        # The last path part only ("kernel", "bias"): layer names follow per-process counters, so a rank that
        # built another model first has "dense_1/kernel" where the others have "dense/kernel".
        fp["model"] = _fp.shapes((getattr(v, "path", v.name).split("/")[-1], tuple(v.shape)) for v in model.weights)
    fp.update({name: value for name, value in values.items()})
    _fp.compare(hvd.allgather_object(fp, name="hvdkit.check_consistent"))


__all__ = ["check_consistent", "ConsistencyError"]
