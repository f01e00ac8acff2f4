import glob
import os

import torch


def save_checkpoint(out_dir, epoch, **state):
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "htr_e%03d.pt" % epoch)
    torch.save(dict(epoch=epoch, **state), path)
    for old in sorted(glob.glob(os.path.join(out_dir, "htr_e*.pt")))[:-3]:
        os.remove(old)
    return path


def load_checkpoint(path):
    return torch.load(path, map_location="cpu")
