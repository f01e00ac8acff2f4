import math

import horovod.torch as hvd


def is_root():
    return hvd.rank() == 0


def sync_model(model):
    """Copy rank 0's weights to everyone (works for buffers as well)."""
    state = hvd.broadcast_object(model.state_dict() if is_root() else None, root_rank=0, name='init_state')
    model.load_state_dict(state)


def gather_psnr(values):
    """values: list of per-image PSNR on this rank -> mean over every image of every rank."""
    everything = hvd.allgather_object(values, name='psnr')
    flat = [v for part in everything for v in part]
    return sum(flat) / max(len(flat), 1)


def psnr(pred, target, data_range=1.0):
    mse = ((pred - target) ** 2).mean().item()
    return 10 * math.log10(data_range ** 2 / max(mse, 1e-12))
