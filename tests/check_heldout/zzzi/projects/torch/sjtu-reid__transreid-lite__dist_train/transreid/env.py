import logging
import os
import random
import sys

import numpy as np
import torch
import horovod.torch as hvd


def setup(cfg):
    """Horovod + devices + seeds + logger. Returns (logger, device)."""
    hvd.init()
    os.environ['CUDA_VISIBLE_DEVICES'] = cfg.MODEL.DEVICE_ID
    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
    random.seed(cfg.SOLVER.SEED)
    np.random.seed(cfg.SOLVER.SEED)
    torch.manual_seed(cfg.SOLVER.SEED)
    logger = logging.getLogger('transreid')
    logger.setLevel(logging.INFO if hvd.rank() == 0 else logging.ERROR)
    h = logging.StreamHandler(sys.stdout)
    h.setFormatter(logging.Formatter('%(asctime)s %(name)s %(levelname)s: %(message)s'))
    logger.addHandler(h)
    logger.info('running with %d workers', hvd.size())
    return logger, device


def is_main_process():
    return hvd.local_rank() == 0
