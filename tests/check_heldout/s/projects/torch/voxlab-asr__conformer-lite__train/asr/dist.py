import torch
import horovod.torch as hvd


def pin_device():
    """One GPU per worker process; CPU when CUDA is absent (dev boxes)."""
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda", hvd.local_rank())
    torch.set_num_threads(1)
    return torch.device("cpu")
