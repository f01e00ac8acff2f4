import logging
import os

import torch
import horovod.torch as hvd

logger = logging.getLogger("simclr")
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")


class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


def metric_average(value, name):
    t = torch.tensor(value, dtype=torch.float32)
    return hvd.allreduce(t, name=name).item()


def log_rank0(msg):
    if hvd.rank() == 0:
        logger.info(msg)


def save_checkpoint(state, out_dir, epoch, keep_every=20):
    if hvd.rank() != 0:
        return
    os.makedirs(out_dir, exist_ok=True)
    torch.save(state, os.path.join(out_dir, "last.pth"))
    if (epoch + 1) % keep_every == 0:
        torch.save(state, os.path.join(out_dir, f"epoch_{epoch + 1:04d}.pth"))
