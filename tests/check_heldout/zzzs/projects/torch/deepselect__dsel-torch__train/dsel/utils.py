import logging

import torch
import horovod.torch as hvd

logger = logging.getLogger("dsel")


def init_horovod(cuda=False):
    hvd.init()
    if cuda and torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda")
    return torch.device("cpu")


def log_rank0(msg, *a):
    if hvd.rank() == 0:
        logger.info(msg, *a)


class AverageMeter(object):
    def __init__(self, name):
        self.name = name
        self.sum = 0.0
        self.count = 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)
