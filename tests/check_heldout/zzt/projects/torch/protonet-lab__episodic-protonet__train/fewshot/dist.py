"""Horovod glue kept out of the training script."""
import torch
import horovod.torch as hvd


def setup():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda", hvd.local_rank())
    torch.set_num_threads(max(1, torch.get_num_threads() // hvd.local_size()))
    return torch.device("cpu")


def sync_initial_state(model, optimizer):
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)


def is_root():
    return hvd.rank() == 0
