import logging

import torch
import horovod.torch as hvd

logger = logging.getLogger("segkit")


def init_distributed(cfg):
    hvd.init()
    if torch.cuda.is_available():
        # one process per gpu
        torch.cuda.set_device(hvd.rank())
        cfg.device = "cuda"
    else:
        cfg.device = "cpu"
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.WARNING,
                        format="%(asctime)s [r%(rank)s] %(message)s".replace("%(rank)s", str(hvd.rank())))
    logger.info("horovod: %d workers", hvd.size())
    return hvd.rank(), hvd.size()


def main_process():
    return hvd.rank() == 0
