import torch
import horovod.torch as hvd


def init_horovod(seed=0):
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        dev = torch.device("cuda", hvd.local_rank())
    else:
        dev = torch.device("cpu")
    torch.manual_seed(seed + hvd.rank())
    return dev


def rank0():
    return hvd.rank() == 0


def sync_models(*models):
    for m in models:
        hvd.broadcast_parameters(m.state_dict(), root_rank=0)
