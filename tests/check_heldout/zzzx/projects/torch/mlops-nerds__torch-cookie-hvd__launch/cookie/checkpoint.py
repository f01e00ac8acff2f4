import glob
import os

import torch


def save_checkpoint(out_dir, epoch, model, optimizer, best_acc, keep=3):
    path = os.path.join(out_dir, 'ckpt_{:04d}.pt'.format(epoch))
    torch.save({'epoch': epoch,
                'model': model.state_dict(),
                'optimizer': optimizer.state_dict(),
                'best_acc': best_acc}, path)
    # rotate
    old = sorted(glob.glob(os.path.join(out_dir, 'ckpt_*.pt')))[:-keep]
    for f in old:
        os.remove(f)
    return path


def latest_checkpoint(out_dir):
    files = sorted(glob.glob(os.path.join(out_dir, 'ckpt_*.pt')))
    return files[-1] if files else None
