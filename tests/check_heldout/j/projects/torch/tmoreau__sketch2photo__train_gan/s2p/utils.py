import os

import torch
from torchvision.utils import save_image


def save_checkpoint(ckpt_dir, epoch, netG, netD, optG, optD):
    os.makedirs(ckpt_dir, exist_ok=True)
    state = {"epoch": epoch, "G": netG.state_dict(), "D": netD.state_dict(),
             "optG": optG.state_dict(), "optD": optD.state_dict()}
    torch.save(state, os.path.join(ckpt_dir, "latest.pt"))
    if epoch % 20 == 0:
        torch.save(netG.state_dict(), os.path.join(ckpt_dir, f"G_{epoch:04d}.pt"))


def save_samples(path, sketch, fake, real):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    grid = torch.cat([sketch.repeat(1, 3, 1, 1), fake, real], dim=0)
    save_image(grid * 0.5 + 0.5, path, nrow=sketch.size(0))
