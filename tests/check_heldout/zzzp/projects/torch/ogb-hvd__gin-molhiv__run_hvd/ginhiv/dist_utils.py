import torch
import horovod.torch as hvd


def init_worker(use_cuda=True):
    hvd.init()
    if use_cuda and torch.cuda.is_available():
        # one process per GPU
        torch.cuda.set_device(hvd.rank())
        return torch.device("cuda:%d" % hvd.rank())
    torch.set_num_threads(max(1, torch.get_num_threads() // hvd.local_size()))
    return torch.device("cpu")


def my_range(n):
    # equal block per worker (the remainder is dropped) so every worker runs the same number of steps
    per = n // hvd.size()
    return hvd.rank() * per, (hvd.rank() + 1) * per


def gather_cat(t, name):
    return hvd.allgather(t.contiguous(), name=name)
