import os

import torch
import horovod.torch as hvd


def save(cfg, epoch, model, optimizer, scaler):
    if hvd.rank() != 0:
        return
    os.makedirs(cfg.out, exist_ok=True)
    torch.save({'epoch': epoch, 'model': model.state_dict(), 'optimizer': optimizer.state_dict(),
                'scaler': scaler.state_dict()}, os.path.join(cfg.out, 'ckpt_%03d.pt' % epoch))


def latest(cfg):
    if not os.path.isdir(cfg.out):
        return None
    files = sorted(f for f in os.listdir(cfg.out) if f.startswith('ckpt_'))
    return os.path.join(cfg.out, files[-1]) if files else None
