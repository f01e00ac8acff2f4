import os
import torch


def save_checkpoint(state, out_dir, epoch, is_master=True, keep_last=3):
    """Write model/optim/scaler state. Old files beyond keep_last are removed."""
    if not is_master:
        return None
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "epoch_%03d.pt" % epoch)
    torch.save(state, path)
    old = sorted(f for f in os.listdir(out_dir) if f.startswith("epoch_"))
    for f in old[:-keep_last]:
        os.remove(os.path.join(out_dir, f))
    return path
