import os

import numpy as np
import torch
import horovod.torch as hvd


def gradient_penalty(critic, real, fake):
    alpha = torch.rand(real.shape[0], 1, 1, device=real.device)
    mix = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    score = critic(mix)
    grad, = torch.autograd.grad(score.sum(), mix, create_graph=True)
    return ((grad.flatten(1).norm(dim=1) - 1) ** 2).mean()


def average_scalar(value, name):
    return hvd.allreduce(torch.tensor([float(value)]), name=name).item()


def save_checkpoint(path, **state):
    """Writes on rank 0 only; the other ranks return immediately."""
    if hvd.rank() != 0:
        return
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    torch.save({k: (v.state_dict() if hasattr(v, "state_dict") else v) for k, v in state.items()},
               path)


def save_samples(generator, z, path):
    if hvd.rank() != 0:
        return
    generator.eval()
    with torch.no_grad():
        x = generator(z).cpu().numpy()
    generator.train()
    np.save(path, x)
