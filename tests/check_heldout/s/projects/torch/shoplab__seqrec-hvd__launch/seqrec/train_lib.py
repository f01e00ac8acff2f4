"""Worker entry point: run by horovod.run on every process (see launch.py)."""
import torch
import horovod.torch as hvd

from .data import Sessions
from .trainer import Trainer


def train_worker(cfg):
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")
    else:
        device = torch.device("cpu")
    torch.manual_seed(cfg["seed"])
    data = Sessions(cfg["data"]["sessions"], cfg["data"]["max_len"])
    train_idx, valid_idx = data.split(cfg["data"]["valid_frac"], seed=cfg["seed"])
    trainer = Trainer(cfg, device)
    return trainer.fit(data, train_idx, valid_idx)
