import os

import torch
import horovod.torch as hvd


def is_main_process():
    return hvd.rank() == 0


class Checkpointer:
    """Saves model/optimizer/scheduler together; only the main process writes."""

    def __init__(self, model, optimizer, scheduler, save_dir):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.save_dir = save_dir

    def save(self, name, **extra):
        if not is_main_process():
            return
        os.makedirs(self.save_dir, exist_ok=True)
        data = {
            "model": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "scheduler": self.scheduler.state_dict(),
        }
        data.update(extra)
        path = os.path.join(self.save_dir, f"{name}.pth")
        tmp = path + ".tmp"
        torch.save(data, tmp)
        os.replace(tmp, path)
        with open(os.path.join(self.save_dir, "last_checkpoint"), "w") as f:
            f.write(os.path.basename(path))

    def load(self, path):
        ckpt = torch.load(path, map_location="cpu")
        self.model.load_state_dict(ckpt["model"])
        if "optimizer" in ckpt:
            self.optimizer.load_state_dict(ckpt["optimizer"])
        if "scheduler" in ckpt:
            self.scheduler.load_state_dict(ckpt["scheduler"])
        return ckpt.get("epoch", -1) + 1
