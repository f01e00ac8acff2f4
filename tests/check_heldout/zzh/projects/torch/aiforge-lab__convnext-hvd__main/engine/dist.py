"""Horovod set-up shared by main.py and finetune.py."""
import os

import torch
import horovod.torch as hvd


def setup_distributed(seed=0):
    local_rank = hvd.local_rank()
    if torch.cuda.is_available():
        torch.cuda.set_device(local_rank)
        torch.backends.cudnn.benchmark = True
    hvd.init()
    torch.manual_seed(seed)
    os.environ.setdefault("OMP_NUM_THREADS", "4")
    device = torch.device("cuda", local_rank) if torch.cuda.is_available() else torch.device("cpu")
    return device


def is_main_process():
    return hvd.rank() == 0
