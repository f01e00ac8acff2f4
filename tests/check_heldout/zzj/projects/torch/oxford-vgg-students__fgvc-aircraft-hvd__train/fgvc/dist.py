import torch
import horovod.torch as hvd


def setup():
    """Initialise Horovod and bind this process to its GPU. Returns the torch device."""
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device('cuda', hvd.local_rank())
    return torch.device('cpu')


def is_main():
    return hvd.rank() == 0
