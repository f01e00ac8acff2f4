import logging
import random

import numpy as np
import torch


def get_root_logger(log_file=None, rank=0, log_level=logging.INFO):
    logger = logging.getLogger('mmcls_lite')
    fmt = logging.Formatter('%(asctime)s - %(name)s - %(levelname)s - %(message)s')
    if not logger.handlers:
        sh = logging.StreamHandler()
        sh.setFormatter(fmt)
        logger.addHandler(sh)
        if rank == 0 and log_file is not None:
            fh = logging.FileHandler(log_file, 'w')
            fh.setFormatter(fmt)
            logger.addHandler(fh)
    logger.setLevel(log_level if rank == 0 else logging.ERROR)
    return logger


def set_random_seed(seed, deterministic=False):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    if deterministic:
        torch.backends.cudnn.deterministic = True
        torch.backends.cudnn.benchmark = False
