import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler


class AtomsNpz(Dataset):
    def __init__(self, path):
        raw = np.load(path)
        self.z = raw["Z"].astype(np.int64)
        self.pos = raw["R"].astype(np.float32)
        self.forces = raw["F"].astype(np.float32)
        self.energy = raw["E"].astype(np.float32)
        n = raw["N"]
        self.ptr = np.concatenate([[0], np.cumsum(n)])

    def __len__(self):
        return len(self.ptr) - 1

    def __getitem__(self, i):
        s = slice(self.ptr[i], self.ptr[i + 1])
        return self.z[s], self.pos[s], self.forces[s], self.energy[i]


def pack(items):
    zs, ps, fs, es = zip(*items)
    counts = [len(z) for z in zs]
    idx = np.repeat(np.arange(len(items)), counts)
    return dict(
        z=torch.from_numpy(np.concatenate(zs)),
        pos=torch.from_numpy(np.concatenate(ps)),
        forces=torch.from_numpy(np.concatenate(fs)),
        energy=torch.tensor(es),
        natoms=torch.tensor(counts, dtype=torch.float32),
        idx=torch.from_numpy(idx),
    )


def get_dataloaders(cfg, rank, world):
    tr, va = AtomsNpz(cfg.train_npz), AtomsNpz(cfg.val_npz)
    tr_s = DistributedSampler(tr, num_replicas=world, rank=rank, shuffle=True, seed=cfg.seed)
    va_s = DistributedSampler(va, num_replicas=world, rank=rank, shuffle=False)
    tr_dl = DataLoader(tr, batch_size=cfg.batch_size, sampler=tr_s, collate_fn=pack,
                       num_workers=cfg.workers, drop_last=True)
    va_dl = DataLoader(va, batch_size=cfg.batch_size, sampler=va_s, collate_fn=pack,
                       num_workers=cfg.workers)
    return tr_dl, va_dl
