"""Everything Horovod-specific lives here so the Trainer also runs on a laptop with -np 1."""
import horovod.torch as hvd
import torch


def setup():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda", hvd.local_rank())
    return torch.device("cpu")


def world():
    return hvd.rank(), hvd.size()


def is_chief():
    return hvd.rank() == 0


def distribute(model, optimizer):
    """Wraps the optimizer and makes every worker start from rank 0's weights and optimizer state."""
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    return optimizer


def mean_across_workers(value, name):
    return hvd.allreduce(torch.tensor(float(value)), name=name).item()
