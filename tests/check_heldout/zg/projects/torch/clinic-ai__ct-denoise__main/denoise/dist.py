"""Run-time choice of device; Horovod set-up lives here so main.py stays short."""
import os

import torch
import horovod.torch as hvd


def setup(device_pref="auto"):
    hvd.init()
    if device_pref == "auto":
        device_pref = "cuda" if torch.cuda.is_available() else "cpu"
    if device_pref == "cuda":
        torch.cuda.set_device(hvd.local_rank())
        torch.backends.cudnn.benchmark = True
        device = torch.device("cuda", hvd.local_rank())
    else:
        # CPU nodes: split the cores between the local ranks
        torch.set_num_threads(max(1, (os.cpu_count() or 1) // hvd.local_size()))
        device = torch.device("cpu")
    return device


def is_main():
    return hvd.rank() == 0


def world():
    return hvd.size()


def global_mean(value, name):
    t = torch.tensor(float(value))
    return hvd.allreduce(t, name=name, op=hvd.Average).item()
