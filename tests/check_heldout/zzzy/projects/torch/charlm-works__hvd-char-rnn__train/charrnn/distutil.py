import os

import torch
import horovod.torch as hvd


def setup(seed=1111):
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        torch.cuda.manual_seed(seed)
    # 2 workers per box share the cores
    torch.set_num_threads(max(1, (os.cpu_count() or 1) // hvd.local_size()))


def is_master():
    return hvd.rank() == 0


def global_mean(total, count, name):
    t = torch.tensor([float(total), float(count)], dtype=torch.float64)
    t = hvd.allreduce(t, op=hvd.Sum, name=name)
    return (t[0] / t[1]).item()


def save_checkpoint(model, optimizer, epoch, path):
    d = os.path.dirname(path)
    if d:
        os.makedirs(d, exist_ok=True)
    torch.save({'epoch': epoch, 'model': model.state_dict(),
                'optimizer': optimizer.state_dict()}, path)
