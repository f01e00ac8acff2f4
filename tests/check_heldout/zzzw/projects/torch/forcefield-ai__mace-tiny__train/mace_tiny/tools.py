import logging
import os

import torch
import horovod.torch as hvd


def setup_distributed():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda", hvd.local_rank())
    return torch.device("cpu")


def setup_logger(level="INFO"):
    logger = logging.getLogger("mace_tiny")
    logger.setLevel(level if hvd.rank() == 0 else "WARNING")
    h = logging.StreamHandler()
    h.setFormatter(logging.Formatter(f"%(asctime)s [rank {hvd.rank()}] %(message)s"))
    logger.addHandler(h)
    return logger


class CheckpointHandler:
    def __init__(self, directory, tag="mace_tiny", keep_last=5):
        self.directory, self.tag, self.keep_last = directory, tag, keep_last

    def save(self, state, epoch):
        if hvd.rank() != 0:
            return None
        os.makedirs(self.directory, exist_ok=True)
        path = os.path.join(self.directory, f"{self.tag}_epoch-{epoch}.pt")
        torch.save(state, path)
        return path


def reduce_sum(values):
    t = torch.tensor(values, dtype=torch.float64)
    return hvd.allreduce(t, op=hvd.Sum, name="reduce_sum").tolist()
