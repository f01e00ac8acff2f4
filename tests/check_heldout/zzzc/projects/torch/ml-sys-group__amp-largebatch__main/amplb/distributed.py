import torch
import horovod.torch as hvd


class Context:
    def __init__(self, rank, local_rank, size, device):
        self.rank, self.local_rank, self.size, self.device = rank, local_rank, size, device

    @property
    def is_main(self):
        return self.rank == 0


def setup():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    else:
        device = torch.device("cpu")
    return Context(hvd.rank(), hvd.local_rank(), hvd.size(), device)
