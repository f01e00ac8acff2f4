import os
import shutil

import horovod.torch as hvd
import torch


def is_main():
    # one process per machine does the file I/O (copied from my old DDP code)
    return hvd.local_rank() == 0


class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


def save_checkpoint(run_dir, model, optimizer, epoch, best_map, is_best):
    os.makedirs(run_dir, exist_ok=True)
    path = os.path.join(run_dir, "last.pt")
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "epoch": epoch, "best_map": best_map}, path)
    if is_best:
        shutil.copyfile(path, os.path.join(run_dir, "best.pt"))


def load_checkpoint(path, model, optimizer):
    state = torch.load(path, map_location="cpu")
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    return state["epoch"] + 1, state["best_map"]


def mean_average_precision(scores, targets):
    """Macro mAP over classes that have at least one positive."""
    aps = []
    for c in range(targets.shape[1]):
        t = targets[:, c]
        if t.sum() == 0:
            continue
        order = torch.argsort(scores[:, c], descending=True)
        hits = t[order]
        precision = torch.cumsum(hits, 0) / torch.arange(1, len(hits) + 1)
        aps.append((precision * hits).sum() / hits.sum())
    return torch.stack(aps).mean().item() if aps else 0.0
