import os

import horovod.torch as hvd
import torch


def save_model(model, optimizer, epoch, out_dir, tag="last"):
    """Rank 0 writes; the others return immediately."""
    if hvd.rank() != 0:
        return
    os.makedirs(out_dir, exist_ok=True)
    torch.save({"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict()},
               os.path.join(out_dir, f"{tag}.pt"))
