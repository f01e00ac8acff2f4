import glob
import os

import torch

from sspred.dist import hvd


class CheckpointSaver:
    """Keeps the last ``keep`` checkpoints. Safe to call on every worker: only rank 0 writes."""

    def __init__(self, directory, keep=3):
        self.directory = directory
        self.keep = keep
        self.active = hvd.rank() == 0

    def save(self, epoch, model, optimizer, **extra):
        if not self.active:
            return
        os.makedirs(self.directory, exist_ok=True)
        torch.save({"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict(), **extra},
                   os.path.join(self.directory, f"epoch{epoch:03d}.pt"))
        for old in sorted(glob.glob(os.path.join(self.directory, "epoch*.pt")))[:-self.keep]:
            os.remove(old)
