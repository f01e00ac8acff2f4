from dataclasses import dataclass

import horovod.torch as hvd
import torch


@dataclass
class DistInfo:
    rank: int
    size: int
    local_rank: int
    device: torch.device

    @property
    def is_main(self):
        return self.rank == 0


def setup(seed=0):
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    else:
        device = torch.device("cpu")
    torch.manual_seed(seed)
    torch.set_num_threads(max(1, torch.get_num_threads() // hvd.local_size()))
    return DistInfo(hvd.rank(), hvd.size(), hvd.local_rank(), device)


def allreduce_sum(values, name):
    t = torch.tensor(values, dtype=torch.float64)
    return hvd.allreduce(t, op=hvd.Sum, name=name).tolist()
