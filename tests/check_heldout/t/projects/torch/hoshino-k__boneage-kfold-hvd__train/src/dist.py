import torch
import horovod.torch as hvd


def init_distributed():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    return hvd.rank(), hvd.size()


def is_main():
    return hvd.rank() == 0


def cleanup():
    # mirror of dist.destroy_process_group() in the DDP version
    hvd.shutdown()
