import logging
import os
import sys

import torch


def is_main_process():
    # set by torchrun / the SLURM launcher script
    return int(os.environ.get("RANK", "0")) == 0


def setup_logging(rank):
    level = logging.INFO if rank == 0 else logging.WARNING
    logging.basicConfig(stream=sys.stdout, level=level,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")


class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


def save_checkpoint(state, path):
    """Write a checkpoint from the main process only."""
    if not is_main_process():
        return
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = path + ".tmp"
    torch.save(state, tmp)
    os.replace(tmp, path)
