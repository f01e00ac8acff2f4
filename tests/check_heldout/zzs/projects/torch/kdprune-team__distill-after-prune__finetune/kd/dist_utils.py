import torch
import horovod.torch as hvd


def setup():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda", hvd.local_rank())
    return torch.device("cpu")


def sync(model, optimizer):
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)


def mean(value, name):
    return hvd.allreduce(torch.tensor(value), name=name).item()
