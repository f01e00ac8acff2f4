import os

import numpy as np
import torch
import horovod.torch as hvd


def metric_average(value, name):
    return hvd.allreduce(torch.tensor(value, dtype=torch.float32), name=name).item()


def gather_concat(array, name):
    """Stack every worker's rows (used for the dev-split AUROC)."""
    return hvd.allgather(torch.from_numpy(np.ascontiguousarray(array)), name=name).numpy()


def macro_auroc(scores, targets):
    aucs = []
    for k in range(targets.shape[1]):
        pos, neg = scores[targets[:, k] == 1, k], scores[targets[:, k] == 0, k]
        if len(pos) == 0 or len(neg) == 0:
            continue
        ranks = np.argsort(np.argsort(np.concatenate([pos, neg]))) + 1
        aucs.append((ranks[:len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))
    return float(np.mean(aucs)) if aucs else float("nan")


def save_weights(model, optimizer, epoch, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    torch.save({"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict()},
               os.path.join(out_dir, f"resnet1d_e{epoch:03d}.pt"))
