import torch
import horovod.torch as hvd


def setup_horovod():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    torch.set_num_threads(1)
    return hvd.rank(), hvd.size()


def is_root():
    return hvd.rank() == 0


def log(*a, **kw):
    if hvd.rank() == 0:
        print(*a, **kw, flush=True)
