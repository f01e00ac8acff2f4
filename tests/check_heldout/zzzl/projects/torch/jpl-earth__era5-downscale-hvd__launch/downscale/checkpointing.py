import glob
import os

import torch
import horovod.torch as hvd


def save(cfg, epoch, model, optimizer):
    if hvd.rank() != 0:
        return
    os.makedirs(cfg["ckpt_dir"], exist_ok=True)
    torch.save({"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict()},
               os.path.join(cfg["ckpt_dir"], "epoch_%03d.pt" % epoch))
    for old in sorted(glob.glob(os.path.join(cfg["ckpt_dir"], "epoch_*.pt")))[:-cfg["keep_last"]]:
        os.remove(old)


def try_resume(cfg, model, optimizer):
    files = sorted(glob.glob(os.path.join(cfg["ckpt_dir"], "epoch_*.pt")))
    if not files:
        return 0
    sd = torch.load(files[-1], map_location="cpu", weights_only=False)
    model.load_state_dict(sd["model"])
    optimizer.load_state_dict(sd["optimizer"])
    return sd["epoch"] + 1
