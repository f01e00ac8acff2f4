"""python -m hvdkit.torch.convert_checkpoint FILE...: rewrite a trusted checkpoint so torch.load(weights_only=True)
reads it; NumPy values in it become tensors (arrays) and Python numbers (scalars)."""
import sys

import numpy as np
import torch

from hvdkit.common.convert import main
from hvdkit.torch._checkpoint import Checkpointer, load_trusted


def _plain(obj):
    if isinstance(obj, np.ndarray):
        return torch.from_numpy(obj)
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, dict):
        return type(obj)((k, _plain(v)) for k, v in obj.items())
    if isinstance(obj, (list, tuple)):
        return type(obj)(_plain(v) for v in obj)
    return obj


if __name__ == "__main__":
    sys.exit(main("torch", lambda data: _plain(load_trusted(data)), Checkpointer.encode))
