import os
import random

import numpy as np
import torch


def seed_all(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)


def save_state(path, **objs):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = path + ".tmp"
    torch.save({k: v.state_dict() if hasattr(v, "state_dict") else v for k, v in objs.items()}, tmp)
    os.replace(tmp, path)
