import os

import torch
import horovod.torch as hvd


def init_horovod():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    # keep the dataloader workers from fighting over the cores of a node
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "4")))
    return hvd.rank(), hvd.size()


def rank0_print(*args, **kw):
    if hvd.rank() == 0:
        print(*args, **kw, flush=True)
