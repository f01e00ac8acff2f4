"""Import Horovod from here: ``from sspred.dist import hvd``.

Keeps a single place to swap in a no-op stand-in for laptop debugging.
"""
import os

import torch

if os.environ.get("SSPRED_NO_HOROVOD"):
    from sspred import _single as hvd  # noqa: F401  (debug stand-in, not shipped)
else:
    import horovod.torch as hvd  # noqa: F401


def setup(no_cuda=False):
    hvd.init()
    if torch.cuda.is_available() and not no_cuda:
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda", hvd.local_rank())
    torch.set_num_threads(max(1, torch.get_num_threads() // hvd.local_size()))
    return torch.device("cpu")


def lr_multiplier(use_adasum):
    if not use_adasum:
        return hvd.size()
    # Adasum keeps the single-worker step size; with NCCL the ranks of a node are averaged first
    if torch.cuda.is_available() and hvd.nccl_built():
        return hvd.local_size()
    return 1
