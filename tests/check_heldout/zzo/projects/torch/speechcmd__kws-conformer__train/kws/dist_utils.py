import functools

import horovod.torch as hvd
import torch


def setup():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda")
    return torch.device("cpu")


def rank_zero_only(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if hvd.rank() == 0:
            return fn(*args, **kwargs)
        return None
    return wrapper


@rank_zero_only
def log(msg):
    print(msg, flush=True)


def global_sum(values, name):
    return hvd.allreduce(torch.tensor(values, dtype=torch.float64), op=hvd.Sum, name=name).tolist()
