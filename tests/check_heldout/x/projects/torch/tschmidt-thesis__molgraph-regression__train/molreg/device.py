import horovod.torch as hvd
import torch


def setup_device():
    """One GPU per worker (local rank); CPU on the laptop."""
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda", hvd.local_rank())
    torch.set_num_threads(1)
    return torch.device("cpu")
