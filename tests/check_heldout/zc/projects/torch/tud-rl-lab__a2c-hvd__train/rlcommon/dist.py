"""Thin Horovod layer used by all on-policy entry scripts."""
import torch
import horovod.torch as hvd


def setup():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda", hvd.local_rank())
    return torch.device("cpu")


def sync(model, optimizer):
    """Start every worker from rank 0's weights and optimizer state."""
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)


def allreduce_mean(value, name):
    t = torch.as_tensor(value, dtype=torch.float32).detach().cpu()
    return hvd.allreduce(t, name=name).item()


def is_root():
    return hvd.rank() == 0
