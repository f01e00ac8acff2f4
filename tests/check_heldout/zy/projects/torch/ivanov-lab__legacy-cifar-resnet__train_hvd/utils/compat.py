"""Shims kept from the PyTorch 0.3 version of this repo.

Old code did `loss.data[0]` and `Variable(x, volatile=True)`; these helpers
let the training loop stay mostly unchanged across torch versions.
"""
import contextlib

import torch

_TORCH_VERSION = tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2])
HAS_NO_GRAD = _TORCH_VERSION >= (0, 4)


def to_scalar(t):
    if HAS_NO_GRAD:
        return t.item()
    return t.data[0]


def no_grad_ctx():
    if HAS_NO_GRAD:
        return torch.no_grad()
    return contextlib.nullcontext()
