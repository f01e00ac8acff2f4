"""Process bootstrap: every entry point in this repo goes through launch()."""
import os

import torch
import horovod.torch as hvd


def launch(fn, cfg):
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    else:
        torch.set_num_threads(max(1, os.cpu_count() // hvd.local_size()))
    ctx = {"rank": hvd.rank(), "world": hvd.size(), "local_rank": hvd.local_rank()}
    return fn(cfg, ctx)
