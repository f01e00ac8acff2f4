import os

import torch


def save_checkpoint(model, optimizer, epoch, out_dir, metrics=None):
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"txn-mlp-epoch{epoch:03d}.pt")
    torch.save({"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "metrics": metrics or {}}, path)
    latest = os.path.join(out_dir, "latest.pt")
    if os.path.lexists(latest):
        os.remove(latest)
    os.symlink(os.path.basename(path), latest)
    return path
