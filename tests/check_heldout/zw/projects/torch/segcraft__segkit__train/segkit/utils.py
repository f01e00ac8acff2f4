import logging
import random

import numpy as np
import torch
import horovod.torch as hvd


def get_logger(log_file=None, name='segkit'):
    logger = logging.getLogger(name)
    logger.setLevel(logging.INFO if hvd.rank() == 0 else logging.ERROR)
    if not logger.handlers:
        logger.addHandler(logging.StreamHandler())
        if log_file and hvd.rank() == 0:
            logger.addHandler(logging.FileHandler(log_file, 'w'))
    return logger


def set_random_seed(seed, deterministic=False):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    if deterministic:
        torch.backends.cudnn.deterministic = True
        torch.backends.cudnn.benchmark = False
