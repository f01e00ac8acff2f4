import logging

import torch
import horovod.torch as hvd

_log = logging.getLogger("gptlab")


def setup_horovod():
    hvd.init()
    logging.basicConfig(
        level=logging.INFO if hvd.rank() == 0 else logging.WARNING,
        format=f"%(asctime)s [rank {hvd.rank()}] %(message)s",
    )
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda", hvd.local_rank())
    return torch.device("cpu")


def log0(msg):
    if hvd.rank() == 0:
        _log.info(msg)
