import torch
import horovod.torch as hvd


def setup_device():
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda")
    return torch.device("cpu")


def sync_model(model, optimizer, root=0):
    """Make every worker start from root's weights and optimizer state."""
    hvd.broadcast_parameters(model.state_dict(), root=root)
    hvd.broadcast_optimizer_state(optimizer, root_rank=root)


def log0(*msg):
    if hvd.rank() == 0:
        print(*msg, flush=True)
