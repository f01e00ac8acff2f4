import os

import torch


def save_checkpoint(out_dir, epoch, model, ema, optimizer, best_psnr):
    os.makedirs(out_dir, exist_ok=True)
    state = {"epoch": epoch, "model": model.state_dict(), "ema": ema.state_dict(),
             "optimizer": optimizer.state_dict(), "best_psnr": best_psnr}
    torch.save(state, os.path.join(out_dir, "latest.pth"))
    torch.save(ema.state_dict(), os.path.join(out_dir, f"ema_{epoch:04d}.pth"))
