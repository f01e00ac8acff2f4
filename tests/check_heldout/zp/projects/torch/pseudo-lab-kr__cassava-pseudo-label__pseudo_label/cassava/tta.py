import numpy as np
import torch
import horovod.torch as hvd

FLIPS = {"none": lambda x: x, "hflip": lambda x: x.flip(3), "vflip": lambda x: x.flip(2)}


@torch.no_grad()
def predict_tta(model, dataset, device, tta=("none", "hflip"), batch_size=64):
    """Each worker scores a strided slice of `dataset`; slices are all-gathered
    so every worker returns the full (N, C) probability matrix in dataset order."""
    model.eval()
    mine = list(range(hvd.rank(), len(dataset), hvd.size()))
    probs = []
    for s in range(0, len(mine), batch_size):
        x = torch.stack([dataset[i][0] for i in mine[s:s + batch_size]]).to(device)
        p = sum(torch.softmax(model(FLIPS[t](x)), 1) for t in tta) / len(tta)
        probs.append(p.cpu().numpy())
    probs = np.concatenate(probs) if probs else np.zeros((0, 0), dtype=np.float32)
    out = None
    for idx, p in hvd.allgather_object((mine, probs)):
        if len(idx) == 0:
            continue
        if out is None:
            out = np.zeros((len(dataset), p.shape[1]), dtype=np.float32)
        out[idx] = p
    return out
