import random

import numpy as np
import torch
import horovod.torch as hvd


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def rprint(*a, **kw):
    if hvd.rank() == 0:
        print(*a, flush=True, **kw)


def auc_score(y_true, y_score):
    order = np.argsort(-y_score)
    y = y_true[order]
    tp, fp = np.cumsum(y), np.cumsum(1 - y)
    return np.trapezoid(tp / max(tp[-1], 1), fp / max(fp[-1], 1))
