import torch
import horovod.torch as hvd


def init_dist():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())


def get_dist_info():
    """(rank, world_size); (0, 1) when horovod is not running."""
    if not hvd.is_initialized():
        return 0, 1
    return hvd.local_rank(), hvd.size()


def is_master():
    rank, _ = get_dist_info()
    return rank == 0


def reduce_sum(tensor, name=None):
    _, world = get_dist_info()
    if world == 1:
        return tensor
    return hvd.allreduce(tensor, op=hvd.Sum, name=name)
