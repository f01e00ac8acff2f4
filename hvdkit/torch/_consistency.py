"""Ranks that disagree (model, steps per epoch, versions) stop at start with one clear error, not a hang."""
import torch
import horovod.torch as hvd

from hvdkit.common import fingerprint as _fp
from hvdkit.common.fingerprint import ConsistencyError


def check_consistent(model=None, **values):
    """Call on every rank after building the model (and loader): raises ConsistencyError on every rank
    when any rank's model shapes, given values (e.g. steps=len(loader)) or installed versions differ."""
    fp = _fp.base("torch", torch.__version__)
    if model is not None:
        fp["model"] = _fp.shapes((name, tuple(t.shape)) for name, t in model.state_dict().items())
    fp.update({name: value for name, value in values.items()})
    _fp.compare(hvd.allgather_object(fp, name="hvdkit.check_consistent"))


__all__ = ["check_consistent", "ConsistencyError"]
