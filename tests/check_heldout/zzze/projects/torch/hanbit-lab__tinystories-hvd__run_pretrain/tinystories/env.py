import logging
import os

import horovod.torch as hvd
import torch

log = logging.getLogger(__name__)


def init_distributed(seed=0):
    hvd.init()
    torch.manual_seed(seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device.type == "cpu":
        torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "4")))
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.ERROR,
                        format="%(asctime)s %(levelname)s %(message)s")
    log.info("horovod ranks=%d local=%d device=%s", hvd.size(), hvd.local_size(), device)
    return device
