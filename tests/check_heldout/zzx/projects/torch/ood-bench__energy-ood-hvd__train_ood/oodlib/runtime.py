import logging
import sys

import torch
import horovod.torch as hvd


def setup(verbose=True):
    """Initialise Horovod, bind this process to its GPU and configure logging."""
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.rank())
        torch.backends.cudnn.benchmark = True
        device = torch.device("cuda")
    else:
        device = torch.device("cpu")
    level = logging.INFO if (verbose and hvd.rank() == 0) else logging.ERROR
    logging.basicConfig(stream=sys.stdout, level=level,
                        format=f"[rank {hvd.rank()}/{hvd.size()}] %(message)s")
    return device
