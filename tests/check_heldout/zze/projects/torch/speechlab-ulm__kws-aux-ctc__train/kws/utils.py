import os

import torch
import horovod.torch as hvd


def setup():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda")
    return torch.device("cpu")


def log0(*msg):
    if hvd.rank() == 0:
        print(*msg, flush=True)


def save_checkpoint(path, **state):
    if hvd.rank() != 0:
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    torch.save(state, tmp)
    os.replace(tmp, path)


def gathered_accuracy(preds, labels):
    """Accuracy over the whole eval set: every worker gathers every worker's predictions."""
    parts = hvd.allgather_object((preds, labels), name="eval_preds")
    p = torch.cat([a for a, _ in parts])
    y = torch.cat([b for _, b in parts])
    return (p == y).float().mean().item(), len(y)
