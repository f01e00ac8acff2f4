from dataclasses import dataclass

import torch
import horovod.torch as hvd


@dataclass
class DistInfo:
    rank: int
    size: int
    local_rank: int
    device: torch.device

    @property
    def is_root(self) -> bool:
        return self.rank == 0


def init_horovod() -> DistInfo:
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    else:
        device = torch.device("cpu")
    return DistInfo(hvd.rank(), hvd.size(), hvd.local_rank(), device)


def sum_across_ranks(values: dict, name: str = "eval") -> dict:
    """Sum a dict of tensors over all workers (op=Sum, not Average)."""
    keys = sorted(values)
    flat = torch.cat([values[k].detach().double().reshape(-1).cpu() for k in keys])
    total = hvd.allreduce(flat, name=name, op=hvd.Sum)
    out, i = {}, 0
    for k in keys:
        n = values[k].numel()
        out[k] = total[i:i + n].reshape(values[k].shape)
        i += n
    return out
