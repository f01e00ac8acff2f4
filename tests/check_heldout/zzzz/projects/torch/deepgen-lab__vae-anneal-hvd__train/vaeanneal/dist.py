import torch
import horovod.torch as hvd


def setup(seed):
    hvd.init()
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        torch.cuda.manual_seed(seed)
        return torch.device("cuda", hvd.local_rank())
    torch.set_num_threads(1)
    return torch.device("cpu")


def is_master():
    return hvd.rank() == 0


def all_sum(values):
    """sum a list of python floats over all workers"""
    t = torch.tensor(values, dtype=torch.float64)
    t = hvd.allreduce(t, op=hvd.Sum, name="all_sum")
    return t.tolist()


def log(*args):
    if hvd.rank() == 0:
        print(*args, flush=True)
