"""Horovod plumbing shared by the PyTorch jobs."""
import torch
import horovod.torch as hvd


def setup():
    """Initialise Horovod and pin this process to its local GPU. Returns the torch device."""
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda", hvd.local_rank())
    return torch.device("cpu")


def per_rank_batch(global_batch_size):
    if global_batch_size % hvd.size():
        raise ValueError(f"global batch {global_batch_size} not divisible by {hvd.size()} ranks")
    return global_batch_size // hvd.size()


def wrap_and_sync(model, optimizer):
    """Start every rank from rank 0's weights/optimizer state and average gradients."""
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    return hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())


def is_chief():
    return hvd.rank() == 0
