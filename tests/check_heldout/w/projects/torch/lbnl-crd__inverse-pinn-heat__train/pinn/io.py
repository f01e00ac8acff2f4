import os

import numpy as np
import torch
import horovod.torch as hvd


def load_observations(path):
    d = np.load(path)
    xyt = np.stack([d["x"], d["y"], d["t"]], axis=1).astype(np.float32)
    return torch.from_numpy(xyt), torch.from_numpy(d["u"].astype(np.float32)[:, None])


def save_checkpoint(out_dir, step, model, physics, optimizer):
    # one writer per node is enough; the other ranks only hold copies
    if hvd.local_rank() != 0:
        return
    os.makedirs(out_dir, exist_ok=True)
    torch.save({"step": step, "model": model.state_dict(), "physics": physics.state_dict(),
                "optimizer": optimizer.state_dict()}, os.path.join(out_dir, "pinn_latest.pt"))
