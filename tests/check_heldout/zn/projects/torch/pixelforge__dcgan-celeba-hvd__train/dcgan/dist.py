"""Horovod helpers shared by train.py and the notebooks."""
import os

import torch
import horovod.torch as hvd


def sync_state(netG, netD, optG, optD, root_rank=0):
    """Make every worker start from rank 0's weights (and optimizer moments after a resume)."""
    hvd.broadcast_parameters(netG.state_dict(), root_rank=root_rank)
    hvd.broadcast_optimizer_state(optG, root_rank=root_rank)
    hvd.broadcast_parameters(netG.state_dict(), root_rank=root_rank)
    hvd.broadcast_optimizer_state(optD, root_rank=root_rank)


def save_checkpoint(path, epoch, best_fid, netG, netD, optG, optD):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    torch.save({
        "epoch": epoch,
        "best_fid": best_fid,
        "G": netG.state_dict(),
        "D": netD.state_dict(),
        "optG": optG.state_dict(),
        "optD": optD.state_dict(),
    }, path)


def load_checkpoint(path, netG, netD, optG, optD):
    ckpt = torch.load(path, map_location="cpu")
    netG.load_state_dict(ckpt["G"])
    netD.load_state_dict(ckpt["D"])
    optG.load_state_dict(ckpt["optG"])
    optD.load_state_dict(ckpt["optD"])
    return ckpt["epoch"], ckpt.get("best_fid", float("inf"))
