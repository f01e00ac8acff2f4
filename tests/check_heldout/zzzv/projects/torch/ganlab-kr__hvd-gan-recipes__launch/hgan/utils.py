import os

import torch
import horovod.torch as hvd


def sync_models(*pairs):
    """broadcast weights and optimizer state of every (model, optimizer) pair from rank 0"""
    for model, opt in pairs:
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)


def averaged(x, name):
    return hvd.allreduce(torch.as_tensor(x, dtype=torch.float32), name=name).item()


def save_snapshot(out_dir, step, G, D):
    if hvd.rank() != 0:
        return
    os.makedirs(out_dir, exist_ok=True)
    torch.save({"G": G.state_dict(), "D": D.state_dict(), "step": step},
               os.path.join(out_dir, "snapshot_%06d.pt" % step))
