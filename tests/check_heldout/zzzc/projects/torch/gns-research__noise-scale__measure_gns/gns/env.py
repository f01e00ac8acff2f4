import logging
import os

import torch
import horovod.torch as hvd

log = logging.getLogger("gns")


def init_distributed():
    """Start Horovod and give this process its own GPU."""
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.rank())
        device = torch.device("cuda", torch.cuda.current_device())
    else:
        device = torch.device("cpu")
    level = logging.INFO if hvd.rank() == 0 else logging.WARNING
    logging.basicConfig(level=level, format=f"[r{hvd.rank()}] %(asctime)s %(message)s")
    log.info("world=%d host=%s device=%s", hvd.size(), os.uname()[1], device)
    return device
