import os
import shutil

import torch
import horovod.torch as hvd


def save(ckpt_dir, model, optimizer, epoch, best, is_best):
    if hvd.rank() != 0:
        return
    os.makedirs(ckpt_dir, exist_ok=True)
    path = os.path.join(ckpt_dir, 'last.pt')
    torch.save({'model': model.state_dict(), 'optimizer': optimizer.state_dict(),
                'epoch': epoch, 'best': best}, path + '.tmp')
    os.replace(path + '.tmp', path)
    if is_best:
        shutil.copyfile(path, os.path.join(ckpt_dir, 'best.pt'))


def load_latest(ckpt_dir, model, optimizer, map_location=None):
    path = os.path.join(ckpt_dir, 'last.pt')
    if not os.path.exists(path):
        return None
    state = torch.load(path, map_location=map_location)
    model.load_state_dict(state['model'])
    optimizer.load_state_dict(state['optimizer'])
    return state
