import horovod.torch as hvd
import torch


def setup(seed):
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    else:
        device = torch.device("cpu")
    torch.manual_seed(seed)
    return device


def is_main():
    return hvd.rank() == 0
