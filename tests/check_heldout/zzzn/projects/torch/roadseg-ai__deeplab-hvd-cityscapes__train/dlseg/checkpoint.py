import os

import torch
import horovod.torch as hvd


class CheckpointSaver:
    def __init__(self, out_dir):
        self.out_dir = out_dir
        self.best = -1.0
        if hvd.rank() == 0:
            os.makedirs(out_dir, exist_ok=True)

    def save(self, model, optimizer, epoch, miou):
        if hvd.rank() != 0:
            return
        state = {"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict(), "miou": miou}
        torch.save(state, os.path.join(self.out_dir, "last.pth"))
        if miou > self.best:
            self.best = miou
            torch.save(state, os.path.join(self.out_dir, "best_miou.pth"))


def load_checkpoint(path, model, optimizer):
    ckpt = torch.load(path, map_location="cpu")
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    return ckpt["epoch"] + 1, ckpt.get("miou", -1.0)
