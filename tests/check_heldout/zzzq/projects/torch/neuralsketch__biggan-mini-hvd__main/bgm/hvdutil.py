import torch
import horovod.torch as hvd


def init_distributed():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda:%d" % hvd.local_rank())
    return torch.device("cpu")


def mean_over_workers(x, name):
    return hvd.allreduce(torch.as_tensor(x, dtype=torch.float32), name=name).item()
