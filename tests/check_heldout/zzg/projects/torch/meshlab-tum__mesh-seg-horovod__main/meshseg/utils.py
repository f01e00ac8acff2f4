import logging
import random

import numpy as np
import torch
import horovod.torch as hvd


def seed_everything(seed):
    """Different augmentation stream per worker, reproducible across runs."""
    seed = seed + hvd.rank()
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def make_logger(verbose):
    logging.basicConfig(format="%(asctime)s %(levelname)s %(message)s",
                        level=logging.INFO if verbose else logging.ERROR)
    return logging.getLogger("meshseg")
