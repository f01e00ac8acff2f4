"""Pre-featurised crystal graphs (padded) produced by scripts/featurize_cifs.py."""
import numpy as np
import torch
from torch.utils.data import Dataset


class CrystalGraphNPZ(Dataset):
    def __init__(self, path, target="formation_energy_per_atom"):
        d = np.load(path)
        self.atom_fea = torch.from_numpy(d["atom_fea"].astype(np.float32))    # (S, A, F)
        self.nbr_fea = torch.from_numpy(d["nbr_fea"].astype(np.float32))      # (S, A, M, B)
        self.nbr_idx = torch.from_numpy(d["nbr_idx"].astype(np.int64))        # (S, A, M)
        self.mask = torch.from_numpy(d["atom_mask"].astype(np.float32))       # (S, A)
        self.y = torch.from_numpy(d[target].astype(np.float32)).view(-1, 1)
        self.mean, self.std = self.y.mean(), self.y.std()

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return (self.atom_fea[i], self.nbr_fea[i], self.nbr_idx[i], self.mask[i]), self.y[i]
