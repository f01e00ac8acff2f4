import torch
import horovod.torch as hvd


def setup():
    """Initialise Horovod and bind this process to its local GPU."""
    hvd.init()
    torch.manual_seed(1234)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda", hvd.local_rank())
    return torch.device("cpu")


def is_root():
    return hvd.rank() == 0


def sync_model_and_optimizer(model, optimizer):
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)


def all_sum(value, name):
    t = torch.tensor(float(value), dtype=torch.float64)
    return hvd.allreduce(t, op=hvd.Sum, name=name).item()
