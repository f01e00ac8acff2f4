"""Thin wrappers so the rest of the code does not import horovod directly."""
import torch
import horovod.torch as hvd


def setup():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda", hvd.local_rank())
    torch.set_num_threads(1)
    return torch.device("cpu")


def is_root():
    return hvd.rank() == 0


def world():
    return hvd.size(), hvd.rank()


def wrap_optimizer(opt, model, accum_steps):
    return hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(),
                                    backward_passes_per_step=accum_steps,
                                    op=hvd.Average)


def sync_initial_state(model, opt, root=0):
    hvd.broadcast_parameters(model.state_dict(), root_rank=root)
    hvd.broadcast_optimizer_state(opt, root_rank=root)


def sum_counts(t, name):
    return hvd.allreduce(t, op=hvd.Sum, name=name)
