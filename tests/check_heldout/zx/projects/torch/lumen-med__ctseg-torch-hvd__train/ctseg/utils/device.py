import torch
import horovod.torch as hvd


def setup_device(cfg):
    """Bind this worker to its GPU and return the device tensors should go to."""
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        torch.backends.cudnn.benchmark = True
        return torch.device(cfg.device)
    return torch.device("cpu")
