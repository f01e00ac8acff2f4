import json
import os
import random

import numpy as np
import torch
import horovod.torch as hvd


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)


def save_on_root(obj, path):
    if hvd.rank() != 0:
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    torch.save(obj, path)


def dump_json(obj, path):
    if hvd.rank() == 0:
        with open(path, "w") as f:
            json.dump(obj, f, indent=2)
