import torch
import horovod.torch as hvd


def setup(seed=0):
    hvd.init()
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        torch.cuda.manual_seed(seed)
    torch.set_num_threads(1)
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def is_root():
    return hvd.rank() == 0


def global_mean(value, name):
    t = torch.tensor(float(value))
    return hvd.allreduce(t, name=name).item()
