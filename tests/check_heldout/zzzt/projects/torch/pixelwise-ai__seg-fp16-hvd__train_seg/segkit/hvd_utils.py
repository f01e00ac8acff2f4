import torch
import horovod.torch as hvd


def init_horovod(cfg):
    hvd.init()
    if cfg.cuda and torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    else:
        cfg.cuda = False
    torch.manual_seed(1234)


def reduce_mean(value, name):
    return hvd.allreduce(torch.as_tensor(value, dtype=torch.float32), name=name).item()


def log0(*a):
    if hvd.rank() == 0:
        print(*a, flush=True)
