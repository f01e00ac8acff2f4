import logging
import random

import numpy as np
import torch
import horovod.torch as hvd

log = logging.getLogger(__name__)


def setup(seed=0):
    """Initialise Horovod, pin this process to its GPU and seed the RNGs.

    Each worker gets its own seed so that random augmentations differ between workers."""
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    else:
        device = torch.device("cpu")
    worker_seed = seed + hvd.rank()
    random.seed(worker_seed)
    np.random.seed(worker_seed)
    torch.manual_seed(worker_seed)
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.ERROR,
                        format=f"[%(asctime)s r{hvd.rank()}] %(message)s")
    log.info("horovod: %d workers, this is rank %d (local %d)", hvd.size(), hvd.rank(), hvd.local_rank())
    return device


def is_master():
    return hvd.rank() == 0


def save_on_master(state, path):
    if is_master():
        torch.save(state, path)
