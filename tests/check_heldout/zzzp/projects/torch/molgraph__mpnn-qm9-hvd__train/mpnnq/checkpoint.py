import glob
import os

import torch


def save_checkpoint(state, out_dir, epoch, keep=3):
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "ckpt_%04d.pt" % epoch)
    torch.save(state, path)
    old = sorted(glob.glob(os.path.join(out_dir, "ckpt_*.pt")))[:-keep]
    for p in old:
        os.remove(p)
    return path


def latest_checkpoint(out_dir):
    c = sorted(glob.glob(os.path.join(out_dir, "ckpt_*.pt")))
    return c[-1] if c else None
