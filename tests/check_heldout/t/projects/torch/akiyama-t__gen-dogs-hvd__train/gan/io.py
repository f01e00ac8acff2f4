import os

import torch
import torchvision.utils as vutils


def save_checkpoint(out_dir, epoch, netG, netD, opt_g, opt_d, fixed_noise):
    os.makedirs(out_dir, exist_ok=True)
    torch.save({"epoch": epoch, "G": netG.state_dict(), "D": netD.state_dict(),
                "opt_g": opt_g.state_dict(), "opt_d": opt_d.state_dict()},
               os.path.join(out_dir, "last.pth"))
    with torch.no_grad():
        was_training = netG.training
        netG.eval()
        fake = netG(fixed_noise).cpu()
        netG.train(was_training)
    vutils.save_image(fake, os.path.join(out_dir, f"samples_{epoch:03d}.png"), normalize=True, nrow=8)
