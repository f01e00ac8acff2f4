import os

import torch
import horovod.torch as hvd


def global_accuracy(model, loader, device):
    model.eval()
    stats = torch.zeros(2, dtype=torch.float64)
    with torch.no_grad():
        for x, y in loader:
            pred = model(x.to(device)).argmax(1).cpu()
            stats += torch.tensor([(pred == y).sum().item(), y.numel()], dtype=torch.float64)
    stats = hvd.allreduce(stats, op=hvd.Sum, name="acc_stats")
    return (stats[0] / stats[1]).item()


def save_on_rank0(model, path):
    if hvd.rank() != 0:
        return
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    torch.save(model.state_dict(), path)


def rprint(*a):
    if hvd.rank() == 0:
        print(*a, flush=True)
