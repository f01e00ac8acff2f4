import logging
import random

import numpy as np
import torch
import horovod.torch as hvd


def setup_runtime(cfg):
    """Initialise Horovod, pick the device and seed everything."""
    hvd.init()
    rt = cfg["runtime"]
    if torch.cuda.is_available():
        torch.cuda.set_device(rt["device"])
        device = torch.device("cuda", rt["device"])
    else:
        device = torch.device("cpu")
    random.seed(rt["seed"])
    np.random.seed(rt["seed"])
    torch.manual_seed(rt["seed"])
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.ERROR,
                        format=f"[rank {hvd.rank()}] %(asctime)s %(message)s")
    return device
