import logging
import os

import torch
import horovod.torch as hvd

logger = logging.getLogger("ncf")


def init_distributed(no_cuda=False):
    hvd.init()
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.WARNING,
                        format="%(asctime)s r{} %(message)s".format(hvd.rank()))
    if not no_cuda and torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda:%d" % hvd.local_rank())
    return torch.device("cpu")


def weighted_mean(value, weight, name):
    t = torch.tensor([value * weight, weight], dtype=torch.float64)
    t = hvd.allreduce(t, op=hvd.Sum, name=name)
    return (t[0] / t[1]).item()


def ensure_dir(d):
    if not os.path.exists(d):
        os.makedirs(d)
    return d
