import csv
import json
import os
import time

import torch
import horovod.torch as hvd

from .config import to_dict


def make_exp_dir(cfg):
    stamp = time.strftime("%Y%m%d-%H%M%S")
    name = f"{cfg.arch}_{stamp}_rank{hvd.rank()}"
    exp_dir = os.path.join(cfg.out_dir, name)
    os.makedirs(os.path.join(exp_dir, "ckpt"), exist_ok=True)
    with open(os.path.join(exp_dir, "config.json"), "w") as f:
        json.dump(to_dict(cfg), f, indent=2)
    return exp_dir


class CSVLogger:
    def __init__(self, path, fields):
        self.path = path
        self.fields = fields
        with open(path, "w", newline="") as f:
            csv.DictWriter(f, fieldnames=fields).writeheader()

    def log(self, **row):
        with open(self.path, "a", newline="") as f:
            csv.DictWriter(f, fieldnames=self.fields).writerow(row)


def save_checkpoint(state, exp_dir, is_best):
    path = os.path.join(exp_dir, "ckpt", "last.pth")
    torch.save(state, path)
    if is_best:
        torch.save(state, os.path.join(exp_dir, "ckpt", "best.pth"))
