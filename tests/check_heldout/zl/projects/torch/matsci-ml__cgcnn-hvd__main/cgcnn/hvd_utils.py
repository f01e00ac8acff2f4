import os
import shutil

import torch
import horovod.torch as hvd


def broadcast_state(model, optimizer, root=0):
    """Make every worker start from the root's weights and optimizer state."""
    hvd.broadcast_parameters(model.state_dict(), root_rank=root)
    hvd.broadcast_optimizer_state(optimizer, root=root)


def metric_average(val, name):
    return hvd.allreduce(torch.tensor(val), name=name).item()


def save_checkpoint(state, is_best, out_dir="checkpoints"):
    if hvd.rank() != 0:
        return
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "checkpoint.pth.tar")
    torch.save(state, path)
    if is_best:
        shutil.copyfile(path, os.path.join(out_dir, "model_best.pth.tar"))
