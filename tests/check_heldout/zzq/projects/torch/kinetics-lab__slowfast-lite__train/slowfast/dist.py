import torch
import horovod.torch as hvd


def setup_horovod():
    """Initialise Horovod and bind this process to its local GPU."""
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda", hvd.local_rank())
    return torch.device("cpu")


def is_master():
    return hvd.rank() == 0


def all_sum(values, name):
    t = torch.tensor(values, dtype=torch.float64)
    return hvd.allreduce(t, op=hvd.Sum, name=name).tolist()
