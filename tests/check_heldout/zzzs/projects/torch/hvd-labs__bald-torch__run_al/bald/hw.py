import torch
import horovod.torch as hvd


def pick_device():
    """one GPU per worker"""
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.rank())
        return torch.device("cuda", hvd.rank())
    torch.set_num_threads(max(1, torch.get_num_threads() // hvd.local_size()))
    return torch.device("cpu")
