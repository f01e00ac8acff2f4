import torch
import horovod.torch as hvd


def init_horovod():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    return hvd.rank(), hvd.size()


def reduce_counts(values):
    t = hvd.allreduce(torch.tensor(values, dtype=torch.float64), op=hvd.Sum, name="counts")
    return t.tolist()


def warmup_lambda(warmup_iters, world_size):
    """Ramps the lr multiplier from 1 to world_size over warmup_iters (Goyal et al.)."""
    def fn(it):
        if it >= warmup_iters:
            return float(world_size)
        return 1.0 + (world_size - 1.0) * it / warmup_iters
    return fn
