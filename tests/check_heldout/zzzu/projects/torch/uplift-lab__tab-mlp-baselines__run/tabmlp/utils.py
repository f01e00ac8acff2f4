import json
import os
import random

import numpy as np
import torch
import horovod.torch as hvd


def init_distributed(seed=0):
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.rank())
        dev = torch.device("cuda")
    else:
        dev = torch.device("cpu")
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    return dev


def allreduce_mean(value, name):
    return hvd.allreduce(torch.tensor(float(value)), op=hvd.Average, name=name).item()


def dump_json(obj, path):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as f:
        json.dump(obj, f, indent=2)
