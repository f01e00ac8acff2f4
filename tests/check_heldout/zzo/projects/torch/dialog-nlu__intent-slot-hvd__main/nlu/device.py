"""Device / worker bookkeeping shared by the runner and the eval script."""
import horovod.torch as hvd
import torch

LOCAL_RANK = hvd.local_rank()
WORLD_SIZE = hvd.size()
DEVICE = torch.device("cuda", LOCAL_RANK) if torch.cuda.is_available() else torch.device("cpu")


def pin_device():
    if torch.cuda.is_available():
        torch.cuda.set_device(LOCAL_RANK)
    return DEVICE


def is_main():
    return hvd.rank() == 0
