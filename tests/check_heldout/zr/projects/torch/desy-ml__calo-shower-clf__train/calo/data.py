import glob
import os

import numpy as np
import torch
import horovod.torch as hvd


def rank_files(data_dir, split):
    """Round-robin the sorted shard files over ranks."""
    files = sorted(glob.glob(os.path.join(data_dir, split, "*.npz")))
    mine = files[hvd.rank()::hvd.size()]
    if not mine:
        raise RuntimeError(f"rank {hvd.rank()}: no {split} files (have {len(files)} for {hvd.size()} ranks)")
    return mine


class ShowerStream:
    """Iterates over this rank's shower files; every rank yields the same number of
    batches per epoch (the smallest over ranks) so the allreduces stay matched."""

    def __init__(self, files, batch_size, shuffle, seed=0):
        e, lab, w = [], [], []
        for f in files:
            d = np.load(f)
            e.append(np.log1p(d["energies"].astype(np.float32)))   # (N, 30, 30) cell energies
            lab.append(d["is_hadronic"].astype(np.float32))
            w.append(d["weight"].astype(np.float32))
        self.e, self.y, self.w = np.concatenate(e), np.concatenate(lab), np.concatenate(w)
        self.batch_size, self.shuffle, self.seed = batch_size, shuffle, seed
        local = torch.tensor(len(self.y) // batch_size)
        self.n_batches = int(hvd.allreduce(local, op=hvd.Min))
        self.epoch = 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __len__(self):
        return self.n_batches

    def __iter__(self):
        idx = np.arange(len(self.y))
        if self.shuffle:
            np.random.default_rng(self.seed + 1000 * self.epoch + hvd.rank()).shuffle(idx)
        for b in range(self.n_batches):
            j = idx[b * self.batch_size:(b + 1) * self.batch_size]
            yield (torch.from_numpy(self.e[j]).unsqueeze(1), torch.from_numpy(self.y[j]),
                   torch.from_numpy(self.w[j]))
