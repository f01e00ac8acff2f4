from dataclasses import dataclass

import torch
import horovod.torch as hvd


@dataclass
class DistEnv:
    rank: int
    local_rank: int
    world_size: int
    device: torch.device

    @property
    def is_main(self):
        return self.rank == 0


def init_distributed():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    else:
        device = torch.device("cpu")
    torch.set_num_threads(max(1, torch.get_num_threads() // hvd.local_size()))
    return DistEnv(hvd.rank(), hvd.local_rank(), hvd.size(), device)


def global_sum(*values):
    t = torch.tensor(values, dtype=torch.float64)
    return hvd.allreduce(t, op=hvd.Sum, name="global_sum").tolist()
