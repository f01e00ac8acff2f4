import torch
import horovod.torch as hvd


def init_hvd():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    return hvd.rank(), hvd.size()


def broadcast_state(model, optimizer):
    """Start every worker from rank 0's weights and optimizer state."""
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)


def wrap_optimizer(optimizer, model):
    return hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())


def mean_over_workers(total, count, name):
    t = hvd.allreduce(torch.tensor([total, count], dtype=torch.float64), op=hvd.Sum, name=name)
    return (t[0] / t[1]).item()


def gather_errors(errors):
    return hvd.allgather(errors, name="val_errors")
