import torch
import horovod.torch as hvd


def init():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda")
    return torch.device("cpu")


def rank():
    return hvd.rank()


def world():
    return hvd.size()


def sync_model(model, optimizer):
    """make every worker start from rank 0's weights"""
    hvd.broadcast_parameters(model.parameters(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)


def reduce_mean(value, count):
    t = torch.tensor([value * count, count], dtype=torch.float64)
    t = hvd.allreduce(t, op=hvd.Sum)
    return (t[0] / t[1]).item()
