import torch
import horovod.torch as hvd


def setup_distributed():
    """Initialise Horovod and return the device this process should use."""
    hvd.init()
    if torch.cuda.is_available():
        # horovodrun gives every process its own CUDA_VISIBLE_DEVICES, "cuda" is enough
        return torch.device("cuda")
    return torch.device("cpu")


def is_main_process():
    return hvd.rank() == 0


def all_sum(values, name):
    t = torch.tensor(values, dtype=torch.float64)
    return hvd.allreduce(t, op=hvd.Sum, name=name).tolist()
