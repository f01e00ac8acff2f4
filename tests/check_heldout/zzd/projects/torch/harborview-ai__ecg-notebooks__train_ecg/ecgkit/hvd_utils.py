import torch
import horovod.torch as hvd


def init_and_pin():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda", hvd.local_rank())
    return torch.device("cpu")


def is_root():
    return hvd.rank() == 0


def broadcast_all(model, optimizer=None, root=0):
    hvd.broadcast_parameters(model.state_dict(), root_rank=root)
    if optimizer is not None:
        hvd.broadcast_optimizer_state(optimizer, root_rank=root)
