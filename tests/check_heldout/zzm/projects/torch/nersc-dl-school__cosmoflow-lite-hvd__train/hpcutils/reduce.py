import torch
import horovod.torch as hvd


def global_mean(value, name):
    """Average a python float over all ranks (for logging)."""
    t = torch.tensor(float(value), dtype=torch.float64)
    return hvd.allreduce(t, op=hvd.Sum, name=name).item()


def gather_timings(seconds, name="epoch_time"):
    """Per-rank wall times, so rank 0 can print the slowest and fastest rank."""
    t = torch.tensor([float(seconds)], dtype=torch.float64)
    return hvd.allgather(t, name=name).tolist()
