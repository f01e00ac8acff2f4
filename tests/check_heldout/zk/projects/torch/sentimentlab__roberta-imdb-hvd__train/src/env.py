import os
import random

import numpy as np
import torch
import horovod.torch as hvd


def init_env(seed):
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        torch.backends.cudnn.benchmark = True
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    return torch.device("cuda", hvd.local_rank()) if torch.cuda.is_available() else torch.device("cpu")
